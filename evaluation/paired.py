"""Paired comparison of two agents that each played the same opponent with the same seed.

This is how paper 001 compares search variants (Table 3.8: DUCT and DUCT+CNB,
each against Silverfish), made sharper: two matches ``A vs C`` and ``B vs C``
written with one seed deal game ``i`` identically and seat agent 0 the same way,
so agent 0's score in game ``i`` (win 1, draw ½, loss 0) gives one paired
difference B − A per game. Their mean, with a normal interval from the sample
variance, says whether B does better than A against C; the common deal cancels
part of the noise two independent scores would carry. Files of results version 2
share more: the same chance outcomes at the same chance nodes and the same
random stream for the opponent's seat (common random numbers, see
``evaluation.match``). Both files must be of one version: a version-1 file (one
random stream per game, shared by chance and the agents) and a version-2 file
saw different luck in the same game and are refused.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from ..envs.errors import InvalidParameterError, ResultsFileError
from ..jobs.intervals import wilson_interval
from .match import agent_score, load_results

SAME_MATCH_FIELDS = ("game", "options", "seed", "rotation")  # what must agree besides the version and the opponent


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _distinct(values: Iterable[str]) -> str:
    return " | ".join(dict.fromkeys(values))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


@dataclass(frozen=True)
class PairedComparison:
    """Agent 0 of results file B against agent 0 of results file A, game by game (per-game scores kept)."""

    names: tuple[str, str]  # agent 0 of A, of B
    opponent: str
    a: tuple[float, ...] = field(repr=False)  # A's agent-0 score in each paired game
    b: tuple[float, ...] = field(repr=False)  # B's, game for game
    confidence: float = 0.95
    held: tuple[int, int] = (0, 0)  # games A's and B's files hold in the range; more than ``games``: some unpaired

    @property
    def games(self) -> int:
        """Paired games: present in both files (within the range asked for)."""
        return len(self.a)

    @property
    def scores(self) -> tuple[float, float]:
        """Mean score of A's and of B's agent 0 over the paired games."""
        return _mean(self.a), _mean(self.b)

    @property
    def differences(self) -> list[float]:
        """B's score minus A's in each paired game."""
        return [y - x for x, y in zip(self.a, self.b)]

    @property
    def difference(self) -> float:
        """Mean of B's score minus A's, game by game."""
        return _mean(self.differences)

    @property
    def interval(self) -> tuple[float, float]:
        """Normal interval of ``difference`` at ``confidence``, from the per-game differences' sample variance."""
        differences = self.differences
        mean, n = _mean(differences), len(differences)
        half = _z(self.confidence) * math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n)
        return mean - half, mean + half

    @property
    def same_outcome(self) -> int:
        """Games that both agents 0 won, drew or lost alike."""
        return sum(x == y for x, y in zip(self.a, self.b))

    def score_interval(self, which: int) -> tuple[float, float]:
        """Wilson interval of agent ``which``'s score (0: A, 1: B) at this comparison's confidence."""
        return wilson_interval(self.scores[which] * self.games, self.games, _z(self.confidence))


def compare_results(
    path_a: str | os.PathLike,
    path_b: str | os.PathLike,
    *,
    first: int = 0,
    stop: int | None = None,
    confidence: float = 0.95,
) -> PairedComparison:
    """Pair the games ``first <= i < stop`` that both results files hold; B − A with its interval.

    The files must be two-player matches of one results version, game,
    options, seed and seat rotation against the same opponent (agent 1), or
    ``ResultsFileError`` names what differs. Games only one file holds are left
    out (see ``PairedComparison.held``).
    """
    if not 0 < confidence < 1:
        raise InvalidParameterError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    if first < 0 or (stop is not None and stop <= first):
        raise InvalidParameterError(f"game range {first}:{stop} is empty or negative")
    header_a, records_a = load_results(path_a)
    header_b, records_b = load_results(path_b)
    for path, header in ((path_a, header_a), (path_b, header_b)):
        if len(header["specs"]) != 2:
            raise ResultsFileError(f"{path} is a {len(header['specs'])}-player match; a paired comparison "
                                   "needs two-player matches (an agent and its opponent)")
    if header_a["version"] != header_b["version"]:
        raise ResultsFileError(f"{path_a} is results version {header_a['version']} and {path_b} version "
                               f"{header_b['version']}: they were played with different random streams "
                               "(version 1: one stream per game; version 2: separate chance and seat streams), "
                               "so their games cannot be paired; compare files of one version")
    for key in SAME_MATCH_FIELDS:
        if header_a[key] != header_b[key]:
            raise ResultsFileError(f"{path_a} and {path_b} differ in {key}: {header_a[key]!r} vs "
                                   f"{header_b[key]!r}; a paired comparison needs the same deals")
    if header_a["specs"][1] != header_b["specs"][1]:
        raise ResultsFileError(f"{path_a} and {path_b} were played against different opponents: "
                               f"{header_a['specs'][1]!r} vs {header_b['specs'][1]!r}")
    in_range = [{i for i in records if i >= first and (stop is None or i < stop)} for records in (records_a, records_b)]
    common = sorted(in_range[0] & in_range[1])
    if len(common) < 2:
        raise InvalidParameterError(f"a paired comparison needs at least 2 games that both files hold in "
                                    f"{first}:{'' if stop is None else stop}; found {len(common)}")
    return PairedComparison(names=(header_a["specs"][0], header_b["specs"][0]), opponent=header_a["specs"][1],
                            a=tuple(agent_score(records_a[i]) for i in common),
                            b=tuple(agent_score(records_b[i]) for i in common), confidence=confidence,
                            held=(len(in_range[0]), len(in_range[1])))


def pool(comparisons: Sequence[PairedComparison]) -> PairedComparison:
    """Several paired comparisons (e.g. one per deck mirror) as one, every game weighing the same."""
    if not comparisons:
        raise InvalidParameterError("pooling needs at least one paired comparison")
    return PairedComparison(names=(_distinct(c.names[0] for c in comparisons),
                                   _distinct(c.names[1] for c in comparisons)),
                            opponent=_distinct(c.opponent for c in comparisons),
                            a=sum((c.a for c in comparisons), ()), b=sum((c.b for c in comparisons), ()),
                            confidence=comparisons[0].confidence,
                            held=(sum(c.held[0] for c in comparisons), sum(c.held[1] for c in comparisons)))
