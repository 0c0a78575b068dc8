"""The tree-search agents' knobs, typed and grouped: what each means, what it needs and what it cannot combine with.

Every knob of a spec (``ismcts:iterations=0,seconds=0.05,net=zoo:lords_of_war,root=1``) is declared once, in
``KNOBS``: its group (``GROUPS``: the search budget, the tree policy, the worlds, the network, pruning, parallelism,
final selection), its meaning (``cardboard agents -v`` prints them by group), the knobs it needs on and the knobs it
cannot be combined with. A knob is *on* when its value differs from its default (``hard_pruning``, read from
``prune``, is on for heuristic names). ``check(values, defaults)`` derives the errors from the declarations: the first
knob on whose needs are all off, or that meets a knob it clashes with, raises ``InvalidParameterError`` naming both.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..envs.errors import InvalidParameterError

GROUPS = ("search budget", "tree policy", "worlds", "network", "pruning", "parallelism", "final selection")


@dataclass(frozen=True)
class Knob:
    """One knob: its ``group`` and ``meaning``; ``needs``: knobs of which one must be on (``needs_text`` says so in
    an error); ``clashes``: knobs it cannot be combined with (``why``: the reason an error gives)."""

    group: str
    meaning: str
    needs: tuple[str, ...] = ()
    needs_text: str = ""
    clashes: tuple[str, ...] = ()
    why: str = ""


KNOBS: dict[str, Knob] = {
    # the search budget
    "iterations": Knob("search budget", "iterations per decision (0: no limit; then seconds must be set)"),
    "seconds": Knob("search budget", "time limit per decision (0: none)"),
    "turn": Knob("search budget", "iterations per turn spent with 001 3.3's policy (0: off; iterations and seconds "
                                  "unused)"),
    "policy": Knob("search budget", "turn-budget policy: one (one-search) or multiple (multiple-search)"),
    # the tree policy
    "c": Knob("tree policy", "UCB1 exploration constant on rewards in [0, 1]"),
    "depth": Knob("tree policy", "rollout length in player turns, then the game's heuristic (0: to the end of the "
                                 "game)"),
    "heuristic": Knob("tree policy", "value a new leaf by the game's heuristic, no rollout (1: on; depth must be 0)",
                      clashes=("depth", "net", "hlr"),
                      why="it values a new leaf by the game's heuristic alone: depth must be 0, no network"),
    "reuse": Knob("tree policy", "keep the chosen action's subtree for the next decision of the same turn"),
    "cnb": Knob("tree policy", "chance-node bucketing with pre-sampling, paper 001 2.6 (games with chance_bucket / "
                               "chance_samples)"),
    "compiled": Knob("tree policy", "run whole iterations compiled where the game offers compiled_model and the "
                                    "settings allow (search.compiled: the same trees as 0, faster)"),
    "gumbel": Knob("tree policy", "Gumbel policy improvement (search.gumbel; Danihelka et al. 2022): Gumbel-top-m root "
                                  "candidates, sequential halving of the iterations, completed-Q interior steps; the "
                                  "result's policy is the improved policy (1: on; with seconds, the simulations that "
                                  "fit are planned from the first round)",
                   clashes=("turn", "reuse", "parallel", "cnb", "hard_pruning", "root")),
    "m": Knob("tree policy", "with gumbel=1: root candidates sampled by Gumbel-top-k", needs=("gumbel",)),
    "cvisit": Knob("tree policy", "with gumbel=1: sigma's visit offset c_visit", needs=("gumbel",)),
    "cscale": Knob("tree policy", "with gumbel=1: sigma's scale c_scale", needs=("gumbel",)),
    # the worlds
    "worlds": Knob("worlds", "determinizations sampled once per decision"),
    "accuracy": Knob("worlds", "inference accuracy of the worlds, paper 001 3.6.1 (-1: off; games whose determinize "
                               "takes it)", clashes=("deckmodel",), why="both choose the worlds: use one"),
    "deckmodel": Knob("worlds", "hidden decklists: the worlds deal the opponent's unseen cards by uniform (the game's "
                                "model), oracle (the true list) or predict[:VARIANT] (a deck predictor's list); '': "
                                "the game's determinize"),
    # the network
    "net": Knob("network", "PolicyValueNet checkpoint guiding the search ('': none; then prior, value, netrollout, "
                           "cpuct unused)"),
    "prior": Knob("network", "with net: PUCT selection over the network's prior (with value=0: PUCT over rollouts)",
                  needs=("net",), needs_text="net=PATH"),
    "value": Knob("network", "with net: the network's value of the leaf, no rollout (depth must be 0; 0: rollouts "
                             "value it)", needs=("net",), needs_text="net=PATH"),
    "netrollout": Knob("network", "with net and value=0: rollouts sample the network's policy", needs=("net",),
                       needs_text="net=PATH"),
    "cpuct": Knob("network", "with net and prior=1 (or root=1), or vprior: PUCT's exploration constant",
                  needs=("net", "vprior"), needs_text="net=PATH or vprior=T"),
    "root": Knob("network", "with net: the network's prior at the root only (PUCT there, UCB1 and rollouts below: "
                            "search.root_prior; prior and value unused)", needs=("net",), needs_text="net=PATH"),
    "vnet": Knob("network", "leaf value network checkpoint (policies.value_net, search.leaf_value; zoo:NAME for a shipped "
                            "one; '': none): each leaf a rollout would value is valued by it, in the compiled loop",
                 clashes=("hlr", "heuristic", "gumbel", "parallel"),
                 why="the learned leaf value replaces their leaf values: UCB1 over rollouts, one tree; with net, only "
                     "its prior at the root (root=1)"),
    "mix": Knob("network", "with vnet: the network's share of a leaf's value, mix * network + (1 - mix) * rollout (1: "
                           "no rollout)", needs=("vnet",), needs_text="vnet=PATH"),
    "vprior": Knob("network", "with vnet: PUCT at every node over the net's policy head, a softmax at this temperature "
                              "(0: off, UCB1); cpuct is PUCT's constant", needs=("vnet",), needs_text="vnet=PATH",
                   clashes=("hard_pruning", "net"),
                   why="the learned prior replaces pruning's choice of moves and a network's prior at the root"),
    "vroll": Knob("network", "with vnet: rollout moves drawn from the net's policy head, a softmax at this temperature, "
                             "the net evaluated once a turn (paper 001's HLR idea; 0: off, the game's random playout)",
                  needs=("vnet",), needs_text="vnet=PATH"),
    "leaves": Knob("network", "leaves in flight per evaluator call, with virtual loss (1: one iteration after "
                              "another)"),
    "hlr": Knob("network", "card-play network checkpoint for paper 001's multi-level rollouts (Algorithm 5; '': none)"),
    "chi": Knob("network", "with hlr: chance of a low-level action when both kinds are available (001: 0.5)",
                needs=("hlr",), needs_text="hlr=PATH"),
    "device": Knob("network", "with net or hlr: the torch device the network runs on (cpu, cuda, cuda:N; with net, "
                              "server: this machine's inference server, a Ray actor: policies.inference_server)",
                   needs=("net", "hlr"), needs_text="a network: net=PATH or hlr=PATH"),
    # pruning
    "prune": Knob("pruning", "0: none; 1: step the tree over the game's sensible_actions (paper 001 2.5); h4 or h1+h4: "
                             "hard pruning to the top hpl moves by each of the game's evaluations named (paper 002)"),
    "hard_pruning": Knob("pruning", "on when prune names heuristics (not a spec parameter)"),
    "hpl": Knob("pruning", "with prune=NAMES: the hard pruning limit, moves kept per heuristic at each node"),
    "extrapolate": Knob("pruning", "with prune=NAMES: score a move after the mover's rest of the turn played at random "
                                   "(paper 002)"),
    # parallelism
    "parallel": Knob("parallelism", "parallel search, paper 000 ch. 4: none, root (worker processes, root statistics "
                                    "summed), tree (threads on one tree), leaf (threads run the rollouts)",
                     clashes=("turn", "reuse", "net", "hlr"),
                     why="tree reuse, turn budgets and networks are not parallelised"),
    "workers": Knob("parallelism", "with parallel: processes (root) or threads (tree, leaf); iterations are split "
                                   "statically among them"),
    "vl": Knob("parallelism", "with parallel=tree / leaf: virtual loss, visits counted while a simulation is in "
                              "flight (0: none)"),
    # final selection
    "final": Knob("final selection", "final-move selection, paper 000 2.6: robust, max, robust_rand, max_rand, "
                                     "robust_roulette, max_roulette"),
    "n": Knob("final selection", "with final=*_rand / *_roulette: choose among the top n children (0: all, roulettes "
                                 "only)"),
    "k": Knob("final selection", "with final=*_roulette: the exponent of visits or w/v"),
    "tune": Knob("final selection", "with a top-n final: 000 5.3.7's online tuner, n + 1 after a move of w/v > 0.5, "
                                    "else - 1, in [1, 10]"),
}


PRUNE_OFF, PRUNE_SENSIBLE = ("0", "", "False", "false"), ("1", "True", "true")  # a spec's prune: none, sensible_actions


def hard_pruning(prune: object) -> bool:
    """Whether a spec's ``prune`` names heuristics (hard pruning), not 0 / 1."""
    return str(prune).strip() not in PRUNE_OFF + PRUNE_SENSIBLE


