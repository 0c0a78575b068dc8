"""Ritson's automatic card balancer for Fifth Aeon (paper 004 §3), with sequential early stopping.

A *Target* card has one numeric parameter to set (energy cost, attack or life). For each value of a grid the
balancer plays a tournament by *full injection*: every one of the 10 standard AI decks gets 4 copies of the Target
(40 + 4 = 44 cards) and, separately, 4 copies of the *Goal* (Decapitate: 4 energy, 3 decay, kill target unit);
Target decks play Goal decks, DefaultAI on both sides, both seat orders. A value's score is |WR - 0.5| (WR: the
Target decks' win rate); the best value has the lowest score.

Games come in *rounds*: one round is every deck pairing in both seat orders (``pairing="all"``: 10 x 10 x 2 = 200
games, the thesis's "10^2 x 2"; ``"mirror"``: each deck against itself, 10 x 2 = 20, what the BTK code actually
plays). The thesis ran 10 rounds a value (2,000 games). With ``early_stop`` a value stops after any round at which
it clearly cannot be the best: the lower end of its score's confidence interval (Wilson, ``z``) lies above the
upper end of the best live value's. The values' rounds are played in parallel over ``workers`` processes or Ray
actors (``cardboard.jobs.backends``). Every game is a line of ``games.jsonl`` in the output folder, written by this
process only: a killed run resumes where it stopped (nothing lost or counted twice) and the answer does not depend
on ``workers`` or the backend. ``balance.png`` plots win rate and score against the parameter with
their intervals; ``balance.json`` holds the table.

    cardboard fifth-aeon-balance --card ten_ten --parameter energy --values 0:10 --out runs/balance-ten-ten
"""
from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from cardboard.envs.errors import CardDataError, InvalidParameterError
from cardboard.envs.files import errors_as, read_json
from cardboard.envs.fifth_aeon.cards import STANDARD_DECKS, Card, CardPool, Deck, bundled_pool, card_from_json, load_deck
from cardboard.envs.fifth_aeon.constants import BALANCER_REPETITIONS, GOAL_CARD, INJECTED_COPIES
from cardboard.envs.fifth_aeon.state import FifthAeonGame
from cardboard.jobs.backends import Backend, add_backend_arguments, backend_from, run_tasks
from cardboard.jobs.interrupts import track
from cardboard.jobs.intervals import error_bars, wilson_interval
from cardboard.jobs.resumable import claim_folder, read_lines

TARGET_ID = "BalancerTarget"
PARAMETERS = ("energy", "damage", "life")
STOP_Z = 2.576  # 99% intervals for the stopping rule (a value is dropped only when clearly not the best)


def _unit(damage: int, life: int, energy: int = 7, keywords: tuple[str, ...] = (), growth: int = 0) -> dict:
    return {"id": TARGET_ID, "name": "Balancer target", "card_type": "unit", "unit_type": "Human",
            "cost": {"energy": energy, "growth": growth}, "damage": damage, "life": life,
            "targeter": {"id": "Untargeted"}, "mechanics": [{"id": k} for k in keywords]}


# The thesis's test cards (004 §4.2-4.3; the BTK's testBalancer.ts): Human units with no faction requirement (the
# newest test file; an older one gave the 10/10 growth 6, which leaves it uncastable in most decks and its win rate
# flat at 50% for every cost, unlike the thesis's curve: ``ten_ten_growth6``).
TEST_CARDS: dict[str, dict[str, Any]] = {
    "ten_ten": _unit(10, 10),
    "ten_ten_growth6": _unit(10, 10, growth=6),
    "three_three": _unit(3, 3),
    "five_five_flyer": _unit(5, 5, keywords=("Flying",)),
    "relentless": _unit(5, 5, keywords=("Relentless",)),
    "decapitate_clone": {"id": TARGET_ID, "name": "Decapitate clone", "card_type": "spell",
                         "cost": {"energy": 4, "decay": 3}, "targeter": {"id": "SingleUnit"},
                         "mechanics": [{"id": "KillTarget", "trigger": "Play", "targeter": {"id": "SingleUnit"}}]},
    # the BTK's draw spell keeps a mandatory SingleUnit targeter: castable only with a unit on the board
    "draw_three": {"id": TARGET_ID, "name": "Draw three", "card_type": "spell", "cost": {"energy": 1},
                   "targeter": {"id": "SingleUnit"},
                   "mechanics": [{"id": "DrawCard", "trigger": "Play", "params": {"count": 3}}]},
    "draw_three_untargeted": {"id": TARGET_ID, "name": "Draw three", "card_type": "spell", "cost": {"energy": 1},
                              "targeter": {"id": "Untargeted"},
                              "mechanics": [{"id": "DrawCard", "trigger": "Play", "params": {"count": 3}}]},
}
THESIS_ANSWERS = {  # (card, parameter) -> the thesis's chosen value (004 §5.2.2-5.2.3)
    ("ten_ten", "energy"): 8, ("three_three", "energy"): 3, ("five_five_flyer", "energy"): 9,
    ("decapitate_clone", "energy"): 4, ("draw_three", "energy"): 1, ("ten_ten", "damage"): 6,
    ("three_three", "damage"): 9, ("five_five_flyer", "damage"): 3, ("relentless", "life"): 8,
}


