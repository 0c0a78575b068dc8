"""Expert iteration (issue 17): self-play with the best expert, train a network, keep it if its expert wins.

    cardboard expert-iteration lords_of_war --out runs/exit --generations 3 --games-per-generation 40 \
        --iterations 100 --eval-games 40 --workers 2
    cardboard expert-iteration lords_of_war --out runs/exit --generations 8 --iterations 600 --fast-iterations 100 \
        --full-fraction 0.25 --value-mix 0.2 --window 3 --first ismcts:iterations=2000 --workers 2
    cardboard expert-iteration lords_of_war --out runs/exit --generations 8 --workers 32 --backend ray --address auto

Devices
    ``--device cuda`` trains on the GPU and runs the experts' and the raw network's forward passes there (their
    specs gain ``device=cuda``); checkpoints load on any device. ``--torch-threads`` caps torch's threads in each
    worker process (``--workers``). An unknown or unavailable device is refused before anything is written.

Backends
    ``--backend ray`` (``--address``) plays the self-play games and both matches on ``--workers`` Ray workers
    (``cardboard.jobs.backends``; each generation's network reaches them through the object store); training runs
    in the command's process. Self-play records and match results are the same on every backend.

The loop
    The *expert* of a generation is search guided by the best network so far:
    ``ismcts:iterations=I[,SEARCH_KNOBS],net=BEST,NET_KNOBS`` (``--search-knobs``, ``--net-knobs``, default
    ``prior=1,value=1``); before any network was kept it is ``--first SPEC`` (default plain
    ``ismcts:iterations=I[,SEARCH_KNOBS]``: the compiled search where the game has one). Generation ``K`` (0, 1,
    ...) runs four steps, each in ``DIR/gen-K/``:

    1. ``data/``: ``--games-per-generation`` self-play games of the current expert in every seat
       (``training.selfplay``, seed ``S + 1000 K``). With ``--fast-iterations F`` (playout-cap randomisation,
       KataGo), a decision is the expert's with probability ``--full-fraction`` (default 0.25), else the same
       expert's with F iterations (without a network: plain ``ismcts:iterations=F[,SEARCH_KNOBS]``).
    2. ``net/``: a network trained into ``net/model.safetensors`` (``training.learn``, seed ``S + K``,
       ``--epochs``, ``--hidden``, ``--trunk``: ``structured``, the default, shapes it by the game's observation
       structure, ``mlp`` is the MLP; ``--value-mix``) on the data of the last ``--window`` generations
       (``window_generations``: K - W + 1 .. K, default W = 2), their ``data/`` folders read as one record set.
    3. ``eval.jsonl``: a match of ``--eval-games`` games (seats alternating, seed ``S + 1000 K + 500``) of the new
       network's expert (agent 0) against the current best expert. The new network becomes the best if it scores
       strictly more than 50% (win 1, draw 1/2); a tie or less keeps the old one.
    4. ``random.jsonl``: the raw new network (``net:path=...``, greedy) against ``random``, ``--random-games`` games
       (seed ``S + 1000 K + 700``): a report only, it decides nothing.

    After every step ``DIR/state.json`` is rewritten (temporary file + ``os.replace``): the arguments, the best
    network, and per generation the data (games, records), training (epochs, validation loss), both matches
    (score with its Wilson 95% interval) and whether the network was kept. At the end: a table per generation and
    ``DIR/scores.png`` (both scores per generation with their intervals).

Resuming
    Run the same command again: every step resumes from its files, generation by generation. Self-play plays only
    the missing games (``selfplay.generate``), a network with ``model.safetensors`` and ``log.json`` is not trained
    again, the matches play only the games missing from their results files. So a kill at any point loses at most the
    games in progress and the network being trained; nothing is played twice. Deleting a step's files (a shard,
    ``net/``, a results file) redoes that step only: every step is seeded, and training on one CPU thread is
    deterministic, so a redone step gives the same result (a retrained network whose weights differ from the
    recorded hash is reported and its generation's matches replayed). More ``--generations`` extend a finished
    run. A ``state.json`` written with other arguments (anything but ``--generations``, ``--workers``,
    ``--backend``, ``--address``, ``--concurrent``, ``--torch-threads`` and ``--quiet``) raises
    ``StateMismatchError``: use another ``--out``. Ctrl-C prints how many games are saved (every game of the
    generations walked so far, resumed ones included) and the command that resumes (exit code 130).
    Agent specs name the networks by their path under ``--out`` as typed (``DIR/gen-K/net/model.safetensors``), and
    the results files record those specs: resume from the same working folder with the same ``--out`` text (a
    relative ``--out`` lets the whole folder move). A run whose networks are ``gen-K/net/model.pt`` files (written
    before checkpoints were safetensors files named ``model.safetensors``; its specs, results and self-play headers
    name those files) cannot be resumed: ``CheckpointError`` naming the folder and a network, before anything is
    written; start it again with another ``--out``.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cardboard import registry
from cardboard.envs.errors import CheckpointError, DataError, InvalidParameterError
from cardboard.envs.files import CHECKPOINT_LIMIT, InputFileError, check_file, errors_as, read_json, sha256
from cardboard.evaluation.match import agent_score, play_match_specs
from cardboard.jobs.backends import add_backend_arguments, backend_from
from cardboard.jobs.interrupts import track
from cardboard.jobs.intervals import error_bars, wilson_interval
from cardboard.training import learn, selfplay

FORMAT = "cardboard.expert_iteration/1"
STATE = "state.json"
# the arguments a resumed run may change
UNMATCHED = ("generations", "workers", "backend", "address", "concurrent", "torch_threads", "quiet")
NET_KNOBS = "prior=1,value=1"
# flags newer than the format: a state written before them had their defaults (a state without ``trunk`` that
# trained a network holds model.pt files, refused first by ``legacy_networks``; one that trained none resumes with
# the learner's default trunk)
ADDED = {"search_knobs": "", "net_knobs": NET_KNOBS, "target_temperature": 1.0, "value_weight": 1.0, "device": "cpu",
         "first": None, "fast_iterations": None, "full_fraction": selfplay.FULL_FRACTION, "value_mix": 0.0,
         "trunk": learn.Args.trunk}
LEGACY_MODEL = "model.pt"  # the networks' file name before they were safetensors files (issue 33)


class StateMismatchError(DataError):
    """``DIR/state.json`` was written by a run with other arguments."""


SUMMARY = "self-play, train, keep the better expert; repeat (resumable)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="a registered game (see 'cardboard games')")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder; resumed when it holds state.json")
    parser.add_argument("--generations", type=int, required=True, help="generations to run (more extend a run)")
    parser.add_argument("--games-per-generation", type=int, default=40, help="self-play games per generation")
    parser.add_argument("--iterations", type=int, default=100, help="ISMCTS iterations per decision of the expert")
    parser.add_argument("--search-knobs", default="",
                        help="more ismcts knobs of the expert, with or without a network (e.g. depth=1: rollouts of "
                             "one turn, then the game's heuristic)")
    parser.add_argument("--net-knobs", default=NET_KNOBS,
                        help=f"how the expert uses the network: ismcts knobs after net=PATH (default {NET_KNOBS}; "
                             "prior=1,value=0 keeps rollouts and takes the prior)")
    parser.add_argument("--first", metavar="SPEC",
                        help="the expert before any network is kept (default ismcts:iterations=I[,SEARCH_KNOBS])")
    parser.add_argument("--fast-iterations", type=int, metavar="F",
                        help="playout-cap randomisation: decisions not drawn full are the expert's with F iterations")
    parser.add_argument("--full-fraction", type=float, default=selfplay.FULL_FRACTION, metavar="P",
                        help=f"with --fast-iterations: the probability of a full decision (default "
                             f"{selfplay.FULL_FRACTION})")
    parser.add_argument("--value-mix", type=float, default=0.0, metavar="LAMBDA",
                        help="value target (1 - LAMBDA) outcome + LAMBDA root value (default 0: the outcome)")
    parser.add_argument("--eval-games", type=int, default=40, help="games of new expert vs best expert")
    parser.add_argument("--random-games", type=int, default=20, help="games of the raw network vs random")
    parser.add_argument("--window", type=int, default=2, help="train on the data of the last W generations")
    parser.add_argument("--epochs", type=int, default=20, help="training epochs at most (early stopping)")
    parser.add_argument("--hidden", type=int, nargs="+", default=list(learn.Args.hidden), help="trunk widths")
    parser.add_argument("--trunk", choices=learn.TRUNKS, default=learn.Args.trunk,
                        help="the networks' trunk: structured (shaped by the game's declared observation structure, "
                             "the MLP where it declares none) or mlp (default structured)")
    parser.add_argument("--target-temperature", type=float, default=learn.Args.target_temperature,
                        help="policy targets visits^(1/T) (1: the visits; 0: the moves played)")
    parser.add_argument("--value-weight", type=float, default=learn.Args.value_weight,
                        help="weight of the value loss in training")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="worker processes (results do not depend on it)")
    add_backend_arguments(parser)
    parser.add_argument("--concurrent", type=int, default=1,
                        help="self-play games per process in lock-step, their network calls batched")
    parser.add_argument("--device", default="cpu",
                        help="torch device of training and of the experts' networks: cpu, cuda, cuda:N (default cpu)")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch threads in each worker process that runs a network (default 1)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def config_of(args: argparse.Namespace) -> dict[str, Any]:
    names = ("game", "games_per_generation", "iterations", "search_knobs", "net_knobs", "eval_games", "random_games",
             "window", "epochs", "hidden", "trunk", "target_temperature", "value_weight", "seed", "option", "device",
             "first", "fast_iterations", "full_fraction", "value_mix")
    return json.loads(json.dumps({n: getattr(args, n) for n in names}))


def _check(args: argparse.Namespace) -> None:
    """Refuse bad arguments (a device unknown or unavailable included) before anything is written."""
    from cardboard.policies.evaluator import resolve_device

    for flag in ("generations", "games_per_generation", "iterations", "eval_games", "random_games", "window",
                 "epochs", "workers", "concurrent", "torch_threads"):
        if getattr(args, flag) < 1:
            raise InvalidParameterError(f"--{flag.replace('_', '-')} must be at least 1, got {getattr(args, flag)}")
    if args.seed < 0:
        raise InvalidParameterError(f"--seed must be at least 0, got {args.seed}")
    if args.fast_iterations is not None and args.fast_iterations < 1:
        raise InvalidParameterError(f"--fast-iterations must be at least 1, got {args.fast_iterations}")
    if not 0 < args.full_fraction <= 1:
        raise InvalidParameterError(f"--full-fraction must be in (0, 1], got {args.full_fraction}")
    if not 0 <= args.value_mix <= 1:
        raise InvalidParameterError(f"--value-mix must be in [0, 1], got {args.value_mix}")
    resolve_device(args.device)


def write_state(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def load_state(out: Path, config: dict[str, Any]) -> dict[str, Any]:
    path = out / STATE
    if not path.exists():
        return {"format": FORMAT, "config": config, "best": None, "generations": []}
    with errors_as(DataError):
        state = read_json(path, what="expert-iteration state")
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise StateMismatchError(f"{path}: not an expert-iteration state ({FORMAT})")
    legacy = legacy_networks(out, state)
    if legacy:
        raise CheckpointError(f"{out}: an expert-iteration run from before networks were safetensors files named "
                              f"{learn.MODEL}: its networks are {LEGACY_MODEL} files ({_legacy_kind(legacy[0])}), "
                              f"and its agent specs, results files and self-play headers name them, so it cannot be "
                              f"resumed; start it again with another --out")
    old = dict(ADDED) | state.get("config", {})
    diff = [f"{k}: {old.get(k)!r} there, {config[k]!r} now" for k in config if old.get(k) != config[k]]
    if diff:
        raise StateMismatchError(f"{path}: written by a run with other arguments ({'; '.join(diff)}); rerun with "
                                 "those arguments or use another --out")
    return state


def legacy_networks(out: Path, state: dict[str, Any]) -> list[Path]:
    """The networks of a run from before ``model.safetensors``: the ``model.pt`` paths its state records and the
    ``gen-K/net/model.pt`` files under ``out``."""
    recorded = [Path(e["net"]["path"]) for e in state.get("generations", [])
                if isinstance(e, dict) and str(e.get("net", {}).get("path", "")).endswith(LEGACY_MODEL)]
    return recorded + sorted(set(out.glob(f"gen-*/net/{LEGACY_MODEL}")) - set(recorded))


def _legacy_kind(path: Path) -> str:
    """What the old network at ``path`` is, for the refusal: a ``torch.save`` file cardboard no longer reads, or a
    safetensors file that still loads as a network (``net:path=``) outside the run."""
    from cardboard.policies.checkpoints import TORCH_SAVE_STARTS

    try:
        check_file(path, CHECKPOINT_LIMIT, "network")
        with path.open("rb") as handle:
            start = handle.read(4)
    except InputFileError as exc:
        return str(exc)
    except OSError:
        return f"{path}, no longer there"
    if start.startswith(TORCH_SAVE_STARTS):
        return f"{path}: a torch.save file, which cardboard no longer reads"
    return f"{path}, which still loads as a network, e.g. net:path={path}"


def expert(iterations: int, net: str | None, knobs: str = NET_KNOBS, search_knobs: str = "",
           device: str = "cpu", first: str | None = None) -> str:
    """The expert's spec: ISMCTS with ``iterations`` and ``search_knobs``, guided by ``net`` with ``knobs`` on
    ``device`` when there is one (``cpu`` is not written: the specs of runs before the knob stay the same);
    without a network ``first`` where given."""
    if net is None and first:
        return first
    return (f"ismcts:iterations={iterations}" + (f",{search_knobs}" if search_knobs else "")
            + (f",net={net},{knobs}" + _on(device) if net else ""))


def _on(device: str) -> str:
    """The ``device`` knob of a network agent's spec ('' for the default cpu)."""
    return "" if device == "cpu" else f",device={device}"


