"""The ``cardboard`` command line.

    cardboard games [-v]
    cardboard agents [-v]                   (also the shipped models: cardboard.policies.zoo)
    cardboard play lords_of_war --agents greedy,random --games 100 --seed 1 [--workers 4] [--results m.jsonl]
    cardboard tournament lords_of_war --agents greedy random greedy:samples=4 --games 20 --seed 1 \
        [--workers 4] [--out DIR]
    cardboard show lords_of_war --seed 1 [--agents greedy,random] [--open]
    cardboard compare a.jsonl b.jsonl [a2.jsonl b2.jsonl ...] [--range 200:400] [--confidence 0.95]
    cardboard COMMAND ...                   (every registered command: cardboard --help lists them)

The commands above are this module's. The others are registered by their owners
(``cardboard.registry.commands``: the ``cardboard.commands`` entry points and
``register_command``): training's (``selfplay``, ``train``, ``expert-iteration``,
``train-ppo``), the papers' (``cardboard.evaluation.papers``) and any plugin's.
This module imports no game and no paper.

Agents are separated by commas or spaces; an agent's parameters follow a
colon as ``key=value`` pairs, also comma-separated (``greedy:samples=4,random``):
a token with '=' always belongs to the agent before it. ``play`` and ``show``
take one agent per seat of the game (one spec for a cooperative game plays every seat); ``--rotation cyclic|permutations`` says
who sits where in each game (``evaluation.match``).

``play`` prints every agent's mean return with its interval, plus, by the kind
of game: win / draw / loss and seat win rates (two-player zero-sum), the team's
win rate (cooperative) or rank scores (other competitive games).
``play --results PATH`` appends each finished game to a JSONL file and resumes
from it when it exists (same game, options, agents, seed and rotation, or exit
2); more ``--games`` than the file was started with extends it.
``tournament`` plays every N-combination of the agents (every pair for a
two-player game), prints Bradley–Terry ratings (as Elo, mean 0; none for a
cooperative game, whose agents are ranked by mean return) and the pairwise
matrix, and writes per-match JSONL files, ``tournament.json`` and
``matrix.png`` to ``--out`` (default ``runs/tournaments/GAME-seedS``); run it
again with the same arguments to resume.
Ctrl-C stops ``play`` and ``tournament`` at once (exit code 130), keeping the
finished games and printing the command that resumes them.
``show`` plays and prints game 0 of ``play`` with the same seed and agents
(the same seats and random streams).
``compare`` pairs two ``play --results`` files of two agents against the same
opponent with the same seed (game i has the same deal and chance in both) and
prints agent 0's score in each and their difference game by game, with its
interval; several pairs (e.g. one per deck) are also pooled.
"""
from __future__ import annotations

import argparse
import math
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from numba.core.dispatcher import Dispatcher
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from cardboard import registry
from cardboard.envs.errors import CardboardError, InvalidParameterError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.registration import Entry
from cardboard.envs.view import result_line
from cardboard.evaluation.cluster import on_backend
from cardboard.evaluation.match import agent_score, play_match_specs, summarize
from cardboard.jobs.backends import add_backend_arguments, backend_from
from cardboard.jobs.interrupts import interrupted
from cardboard.jobs.intervals import wilson_interval
from cardboard.jobs.seats import ROTATIONS
from cardboard.jobs.seeds import game_streams
from cardboard.jobs.worker_pool import limit_torch_threads
from cardboard.evaluation.paired import compare_results, pool
from cardboard.evaluation.tournament import check_tournament, round_robin
from cardboard.policies import zoo


def _agents(text: str | None, game) -> list:
    """One agent per seat of ``game`` from ``--agents`` (``None``: random in every seat; one spec for a
    cooperative game: that agent in every seat)."""
    seats = game.info.num_players
    specs = registry.split_agent_specs(text) if text is not None else ["random"] * seats
    if len(specs) == 1 and game.info.utility == "cooperative":
        specs = specs * seats
    if len(specs) != seats:
        raise CardboardError(f"--agents: game {game.info.name!r} has {seats} seats, so it needs {seats} agents; "
                             f"got {len(specs)}: {specs}")
    return [registry.make_agent(spec, game) for spec in specs]


def _progress_columns() -> tuple:
    return (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[score]}"), TimeElapsedColumn(), TimeRemainingColumn())


def _rate(successes: int, games: int) -> str:
    lo, hi = wilson_interval(successes, games)
    return f"{successes / games:.1%} ({100 * lo:.1f}-{100 * hi:.1f}%)"


