"""Paper 003's evaluation protocol: agents on the Pandemic testbed, per set-up win ratios and loss causes.

Every agent plays every seat (Pandemic is cooperative) on each testbed set-up (``S01`` .. ``S10`` by default,
the deck orders fixed by the set-up, 003 §3.1) ``--games`` times. Each finished game is one JSON line of
``<out>/<label>.jsonl``: set-up, game, won, turns, loss cause, the macro-actions chosen by kind, the stations
and 3-cube cities at the end. A killed run resumes (a line cut short is dropped and its game replayed), and
game ``g`` of set-up ``S`` draws from ``SeedSequence([seed, S, g])`` whatever the workers. At the end:
``summary.json`` (per agent and set-up: win ratio with a Wilson interval, mean length, loss causes, macro mix;
pooled figures; each agent's improvement over the first agent, per set-up and pooled) and two plots,
``win_rates.png`` (003 Fig. 5) and ``loss_causes.png`` (Fig. 6).

    python -m cardboard.evaluation.papers.p003_pandemic.pandemic_agents --out runs/pandemic \\
        --agent dp=pandemic_default \\
        --agent rhea=rhea:fitness=p_oa_cm,repair=pandemic_default,mutator=pandemic_mutator \\
        --games 100 --workers 2

Agents play the macro-action layer (``actions=macro``), as the paper's; ``--primitive`` plays the rules' own.
``--backend ray`` plays the games on a Ray cluster (``cardboard.jobs.backends``; the records are the same);
Ctrl-C prints the games saved and the command that resumes.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import cardboard
from cardboard.envs.pandemic import layout as L
from cardboard.envs.pandemic.macro import MACRO_KINDS, macro_kind
from cardboard.envs.pandemic.setup_file import BUNDLED_SETUPS
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.jobs.backends import Backend, add_backend_arguments, backend_from, run_tasks
from cardboard.jobs.interrupts import settings
from cardboard.jobs.intervals import error_bars, wilson_interval
from cardboard.jobs.resumable import read_lines
from cardboard.jobs.script import run_module

SETUPS = BUNDLED_SETUPS


def setup_key(setup: str) -> int:
    """The set-up's word in its games' seeds: a bundled set-up's index in ``SETUPS`` (as every earlier run
    seeded it), any other set-up file's 64-bit digest of its name (from 2**32 up, so never a bundled index):
    each set-up has its own streams, none shares another's deals."""
    if setup in SETUPS:
        return SETUPS.index(setup)
    return 2**32 + int.from_bytes(hashlib.sha256(setup.encode()).digest()[:8], "little")


def worker(spec: str, seed: int, actions: str) -> dict[str, Any]:
    """A worker's context for ``play_one``: the agent's settings and its agent per set-up, made on first use."""
    return {"spec": spec, "seed": seed, "actions": actions, "agents": {}}


def play_one(context: dict[str, Any], item: tuple[str, int]) -> dict[str, Any]:
    """One game (``item``: set-up, game index) of the context's agent in every seat: its record."""
    setup, game_index = item
    seed, actions, agents = context["seed"], context["actions"], context["agents"]
    game = cardboard.make_game("pandemic", setup=setup, actions=actions)
    if setup not in agents:
        agents[setup] = cardboard.make_agent(context["spec"], game)
    agent = agents[setup]
    agent.reset()
    streams = np.random.SeedSequence([seed, setup_key(setup), game_index]).spawn(2)
    chance, mind = (np.random.default_rng(s) for s in streams)
    state = game.new_state(chance)
    kinds: Counter[str] = Counter()
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, chance))
            continue
        action = agent.act(state, mind)
        if actions == "macro":
            kinds[macro_kind(action)] += 1
        state.apply(action)
    s = state.s
    three = int(sum(s[L.CUBES + c * L.NUM_COLOURS + k] == 3 for c in range(L.NUM_CITIES) for k in range(L.NUM_COLOURS)))
    return {"setup": setup, "game": game_index, "won": state.won(), "turns": state.turn + 1,
            "loss": state.loss_cause(), "macros": dict(kinds), "stations": int(s[L.STATION:L.STATION + L.NUM_CITIES].sum()),
            "three_cube_cities": three, "cured": int(s[L.CURED:L.CURED + L.NUM_COLOURS].sum()),
            "outbreaks": int(s[L.OUTBREAKS])}


def run_agent(label: str, spec: str, out: Path, setups: list[str], games: int, seed: int, workers: int,
              actions: str, progress: Any = None, *, backend: Backend | None = None,
              on_saved: Callable[[int], None] | None = None) -> list[dict]:
    """Play (or resume) ``spec`` on ``setups`` x ``games`` on ``backend`` (default: ``workers`` local processes);
    return its records. ``on_saved(n)``: ``n`` more games are in ``LABEL.jsonl`` (first those already there)."""
    path = out / f"{label}.jsonl"
    done = read_lines(path, lambda r: (r["setup"], r["game"]))  # cut lines dropped, the file rewritten
    todo = [(s, g) for s in setups for g in range(games) if (s, g) not in done]
    saved = on_saved or (lambda n: None)
    saved(len(setups) * games - len(todo))
    task = progress.add_task(label, total=len(setups) * games, completed=len(setups) * games - len(todo)) \
        if progress else None
    with path.open("a") as sink:

        def finish(record: dict[str, Any]) -> None:
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            os.fsync(sink.fileno())
            done[(record["setup"], record["game"])] = record
            saved(1)
            if progress:
                progress.advance(task)

        run_tasks(backend or Backend("local", workers), todo, play_one, finish, setup=worker,
                  setup_args=(spec, seed, actions), files=cardboard.registry.files_named([spec], {"setup": list(setups)}))
    return [done[(s, g)] for s in setups for g in range(games)]