def shown(name: str, value: Any) -> str:
    """A knob as a spec writes it."""
    if isinstance(value, bool):
        value = int(value)
    return f"prune={value}" if name == "hard_pruning" else f"{name}={value}"


def check(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
    """Refuse the first knob of ``values`` that is on (not its default) and needs a knob that is off, or meets a knob
    it clashes with (``InvalidParameterError`` naming both); knobs the spec's factory lacks are off."""
    on = {name for name, value in values.items() if name in KNOBS and name in defaults and value != defaults[name]}
    if hard_pruning(values.get("prune", "0")):
        on.add("hard_pruning")
    value = {**values, "hard_pruning": values.get("prune")}
    for name in sorted(on, key=list(KNOBS).index):
        knob = KNOBS[name]
        if knob.needs and not on.intersection(knob.needs):
            wanted = knob.needs_text or " or ".join(f"{n}=" for n in knob.needs)
            raise InvalidParameterError(f"{shown(name, value[name])} needs {wanted}")
        for other in knob.clashes:
            if other in on:
                reason = f" ({knob.why})" if knob.why else ""
                raise InvalidParameterError(f"{shown(name, value[name])} cannot be combined with "
                                            f"{shown(other, value[other])}{reason}")


def grouped(names: list[str]) -> list[str]:
    """``cardboard agents -v``'s lines for the knobs ``names``: a heading per group, then ``name: meaning``."""
    lines: list[str] = []
    for group in GROUPS:
        members = [n for n in names if n in KNOBS and KNOBS[n].group == group]
        if members:
            lines.append(f"{group}:")
            lines += [f"  {n}: {KNOBS[n].meaning}" for n in members]
    return lines