def _mean(estimate, sign: str = "+") -> str:
    return f"{estimate.value:{sign}.2f} ± {(estimate.high - estimate.low) / 2:.2f}"


def _check_run(args: argparse.Namespace) -> None:
    """Refuse a bad --games, --workers or --seed before any progress display opens."""
    for flag, value, least in (("--games", args.games, 1), ("--workers", args.workers, 1), ("--seed", args.seed, 0)):
        if value < least:
            raise InvalidParameterError(f"{flag} must be at least {least}, got {value}")


def _kernels_cold(game_name: str) -> bool:
    """Whether no numba kernel of the game's package is cached yet (they compile on first use, about a minute);
    asked before the game is first built, which may compile one."""
    package = registry.game_entry(game_name).factory.__module__.rpartition(".")[0] + "."
    kernels = [value for name, module in list(sys.modules.items()) if name.startswith(package)
               for value in vars(module).values()
               if isinstance(value, Dispatcher) and value.py_func.__module__ == name
               and hasattr(value._cache, "_cache_file")]  # a cached kernel; its index file: numba's cache locator
    return bool(kernels) and not any(Path(k._cache._cache_file._index_path).exists() for k in kernels)


def _announce_compile(args: argparse.Namespace, cold: bool) -> None:
    """One line on stderr (none with --quiet) when a cold cache will make the first game slow."""
    if cold and not args.quiet:
        Console(stderr=True).print(f"compiling the {args.game} kernels (first use only, about a minute)...",
                                   highlight=False)


def _tournament_dir(args: argparse.Namespace) -> str:
    return args.out or f"runs/tournaments/{args.game}-seed{args.seed}"


def _interrupted(args: argparse.Namespace, console: Console) -> int:
    """Ctrl-C: what was saved where and how to resume (``cardboard.jobs.interrupts``); exit code 130."""
    if args.command == "play":
        args.saved_in = args.results
    elif args.command == "tournament":
        args.saved_in = _tournament_dir(args)
    return interrupted(args, console, args.command_line)


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    _check_run(args)
    options = registry.parse_game_options(args.option)
    cold = _kernels_cold(args.game)
    game = registry.make_game(args.game, **options)
    info = game.info
    backend = backend_from(args)
    with on_backend(backend):  # on Ray: joined before the agents are built (device=server)
        specs = [agent.name for agent in _agents(args.agents, game)]
        limit_torch_threads(args.torch_threads)  # games played here (one worker, or a human) use this process's torch
        _announce_compile(args, cold)
        humans = [k for k, spec in enumerate(specs) if registry.parse_agent_spec(spec)[0] == "human"]
        if humans and args.workers > 1:
            console.print(f"a human plays: one process, not --workers {args.workers}", highlight=False)
        zero_sum_pair = info.utility == "zero_sum" and len(specs) == 2
        tally = [0, 0, 0]  # zero-sum pair: agent 0's W/D/L; cooperative: team wins, games
        with Progress(*_progress_columns(), console=console, disable=args.quiet or bool(humans)) as progress:
            task = progress.add_task(" vs ".join(specs), total=args.games, score="")

            def on_game(record) -> None:
                args.saved += 1
                if zero_sum_pair:
                    tally[{1.0: 0, 0.5: 1, 0.0: 2}[agent_score(record)]] += 1
                    score = f"W/D/L {tally[0]}/{tally[1]}/{tally[2]}"
                elif info.utility == "cooperative":
                    tally[0] += record.returns[0] >= info.max_return
                    tally[1] += 1
                    score = f"team wins {tally[0]}/{tally[1]}"
                else:
                    score = ""
                progress.update(task, advance=1, score=score)
                for k in humans:
                    seat = record.seats.index(k)
                    outcome = (f"the team {'wins' if record.returns[0] >= info.max_return else 'loses'}"
                               if info.utility == "cooperative" else f"the human in seat {seat} scores "
                               f"{agent_score(record, k):.1f} (1 win, 0.5 draw, 0 loss)")
                    console.print(f"game {record.index + 1} over: {outcome}, returns by seat {list(record.returns)}",
                                  highlight=False)

            records = play_match_specs(args.game, specs, args.games, args.seed, rotation=args.rotation,
                                       game_options=options, workers=1 if humans else args.workers,
                                       results_path=args.results, on_game=on_game, torch_threads=args.torch_threads,
                                       backend=None if humans else backend)
    summary = summarize(specs, records, info)
    n = summary.games
    console.print(f"[bold]{args.game}[/bold]: {n} games, seed {args.seed}, {args.rotation} seat rotation",
                  highlight=False)
    table = Table()
    columns = ["agent"] + (["W/D/L", "win rate (95%)"] if zero_sum_pair else
                           [] if summary.rank_scores is None else ["rank score"]) + ["mean return", "ms/dec."]
    for col in columns:
        table.add_column(col, justify="left" if col == "agent" else "right", overflow="fold")
    for k, name in enumerate(summary.names):
        if zero_sum_pair:
            wdl = (summary.wins, summary.draws, summary.losses)[::1 if k == 0 else -1]
            cells = [f"{wdl[0]}/{wdl[1]}/{wdl[2]}", _rate(wdl[0], n)]
        else:
            cells = [] if summary.rank_scores is None else [_mean(summary.rank_scores[k], sign="")]
        table.add_row(name, *cells, _mean(summary.mean_returns[k]), f"{1000 * summary.seconds_per_decision[k]:.3f}")
    console.print(table)
    console.print(f"mean game length: {summary.mean_turns:.1f} turns")
    if summary.team_wins is not None:
        console.print(f"team wins: {summary.team_wins} of {n} games, {_rate(summary.team_wins, n)}; "
                      f"mean return {_mean(summary.mean_returns[0])}", highlight=False)
    if summary.seat_wins is not None:
        seat_rates = [f"{k}: {_rate(w, n)}" for k, w in enumerate(summary.seat_wins)]
        console.print(f"wins by seat (whoever sat there): {', '.join(seat_rates)}", highlight=False)
    if summary.rank_scores is not None:
        console.print("rank score: the share of the other seats an agent beat, ties counting half", highlight=False)
    console.print("95% intervals: win rates Wilson, means ± normal (sample standard deviation)", highlight=False)
    return 0