def summarize(records: list[dict], setups: list[str]) -> dict[str, Any]:
    """Win ratio (Wilson), mean length, loss causes and macro mix, per set-up and pooled."""
    def block(rs: list[dict]) -> dict[str, Any]:
        wins = sum(r["won"] for r in rs)
        low, high = wilson_interval(wins, len(rs))
        losses = Counter(r["loss"] for r in rs if not r["won"])
        macros: Counter[str] = Counter()
        for r in rs:
            macros.update(r["macros"])
        total = sum(macros.values()) or 1
        return {"games": len(rs), "wins": wins, "win_ratio": wins / len(rs), "interval": [low, high],
                "mean_turns": float(np.mean([r["turns"] for r in rs])),
                "losses": {cause: losses.get(cause, 0) for cause in L.LOSS_NAMES[1:]},
                "macro_share": {k: macros.get(k, 0) / total for k in MACRO_KINDS},
                "mean_stations": float(np.mean([r["stations"] for r in rs])),
                "mean_three_cube_cities": float(np.mean([r["three_cube_cities"] for r in rs]))}
    return {"setups": {s: block([r for r in records if r["setup"] == s]) for s in setups}, "pooled": block(records)}


def improvement(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``other``'s win ratio over ``base``'s: per set-up (where base won any) and their mean, and pooled."""
    per = {s: other["setups"][s]["win_ratio"] / b["win_ratio"] - 1 for s, b in base["setups"].items()
           if b["win_ratio"] > 0}
    pooled = other["pooled"]["win_ratio"] / base["pooled"]["win_ratio"] - 1 if base["pooled"]["win_ratio"] else None
    return {"per_setup": per, "mean_per_setup": float(np.mean(list(per.values()))) if per else None,
            "pooled": pooled}


def plots(summary: dict[str, Any], setups: list[str], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = list(summary["agents"])
    fig, ax = plt.subplots(figsize=(max(6, len(setups)), 4))
    width = 0.8 / len(agents)
    for i, label in enumerate(agents):
        blocks = [summary["agents"][label]["setups"][s] for s in setups]
        x = np.arange(len(setups)) + i * width
        y = [b["win_ratio"] for b in blocks]
        err = error_bars(y, [b["interval"][0] for b in blocks], [b["interval"][1] for b in blocks])
        ax.bar(x, y, width, yerr=err, capsize=2, label=label)
    ax.set_xticks(np.arange(len(setups)) + 0.4 - width / 2, setups)
    ax.set_ylabel("win ratio (95% Wilson)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "win_rates.png", dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    bottom = np.zeros(len(agents))
    for cause in L.LOSS_NAMES[1:]:
        share = np.array([summary["agents"][a]["pooled"]["losses"][cause] /
                          max(1, summary["agents"][a]["pooled"]["games"] - summary["agents"][a]["pooled"]["wins"])
                          for a in agents])
        ax.bar(agents, share, bottom=bottom, label=cause)
        bottom += share
    ax.set_ylabel("share of lost games")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "loss_causes.png", dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation; 0, or 130 after Ctrl-C (the games saved, the command that resumes, printed)."""
    return run_module(__spec__.name, argv, arguments, _run)


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", action="append", required=True, metavar="LABEL=SPEC",
                        help="an agent to evaluate (repeatable); the first is the baseline of the improvements")
    parser.add_argument("--out", default="runs/pandemic-agents")
    parser.add_argument("--setups", nargs="+", default=list(SETUPS))
    parser.add_argument("--games", type=int, default=100, help="games per set-up (paper: 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="worker processes or Ray actors")
    add_backend_arguments(parser)
    parser.add_argument("--primitive", action="store_true", help="play the primitive actions, not macro-actions")
    parser.add_argument("--quiet", action="store_true")
    return parser.parse_args(argv)


def _run(args: argparse.Namespace, saved: Callable[[int], None]) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.table import Table

    agents = dict(a.split("=", 1) for a in args.agent)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    actions = "primitive" if args.primitive else "macro"
    config = settings(args)
    summary: dict[str, Any] = {"config": config | {"agents": agents}, "agents": {}}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    backend = backend_from(args)


    with Progress(*columns, disable=args.quiet) as progress:
        for label, spec in agents.items():
            records = run_agent(label, spec, out, args.setups, args.games, args.seed, args.workers, actions, progress,
                                backend=backend, on_saved=saved)
            summary["agents"][label] = summarize(records, args.setups) | {"spec": spec}
    labels = list(agents)
    for label in labels[1:]:
        summary["agents"][label]["improvement_over_" + labels[0]] = improvement(summary["agents"][labels[0]],
                                                                                summary["agents"][label])
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    plots(summary, args.setups, out)
    table = Table("agent", *args.setups, "pooled", "mean turns", "losses o/c/d")
    for label in labels:
        a = summary["agents"][label]
        p = a["pooled"]
        table.add_row(label, *(f"{a['setups'][s]['win_ratio']:.0%}" for s in args.setups),
                      f"{p['win_ratio']:.1%} ({p['interval'][0]:.1%}-{p['interval'][1]:.1%})", f"{p['mean_turns']:.1f}",
                      "/".join(str(p["losses"][c]) for c in L.LOSS_NAMES[1:]))
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
