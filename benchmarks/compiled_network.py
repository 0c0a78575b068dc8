"""Network-guided search at compiled speed (issue 32): the compiled driver against the Python path, same run.

Part 1, search: iterations per second of whole ISMCTS decisions of ``--iterations`` iterations on Lords of War
from the FIXED position of ``benchmarks/search.py``, network-guided as ``ismcts:net=PATH`` builds it
(``PUCT(1.25)`` prior + network value, ``depth=0``), the untrained default-size ``PolicyValueNet`` on the CPU,
torch at 1 thread (``--device cuda``: the network on the GPU). Rows ``python_leavesK``
(``SearchConfig(compiled=False)``: the Python path) and ``compiled_leavesK`` (``search.compiled_network``) for K
leaves in flight. Each row's time is split into:

- ``network``: inside the evaluator's forward passes (on the CPU the pass; on CUDA its launch and the wait for
  its answers; the copy into the staging memory is bookkeeping);
- ``descent``: compiled rows: the compiled descents (tree steps, world, observation and mask written);
  Python rows: the tree and the world in Python (everything that is not one of the others);
- ``observation``: Python rows: ``state.observation`` and ``state.action_mask`` for each leaf (compiled rows: in
  ``descent``, 0.3 µs a leaf measured alone);
- ``settle``: compiled rows: expansion with the prior and backup (Python rows: in ``descent``);
- ``bookkeeping``: the rest: the driver's Python between kernel calls, the request, the result.

Part 2, self-play: games per second of ``training.selfplay.play_many`` (the records self-play writes), spec
``ismcts:iterations=32,net=PATH[,leaves=K][,compiled=0]`` in both seats, one game at a time (games
0..``--seq-games``-1) and 64 in lock-step (games 0..63, ``batching.run_together``: whole rounds on the CPU, and on
a GPU two halves of 32 that alternate so that the network overlaps the searches; the ``_overlap`` / ``_rounds`` row
forces the other choice); "states/pass" is the mean number of states a forward pass evaluates
(``BatchedEvaluator.passes`` / ``states``).

Ratios are between rows of one run (this shared 2-core machine moves absolute rates by 2x).

Usage: ``.venv/bin/python benchmarks/compiled_network.py [--seconds 3] [--rounds 2] [--iterations 1000]
[--seq-games 4] [--skip-selfplay] [--json PATH]``
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from harness import machine, print_machine_and_notes, timing_arguments
from search import lords_of_war_position
from cardboard import registry
from cardboard.policies.evaluator import Pending
from cardboard.policies.net_agent import NetworkEvaluator, untrained_evaluator
from cardboard.policies.network import PolicyValueNet
from cardboard.search import compiled_network
from cardboard.search.mcts import SearchConfig, TreeSearch
from cardboard.search.strategies import PUCT
from cardboard.training.selfplay import play_many

LEAVES = (1, 8, 32)
SELFPLAY_ITERATIONS = 32
LOCK_STEP = 64
PARTS = ("network", "descent", "observation", "settle")


class Clock:
    """Seconds spent in each part, by wrapping the callables that do it."""

    def __init__(self):
        self.spent = dict.fromkeys(PARTS, 0.0)

    def wrap(self, part: str, function: Callable) -> Callable:
        def timed(*args, **kwargs):
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[part] += time.perf_counter() - began
        return timed


def search_rows(iterations: int, device: str) -> dict[str, Callable[[Clock], int]]:
    """Row name -> one decision's work (returns its iterations), its parts timed on the given clock."""
    state = lords_of_war_position()
    network = untrained_evaluator(state.info, device)
    rows = {}
    for compiled in (False, True):
        for leaves in LEAVES:
            def decide(clock: Clock, compiled=compiled, leaves=leaves, seed=[0]) -> int:
                evaluator = NetworkEvaluator(network, prior=True)
                seed[0] += 1
                config = SearchConfig(iterations=iterations, selection=PUCT(1.25), depth=0, evaluator=evaluator,
                                      leaves=leaves, compiled=compiled)
                with patched(network, evaluator, clock):
                    return TreeSearch(config, "ismcts").search(state, np.random.default_rng(seed[0])).iterations
            rows[f"{'compiled' if compiled else 'python'}_leaves{leaves}"] = decide
    return rows


class patched:
    """Times the network, the Python path's observations and the compiled driver's kernels on ``clock``."""

    def __init__(self, network, evaluator: NetworkEvaluator, clock: Clock):
        self.network, self.evaluator, self.clock = network, evaluator, clock

    def __enter__(self):
        self.saved = (self.network._forward_cpu, self.network._start, Pending.wait, compiled_network.prepare)
        if self.network.device.type == "cpu":  # a pass on the CPU: here or on the evaluator's thread
            self.network._forward_cpu = self.clock.wrap("network", self.network._forward_cpu)
        else:  # on CUDA: the launch and the wait for the answers
            self.network._start = self.clock.wrap("network", self.network._start)
            Pending.wait = self.clock.wrap("network", Pending.wait)
        submit = self.evaluator.submit
        self.evaluator.submit = self.clock.wrap("observation", submit)
        prepare, clock = self.saved[3], self.clock

        def timed_prepare(*args):
            found = prepare(*args)
            if found is None:
                return None
            return found._replace(run=found.run._replace(loop=clock.wrap("descent", found.run.loop)),
                                  settle=clock.wrap("settle", found.settle))
        compiled_network.prepare = timed_prepare
        return self

    def __exit__(self, *exc):
        self.network._forward_cpu, self.network._start, Pending.wait, compiled_network.prepare = self.saved