def cmd_tournament(args: argparse.Namespace, console: Console) -> int:
    options = registry.parse_game_options(args.option)
    cold = _kernels_cold(args.game)
    game = registry.make_game(args.game, **options)
    seats = game.info.num_players
    specs = registry.split_agent_specs(",".join(args.agents))
    _check_run(args)
    check_tournament(game.info, specs, args.games)
    backend = backend_from(args)
    with on_backend(backend):  # on Ray: joined before the agents are built; servers live for every match
        for spec in specs:
            registry.make_agent(spec, game)  # fail early, before any game is played
        _announce_compile(args, cold)
        n = len(specs)
        out = _tournament_dir(args)
        with Progress(*_progress_columns(), console=console, disable=args.quiet) as progress:
            task = progress.add_task("round robin", total=math.comb(n, seats) * args.games, score="")

            def on_game(group, record) -> None:
                args.saved += 1
                progress.update(task, advance=1, score=" vs ".join(specs[i] for i in group))

            result = round_robin(args.game, specs, args.games, args.seed, game_options=options, rotation=args.rotation,
                                 workers=args.workers, out_dir=out, on_game=on_game, backend=backend)
    title = f"{args.game}: round robin, {args.games} games per match, seed {args.seed}"
    if result.elo is None:
        console.print("ratings are not defined for cooperative games: agents ranked by mean return",
                      highlight=False)
        ratings = Table()
        for col in ("rank", "agent", "mean return", "games"):
            ratings.add_column(col, justify="left" if col == "agent" else "right", overflow="fold")
        for rank, i in enumerate(result.ranking(), start=1):
            ratings.add_row(str(rank), result.names[i], f"{result.mean_returns[i]:+.3f}",
                            str(int(result.agent_games[i])))
        matrix_title = "mean return of the games the row and column agents played together"
    else:
        ratings = Table()
        for col in ("rank", "agent", "Elo (BT)", "score", "mean return", "games"):
            ratings.add_column(col, justify="left" if col == "agent" else "right", overflow="fold")
        for rank, i in enumerate(result.ranking(), start=1):
            ratings.add_row(str(rank), result.names[i], f"{result.elo[i]:+.0f}",
                            f"{result.points[i].sum() / max(result.played[i].sum(), 1):.1%}",
                            f"{result.mean_returns[i]:+.3f}", str(int(result.agent_games[i])))
        matrix_title = "score of row agent against column agent" + (
            "" if seats == 2 else ",\nreturns compared pair by pair inside each game")
    console.print(title, highlight=False)
    console.print(ratings)
    console.print(matrix_title, highlight=False)
    matrix = Table()
    matrix.add_column("agent", overflow="fold")
    for name in result.names:
        matrix.add_column(name, justify="right", overflow="fold")
    scores = result.scores
    for i, name in enumerate(result.names):
        matrix.add_row(name, *("-" if i == j or math.isnan(scores[i, j]) else f"{scores[i, j]:.2f}"
                               for j in range(n)))
    console.print(matrix)
    files = "pair_*.jsonl" if seats == 2 else "group_*.jsonl"
    console.print(f"results and plot in {out}/ (matrix.png, tournament.json, {files})", highlight=False)
    return 0


