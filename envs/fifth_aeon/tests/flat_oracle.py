"""A differential harness for the compiled Fifth Aeon engine: the object engine (``FifthAeonState``) is the
oracle, and a flat engine (two callables over a ``flat_layout`` state) plays the same game in lockstep.

``play_differential`` checks, before every move and at the end, that the flat engine's legal actions are the
object engine's, and after every move that the flat state decodes (``flat_convert.to_match``) to the same match
(``flat_convert.canonical``); a mismatch raises ``AssertionError`` naming the first differing field and the moves
so far (ids, to replay, and in words).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cardboard.envs.fifth_aeon import moves
from cardboard.envs.fifth_aeon.cards import DECK_LIST
from cardboard.envs.fifth_aeon.default_policy import DefaultPolicy
from cardboard.envs.fifth_aeon.flat_convert import canonical, describe_difference, to_flat, to_match
from cardboard.envs.fifth_aeon.flat_table import CardTable, card_table
from cardboard.envs.fifth_aeon.state import FifthAeonGame

FlatLegal = Callable[[np.ndarray, CardTable], "list[int]"]
FlatApply = Callable[[np.ndarray, CardTable, int], None]
POLICIES = ("random", "default_ai")
SHOWN = 40  # moves shown in words in a failure message (all are listed by id)


def play_differential(game_kwargs: dict, seed: int, flat_legal: FlatLegal, flat_apply: FlatApply,
                      max_decisions: int, policy: str = "random") -> int:
    """Play ``FifthAeonGame(**game_kwargs).new_state(seed)`` for at most ``max_decisions`` moves, chosen by
    ``policy`` (``random``: uniform, seeded with ``seed``; ``default_ai``: DefaultAI for both players), with the flat
    engine ``flat_legal(s, table)`` / ``flat_apply(s, table, action)`` (in place) on a flat copy alongside; returns
    the number of moves played."""
    if policy not in POLICIES:
        raise ValueError(f"policy {policy!r}: one of {POLICIES}")
    state = FifthAeonGame(**game_kwargs).new_state(seed)
    pool = state.game.pool
    table = card_table(pool)
    s = to_flat(state.match, table, pool)
    rng = np.random.default_rng(seed)
    bots = (DefaultPolicy(), DefaultPolicy())
    history: list[tuple[int, str]] = []

    def fail(what: str) -> AssertionError:
        ids = [a for a, _ in history]
        first = max(len(history) - SHOWN, 0)
        shown = "\n".join(f"  {i}: {a} {text}" for i, (a, text) in enumerate(history[first:], first))
        return AssertionError(f"{what}\nafter {len(history)} moves (game {game_kwargs}, seed {seed}, policy "
                              f"{policy}): {ids}\n{shown}")

    while True:
        legal = state.legal_actions().tolist()
        try:
            flat = [int(a) for a in flat_legal(s, table)]
        except Exception as e:
            raise fail(f"flat_legal raised {e!r}") from e
        if flat != legal:
            raise fail(f"legal actions differ: flat {flat}, object engine {legal}")
        if state.is_terminal() or len(history) >= max_decisions:
            return len(history)
        m = state.match
        if policy == "random":
            a = legal[int(rng.integers(len(legal)))]
        else:
            a = int(bots[m.acting].act(m, state.decks[m.acting], legal))
        history.append((a, state.action_to_string(a)))
        state.apply(a)
        try:
            flat_apply(s, table, a)
            decoded = to_match(s, table, pool)
        except Exception as e:
            raise fail(f"the flat engine failed on the last move: {e!r}") from e
        if canonical(decoded) != canonical(state.match):
            raise fail(f"states differ (flat, then object engine): {describe_difference(decoded, state.match)}")


def random_positions(games_per_deck: int):
    """Every position (a ``Match``, changed in place between yields) of random games played on the object engine,
    ``games_per_deck`` a built-in deck paired in turn with the others; seeded by the game's index."""
    for g in range(len(DECK_LIST) * games_per_deck):
        decks = (DECK_LIST[g % len(DECK_LIST)], DECK_LIST[(g // len(DECK_LIST) + g) % len(DECK_LIST)])
        m = FifthAeonGame(decks).new_state(g).match
        rng = np.random.default_rng(g)
        while True:
            yield m
            if m.winner >= 0:
                break
            legal = moves.legal(m)
            moves.apply(m, legal[int(rng.integers(len(legal)))])