def target_card(card: str | dict[str, Any] | Path, parameter: str, value: int) -> Card:
    """The Target with ``parameter`` set to ``value``: a ``TEST_CARDS`` name, a card dict, or a JSON file."""
    if parameter not in PARAMETERS:
        raise InvalidParameterError(f"parameter must be one of {PARAMETERS}, got {parameter!r}")
    source = None
    if isinstance(card, str) and card in TEST_CARDS:
        data = json.loads(json.dumps(TEST_CARDS[card]))
    elif isinstance(card, dict):
        data = json.loads(json.dumps(card))
    else:
        source = str(card)
        if not Path(card).exists():
            raise InvalidParameterError(f"unknown target card {source!r}: not one of {sorted(TEST_CARDS)} nor a "
                                        "file")
        with errors_as(CardDataError):
            data = read_json(card, what="card file")
        if not isinstance(data, dict):
            raise CardDataError(f"{source}: a card is a JSON object, as an entry of cards.json")
    data["id"] = TARGET_ID
    if parameter == "energy":
        data.setdefault("cost", {})["energy"] = value
    elif data.get("card_type") != "unit":
        raise InvalidParameterError(f"parameter {parameter!r} needs a unit target, got a {data.get('card_type')}")
    else:
        data[parameter] = value
    return card_from_json(data, source)


@dataclass(frozen=True)
class Setup:
    """One grid value's tournament: the pool with the Target and the injected deck lists."""

    pool: CardPool
    target_decks: tuple[Deck, ...]
    goal_decks: tuple[Deck, ...]
    pairs: tuple[tuple[int, int], ...]


def setup(target: Card, decks: tuple[str, ...] = STANDARD_DECKS, pairing: str = "all") -> Setup:
    if pairing not in ("all", "mirror"):
        raise InvalidParameterError(f"pairing must be 'all' or 'mirror', got {pairing!r}")
    pool = bundled_pool().with_cards([target])
    base = [load_deck(d, pool) for d in decks]
    n = len(base)
    pairs = tuple((i, j) for i in range(n) for j in range(n)) if pairing == "all" else tuple((i, i) for i in range(n))
    return Setup(pool, tuple(d.plus(TARGET_ID, INJECTED_COPIES) for d in base),
                 tuple(d.plus(GOAL_CARD, INJECTED_COPIES) for d in base), pairs)


@lru_cache(maxsize=1024)
def _game(s: Setup, pair: int, target_first: bool) -> FifthAeonGame:
    """The match-up of pairing ``pair`` in one seat order, with DefaultAI as its rollout policy (made once)."""
    i, j = s.pairs[pair]
    decks = (s.target_decks[i], s.goal_decks[j]) if target_first else (s.goal_decks[j], s.target_decks[i])
    return FifthAeonGame(decks, cards=s.pool, rollout="default_ai")


def play_game(s: Setup, pair: int, target_first: bool, seed: int) -> int:
    """One game of pairing ``pair``: 1 when the Target deck wins, 0 when it loses, -1 for a draw."""
    state = _game(s, pair, target_first).new_state(np.random.default_rng(seed))
    state.random_playout(np.random.default_rng(0))  # DefaultAI on both sides, compiled (deterministic)
    w = state.winner()
    if w is None:
        return -1
    return int((w == 0) == target_first)


def _settings(card: Any, parameter: str, pairing: str, seed: int) -> tuple:
    return card, parameter, pairing, seed