def _sha(path: Path) -> str:
    with errors_as(CheckpointError):
        return sha256(path, CHECKPOINT_LIMIT, "checkpoint")


def window_generations(k: int, window: int) -> list[int]:
    """The generations whose data generation ``k`` trains on: the last ``window`` (``k`` included)."""
    return list(range(max(0, k - window + 1), k + 1))


def match_score(records: list, agent: int = 0) -> dict[str, Any]:
    points = sum(agent_score(r, agent) for r in records)
    lo, hi = wilson_interval(points, len(records))
    return {"games": len(records), "points": points, "score": points / len(records), "low": lo, "high": hi}


def run_loop(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    _check(args)
    backend = backend_from(args)
    options = registry.parse_game_options(args.option)
    registry.make_game(args.game, **options)  # unknown names fail first
    out = Path(args.out)
    config = config_of(args)
    state = load_state(out, config)
    out.mkdir(parents=True, exist_ok=True)
    state_path = out / STATE
    track(args, args.out, "games")
    gens: list[dict[str, Any]] = state["generations"]
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[status]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, disable=args.quiet) as progress:
        overall = progress.add_task("expert iteration", total=4 * args.generations, status="")
        games_task = progress.add_task("", total=1, status="", visible=False)

        def step(k: int, name: str, total: int | None = None) -> None:
            progress.update(overall, status=f"generation {k}: {name}")
            if total is None:
                progress.update(games_task, visible=False)
            else:
                progress.reset(games_task, total=total, description=f"  gen {k} {name}", visible=True)

        def advance(*_: Any) -> None:
            args.saved += 1
            progress.update(games_task, advance=1)

        def resumed(done: int, games: int) -> None:
            args.saved += done
            progress.update(games_task, completed=done)

        best: str | None = None
        for k in range(args.generations):
            if k < len(gens):
                entry = gens[k]
            else:
                entry = {"generation": k}
                gens.append(entry)
            gen_dir = out / f"gen-{k}"
            entry["expert"] = expert(args.iterations, best, args.net_knobs, args.search_knobs, args.device, args.first)
            fast = None
            if args.fast_iterations is not None:
                fast = entry["fast"] = expert(args.fast_iterations, best, args.net_knobs, args.search_knobs,
                                              args.device)
            # 1. self-play
            step(k, "self-play", args.games_per_generation)
            header = selfplay.generate(args.game, [entry["expert"]], args.games_per_generation, args.seed + 1000 * k,
                                       gen_dir / "data", options=options, fast=None if fast is None else [fast],
                                       full_fraction=args.full_fraction, workers=args.workers,
                                       concurrent=args.concurrent, torch_threads=args.torch_threads,
                                       backend=backend, on_game=advance, on_start=resumed)
            _, data = selfplay.load_data(gen_dir / "data")
            entry["data"] = {"games": int(header["games"]), "records": int(len(data["game"]))}
            write_state(state_path, state)
            progress.update(overall, completed=4 * k + 1)
            # 2. training
            net_dir = gen_dir / "net"
            model = net_dir / learn.MODEL
            window = window_generations(k, args.window)
            if not (model.exists() and (net_dir / "log.json").exists()):
                step(k, "training")
                (net_dir / "log.json").unlink(missing_ok=True)
                learn.train(learn.Args(game=args.game, data=[str(out / f"gen-{g}" / "data") for g in window],
                                       out=str(net_dir), option=list(args.option), epochs=args.epochs,
                                       hidden=tuple(args.hidden), trunk=args.trunk,
                                       target_temperature=args.target_temperature,
                                       value_weight=args.value_weight, value_mix=args.value_mix,
                                       seed=args.seed + k, device=args.device, quiet=True), console)
            with errors_as(DataError):
                log = read_json(net_dir / "log.json", what="training log")
            sha = _sha(model)
            if entry.get("net", {}).get("sha256") not in (None, sha):
                console.print(f"generation {k}: the retrained network differs from the recorded one; replaying its "
                              "matches", highlight=False)
                for name in ("eval.jsonl", "random.jsonl"):
                    (gen_dir / name).unlink(missing_ok=True)
            best_epoch = log["best_epoch"]
            entry["net"] = {"path": str(model), "sha256": sha, "window": window, "epochs": len(log["epochs"]),
                            "best_epoch": best_epoch, "val_loss": log["epochs"][best_epoch - 1]["val_loss"],
                            "train_loss": log["epochs"][best_epoch - 1]["train_loss"],
                            "records": log["records"]}
            write_state(state_path, state)
            progress.update(overall, completed=4 * k + 2)
            # 3. new expert vs best expert
            new_spec = expert(args.iterations, str(model), args.net_knobs, args.search_knobs, args.device)
            best_spec = entry["expert"]
            step(k, "new vs best", args.eval_games)
            records = play_match_specs(args.game, [new_spec, best_spec], args.eval_games, args.seed + 1000 * k + 500,
                                       game_options=options, workers=args.workers,
                                       results_path=gen_dir / "eval.jsonl", on_game=advance,
                                       torch_threads=args.torch_threads, backend=backend)
            entry["eval"] = match_score(records) | {"new": new_spec, "best": best_spec}
            entry["kept"] = entry["eval"]["score"] > 0.5
            if entry["kept"]:
                best = str(model)
            entry["best_after"] = best
            state["best"] = best
            write_state(state_path, state)
            progress.update(overall, completed=4 * k + 3)
            # 4. raw network vs random
            step(k, "net vs random", args.random_games)
            records = play_match_specs(args.game, [f"net:path={model}" + _on(args.device), "random"],
                                       args.random_games, args.seed + 1000 * k + 700, game_options=options,
                                       workers=args.workers, results_path=gen_dir / "random.jsonl", on_game=advance,
                                       torch_threads=args.torch_threads, backend=backend)
            entry["random"] = match_score(records)
            write_state(state_path, state)
            progress.update(overall, completed=4 * k + 4)
            step(k, "done")
            ev, rnd = entry["eval"], entry["random"]
            progress.console.print(
                f"generation {k}: {entry['data']['games']} games ({entry['data']['records']} records), val loss "
                f"{entry['net']['val_loss']:.4f}, new vs best {ev['score']:.1%} ({ev['low']:.1%}-{ev['high']:.1%}) "
                f"{'kept' if entry['kept'] else 'dropped'}, raw net vs random {rnd['score']:.1%}", highlight=False)
        progress.update(overall, status="")
    state["completed_generations"] = args.generations
    write_state(state_path, state)
    plot(state, out / "scores.png")
    return state