def measure_search(seconds: float, rounds: int, iterations: int, device: str) -> dict[str, dict]:
    rows = search_rows(iterations, device)
    totals = {name: {"iterations": 0, "seconds": 0.0, **dict.fromkeys(PARTS, 0.0)} for name in rows}
    for name, work in rows.items():
        work(Clock())  # warm-up: kernels loaded, torch's first pass
    for _ in range(rounds):
        for name, work in rows.items():
            clock, began, done = Clock(), time.perf_counter(), 0
            while time.perf_counter() - began < seconds / rounds:
                done += work(clock)
            row = totals[name]
            row["seconds"] += time.perf_counter() - began
            row["iterations"] += done
            for part in PARTS:
                row[part] += clock.spent[part]
    for row in totals.values():
        n = row["iterations"]
        row["it_per_s"] = n / row["seconds"]
        if row["observation"]:  # the Python path: its descent is everything but the network and the observations
            row["descent"] = row["seconds"] - row["network"] - row["observation"]
        row["bookkeeping"] = row["seconds"] - sum(row[part] for part in PARTS)
        for part in (*PARTS, "bookkeeping"):
            row[f"us_{part}"] = 1e6 * row[part] / n
    return totals


def measure_selfplay(seq_games: int, path: str, device: str) -> dict[str, dict]:
    game = registry.make_game("lords_of_war")
    out = {}
    rows = (("", 1, seq_games, None), (",compiled=0", 1, seq_games, None), ("", LOCK_STEP, LOCK_STEP, None),
            (",leaves=8", LOCK_STEP, LOCK_STEP, None), (",leaves=8", LOCK_STEP, LOCK_STEP, device == "cpu"),
            (",compiled=0", LOCK_STEP, LOCK_STEP, None), (",leaves=8,compiled=0", LOCK_STEP, LOCK_STEP, None))
    for knobs, concurrent, games, overlap in rows:
        on = "" if device == "cpu" else f",device={device}"
        spec = f"ismcts:iterations={SELFPLAY_ITERATIONS},net={path}{knobs}{on}"
        sets = [[registry.make_agent(spec, game) for _ in range(2)] for _ in range(concurrent)]
        queue = sets[0][0].searcher.config.evaluator.queue
        list(play_many(game, sets[:1], [games], seed=1))  # warm-up on another game
        passes, states, began, decisions = queue.passes, queue.states, time.perf_counter(), 0
        for _, records in play_many(game, sets, range(games), seed=0, overlap=overlap):
            decisions += len(records["action"])
        seconds = time.perf_counter() - began
        name = f"sp_{'seq' if concurrent == 1 else f'lockstep{concurrent}'}{knobs.replace(',', '_').replace('=', '')}"
        if overlap is not None:
            name += "_overlap" if overlap else "_rounds"
        out[name] = {"games": games, "seconds": seconds, "games_per_s": games / seconds,
                     "decisions_per_s": decisions / seconds,
                     "states_per_pass": (queue.states - states) / max(queue.passes - passes, 1)}
    return out


def main() -> None:
    parser = timing_arguments(__doc__.splitlines()[0], rounds=2)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seq-games", type=int, default=4)
    parser.add_argument("--skip-selfplay", action="store_true")
    parser.add_argument("--json", help="write every row to this file")
    parser.add_argument("--device", default="cpu", help="the network's torch device (cpu, cuda)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    console = Console()
    search = measure_search(args.seconds, args.rounds, args.iterations, args.device)
    table = Table(title=f"Network-guided ISMCTS, {args.iterations} iterations a decision, network on {args.device} "
                        "(µs per iteration)")
    for column in ("row", "it/s", "x python same leaves", "network", "descent", "observation", "settle",
                   "bookkeeping"):
        table.add_column(column, justify="left" if column == "row" else "right")
    for name, row in search.items():
        base = search[name.replace("compiled", "python")]["it_per_s"]
        table.add_row(name, f"{row['it_per_s']:,.0f}", f"{row['it_per_s'] / base:.2f}x",
                      *(f"{row[f'us_{part}']:.1f}" for part in (*PARTS, "bookkeeping")))
    console.print(table)
    result = {"machine": machine(["numpy", "numba", "torch"]), "search": search}
    if not args.skip_selfplay:
        with TemporaryDirectory() as folder:
            path = str(Path(folder) / "net.pt")
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(0)
                PolicyValueNet(registry.make_game("lords_of_war").info).save(path)
            selfplay = measure_selfplay(args.seq_games, path, args.device)
        table = Table(title=f"Self-play, ismcts:iterations={SELFPLAY_ITERATIONS},net=PATH in both seats")
        for column in ("row", "games", "games/s", "decisions/s", "states/pass", "x sp_seq"):
            table.add_column(column, justify="left" if column == "row" else "right")
        base = selfplay["sp_seq"]["games_per_s"]
        for name, row in selfplay.items():
            table.add_row(name, str(row["games"]), f"{row['games_per_s']:.2f}", f"{row['decisions_per_s']:.0f}",
                          f"{row['states_per_pass']:.1f}", f"{row['games_per_s'] / base:.2f}x")
        console.print(table)
        result["selfplay"] = selfplay
    print_machine_and_notes(console, result["machine"], [])
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
