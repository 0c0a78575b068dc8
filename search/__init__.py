"""Search over the forward-model protocol: UCT, SO-ISMCTS, DUCT, PIMC and flat Monte Carlo.

``mcts`` holds the engine (one tree loop, pluggable worlds, chance sampler and
final-move selection); ``strategies`` the tree step (UCB1, PUCT), leaf evaluation and
rollout objects it takes; ``tree`` its nodes, soft-key table and compiled tree steps;
``chance`` chance-node bucketing (CNB); ``turn_budget`` 001 §3.3's per-turn time
policies (one-search, multiple-search); ``agents`` wraps each algorithm as an agent.
Importing this package registers the agents ``uct``, ``ismcts``, ``duct``, ``pimc`` and ``mc`` (see
``cardboard.agents()`` and ``cardboard.make_agent``).
"""
from ..envs.registration import register_agent
from .agents import duct, flat_mc, ismcts, pimc, uct

register_agent("mc", flat_mc, "flat Monte Carlo over determinizations")
register_agent("uct", uct, "UCT on the true state (perfect information / open mode)")
register_agent("ismcts", ismcts, "single-observer ISMCTS with availability counts")
register_agent("duct", duct, "determinized UCT: fixed worlds, pooled soft-key statistics")
register_agent("pimc", pimc, "one UCT tree per determinization, root votes added up")