def table(state: dict[str, Any]) -> Table:
    t = Table(title=f"expert iteration on {state['config']['game']}")
    for col in ("gen", "data games", "records", "val loss", "new vs best (95%)", "kept?", "raw net vs random"):
        t.add_column(col, justify="right")
    for e in state["generations"][:state.get("completed_generations", len(state["generations"]))]:
        ev, rnd = e["eval"], e["random"]
        t.add_row(str(e["generation"]), str(e["data"]["games"]), str(e["data"]["records"]),
                  f"{e['net']['val_loss']:.4f}", f"{ev['score']:.1%} ({ev['low']:.1%}-{ev['high']:.1%})",
                  "yes" if e["kept"] else "no", f"{rnd['score']:.1%} ({rnd['low']:.1%}-{rnd['high']:.1%})")
    return t


def plot(state: dict[str, Any], path: Path) -> None:
    """Both scores per completed generation with their intervals (those of an older ``state.json`` too)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = state["generations"][:state.get("completed_generations", len(state["generations"]))]
    x = np.array([e["generation"] for e in gens])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for key, label, shift in (("eval", "new expert vs best expert", -0.05), ("random", "raw network vs random", 0.05)):
        y = [e[key]["score"] for e in gens]
        err = error_bars(y, [e[key]["low"] for e in gens], [e[key]["high"] for e in gens])
        ax.errorbar(x + shift, y, yerr=err, marker="o", capsize=3, label=label)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set(xlabel="generation", ylabel="score (Wilson 95%)", ylim=(0, 1), xticks=x,
           title=f"expert iteration on {state['config']['game']}")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    tmp = path.with_name(f".{path.stem}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, path)


def run(args: argparse.Namespace, console: Console) -> int:
    """``cardboard expert-iteration``: run or resume the loop; 0 on success. Ctrl-C keeps the files (the games
    counted in ``args.saved``: ``jobs.interrupts``) and goes on to the caller."""
    state = run_loop(args, console)
    console.print(table(state))
    kept = [e["generation"] for e in state["generations"] if e.get("kept")]
    console.print(f"best network: {state['best'] or 'none kept (the first expert)'}; kept generations: {kept}; "
                  f"state.json and scores.png in {args.out}/", highlight=False, soft_wrap=True)
    return 0
