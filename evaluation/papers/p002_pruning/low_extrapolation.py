"""How much paper 002's state extrapolation changes what hard pruning keeps, on Lords of War.

At every decision of ``--games`` random games with more than ``--hpl`` legal moves, each move is scored by the
heuristic after the move, and again after the mover's remaining decisions of the turn are played at random
(``extrapolate=1``, one roll-forward a move), by the search's own scoring (``HardPruning.scores``). Reported: how
many moves change score, and how much the two kept sets (the top ``--hpl``, ties at the cut included) overlap
(Jaccard). A diagnostic beside the h4R matches of ``low_pruning``: it tells whether extrapolation changes the
pruning at all, not whether it helps.

    python -m cardboard.evaluation.papers.p002_pruning.low_extrapolation --out runs/low-extrapolation
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from cardboard.registry import make_game
from cardboard.search.pruning import HardPruning

GAME = "lords_of_war"


def kept(scores: np.ndarray, limit: int) -> set[int]:
    """The moves whose score reaches the ``limit``-th best (ties at the cut all kept)."""
    return set(np.flatnonzero(scores >= np.sort(scores)[-limit]).tolist())


def measure(games: int, seed: int, heuristic: str, limit: int) -> dict[str, Any]:
    """Score changes and kept-set overlaps over every judged decision of ``games`` uniformly random games."""
    game, rng = make_game(GAME), np.random.default_rng(seed)
    plain_scores, rolled_scores = (HardPruning((heuristic,), limit, rolled).scores for rolled in (False, True))
    changed, overlap, moves = [], [], []
    for g in range(games):
        state = game.new_state(seed + g)
        while not state.is_terminal():
            legal = np.asarray(state.legal_actions())
            if len(legal) > limit:
                plain, rolled = plain_scores(state, legal, rng)[0], rolled_scores(state, legal, rng)[0]
                a, b = kept(plain, limit), kept(rolled, limit)
                changed.append(float(np.mean(~np.isclose(plain, rolled))))
                overlap.append(len(a & b) / len(a | b))
                moves.append(len(legal))
            state.apply(int(legal[rng.integers(len(legal))]))
    mean = (lambda values: float(np.mean(values)) if values else None)  # None: no decision had that many moves
    return {"games": games, "seed": seed, "heuristic": heuristic, "hpl": limit, "decisions": len(moves),
            "mean_moves": mean(moves), "moves_changed": mean(changed), "kept_overlap": mean(overlap)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder of result.json")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--heuristic", default="h4")
    parser.add_argument("--hpl", type=int, default=15)
    args = parser.parse_args(argv)
    result = measure(args.games, args.seed, args.heuristic, args.hpl)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "result.json").write_text(json.dumps(result, indent=1))
    if not result["decisions"]:
        print(f"no decision had more than {args.hpl} moves")
        return result
    print(f"{result['decisions']} decisions with more than {args.hpl} moves (mean {result['mean_moves']:.1f}): "
          f"extrapolation changes {args.heuristic} for {100 * result['moves_changed']:.1f}% of the moves; "
          f"the kept sets overlap {100 * result['kept_overlap']:.1f}% (Jaccard)")
    return result


if __name__ == "__main__":
    main()
