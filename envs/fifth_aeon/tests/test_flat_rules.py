"""The compiled rules (``flat_moves``) play every game as the object engine does: after every move of random and
DefaultAI games over the 12 built-in decks and decks drawn from the whole pool, the flat state decodes to the same
match and the legal actions are the same (``flat_oracle.play_differential``). ``benchmarks/fifth_aeon_differential.py``
runs the same comparison at the issue's scale (10^5 random decisions, 2,000 DefaultAI games)."""
from __future__ import annotations

import numpy as np
import pytest

from cardboard.envs.fifth_aeon import flat_layout as F
from cardboard.envs.fifth_aeon.cards import DECK_LIST, Deck, bundled_pool
from cardboard.envs.fifth_aeon.constants import DECK_MIN, MAX_COPIES
from cardboard.envs.fifth_aeon.flat_convert import to_flat
from cardboard.envs.fifth_aeon.flat_machine import BUFFER_LEN
from cardboard.envs.fifth_aeon.flat_moves import apply, legal_actions
from cardboard.envs.fifth_aeon.flat_table import card_table
from cardboard.envs.fifth_aeon.state import FifthAeonGame
from cardboard.envs.fifth_aeon.tests.flat_oracle import play_differential

_BUF = np.zeros(BUFFER_LEN, np.int32)


def flat_legal(s, table):
    return _BUF[:legal_actions(s, table.cards, table.mechs, _BUF)].tolist()


def flat_apply(s, table, action):
    legal_actions(s, table.cards, table.mechs, _BUF)
    apply(s, table.cards, table.mechs, action, _BUF)


def pool_decks(seed: int) -> tuple[Deck, Deck]:
    """Two decks of 40 drawn from every collectible card (at most 4 copies each): every card gets played."""
    rng = np.random.default_rng(seed)
    copies = [c.id for c in bundled_pool().collectible for _ in range(MAX_COPIES)]
    return tuple(Deck(f"pool-{seed}-{p}", tuple(copies[i] for i in rng.choice(len(copies), DECK_MIN, replace=False)))
                 for p in range(2))


@pytest.mark.parametrize("deck", DECK_LIST)
def test_random_games_match_the_object_engine(deck):
    for g in range(8):
        other = DECK_LIST[(DECK_LIST.index(deck) * 5 + g) % len(DECK_LIST)]
        play_differential({"decks": (deck, other)}, g, flat_legal, flat_apply, 10_000)


def test_random_games_with_decks_from_the_whole_pool_match_the_object_engine():
    played = set()
    for g in range(40):
        decks = pool_decks(g)
        played.update(c for d in decks for c in d.cards)
        play_differential({"decks": decks}, g, flat_legal, flat_apply, 10_000)
    assert len(played) == len(bundled_pool().collectible)


@pytest.mark.parametrize("options", [{"mulligan": False}, {"deckpool": "standard"}, {"decklists": "hidden"}])
def test_random_games_match_under_every_set_up_option(options):
    for g in range(6):
        play_differential({"decks": DECK_LIST[g % len(DECK_LIST)], **options}, 100 + g, flat_legal, flat_apply,
                          10_000)


def test_default_ai_games_match_the_object_engine():
    for g in range(24):
        decks = (DECK_LIST[g % len(DECK_LIST)], DECK_LIST[(g * 7 + 1) % len(DECK_LIST)])
        play_differential({"decks": decks}, g, flat_legal, flat_apply, 10_000, policy="default_ai")
    for g in range(6):
        play_differential({"decks": pool_decks(1000 + g)}, g, flat_legal, flat_apply, 10_000, policy="default_ai")


def test_a_finished_game_offers_no_action_and_the_pool_holds_only_the_board():
    state = FifthAeonGame().new_state(3)
    table = card_table(state.game.pool)
    s = to_flat(state.match, table, state.game.pool)
    rng = np.random.default_rng(3)
    while (n := legal_actions(s, table.cards, table.mechs, _BUF)) > 0:
        apply(s, table.cards, table.mechs, int(_BUF[rng.integers(n)]), _BUF)
        used = sum(s[F.perm_base(i) + F.M_USED] != 0 for i in range(F.PERM_SLOTS))
        assert used == s[F.player_base(0) + F.P_NBOARD] + s[F.player_base(1) + F.P_NBOARD] + s[F.G_NRETURNS]
    assert s[F.G_WINNER] in (0, 1, 2) and s[F.G_OVERFLOW] == 0
