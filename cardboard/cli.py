"""The ``cardboard`` command line.

    cardboard games
    cardboard agents
    cardboard play lords_of_war --agents greedy,random --games 100 --seed 1 [--workers 4] [--results m.jsonl]
    cardboard tournament lords_of_war --agents greedy random greedy:samples=4 --games 20 --seed 1 \
        [--workers 4] [--out DIR]
    cardboard show lords_of_war --seed 1 [--agents greedy,random] [--open]
    cardboard compare a.jsonl b.jsonl [a2.jsonl b2.jsonl ...] [--range 200:400] [--confidence 0.95]

Agents are separated by commas or spaces; an agent's parameters follow a
colon as ``key=value`` pairs, also comma-separated (``greedy:samples=4,random``):
a token with '=' always belongs to the agent before it.

``play --results PATH`` appends each finished game to a JSONL file and resumes
from it when it exists (same game, options, agents and seed, or exit 2); more
``--games`` than the file was started with extends it.
``tournament`` plays every pair, prints Bradley–Terry ratings (as Elo, mean 0)
and the score matrix, and writes per-pair JSONL files, ``tournament.json`` and
``matrix.png`` to ``--out`` (default ``runs/tournaments/GAME-seedS``); run it
again with the same arguments to resume.
``compare`` pairs two ``play --results`` files of two agents against the same
opponent with the same seed (game i has the same deal in both) and prints
agent 0's score in each and their difference game by game, with its interval;
several pairs (e.g. one per deck) are also pooled.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from cardboard import registry
from cardboard.envs.errors import CardboardError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.evaluation.match import agent_score, play_match_specs, summarize, wilson_interval
from cardboard.evaluation.paired import compare_results, pool
from cardboard.evaluation.tournament import round_robin


def game_options(pairs: Sequence[str]) -> dict[str, object]:
    """Game options from ``--option KEY=VALUE`` pairs (a comma makes the value a list)."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq:
            raise CardboardError(f"--option {pair!r}: expected key=value")
        options[key] = value.split(",") if "," in value else value
    return options


def _two_agents(text: str, game) -> tuple:
    specs = registry.split_agent_specs(text)
    if len(specs) != 2:
        raise CardboardError(f"--agents needs exactly two agents, got {len(specs)}: {specs}")
    return tuple(registry.make_agent(spec, game) for spec in specs)


def _progress_columns() -> tuple:
    return (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[score]}"), TimeElapsedColumn(), TimeRemainingColumn())


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    options = game_options(args.option)
    game = registry.make_game(args.game, **options)
    agents = _two_agents(args.agents, game)
    wins = [0, 0, 0]
    with Progress(*_progress_columns(), console=console, disable=args.quiet) as progress:
        task = progress.add_task(f"{agents[0].name} vs {agents[1].name}", total=args.games, score="")

        def on_game(record) -> None:
            wins[{1.0: 0, 0.5: 1, 0.0: 2}[agent_score(record)]] += 1
            progress.update(task, advance=1, score=f"W/D/L {wins[0]}/{wins[1]}/{wins[2]}")

        records = play_match_specs(args.game, [a.name for a in agents], args.games, args.seed, game_options=options,
                                   workers=args.workers, results_path=args.results, on_game=on_game)
    summary = summarize((agents[0].name, agents[1].name), records)
    table = Table(title=f"{args.game}: {args.games} games, seed {args.seed}, seats swapped every game")
    for col in ("agent", "wins", "draws", "losses", "win rate (95% CI)", "ms / decision"):
        table.add_column(col, justify="right" if col != "agent" else "left")
    for k, (w, l) in enumerate(((summary.wins, summary.losses), (summary.losses, summary.wins))):
        lo, hi = wilson_interval(w, summary.games)
        table.add_row(summary.names[k], str(w), str(summary.draws), str(l),
                      f"{w / summary.games:.1%} ({lo:.1%}-{hi:.1%})", f"{1000 * summary.seconds_per_decision[k]:.3f}")
    console.print(table)
    console.print(f"mean game length: {summary.mean_turns:.1f} turns")
    seat_rates = [f"seat {k} {w / summary.games:.1%} ({lo:.1%}-{hi:.1%})"
                  for k, w in enumerate(summary.seat_wins) for lo, hi in [wilson_interval(w, summary.games)]]
    console.print(f"wins by seat, whoever sat there: {', '.join(seat_rates)}")
    return 0