def cmd_show(args: argparse.Namespace, console: Console) -> int:
    game = registry.make_game(args.game, **registry.parse_game_options(args.option))
    agents = _agents(args.agents, game)
    for agent in agents:
        agent.reset()
    rng, *seat_rngs = game_streams(args.seed, 0, len(agents))  # game 0 of 'play' with this seed and agents
    if args.seat is not None and not 0 <= args.seat < len(agents):
        raise CardboardError(f"--seat {args.seat}: game {game.info.name!r} has seats 0 to {len(agents) - 1}")
    state = game.new_state(rng)

    def draw(header: str, actor: int | None) -> None:
        """``header`` and the board from the view of --seat, else ``actor`` (None: everything), named."""
        view = None if args.open else args.seat if args.seat is not None else actor
        whose = "open view" if view is None else f"player {view}'s view"
        console.print(f"\n[bold]{header}[/bold]: {whose}", highlight=False)
        console.print(game.render_ansi(state, view), markup=False, highlight=False)

    shown = None  # the (turn, player) whose board was drawn last
    while not state.is_terminal():
        mover = state.current_player
        if mover == CHANCE:
            state.apply(sample_chance(state, rng))
            continue
        if (state.turn, mover) != shown:
            draw(f"turn {state.turn}: player {mover} ({agents[mover].name}) to act", mover)
            shown = (state.turn, mover)
        action = agents[mover].act(state, seat_rngs[mover])
        console.print(f"  {state.action_to_string(action)}", markup=False, highlight=False)
        state.apply(action)
    draw(f"game over after turn {state.turn}", None)
    console.print(result_line(state), highlight=False)
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
    for a, b in zip(args.files[::2], args.files[1::2]):
        if Path(a).resolve() == Path(b).resolve():
            raise InvalidParameterError(f"{a} is compared with itself; pair the results files of two agents")
    for a, b, pair in zip(args.files[::2], args.files[1::2], pairs):
        if pair.held != (pair.games, pair.games):
            console.print(f"warning: {a} holds {pair.held[0]} games and {b} {pair.held[1]}"
                          f"{'' if args.range == ':' else ' in ' + args.range}: compared on the {pair.games} "
                          "games both hold", highlight=False, markup=False, soft_wrap=True)
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


def _shown(value) -> str:
    """A default as it is typed on the command line (a list or tuple comma-separated)."""
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def cmd_list(names: dict[str, str], entry: Callable[[str], Entry], console: Console, verbose: bool) -> int:
    """Names and summaries; ``verbose``: also each one's parameters (``entry(name)``) with defaults and meanings."""
    for name, summary in names.items():
        console.print(f"[bold]{name}[/bold]  {summary}")
        if verbose:
            meanings, defaults = registry.parameter_help(entry(name)), entry(name).defaults
            groups = getattr(entry(name).factory, "knob_groups", None) or {"": list(defaults)}  # a search's groups
            for group, keys in groups.items():
                if group:
                    console.print(f"  {group}:", highlight=False, markup=False)
                for key in (k for k in keys if k in defaults):
                    console.print(f"    {key}={_shown(defaults[key])}" + (f"  {meanings[key]}" if key in meanings
                                                                          else ""), highlight=False, markup=False)
    return 0


def cmd_explain(args: argparse.Namespace, console: Console) -> int:
    """``agents --explain SPEC``: the agent built for the game, and the loop its search runs (``search.plan``)."""
    game = registry.make_game(args.game, **registry.parse_game_options(args.option))
    agent = registry.make_agent(args.explain, game)
    explain = getattr(agent, "explain", None)  # a search agent's (search.agents.SearchAgent.explain)
    loop = explain() if explain is not None else "no search loop (it does not search a tree)"
    console.print(f"{args.explain} on {game.info.name}: {type(agent).__name__}; loop: {loop}", highlight=False)
    return 0


