"""Search over the forward-model protocol: UCT, SO-ISMCTS, DUCT, PIMC, flat Monte Carlo and a rolling horizon EA.

``mcts`` holds the engine (``TreeSearch``: one tree policy over pluggable ``worlds``, chance sampler and
final-move selection; PIMC, flat Monte Carlo); ``config`` what a search is asked and hands back; ``plan`` which of
the two loops runs it, chosen once per engine and game: ``loop``'s Python descent or ``compiled``'s whole
iterations (``compiled_network``: its leaf mode for networks); ``final`` the final-move selections of paper 000's
play styles, their online tuner and the per-decision log; ``strategies`` the tree step (UCB1, PUCT), leaf
evaluation and rollout objects it takes (``gumbel``: Gumbel's selection rule); ``core`` and ``tree`` the flat tree,
its soft-key table and compiled tree steps;
``chance`` chance-node bucketing (CNB); ``pruning`` paper 002's hard pruning by the game's
heuristics; ``turn_budget`` 001 §3.3's per-turn time
policies (one-search, multiple-search); ``agents`` wraps each algorithm as an agent;
``rhea`` paper 003's (1+1) rolling horizon EA over turn-level plans, with its agent.
Importing this package registers the agents ``uct``, ``ismcts``, ``duct``, ``pimc``, ``mc`` and ``rhea``
(see ``cardboard.agents()`` and ``cardboard.make_agent``).
"""
from ..envs.registration import register_agent
from .agents import duct, flat_mc, ismcts, pimc, uct
from .rhea import rhea_agent

register_agent("mc", flat_mc, "flat Monte Carlo over determinizations")
register_agent("uct", uct, "UCT on the true state (perfect information / open mode)")
register_agent("ismcts", ismcts, "single-observer ISMCTS with availability counts")
register_agent("duct", duct, "determinized UCT: fixed worlds, pooled soft-key statistics")
register_agent("pimc", pimc, "one UCT tree per determinization, root votes added up")
register_agent("rhea", rhea_agent, "rolling horizon EA, (1+1) over turn-level plans (paper 003 4.3)")