def cmd_tournament(args: argparse.Namespace, console: Console) -> int:
    options = game_options(args.option)
    game = registry.make_game(args.game, **options)
    specs = registry.split_agent_specs(",".join(args.agents))
    for spec in specs:
        registry.make_agent(spec, game)  # fail early, before any game is played
    n = len(specs)
    out = args.out or f"runs/tournaments/{args.game}-seed{args.seed}"
    with Progress(*_progress_columns(), console=console, disable=args.quiet) as progress:
        task = progress.add_task("round robin", total=n * (n - 1) // 2 * args.games, score="")

        def on_game(pair, record) -> None:
            progress.update(task, advance=1, score=f"{specs[pair[0]]} vs {specs[pair[1]]}")

        result = round_robin(args.game, specs, args.games, args.seed, game_options=options, workers=args.workers,
                             out_dir=out, on_game=on_game)
    ratings = Table(title=f"{args.game}: round robin, {args.games} games per pair, seed {args.seed}")
    for col in ("rank", "agent", "Elo (BT)", "score", "games"):
        ratings.add_column(col, justify="left" if col == "agent" else "right")
    for rank, i in enumerate(result.ranking(), start=1):
        total = result.played[i].sum()
        ratings.add_row(str(rank), result.names[i], f"{result.elo[i]:+.0f}",
                        f"{result.points[i].sum() / max(total, 1):.1%}", str(int(total)))
    console.print(ratings)
    matrix = Table(title="score of row agent against column agent")
    matrix.add_column("agent")
    for name in result.names:
        matrix.add_column(name, justify="right")
    scores = result.scores
    for i, name in enumerate(result.names):
        matrix.add_row(name, *("-" if i == j else f"{scores[i, j]:.2f}" for j in range(n)))
    console.print(matrix)
    console.print(f"results and plot in {out}/ (matrix.png, tournament.json, pair_*.jsonl)", highlight=False)
    return 0


def cmd_show(args: argparse.Namespace, console: Console) -> int:
    game = registry.make_game(args.game, **game_options(args.option))
    agents = _two_agents(args.agents, game)
    rng = np.random.default_rng(args.seed)
    state = game.new_state(rng)
    last_turn = -1
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        if state.turn != last_turn:
            console.print(f"\n[bold]turn {state.turn}: player {state.current_player} ({agents[state.current_player].name})")
            last_turn = state.turn
        mover = state.current_player
        action = agents[mover].act(state, rng)
        console.print(f"  {state.action_to_string(action)}")
        state.apply(action)
        if state.turn != last_turn or state.is_terminal():
            console.print(game.render_ansi(state, None if args.open else mover), markup=False, highlight=False)
    console.print(f"returns: {state.returns().tolist()}")
    return 0


def game_range(text: str) -> tuple[int, int | None]:
    """``--range FIRST:STOP`` as (first, stop); either side may be empty (``200:`` is game 200 on)."""
    first, colon, stop = text.partition(":")
    try:
        if not colon:
            raise ValueError
        return int(first or 0), int(stop) if stop else None
    except ValueError:
        raise CardboardError(f"--range {text!r}: expected FIRST:STOP game indices, e.g. 200:400") from None


def cmd_compare(args: argparse.Namespace, console: Console) -> int:
    if len(args.files) % 2:
        raise CardboardError(f"compare takes pairs of results files (A B [A2 B2 ...]), got {len(args.files)} files")
    first, stop = game_range(args.range)
    pairs = [compare_results(a, b, first=first, stop=stop, confidence=args.confidence)
             for a, b in zip(args.files[::2], args.files[1::2])]
    level = f"{args.confidence:.1%}".replace(".0%", "%")
    table = Table(title=f"agent 0 of B minus agent 0 of A against the same opponent, paired by deal ({level})")
    for col in ("files A / B", "games", "A's score", "B's score", "B - A, points", "same outcome"):
        table.add_column(col, justify="left" if col.startswith("files") else "right", overflow="fold")
    rows = [(f"{a}\n{b}", pair) for a, b, pair in zip(args.files[::2], args.files[1::2], pairs)]
    if len(pairs) > 1:
        rows.append(("pooled, every game alike", pool(pairs)))
    for label, pair in rows:
        scores = [f"{pair.scores[k]:.1%} ({lo:.1%}-{hi:.1%})" for k in (0, 1) for lo, hi in [pair.score_interval(k)]]
        lo, hi = pair.interval
        table.add_row(label, str(pair.games), *scores, f"{100 * pair.difference:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})",
                      f"{pair.same_outcome}")
    console.print(table)
    for name, agents in (("A", {p.names[0] for p in pairs}), ("B", {p.names[1] for p in pairs}),
                         ("opponent", {p.opponent for p in pairs})):
        console.print(f"{name}: {', '.join(sorted(agents))}", highlight=False)
    return 0


def cmd_list(names: dict[str, str], console: Console) -> int:
    for name, summary in names.items():
        console.print(f"[bold]{name}[/bold]  {summary}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardboard", description="Card and board games for game-AI research.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games", help="list the games")
    sub.add_parser("agents", help="list the agents")
    for name, help_text in (("play", "play a match between two agents"),
                            ("tournament", "round robin between several agents, with ratings and a plot"),
                            ("show", "play one game and print it turn by turn")):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("game", help="a game name (see 'cardboard games')")
        if name == "tournament":
            p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                           help="agent specs separated by spaces or commas, e.g. 'greedy:samples=2 random greedy'")
        else:
            p.add_argument("--agents", default="random,random", help="two agent specs, e.g. 'greedy:samples=2,random'")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
        if name in ("play", "tournament"):
            p.add_argument("--games", type=int, default=100 if name == "play" else 20,
                           help="games per match" + (" (per pair)" if name == "tournament" else ""))
            p.add_argument("--workers", type=int, default=1, help="worker processes (results do not depend on it)")
            p.add_argument("--quiet", action="store_true", help="no progress bar")
        if name == "play":
            p.add_argument("--results", metavar="PATH", help="JSONL file of finished games; resumed when it exists")
        elif name == "tournament":
            p.add_argument("--out", metavar="DIR", help="output folder (default runs/tournaments/GAME-seedS)")
        elif name == "show":
            p.add_argument("--open", action="store_true", help="show both hands")
    p = sub.add_parser("compare", help="two agents' matches against the same opponent, paired game by game")
    p.add_argument("files", nargs="+", metavar="A B",
                   help="results files (from 'play --results') in pairs; B has the same game, options, seed "
                        "and opponent as A; several pairs are also pooled")
    p.add_argument("--range", default=":", metavar="FIRST:STOP", help="only games FIRST <= i < STOP (default all)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console()
    try:
        if args.command == "games":
            return cmd_list(registry.describe_games(), console)
        if args.command == "agents":
            return cmd_list(registry.describe_agents(), console)
        commands = {"play": cmd_play, "tournament": cmd_tournament, "show": cmd_show, "compare": cmd_compare}
        return commands[args.command](args, console)
    except CardboardError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        return 2


if __name__ == "__main__":
    sys.exit(main())
