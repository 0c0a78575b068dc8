"""Mutation check of ``search/``: would the search tests notice a plausible single-point bug?

Each entry of ``MUTATIONS`` is one such bug: a file of ``search/``, an exact text that occurs once in it,
the text that replaces it (and, for a bug in several places at once, ``more`` such edits), and what the change
breaks, starting with the function it is in where the name alone does not say. For each, the repository is
copied to a temporary folder, the mutation is applied to the copy only (this checkout is never written), and the
search tests run against the copy with a timeout. A mutation is *caught* when the tests fail (or time out, or the
test process dies of a signal: a mutated compiled kernel may write out of bounds).

numba's caches (``cache=True``, next to the sources) are copied with the sources, so only what a mutation changes
is compiled again. A cache is keyed by its own file's time stamp only, while a compiled function carries the code
of the compiled functions it calls from other modules (``core``'s tree operations in ``tree``, ``compiled`` and
``compiled_network``): so the caches of every module of the mutated
file's folder that imports it, directly or through another, are deleted in the copy as well.

The copy is made importable ahead of the installed editable package (whose finder sits at the end of
``sys.meta_path``, so a ``PYTHONPATH`` entry wins): ``pkg/cardboard/`` is a copy of the copy's
``cardboard/`` folder with symlinks ``envs``, ``search``, ``policies``, ``training`` and ``evaluation`` to
the copy's top-level folders, ``PYTHONPATH`` is ``pkg``, and ``PYTHONSAFEPATH=1`` keeps the copy's own
top-level ``cardboard/`` folder (no subpackages: those would come from the editable finder, i.e. from this
checkout) off ``sys.path``. Before the mutations run, three controls must hold: the copy's
``cardboard.search`` is the one imported, the unmutated copy passes, and a deliberately broken copy fails.

Usage::

    .venv/bin/python benchmarks/search_mutations.py [--jobs 2] [--timeout 240] [--only NAME ...]
        [--tests tests/test_search.py ...]

Prints one row per mutation (name, caught?, first failing test, what it breaks) and the score.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUBPACKAGES = ("envs", "search", "policies", "training", "evaluation")
# behaviour tests first: with -x the first failure names the test that caught the mutation
TESTS = ("tests/test_search_behaviour.py", "tests/test_search_wiring.py", "tests/test_search_strategies.py",
         "tests/test_search.py", "tests/test_chance_bucketing.py", "tests/test_turn_budget.py",
         "tests/test_search_golden.py", "tests/test_hlr.py", "tests/test_pruning.py", "tests/test_final_selection.py",
         "tests/test_parallel_search.py", "tests/test_compiled_search.py", "tests/test_compiled_network.py",
         "tests/test_rhea.py", "tests/test_time_budget.py", "tests/test_compiled_hearth.py",
         "tests/test_compiled_pandemic.py", "tests/test_gumbel.py", "tests/test_leaf_value.py",
         "tests/test_learned_policy.py")
# runs/: outputs, often large, possibly being written
IGNORED = shutil.ignore_patterns(".venv", ".git", ".pytest_cache", "*.egg-info", "runs")


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository root
    old: str  # must occur exactly once in the file
    new: str
    breaks: str
    more: tuple[tuple[str, str, str], ...] = ()  # further (file, old, new) edits of the same bug

    def edits(self) -> list[tuple[str, str, str]]:
        return [(self.file, self.old, self.new), *self.more]


MUTATIONS = [
    # ---- core.py: the tree operations every driver calls (tree.Node's kernels, compiled, compiled_network) -----
    # A bug here breaks the Python path and the compiled drivers alike, so the differential tests agree with it:
    # the behaviour tests of the Python path have to catch it.
    Mutation("avail-every-call", "search/core.py", "if stat[STAMP, e] != stamp:", "if True:",
             "mark_available: a key offered twice (or a retried step) counts as available twice, on every path"),
    Mutation("avail-never-stamped", "search/core.py",
             "        stat[STAMP, e] = stamp\n", "",
             "mark_available: the availability stamp is never written: duplicates and retries count twice"),
    Mutation("avail-counted-twice", "search/core.py", "stat[AVAIL, e] += 1.0", "stat[AVAIL, e] += 2.0",
             "mark_available: each availability counts two (UCB1's ln(avail), PUCT's sqrt(avail) inflated)"),
    Mutation("ucb-parent-visits", "search/core.py", "np.log(stat[AVAIL, e]) / visits",
             "np.log(stat[VISITS, edges[:n]].sum()) / visits",
             "pick_ucb1: UCB uses the parent's visits instead of the edge's availability"),
    Mutation("ucb-own-visits", "search/core.py", "np.log(stat[AVAIL, e]) / visits", "np.log(visits) / visits",
             "pick_ucb1: UCB's log term counts the edge's own visits"),
    Mutation("ucb-sign", "search/core.py", "stat[TOTAL, e] / visits + c *", "stat[TOTAL, e] / visits - c *",
             "pick_ucb1: exploration bonus subtracted"),
    Mutation("ucb-no-sqrt", "search/core.py", "np.sqrt(np.log(stat[AVAIL, e]) / visits)",
             "np.log(stat[AVAIL, e]) / visits", "pick_ucb1: UCB bonus without the square root"),
    Mutation("ucb-log10", "search/core.py", "np.sqrt(np.log(stat[AVAIL, e]) / visits)",
             "np.sqrt(np.log10(stat[AVAIL, e]) / visits)", "pick_ucb1: UCB with a base-10 logarithm"),
    Mutation("c-hardcoded", "search/core.py", "stat[TOTAL, e] / visits + c *", "stat[TOTAL, e] / visits + 0.7 *",
             "pick_ucb1: the exploration constant is ignored (0.7, the value every old test uses)"),
    Mutation("ucb-last-max", "search/core.py", "/ visits)\n        if value > best_value:",
             "/ visits)\n        if value >= best_value:",
             "pick_ucb1: UCB ties go to the last maximum, not the first (Python and compiled paths alike)"),
    Mutation("fresh-always-first", "search/core.py", "pick = int(u * n_fresh)", "pick = 0",
             "pick_ucb1: unvisited children tried in legal order, not at random"),
    Mutation("fresh-pick-over-all", "search/core.py", "pick = int(u * n_fresh)", "pick = int(u * n)",
             "pick_ucb1: random fresh pick scaled by all legal edges: skews the order, can fall through to UCB"),
    Mutation("fresh-includes-once-visited", "search/core.py", "if stat[VISITS, edges[i]] == 0.0:",
             "if stat[VISITS, edges[i]] <= 1.0:",
             "pick_ucb1: the unvisited-first rule counts once-visited edges among the fresh ones"),
    Mutation("fresh-last-one-by-ucb", "search/core.py", "if n_fresh > 0:", "if n_fresh > 1:",
             "pick_ucb1: a node's last unvisited edge goes through UCB1 (0 visits), not the unvisited-first rule"),
    Mutation("puct-parent-visits", "search/core.py", "np.sqrt(stat[AVAIL, e]) / (1.0 + visits)",
             "np.sqrt(stat[VISITS, edges[:n]].sum()) / (1.0 + visits)",
             "pick_puct: PUCT uses the parent's visits instead of the edge's availability"),
    Mutation("puct-unvisited-q-loss", "search/core.py", "if visits > 0.0 else first_play", "if visits > 0.0 else 0.0",
             "pick_puct: the first-play value of an unvisited edge is 0 (a loss) instead of the node's mean"),
    Mutation("puct-fpu-win", "search/core.py", "if visits > 0.0 else first_play", "if visits > 0.0 else 1.0",
             "pick_puct: the first-play value of an unvisited edge is 1 (a win): every edge tried before any revisit"),
    Mutation("puct-fpu-over-avail", "search/core.py", "seen += stat[VISITS, edges[i]]", "seen += stat[AVAIL, edges[i]]",
             "pick_puct: the first-play urgency divides the visited edges' total by their availability, not visits"),
    Mutation("puct-new-edge-no-prior", "search/core.py", "return 1.0 / n if how == PUCT_STEP",
             "return 0.0 if how == PUCT_STEP",
             "new_prior: a key first met after the node's expansion gets prior 0 under PUCT and Gumbel: never explored"),
    Mutation("prior-not-renormalised", "search/core.py", "out[i] = out[i] / total if total > 0.0 else 1.0 / n",
             "out[i] = out[i] if total > 0.0 else 1.0 / n",
             "prior_over: the evaluator's prior is not renormalised over the legal actions"),
    Mutation("prior-no-mass-zero", "search/core.py", "out[i] = out[i] / total if total > 0.0 else 1.0 / n",
             "out[i] = out[i] / total if total > 0.0 else 0.0",
             "prior_over: a prior with no mass on the legal actions gives them prior 0, not a uniform one"),
    Mutation("unit-values-no-offset", "search/core.py", "(np.float64(returns[q]) - lo) /", "np.float64(returns[q]) /",
             "unit_values: returns divided by the range without taking the lowest off (a draw scores 0, a win 1/2)"),
    Mutation("backup-root-player", "search/core.py", "values[node_player[path_node[j]]]", "values[node_player[0]]",
             "backup: every edge of the flat tree is credited with the root player's value (compiled drivers)"),
    Mutation("flat-new-edge-no-prior", "search/core.py", "stat[PRIOR, e] = new_prior", "stat[PRIOR, e] = 0.0",
             "flat_edges: an edge first made after its node's expansion gets prior 0, not new_prior"),
    Mutation("flat-prior-overwritten", "search/core.py", "if e == made and new_prior >= 0.0:", "if new_prior >= 0.0:",
             "flat_edges: every step overwrites the node's priors with new_prior (uniform), not only new edges'"),
    Mutation("flat-child-kinds-mixed", "search/core.py", "    child = edge_child[link, player]\n",
             "    child = edge_child[link, 0]\n",
             "child_of: nodes of different players under one edge are one node (the first player's)",
             more=(("search/core.py", "        edge_child[link, player] = child\n",
                    "        edge_child[link, 0] = child\n"),)),
    Mutation("flat-child-not-linked", "search/core.py", "        edge_child[link, player] = child\n", "",
             "child_of: a new node is never linked below its edge: each visit makes another"),
    # ---- tree.py: the Python driver's tree --------------------------------------------------------------------
    Mutation("uniform-not-consumed", "search/tree.py", "return self._left.pop()", "return self._left[-1]",
             "Uniforms.next: one uniform reused for every tree step of a search: a fixed expansion order"),
    Mutation("stale-tree-read", "search/tree.py", "if self.tree.generation != self.generation:", "if False:",
             "Node: a result's tree is read after its engine emptied it for a later search (another search's tree)"),
    Mutation("grouped-edges-shifted", "search/core.py", "return found[1][found[2][node]:found[2][node + 1]]",
             "return found[1][found[2][node]:found[2][node + 1] + 1]",
             "FlatTree.edges_of: a walk's grouped edges of a node take the next node's first edge"),
    Mutation("grouping-never-stale", "search/core.py", "if found is not None and found[0] == (n, int(self.counters[N_NODES])):",
             "if found is not None:", "FlatTree.edges_of: edges grouped before the tree grew answer after it"),
    Mutation("judged-memory-of-root", "search/pruning.py", "base = node * tree.num_keys", "base = 0",
             "memory_at: every node of a compiled search reads the root's pruning memory"),
    Mutation("stats-mean-over-avail", "search/tree.py",
             "np.divide(total, visits, out=np.zeros(len(edges)), where=visits > 0)",
             "np.divide(total, stat[AVAIL, edges], out=np.zeros(len(edges)), where=stat[AVAIL, edges] > 0)",
             "Node.stats: an edge's mean divides by its availability"),
    Mutation("backprop-skips-root", "search/loop.py",
             "backup(tree.stat, tree.node_player, nodes, edges, len(path),",
             "backup(tree.stat, tree.node_player, nodes[1:], edges[1:], len(path) - 1,",
             "back_up: backpropagation leaves out the root's edge (its reward): TreeSearch, tree-parallel search"),
    Mutation("multi-expansion", "search/loop.py", "break  # expansion", "pass  # expansion",
             "every fresh edge down the path is expanded in one iteration"),
    Mutation("tree-chance-uniform", "search/loop.py", "outcome = int(cfg.chance_sampler(state, rng))",
             "outcome = int(rng.choice(state.legal_actions()))",
             "tree chance nodes sampled uniformly instead of by probability"),
    Mutation("rollout-chance-uniform", "search/strategies.py", "state.apply(config.chance_sampler(state, rng))",
             "state.apply(int(rng.choice(state.legal_actions())))",
             "rollouts without a fast path sample chance uniformly"),
    Mutation("rollout-ignores-sampler", "search/strategies.py", "state.apply(config.chance_sampler(state, rng))",
             "state.apply(sample_chance(state, rng))",
             "rollouts without a fast path ignore the pluggable chance sampler"),
    Mutation("depth-plus-one-fast", "search/strategies.py", "playout(rng, max_turns=depth)",
             "playout(rng, max_turns=None if depth is None else depth + 1)",
             "fast-path rollouts run one turn too many before the evaluator"),
    Mutation("depth-off-by-one-slow", "search/strategies.py", "(limit is None or state.turn < limit)",
             "(limit is None or state.turn <= limit)",
             "rollouts without a fast path run one turn too many"),
    Mutation("evaluator-at-terminal", "search/loop.py",
             "return rewards(state) if state.is_terminal() else evaluation(",
             "return rewards(state) if config.depth is None else evaluation(",
             "the evaluator replaces the true result at a terminal reached within the depth"),
    Mutation("evaluator-unmapped", "search/core.py", "return (h + 1.0) / 2.0", "return h",
             "heuristic_unit: the heuristic evaluator leaves the heuristic in [-1, 1] (Python and compiled paths)"),
    Mutation("rewards-scale", "search/core.py", "lo) / (hi - lo), 0.0), 1.0)", "lo) / hi, 0.0), 1.0)",
             "unit_values: returns not mapped to [0, 1] (divided by the highest return, not the range), every path"),
    Mutation("reuse-ignores-observation", "search/mcts.py",
             "state.turn == turn and np.array_equal(state.observation(me), seen)", "state.turn == turn",
             "a kept subtree is reused where the observation differs"),
    Mutation("reuse-ignores-turn", "search/mcts.py", "node.player == me and state.turn == turn and",
             "node.player == me and", "a kept subtree is reused in another turn"),
    Mutation("stamp-restarts", "search/loop.py", "rule, run.stamp + done)", "rule, done)",
             "availability stamps restart each search: a kept subtree undercounts availability"),
    Mutation("duct-one-world", "search/worlds.py", "fixed[i % self.count].clone()", "fixed[0].clone()",
             "DUCT iterates on its first world only"),
    Mutation("duct-extra-world", "search/worlds.py",
             "for _ in range(self.count)]", "for _ in range(self.count + 1)]",
             "DUCT samples one world more than it uses"),
    Mutation("duct-worlds-when-reading", "search/loop.py", "if iterations != 0 or rule.offset else []",
             "if True else []", "a 0-iteration read-off of the tree still samples worlds"),
    Mutation("ismcts-cheats", "search/worlds.py",
             "        return determinizer(state, me, rng)\n", "        return state.clone()\n",
             "ISMCTS searches the true state"),
    Mutation("ismcts-wrong-observer", "search/worlds.py",
             "        return determinizer(state, me, rng)\n", "        return determinizer(state, 1 - me, rng)\n",
             "ISMCTS samples worlds from the opponent's information set"),
    Mutation("duct-wrong-observer", "search/worlds.py", "return [determinizer(state, me, rng)",
             "return [determinizer(state, 1 - me, rng)",
             "DUCT samples worlds from the opponent's information set"),
    Mutation("iterations-plus-one", "search/config.py", "done >= config.iterations", "done > config.iterations",
             "one iteration more than the budget"),
    Mutation("robust-first-tie", "search/final.py",
             "best = best[score[best, 1] == score[best, 1].max()]\n    return keys[int(best[rng.integers(len(best))])]",
             "best = best[score[best, 1] == score[best, 1].max()]\n    return keys[int(best[0])]",
             "RobustChild's remaining ties go to the first key, not at random"),
    Mutation("robust-no-mean", "search/final.py", "    best = best[score[best, 1] == score[best, 1].max()]\n", "",
             "RobustChild ignores the mean on a visit tie"),
    Mutation("max-child-visits", "search/final.py", "means = np.array([edges[k][1] for k in keys])",
             "means = np.array([edges[k][0] for k in keys])", "MaxChild picks by visits"),
    Mutation("default-final-max", "search/config.py", "final: FinalSelection = robust_child\n",
             "final: FinalSelection = max_child\n", "the default final move is MaxChild",
             (("search/config.py", "from .final import FinalSelection, robust_child",
               "from .final import FinalSelection, max_child, robust_child"),)),
    Mutation("result-unvisited", "search/config.py", "if k in actions and s[0] > 0}", "if k in actions}",
             "unvisited root edges enter the result's visits and the final choice"),
    Mutation("prune-ignored", "search/tree.py",
             "state.sensible_actions() if prune else state.legal_actions()",
             "state.legal_actions()", "moves: prune=True steps over every legal move"),
    Mutation("search-c-hardcoded", "search/loop.py", "selection.kernel, selection.constant(config),",
             "selection.kernel, 0.7,", "the engine passes c = 0.7 instead of the configured c"),
    Mutation("pimc-full-budget-each", "search/mcts.py",
             "iterations=base + (world < extra))", "iterations=self.config.iterations)",
             "PIMC gives every world the whole budget"),
    Mutation("pimc-drops-the-remainder", "search/mcts.py",
             "iterations=base + (world < extra))", "iterations=max(1, base))",
             "PIMC splits the budget by floor division and loses the remainder (30 over 4 worlds runs 28)"),
    Mutation("pimc-one-world-less", "search/mcts.py", "for world in range(min(self.num_worlds, self.config.iterations)):",
             "for world in range(min(self.num_worlds, self.config.iterations) - 1):", "PIMC searches one world fewer"),
    Mutation("pimc-more-worlds-than-iterations", "search/mcts.py",
             "for world in range(min(self.num_worlds, self.config.iterations)):",
             "for world in range(self.num_worlds):", "PIMC draws worlds it has no iteration for"),
    Mutation("rollout-ignores-custom-sampler", "search/strategies.py",
             "if config.chance_sampler is sample_chance else None", "",
             "a custom chance sampler is bypassed by the game's compiled playout"),
    Mutation("pimc-cheats", "search/mcts.py",
             "TreeSearch(sub, \"uct\").search(self.config.determinizer(state, me, rng), rng)",
             "TreeSearch(sub, \"uct\").search(state.clone(), rng)", "PIMC searches the true state"),
    Mutation("flat-mc-random-order", "search/mcts.py", "i = done % len(legal)", "i = int(rng.integers(len(legal)))",
             "flat MC picks root actions at random instead of round-robin"),
    # ---- priors and leaf evaluation (mcts.py) ------------------------------------------------------------
    Mutation("puct-prior-ignored", "search/loop.py", "leaf_prior(found.prior, self.legal)",
             "leaf_prior(None, self.legal)", "the evaluator's prior never reaches the leaf's PRIOR row"),
    Mutation("resumable-rollout-run-alone", "search/loop.py",
             'resumable = getattr(self.config.rollout, "steps", None) if self.config.depth != 0 else None',
             "resumable = None", "a resumable rollout runs to its end inside its iteration: no batching across leaves"),
    Mutation("rollout-answers-dropped", "search/loop.py", "leaf.advance(got, evaluator)",
             "leaf.advance([None] * len(got), evaluator)", "a waiting rollout is sent no answers"),
    Mutation("depth-zero-rolls-out", "search/loop.py", "if config.depth != 0 and not state.is_terminal():",
             "if not state.is_terminal():", "depth=0 rolls out before evaluating instead of evaluating the leaf"),
    # ---- chance.py: chance-node bucketing -----------------------------------------------------------
    Mutation("cnb-bucket-uniform", "search/chance.py", "drawn = int(sample_chance(state, rng))",
             "drawn = int(rng.choice([o for o, _ in state.chance_outcomes()]))",
             "CNB picks buckets from a uniform draw, not by probability"),
    Mutation("cnb-presample-uniform", "search/chance.py", "p=p / p.sum())]", "p=None)]",
             "pre-samples drawn uniformly within a bucket"),
    Mutation("cnb-with-replacement", "search/chance.py", "replace=False", "replace=True",
             "pre-samples drawn with replacement (duplicates)"),
    Mutation("cnb-one-more", "search/chance.py", "take = min(n, int(np.count_nonzero(p)))",
             "take = min(n + 1, int(np.count_nonzero(p)))", "one pre-sample more than N"),
    Mutation("cnb-first-presample", "search/chance.py",
             "return offered[int(rng.integers(len(offered)))] if len(offered) > 1 else offered[0]",
             "return offered[0]", "always the first pre-sample of a bucket"),
    Mutation("cnb-not-kept", "search/chance.py", "kept = presampled[key] = [", "kept = [",
             "pre-samples drawn afresh at every visit"),
    Mutation("cnb-bucketing-ignored", "search/loop.py", "if cfg.bucketing is None:", "if True:",
             "bucketing configured but never used in the tree"),
    # ---- turn_budget.py: 001's per-turn policies ----------------------------------------------------
    Mutation("turn-share-min", "search/turn_budget.py", "share = max(ALPHA_MULTIPLE * self.left,",
             "share = min(ALPHA_MULTIPLE * self.left,", "multiple-search share takes the smaller bound"),
    Mutation("turn-alpha-one", "search/turn_budget.py", "ALPHA_ONE * self.turn_iterations",
             "ALPHA_MULTIPLE * self.turn_iterations", "one-search's first search gets the multiple-search share"),
    Mutation("turn-path-through-chance", "search/turn_budget.py",
             "if world.current_player == CHANCE:\n            return False",
             "if world.current_player == CHANCE:\n            return True",
             "a one-search path through a random event is trusted"),
    Mutation("turn-psi-strict", "search/turn_budget.py", "return most_visited(node, state)[1] >= PSI",
             "return most_visited(node, state)[1] > PSI", "an edge of exactly PSI visits is not trusted"),
    # ---- pruning.py: paper 002's hard pruning -----------------------------------------------------------
    Mutation("prune-hpl-plus-one", "search/pruning.py",
             "mark_top(np.ascontiguousarray(row), u, n, self.limit, kept, top)",
             "mark_top(np.ascontiguousarray(row), u, n, self.limit + 1, kept, top)",
             "HardPruning.keep: each heuristic keeps one move more than HPL (the Python path only)",
             more=(("search/pruning.py", "top = np.empty(n), np.empty(self.limit, dtype=np.int64)",
                    "top = np.empty(n), np.empty(self.limit + 1, dtype=np.int64)"),)),
    Mutation("prune-ties-in-order", "search/pruning.py", "            fill_units(ties, u)\n",
             "            u[:] = 0.0\n",
             "HardPruning.keep: ties at the HPL cut-off go to the first legal moves, not at random (the Python path)"),
    Mutation("prune-first-heuristic-only", "search/pruning.py", "for row in np.asarray(scores, dtype=np.float64):",
             "for row in np.asarray(scores, dtype=np.float64)[:1]:",
             "HardPruning.keep: several heuristics keep only the first one's top HPL, not the union"),
    Mutation("prune-no-rejudge-new-key", "search/pruning.py",
             "if not memory.judged[ids].all() or not memory.kept[ids].any():", "if not memory.kept[ids].any():",
             "a world offering a move the node has not judged is not judged (its top never joins the kept set)"),
    Mutation("prune-exactly-hpl-scored", "search/pruning.py", "if n <= self.limit:", "if n < self.limit:",
             "a node with exactly HPL moves is scored (and draws) instead of keeping them all unscored"),
    Mutation("prune-extrapolate-ignored-fast", "search/pruning.py",
             "return fast(legal, self.names, self.extrapolate, rng)", "return fast(legal, self.names, False, rng)",
             "the game's compiled scoring is never asked to extrapolate"),
    Mutation("prune-extrapolate-ignored-generic", "search/pruning.py",
             "            if self.extrapolate:\n                finish_turn(after, mover, state.turn, rng)\n", "",
             "the generic clone/apply loop scores right after the move, ignoring extrapolation"),
    Mutation("finish-turn-into-next-turn", "search/pruning.py", "elif player == mover and state.turn == turn:",
             "elif player == mover:", "extrapolation plays on into the mover's next turn"),
    # ---- final.py: top-n rules, the tuner, the decision log ------------------------------------------------
    Mutation("topn-ties-not-random", "search/final.py", "tie = rng.random(len(keys))", "tie = np.zeros(len(keys))",
             "children level at the top-n cut are taken in key order, not at random"),
    Mutation("roulette-k-ignored", "search/final.py", "weight = value ** k", "weight = value",
             "the roulette's exponent k is ignored"),
    Mutation("robust-roulette-by-mean", "search/final.py",
             "by_visits = True  # RobustRoulette's ranking",
             "by_visits = False  # RobustRoulette's ranking",
             "RobustRoulette spins over the top n by mean (and by mean^k), not by visits"),
    Mutation("topn-worst-first", "search/final.py",
             "columns = (tie, -np.array([edges[k][1] for k in keys], dtype=float), -value)",
             "columns = (tie, -np.array([edges[k][1] for k in keys], dtype=float), value)",
             "the top-n by visits keeps the least visited children"),
    Mutation("tuner-wrong-way", "search/final.py", "step = TUNE_STEP if mean > TUNE_THRESHOLD else -TUNE_STEP",
             "step = -TUNE_STEP if mean > TUNE_THRESHOLD else TUNE_STEP",
             "the tuner narrows after a winning move and widens otherwise"),
    Mutation("tuner-no-upper-clamp", "search/final.py", "n=min(TUNE_MAX, max(TUNE_MIN, self.n + step))",
             "n=max(TUNE_MIN, self.n + step)", "the tuned n grows past 10"),
    Mutation("tuner-threshold-inclusive", "search/final.py", "if mean > TUNE_THRESHOLD else",
             "if mean >= TUNE_THRESHOLD else", "a chosen w/v of exactly 0.5 widens n"),
    Mutation("best-move-over-all-edges", "search/final.py",
             "visits = [stats[k][0] for k in keys if k in stats]",
             "visits = [s[0] for s in stats.values()]",
             "BestMove compares with every root edge, illegal ones (other worlds' moves) included"),
    Mutation("decision-mean-of-most-visited", "search/final.py",
             "return Decision(bool(chosen[0] == max(visits, default=0)), n, float(chosen[1]), cx)",
             "return Decision(bool(chosen[0] == max(visits, default=0)), n, "
             "float(max(stats.values())[1]), cx)",
             "the logged w/v is the most visited edge's, not the chosen move's"),
    # ---- compiled.py: whole iterations compiled, equal to the Python path -----------------------------------
    Mutation("compiled-ties-before-stream", "search/compiled.py",
             "            if extrapolate:\n                stream[0] = words[pos] | np.uint64(1)\n"
             "                pos += 1\n"
             "            evaluations_after(world, table, buf, n, which, extrapolate, stream, scores)\n"
             "            ties[0] = words[pos] | np.uint64(1)\n            pos += 1\n",
             "            ties[0] = words[pos] | np.uint64(1)\n            pos += 1\n"
             "            if extrapolate:\n                stream[0] = words[pos] | np.uint64(1)\n"
             "                pos += 1\n"
             "            evaluations_after(world, table, buf, n, which, extrapolate, stream, scores)\n",
             "a judgement draws the tie seed before the extrapolation seed (Python: after)"),
    Mutation("compiled-rewind-short", "search/compiled.py", "rewind(bits, saved, used + int(tree.counters[POS]))",
             "rewind(bits, saved, used)", "the generator is not advanced past the words of the last batch"),
    Mutation("compiled-stamp-per-call", "search/compiled.py", "stamp = stamp0 + done + 1", "stamp = stamp0 + 1",
             "_iterate: every iteration of a kernel call has one availability stamp: an edge counts available once a "
             "call, not once an iteration"),
    Mutation("compiled-judge-words-per-step", "search/compiled.py",
             "(pruning * (1 + extrapolate) + (chance_run > 0)) * steps",
             "pruning * (1 + extrapolate) + (chance_run > 0) * steps",
             "the word bound counts one judgement an iteration: a deep iteration can read past the words drawn"),
    Mutation("compiled-bound-no-rollout-word", "search/compiled.py",
             "words_needed = determinize_draws * ismcts + 1 + ", "words_needed = determinize_draws * ismcts + ",
             "_iterate: the word bound leaves out the rollout's stream seed"),
    Mutation("compiled-compaction-index", "search/compiled.py", "index[m] = i", "index[m] = m",
             "after pruning, the chosen kept key plays the move at its compacted position, not its own"),
    Mutation("compiled-ties-by-index", "search/core.py",
             "return row[i] > row[j] or (row[i] == row[j] and units[i] < units[j])", "return row[i] > row[j]",
             "_ahead (mark_top, hard pruning's cut on every path): ties at the cut-off by legal order, not by the tie "
             "stream"),
    Mutation("compiled-root-memory-all-kept", "search/pruning.py",
             "found.kept[tree.judge_key[mine & tree.judge_kept] - base] = True",
             "found.kept[tree.judge_key[mine] - base] = True",
             "memory_at: a compiled search's pruning memory reads every judged key as kept"),
    Mutation("compiled-c-hardcoded", "search/compiled.py", "i = pick_ucb1(stat, edges_of, m, n_fresh, c, x)",
             "i = pick_ucb1(stat, edges_of, m, n_fresh, 0.7, x)",
             "_iterate: the compiled UCB1 step uses c = 0.7, whatever the configured c"),
    Mutation("compiled-bind-turn-is-player", "search/compiled.py", "bind(kernels[6], turn_t)",
             "bind(kernels[5], turn_t)",
             "_iterate: the turn kernel's slot is bound to the player kernel's address (same type): depth-limited "
             "rollouts stop at the wrong turn"),
    Mutation("room-for-blocks-rounded-down", "search/compiled.py",
             "(steps - counters[LEFT] + BLOCK - 1) // BLOCK", "(steps - counters[LEFT]) // BLOCK",
             "room_for: the uniform blocks an iteration may draw are rounded down: it can read past its raw words"),
    Mutation("room-for-edges-one-step", "search/compiled.py",
             "counters[NEED_EDGES] = counters[N_EDGES] + steps * max_legal",
             "counters[NEED_EDGES] = counters[N_EDGES] + max_legal",
             "room_for: room for one step's new edges, not one per tree step: a deep iteration overruns the edges"),
    # ---- network-guided PUCT: compiled_network.py's driver and _settle, compiled._iterate's leaf mode ------------
    Mutation("net-settle-expands-twice", "search/compiled_network.py",
             "        if node_size[node] == 0:\n            if use_prior:",
             "        if True:\n            if use_prior:",
             "_settle: a second leaf at a node an earlier leaf of the batch expanded adds its prior again"),
    Mutation("net-settle-value-wrong-player", "search/compiled_network.py", "unit_values(values[w], lo, hi, v)",
             "unit_values(values[w][::-1], lo, hi, v)",
             "_settle: the network's values are backed up for the other player"),
    Mutation("net-root-not-alone", "search/compiled_network.py",
             "waiting == self.k or (waiting and tree.node_size[0] == 0)", "waiting == self.k",
             "NetworkLeaves.full: a root leaf waits for k - 1 more leaves instead of being expanded alone first"),
    Mutation("net-root-not-alone-descend", "search/compiled.py",
             "if waits and (n_path == 0 or counters[WAITING] == leaves):", "if waits and counters[WAITING] == leaves:",
             "_iterate's leaf mode: descents go on after the root became the leaf (more leaves at the unexpanded "
             "root)"),
    Mutation("net-uniform-not-drawn", "search/compiled.py", "x, pos = next_uniform(block, words, pos, counters)",
             "x, pos = next_uniform(block, words, pos, counters) if not leaves else (0.0, pos)",
             "_iterate's leaf mode: no uniform drawn per tree step: the generator is not where the Python path leaves "
             "it"),
    Mutation("net-observation-wrong-player", "search/compiled.py",
             "observation(world, table, player, observations[w])", "observation(world, table, me, observations[w])",
             "_iterate's leaf mode: the leaf's observation is written for the searching player, not the player to "
             "move there"),
    Mutation("net-mask-not-cleared", "search/compiled.py", "                masks[w, :] = False\n", "",
             "_iterate's leaf mode: a leaf's mask row keeps the legal actions of the row's earlier leaves"),
    Mutation("net-new-edge-no-prior", "search/compiled.py", "1.0 / m if leaves else -1.0", "-1.0",
             "_iterate's leaf mode: a key first met after its node's expansion gets prior 0 (the Python path: "
             "1 / legal)"),
    # ---- parallel.py: root / tree / leaf parallel search ----------------------------------------------------
    Mutation("root-merge-drops-first-tree", "search/parallel.py", "for stats in trees:", "for stats in trees[1:]:",
             "root parallelisation's merge leaves out tree 0"),
    Mutation("root-merge-avail-not-summed", "search/parallel.py", "(m[0] + n, m[1] + total, m[2] + avail)",
             "(m[0] + n, m[1] + total, avail)", "the merged availability is the last tree's, not the sum"),
    Mutation("root-full-budget-each", "search/parallel.py", "replace(self.config, iterations=share)",
             "replace(self.config, iterations=self.config.iterations)",
             "every root-parallel tree gets the whole budget"),
    Mutation("split-drops-remainder", "search/parallel.py", "return [base + (i < extra) for i in range(workers)]",
             "return [base for i in range(workers)]", "the static split loses the remainder"),
    Mutation("root-one-seed", "search/parallel.py", "enumerate(zip(shares, tree_seeds(rng, self.workers)))",
             "enumerate(zip(shares, tree_seeds(rng, 1) * self.workers))",
             "every root-parallel tree gets the same seed"),
    Mutation("vl-not-removed", "search/parallel.py", "back_up(self.root.tree, path, values, self.lock, 1 - self.vl)",
             "back_up(self.root.tree, path, values, self.lock, 1)", "backup adds a real visit without taking the virtual loss back"),
    Mutation("leaf-terminal-not-backed-up", "search/parallel.py",
             "                if world.is_terminal():\n                    tree.backup(path, rewards(world))\n",
             "                if world.is_terminal():\n                    pass\n",
             "leaf parallelisation drops the result of a path that ends the game in the tree"),
    Mutation("duct-first-world-only", "search/parallel.py",
             "fixed, stamp - 1)\n            path = tree.descend(", "fixed, 0)\n            path = tree.descend(",
             "tree / leaf DUCT iterate on the first world only",
             (("search/parallel.py", "fixed, stamp - 1)\n                path = tree.descend(",
               "fixed, 0)\n                path = tree.descend("),)),
    # ---- issue 32: what a search is given reaches what it does; time budgets --------------------------------
    Mutation("net-value-wrong-player", "search/loop.py", "                self.values = found.values\n",
             "                self.values = found.values[::-1]\n",
             "Leaf.settle: an evaluator's (a network's) values are backed up for the other player"),
    Mutation("rhea-rate-schedule-ignored", "search/rhea.py", "self.mutator.rate(generation, self.generations)",
             "self.mutator.rate_start", "RHEA.plan: every generation mutates at rate_start (no annealing)"),
    Mutation("hpl-plus-one-everywhere", "search/pruning.py", "if n <= self.limit:", "if n <= self.limit + 1:",
             "HardPruning.keep and the compiled loop's limit (compiled._Runner): every path keeps HPL + 1 moves, "
             "alike (so the Python / compiled differential tests agree)",
             more=(("search/pruning.py", "mark_top(np.ascontiguousarray(row), u, n, self.limit, kept, top)",
                    "mark_top(np.ascontiguousarray(row), u, n, self.limit + 1, kept, top)"),
                   ("search/pruning.py", "top = np.empty(n), np.empty(self.limit, dtype=np.int64)",
                    "top = np.empty(n), np.empty(self.limit + 1, dtype=np.int64)"),
                   ("search/compiled.py", "0 if pruning is None else pruning.limit,",
                    "0 if pruning is None else pruning.limit + 1,"))),
    Mutation("agent-c-default", "search/agents.py", "seconds=seconds or None, c=c,", "seconds=seconds or None,",
             "search_config: every agent's SearchConfig gets the default c, whatever the spec's c"),
    Mutation("tree-agent-c-hardcoded", "search/agents.py",
             "config = search_config(iterations, seconds, c, depth,",
             "config = search_config(iterations, seconds, 0.7, depth,",
             "_tree_agent: uct / ismcts / duct search with c = 0.7, whatever the spec's c"),
    Mutation("warm-up-skipped", "search/warm_up.py", "return self.config.seconds is not None and not self._warm",
             "return False", "WarmUp.warm_up: a first time-budgeted search spends its budget loading kernels"),
    # ---- gumbel.py: Gumbel search as a selection rule over the Python loop (issue 48) ---------------------------
    Mutation("gumbel-raw-value-last", "search/gumbel.py", "if leaf.node >= 0 and leaf.node not in self.raw:",
             "if leaf.node >= 0:", "GumbelRule.settled: a node's raw value is its latest evaluation, not its first"),
    Mutation("gumbel-root-world-reused", "search/gumbel.py", "    offset = 1  #", "    offset = 0  #",
             "GumbelRule: the first simulation plays the world the root's evaluation played"),
    Mutation("gumbel-interior-no-raw-value", "search/gumbel.py", "self.raw[node], stamp, visits)",
             "0.5, stamp, visits)", "GumbelRule.step: the interior step's v_mix ignores the node's evaluated value"),
    Mutation("gumbel-schedule-ignored", "search/gumbel.py", "int(stamp - self.first_stamp)", "0",
             "GumbelRule.step: every simulation reads the halving schedule's first entry"),
    Mutation("rhea-warm-up-skipped", "search/rhea.py", "if self.seconds and not self._warm:", "if False:",
             "RHEA.plan: a first time-budgeted plan spends its budget loading kernels"),
    Mutation("leaf-value-observer-me", "search/compiled.py", "observer = me if player == CHANCE else player",
             "observer = me", "_iterate: every leaf is observed by the searching player, not its player to move"),
    Mutation("leaf-value-mix-swapped", "search/compiled.py",
             "mix * learned_values[q] + (1.0 - mix) * values[q]", "(1.0 - mix) * learned_values[q] + mix * values[q]",
             "_iterate: the network gets the rollout's share"),
    Mutation("leaf-value-rollout-at-mix-1", "search/loop.py", "if learned.mix < 1.0:", "if True:",
             "PythonLoop.rolled_out: mix=1 still rolls out (and draws)"),
    Mutation("leaf-value-no-upper-clip", "search/leaf_value.py",
             "h = min(max(hidden1[i], np.float32(0.0)), np.float32(1.0))", "h = max(hidden1[i], np.float32(0.0))",
             "leaf_values: the first layer's ReLU is not clipped at 1 (torch's clamp)"),
    Mutation("leaf-value-seat-unrotated", "search/leaf_value.py", "values[(observer + k) % players] = relative[k]",
             "values[k] = relative[k]", "seat_values: the observer's values stay in seat order from seat 0"),
    Mutation("policy-temperature-ignored", "search/leaf_value.py", "out[i] = np.exp(min(max(z / temperature,",
             "out[i] = np.exp(min(max(z / 1.0,", "policy_weights: the softmax's temperature is ignored"),
    Mutation("policy-pick-last", "search/leaf_value.py", "        if acc > bound:\n            return i",
             "        if acc > bound and False:\n            return i",
             "pick_weighted: every draw takes the last legal move"),
    Mutation("prior-uniform", "search/compiled.py", "weights[i] = weights[i] / total if total > 0.0 else 1.0 / n",
             "weights[i] = 1.0 / n", "_iterate: a new node's learned prior is uniform"),
    Mutation("prior-edges-by-edge", "search/compiled.py",
             "by_node = leaves > 0 or prior_tau > 0.0", "by_node = leaves > 0",
             "_iterate: PUCT over a learned prior expands edges as UCB1 does"),
    Mutation("rollout-network-every-move", "search/compiled.py",
             "if player != last_player or turn != last_turn:", "if True:",
             "_learned_playout: the network's hidden layers every move, not once a turn"),
    Mutation("rollout-chance-word-kept", "search/compiled.py",
             "                stream[0] = saved\n", "",
             "_learned_playout: a fixed chance outcome still uses up a unit of the stream"),
    Mutation("rollout-limit-shadows-pruning", "search/compiled.py",
             "                turn_limit = max_turns + 1 if depth < 0 else turn_of(world) + depth\n",
             "                turn_limit = max_turns + 1 if depth < 0 else turn_of(world) + depth\n"
             "                limit = turn_limit\n",
             "_iterate: the rollout's turn limit overwrites the hard-pruning limit (a bug this change made once)"),
    Mutation("python-rollout-every-move", "search/leaf_value.py", "if (player, state.turn) != evaluated_for:", "if True:",
             "LearnedRollout: the network's hidden layers every move, not once a turn"),
]

SENTINEL = Mutation("sentinel", "search/mcts.py", "        me = state.current_player\n        if me < 0:",
                    "        raise RuntimeError('sentinel')\n        me = state.current_player\n        if me < 0:",
                    "every tree search raises (a control: must be caught)")


def prepare(dest: Path) -> tuple[Path, Path]:
    """Copy the repository to ``dest/repo`` and build ``dest/pkg/cardboard``; return (root, pkg)."""
    root = dest / "repo"
    shutil.copytree(REPO, root, ignore=IGNORED, symlinks=True)  # copy2 keeps mtimes: numba caches stay valid
    pkg = dest / "pkg"
    shutil.copytree(root / "cardboard", pkg / "cardboard")
    for sub in SUBPACKAGES:
        (pkg / "cardboard" / sub).symlink_to(root / sub, target_is_directory=True)
    return root, pkg


def mutated(root: Path, m: Mutation) -> dict[Path, str]:
    """The files under ``root`` that the mutation changes, with their mutated text; each old text must occur
    exactly once (in the file as its earlier edits leave it)."""
    texts: dict[Path, str] = {}
    for file, old, new in m.edits():
        path = root / file
        text = texts.get(path, path.read_text())
        if text.count(old) != 1:
            raise ValueError(f"{m.name}: the old text {old!r} occurs {text.count(old)} times in {file}, not once")
        texts[path] = text.replace(old, new)
    return texts


COMPILED = re.compile(r"^@(?:njit|jit|intrinsic)\b", re.MULTILINE)  # a module with numba-compiled functions


def importers(path: Path) -> set[Path]:
    """The modules of ``path``'s folder that import it (``from .name import``), directly or through each other, when
    ``path`` has compiled functions (else none: compiled code of other modules cannot carry its code)."""
    if not COMPILED.search(path.read_text()):
        return set()
    imports = {p: set(re.findall(r"^from \.(\w+) import", p.read_text(), re.MULTILINE))
               for p in path.parent.glob("*.py")}
    found: set[Path] = set()
    todo = [path.stem]
    while todo:
        stem = todo.pop()
        for p, names in imports.items():
            if stem in names and p not in found:
                found.add(p)
                todo.append(p.stem)
    return found


def apply(root: Path, m: Mutation) -> None:
    """Write the mutated files and drop the numba caches that would keep their old code (module docstring)."""
    for path, text in mutated(root, m).items():
        path.write_text(text)
        for module in importers(path):
            for cached in (module.parent / "__pycache__").glob(f"{module.stem}.*.nb[ic]"):
                cached.unlink()


def environment(pkg: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(pkg), "PYTHONSAFEPATH": "1"}


def run_tests(root: Path, pkg: Path, tests: list[str], timeout: float) -> tuple[str, str, float]:
    """(status, first failing test, seconds); status is 'pass', 'fail', 'timeout', 'crash' (killed by a signal) or
    'error' (pytest's own errors: a mutation that does not import, say)."""
    cmd = [sys.executable, "-m", "pytest", *tests, "-x", "-q", "-p", "no:cacheprovider", "--rootdir", str(root)]
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, cwd=root, env=environment(pkg), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "-", time.perf_counter() - start
    seconds = time.perf_counter() - start
    text = out.stdout + out.stderr
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", text, re.MULTILINE)
    status = {0: "pass", 1: "fail"}.get(out.returncode, "crash" if out.returncode < 0 else "error")
    return status, (failed[0] if failed else text.strip().splitlines()[-1] if text.strip() else "-"), seconds


def check_one(m: Mutation | None, tests: list[str], timeout: float) -> tuple[str, str, float]:
    with tempfile.TemporaryDirectory(prefix="search_mutation_") as tmp:
        root, pkg = prepare(Path(tmp))
        if m is not None:
            apply(root, m)
        return run_tests(root, pkg, tests, timeout)


def check_imports_the_copy(timeout: float) -> None:
    with tempfile.TemporaryDirectory(prefix="search_mutation_") as tmp:
        root, pkg = prepare(Path(tmp))
        probe = "import cardboard.search.mcts as m, cardboard.envs.protocol as p; print(m.__file__); print(p.__file__)"
        out = subprocess.run([sys.executable, "-c", probe], cwd=root, env=environment(pkg), capture_output=True,
                             text=True, timeout=timeout, check=True)
        files = out.stdout.split()
        if not files or not all(Path(f).resolve().is_relative_to(root.resolve()) for f in files):
            raise SystemExit(f"the copy is not the one imported: {files}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds per test run")
    parser.add_argument("--only", nargs="*", help="names of the mutations to run, in this order (default: all)")
    parser.add_argument("--tests", nargs="*", default=list(TESTS), help="test files, in order")
    args = parser.parse_args()
    tests = [t for t in args.tests if (REPO / t).exists()]
    by_name = {m.name: m for m in MUTATIONS}
    unknown = [name for name in args.only or () if name not in by_name]
    if unknown:
        raise SystemExit(f"no mutation named {', '.join(unknown)}")
    chosen = [by_name[name] for name in dict.fromkeys(args.only)] if args.only else MUTATIONS  # in the order given
    for m in chosen + [SENTINEL]:  # every old text must be found once before anything runs
        mutated(REPO, m)
    print(f"tests: {' '.join(tests)}", flush=True)
    check_imports_the_copy(args.timeout)
    with ThreadPoolExecutor(2) as pool:
        clean, sentinel = pool.map(lambda m: check_one(m, tests, args.timeout), [None, SENTINEL])
    print(f"controls: clean copy {clean[0]} ({clean[2]:.0f} s), sentinel {sentinel[0]} by {sentinel[1]}", flush=True)
    if clean[0] != "pass" or sentinel[0] != "fail":
        raise SystemExit(f"controls failed: clean {clean}, sentinel {sentinel}")
    width = max(len(m.name) for m in chosen)
    caught, survivors = 0, []
    with ThreadPoolExecutor(args.jobs) as pool:
        for m, (status, test, seconds) in zip(chosen, pool.map(lambda m: check_one(m, tests, args.timeout), chosen)):
            hit = status in ("fail", "timeout", "crash")
            caught += hit
            if status == "pass":
                survivors.append(m.name)
            verdict = {"fail": "caught", "timeout": "caught (timeout)", "crash": "caught (crash)", "pass": "SURVIVED",
                       "error": "ERROR"}[status]
            print(f"{m.name:<{width}}  {verdict:<16} {seconds:4.0f} s  {test if status != 'pass' else '-'}\n"
                  f"{'':<{width}}  {m.file}: {m.breaks}", flush=True)
    print(f"score: {caught} / {len(chosen)} caught; survived: {', '.join(survivors) or 'none'}")


if __name__ == "__main__":
    main()