def _play_round(settings: tuple, item: tuple[int, int]) -> list[dict[str, Any]]:
    """Round ``rnd`` of one value (``item``: value, rnd): every pairing in both seat orders."""
    card, parameter, pairing, seed = settings
    value, rnd = item
    s = setup(target_card(card, parameter, value), pairing=pairing)
    out = []
    for k in range(len(s.pairs)):
        for first in (True, False):
            game_seed = int(np.random.SeedSequence([seed, value, rnd, k, int(first)]).generate_state(1)[0])
            out.append({"value": value, "round": rnd, "pair": k, "target_first": first,
                        "result": play_game(s, k, first, game_seed)})
    return out


def score_bounds(wins: float, n: int, z: float) -> tuple[float, float, float]:
    """(win rate, score lower bound, score upper bound) from the Wilson interval of the win rate."""
    lo, hi = wilson_interval(wins, n, z)
    rate = wins / n if n else 0.5
    low = 0.0 if lo <= 0.5 <= hi else min(abs(lo - 0.5), abs(hi - 0.5))
    return rate, low, max(abs(lo - 0.5), abs(hi - 0.5))


def balance(card: Any, parameter: str, values: list[int], out: Path, rounds: int = BALANCER_REPETITIONS,
            pairing: str = "all", early_stop: bool = True, workers: int = 1, seed: int = 0,
            quiet: bool = False, *, backend: Backend | None = None,
            on_saved: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Run (or resume) the search into ``out`` on ``backend`` (default: ``workers`` local processes); return the
    summary (also written to ``balance.json``). ``on_saved(n)``: ``n`` more games are in ``games.jsonl`` (first
    those already there)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not values or rounds < 1 or workers < 1:
        raise InvalidParameterError(f"need values, rounds >= 1 and workers >= 1; got {values}, {rounds}, {workers}")
    for v in values:
        target_card(card, parameter, v)  # a bad card or value fails here, before any game
    config = {"card": card if isinstance(card, (str, dict)) else str(card), "parameter": parameter,
              "values": list(values), "rounds": rounds, "pairing": pairing, "early_stop": early_stop, "seed": seed}
    claim_folder(out, config, "balancer run")
    games_path = out / "games.jsonl"
    # a round cut short by a kill is played again with the same seeds: its repeated games collapse by key
    done = list(read_lines(games_path, lambda r: (r["value"], r["round"], r["pair"], r["target_first"])).values())
    per_round = len(setup(target_card(card, parameter, values[0]), pairing=pairing).pairs) * 2
    results = {v: {} for v in values}
    for r in done:
        results[r["value"]].setdefault(r["round"], []).append(r)
    stopped: dict[int, int] = {}
    backend = backend or Backend("local", workers)
    if not isinstance(card, dict) and card not in TEST_CARDS:  # a card file: shipped to Ray workers
        card, card_file = str(card), [str(card)]
    else:
        card_file = []
    saved = on_saved or (lambda n: None)
    saved(len(done))
    start = time.perf_counter()
    with Progress(TextColumn("balancer"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                  TimeElapsedColumn(), disable=quiet) as progress, games_path.open("a") as sink:
        task = progress.add_task("games", total=len(values) * rounds * per_round, completed=len(done))

        def finish(records: list[dict[str, Any]]) -> None:
            played = results[records[0]["value"]]
            before = len(played.get(records[0]["round"], []))  # games of a round cut short, counted already
            played[records[0]["round"]] = records
            sink.write("".join(json.dumps(r) + "\n" for r in records))
            sink.flush()
            os.fsync(sink.fileno())
            saved(len(records) - before)
            progress.advance(task, len(records) - before)

        for rnd in range(rounds):
            live = [v for v in values if v not in stopped]
            todo = [(v, rnd) for v in live if len(results[v].get(rnd, [])) < per_round]
            run_tasks(backend, todo, _play_round, finish, setup=_settings, setup_args=(card, parameter, pairing, seed),
                      files=card_file)
            if early_stop:
                table = {v: _tally(results[v], rnd + 1) for v in live}
                bounds = {v: score_bounds(w, n, STOP_Z) for v, (w, n) in table.items()}
                best_upper = min(b[2] for b in bounds.values())
                for v in live:
                    if bounds[v][1] > best_upper:
                        stopped[v] = rnd + 1
                        progress.advance(task, (rounds - rnd - 1) * per_round)
    seconds = time.perf_counter() - start
    rows = []
    for v in values:
        wins, n = _tally(results[v], rounds)
        rate, _, _ = score_bounds(wins, n, 1.96)
        lo, hi = wilson_interval(wins, n)
        rows.append({"value": v, "games": n, "win_rate": rate, "ci": [lo, hi], "score": abs(rate - 0.5),
                     "stopped_after_round": stopped.get(v)})
    best = min(rows, key=lambda r: (r["score"], values.index(r["value"])))
    summary = {"config": config, "rows": rows, "best": best["value"], "games": sum(r["games"] for r in rows),
               "seconds_this_run": seconds, "full_games": len(values) * rounds * per_round}
    (out / "balance.json").write_text(json.dumps(summary, indent=1))
    plot(summary, out / "balance.png")
    return summary


def _tally(rounds_done: dict[int, list[dict[str, Any]]], upto: int) -> tuple[float, int]:
    """Target wins (a draw counts half) and games over rounds < ``upto``."""
    wins, n = 0.0, 0
    for rnd, records in rounds_done.items():
        if rnd < upto:
            for r in records:
                wins += 0.5 if r["result"] < 0 else r["result"]
                n += 1
    return wins, n


def plot(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["rows"]
    x = [r["value"] for r in rows]
    rate = np.array([r["win_rate"] for r in rows])
    err = error_bars(rate, [r["ci"][0] for r in rows], [r["ci"][1] for r in rows])
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(x, rate, yerr=err, marker="o", capsize=3, label="Target decks' win rate (95% CI)")
    ax.plot(x, np.abs(rate - 0.5), marker="s", linestyle="--", label="score |WR - 0.5|")
    ax.axhline(0.5, color="grey", linewidth=0.8)
    ax.axvline(summary["best"], color="red", linewidth=0.8, label=f"best: {summary['best']}")
    cfg = summary["config"]
    ax.set_xlabel(cfg["parameter"])
    ax.set_ylabel("win rate / score")
    ax.set_title(f"{cfg['card']}: {summary['games']} games")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def parse_values(text: str) -> list[int]:
    """``0:10`` (inclusive) or ``1,3,5``."""
    try:
        if ":" in text:
            a, b = (int(x) for x in text.split(":"))
            return list(range(a, b + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise InvalidParameterError(f"values are 'A:B' or a comma list of integers, got {text!r}") from None


SUMMARY = "paper 004's card balancer: full injection, DefaultAI, a grid over one parameter"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--card", default="ten_ten", help=f"a test card ({', '.join(TEST_CARDS)}) or a card JSON file")
    p.add_argument("--parameter", default="energy", choices=PARAMETERS)
    p.add_argument("--values", default="0:10", help="grid: 'A:B' inclusive or '1,3,5' (thesis: 0:10)")
    p.add_argument("--rounds", type=int, default=BALANCER_REPETITIONS, help="rounds a value (thesis: 10)")
    p.add_argument("--pairing", default="all", choices=("all", "mirror"))
    p.add_argument("--no-early-stop", action="store_true", help="play every round of every value")
    p.add_argument("--out", default="runs/fifth-aeon-balance")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="worker processes or Ray actors (the answer does not "
                   "depend on it)")
    add_backend_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace, console: Any) -> int:
    saved = track(args, args.out, "games")

    summary = balance(args.card, args.parameter, parse_values(args.values), Path(args.out), args.rounds,
                      args.pairing, not args.no_early_stop, seed=args.seed, quiet=args.quiet,
                      backend=backend_from(args), on_saved=saved)
    from rich.table import Table

    table = Table(args.parameter, "games", "Target win rate", "95% CI", "score", "stopped after round")
    for r in summary["rows"]:
        table.add_row(str(r["value"]), str(r["games"]), f"{r['win_rate']:.1%}",
                      f"{r['ci'][0]:.1%}-{r['ci'][1]:.1%}", f"{r['score']:.3f}", str(r["stopped_after_round"] or "-"))
    console.print(table)
    console.print(f"best {args.parameter}: {summary['best']} ({summary['games']} of {summary['full_games']} games, "
                  f"{summary['seconds_this_run']:.0f} s); balance.png and balance.json in {args.out}")
    return 0


if __name__ == "__main__":
    from cardboard.jobs.script import run_script

    raise SystemExit(run_script("python -m cardboard.evaluation.papers.p004_fifth_aeon.fifth_aeon_balancer", __doc__,
                                add_arguments, run))