def cmd_zoo(console: Console, verbose: bool) -> int:
    """The shipped models (``cardboard.policies.zoo``): each one's name and game; ``verbose``: also the agent spec
    that ``zoo:NAME`` plays and its model card's file."""
    shipped = zoo.models()
    if not shipped:
        console.print(f"zoo: no models shipped yet ({zoo.MODELS_DIR})", highlight=False, markup=False)
        return 0
    console.print("zoo models (agents zoo:NAME, zoo:GAME for the game's latest, net:model=NAME the raw network):",
                  highlight=False, markup=False)
    for model in shipped:
        more = f"  plays {model.spec}  card {model.card_path}" if verbose else ""
        console.print(f"    {model.name}  game {model.game}{more}", highlight=False, markup=False, soft_wrap=True)
    return 0


CORE = ("games", "agents", "play", "tournament", "show", "compare")  # the commands this module runs itself


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardboard", description="Card and board games for game-AI research.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("games", "agents"):
        p = sub.add_parser(name, help=f"list the {name}")
        p.add_argument("-v", "--verbose", action="store_true", help="also their parameters, with defaults")
    p.add_argument("--explain", metavar="SPEC", help="build agent SPEC for --game and say which search loop it runs, "
                                                     "and why where it is the slower one")
    p.add_argument("--game", default="lords_of_war", help="the game --explain builds the agent for")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
    for name, help_text in (("play", "play a match, one agent per seat"),
                            ("tournament", "round robin between several agents, with ratings and a plot"),
                            ("show", "play one game and print it turn by turn")):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("game", help="a game name (see 'cardboard games')")
        if name == "tournament":
            p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                           help="agent specs separated by spaces or commas, e.g. 'greedy:samples=2 random greedy'")
        else:
            p.add_argument("--agents", help="one agent spec per seat, e.g. 'greedy:samples=2,random' "
                                            "(default: random in every seat)")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
        if name in ("play", "tournament"):
            p.add_argument("--games", type=int, default=100 if name == "play" else 20,
                           help="games per match" + (" (per pair)" if name == "tournament" else ""))
            p.add_argument("--workers", type=int, default=1, help="worker processes (results do not depend on it)")
            add_backend_arguments(p)
            p.add_argument("--quiet", action="store_true", help="no progress bar")
            p.add_argument("--rotation", choices=ROTATIONS, default="cyclic",
                           help="seats in game i: cyclic (agent k in seat (k + i) mod N) or permutations "
                                "(the (i mod N!)-th in lexicographic order)")
        if name == "play":
            p.add_argument("--results", metavar="PATH", help="JSONL file of finished games; resumed when it exists")
            p.add_argument("--torch-threads", type=int, default=1,
                           help="torch threads in each process whose agents run a network (default 1)")
        elif name == "tournament":
            p.add_argument("--out", metavar="DIR", help="output folder (default runs/tournaments/GAME-seedS)")
        elif name == "show":
            view = p.add_mutually_exclusive_group()
            view.add_argument("--seat", type=int, metavar="K",
                              help="draw every board from seat K's view (default: the player to act)")
            view.add_argument("--open", action="store_true", help="draw every board with all hands shown")
    p = sub.add_parser("compare", help="two agents' matches against the same opponent, paired game by game")
    p.add_argument("files", nargs="+", metavar="A B",
                   help="results files (from 'play --results') in pairs; B has the same game, options, seed "
                        "and opponent as A; several pairs are also pooled")
    p.add_argument("--range", default=":", metavar="FIRST:STOP", help="only games FIRST <= i < STOP (default all)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    for name, entry in registry.commands().items():  # registered by their owners (training, papers, plugins)
        if name in CORE:
            raise CardboardError(f"command {name!r} of {entry.command!r} takes the name of a built-in command")
        entry.command.add_arguments(sub.add_parser(name, help=entry.summary))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    args.command_line, args.saved = shlex.join(["cardboard", *argv]), 0  # for the resume line after Ctrl-C
    console = Console()
    try:
        if args.command == "games":
            return cmd_list(registry.describe_games(), registry.game_entry, console, args.verbose)
        if args.command == "agents" and args.explain:
            return cmd_explain(args, console)
        if args.command == "agents":
            cmd_list(registry.describe_agents(), registry.agent_entry, console, args.verbose)
            return cmd_zoo(console, args.verbose)
        core = {"play": cmd_play, "tournament": cmd_tournament, "show": cmd_show, "compare": cmd_compare}
        if args.command in core:
            return core[args.command](args, console)
        return registry.commands()[args.command].command.run(args, console)
    except CardboardError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        return 2
    except KeyboardInterrupt:
        return _interrupted(args, console)


if __name__ == "__main__":
    sys.exit(main())
