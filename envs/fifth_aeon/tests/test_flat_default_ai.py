"""The compiled evaluation (``flat_evaluation``) and DefaultAI (``flat_default_ai``) are the Python ones: position
values bit for bit over random games, DefaultAI's every decision (and the plan it queues) in whole games of every
deck pair, in every position of random games and with decks drawn from the whole pool, and the compiled DefaultAI
rollout (``playout``) ends where ``FifthAeonState.random_playout`` does."""
from __future__ import annotations

import math

import numpy as np
import pytest

import cardboard
from cardboard.envs.fifth_aeon import flat_default_ai as FA
from cardboard.envs.fifth_aeon import flat_evaluation as FE
from cardboard.envs.fifth_aeon import flat_layout as F
from cardboard.envs.fifth_aeon import layout as L
from cardboard.envs.fifth_aeon import moves
from cardboard.envs.fifth_aeon.board import ORDER
from cardboard.envs.fifth_aeon.cards import DECK_LIST, Card, Deck, Mechanic, bundled_pool
from cardboard.envs.fifth_aeon.constants import DECK_MIN, MAX_COPIES, MAX_TURNS
from cardboard.envs.fifth_aeon.default_ai import BerserkerPolicy
from cardboard.envs.fifth_aeon.default_policy import DefaultPolicy
from cardboard.envs.fifth_aeon.evaluation import position_value
from cardboard.envs.fifth_aeon.flat_convert import canonical, describe_difference, to_match
from cardboard.envs.fifth_aeon.flat_machine import BUFFER_LEN
from cardboard.envs.fifth_aeon.flat_moves import apply
from cardboard.envs.fifth_aeon.positions import build_position
from cardboard.envs.fifth_aeon.state import FifthAeonGame, FifthAeonState

BUF = np.zeros(BUFFER_LEN, np.int32)


def new_state(decks, seed: int, **options) -> FifthAeonState:
    return cardboard.new_state("fifth_aeon", seed=seed, decks=decks, **options)


def pool_decks(seed: int) -> tuple[Deck, Deck]:
    """Two decks of 40 drawn from every collectible card (at most 4 copies each)."""
    rng = np.random.default_rng(seed)
    copies = [c.id for c in bundled_pool().collectible for _ in range(MAX_COPIES)]
    return tuple(Deck(f"pool-{seed}-{p}", tuple(copies[i] for i in rng.choice(len(copies), DECK_MIN, replace=False)))
                 for p in range(2))


def check_position_values(state: FifthAeonState, seed: int) -> int:
    """Random moves to the end; at every position both players' values are Python's, bit for bit."""
    table, pool = state.game.table, state.game.pool
    rng = np.random.default_rng(seed)
    n = 0
    while not state.is_terminal():
        s = state.s
        m = to_match(s, table, pool)
        for p in range(2):
            assert FE.position_value(s, table.cards, table.mechs, p, 20.0, BUF) == position_value(m, p, 20.0), \
                (seed, n, p)
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
        n += 1
    return n


def play_both(state: FifthAeonState, berserker: bool = False) -> int:
    """A DefaultAI game (``berserker``: BerserkerAI's) on both engines: the Python policy (one per player) on the
    object engine, ``act`` on the flat state; the same action at every decision and the same state after it.
    Returns the decisions."""
    table, pool = state.game.table, state.game.pool
    s, m = state.s.copy(), state.match.copy()
    decks, plan = FA.deck_lists(state.decks, pool), FA.new_plan()
    policy = BerserkerPolicy if berserker else DefaultPolicy
    bots = (policy(), policy())
    n = 0
    while m.winner < 0:
        p = m.acting
        a = bots[p].act(m, state.decks[p], moves.legal(m))
        assert FA.act(s, table.cards, table.mechs, decks, plan, BUF, berserker) == a, (state.decks, n)
        moves.apply(m, a)
        apply(s, table.cards, table.mechs, a, BUF)
        decoded = to_match(s, table, pool)
        assert canonical(decoded) == canonical(m), describe_difference(decoded, m)
        n += 1
    return n


def check_plans(state: FifthAeonState, seed: int) -> set[int]:
    """Random moves to the end; at every position a fresh policy's action and the plan it queues are Python's,
    and so is the resource choice. Returns the phases seen."""
    table, pool = state.game.table, state.game.pool
    decks = FA.deck_lists(state.decks, pool)
    rng = np.random.default_rng(seed)
    phases = set()
    while not state.is_terminal():
        m = state.match
        p = m.acting
        bot = DefaultPolicy()
        a = bot.act(m, state.decks[p], state.legal_actions())
        plan = FA.new_plan()
        assert FA.act(state.s, table.cards, table.mechs, decks, plan, BUF, False) == a
        q = p * (1 + FA.QUEUE)
        assert plan[q + 1:q + 1 + plan[q]].tolist() == bot._queue
        if not m.choices:
            assert (FA.resource_choice(state.s, table.cards, table.mechs, decks, p)
                    == L.RESOURCE + DefaultPolicy().resource(m, p, state.decks[p]))
        phases.add(m.phase)
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return phases


# -- (a) the evaluation -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("deck", DECK_LIST)
def test_position_values_are_pythons_in_random_games(deck):
    for g in range(8):
        other = DECK_LIST[(DECK_LIST.index(deck) * 7 + g) % len(DECK_LIST)]
        check_position_values(new_state((deck, other), g), g)


# -- (b) DefaultAI's decisions -----------------------------------------------------------------------------------------
def test_defaultai_games_of_every_deck_pair_are_pythons():
    decisions = 0
    for i, first in enumerate(DECK_LIST):
        for j, second in enumerate(DECK_LIST):
            decisions += play_both(new_state((first, second), i * len(DECK_LIST) + j))
    assert decisions > 100 * len(DECK_LIST) ** 2


def test_defaultai_plans_in_random_games_are_pythons():
    """Positions DefaultAI never reaches itself: damage orders (it never multi-blocks), blocks of odd boards."""
    phases = set()
    for g in range(24):
        phases |= check_plans(new_state((DECK_LIST[g % 12], DECK_LIST[(g * 5 + 3) % 12]), g), g)
    assert ORDER in phases


# -- (c) the compiled rollout ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("max_turns", [None, 6])
def test_playout_is_the_python_default_ai_rollout(max_turns):
    for g in range(6):
        state = new_state((DECK_LIST[2 * g], DECK_LIST[(5 * g + 1) % 12]), g, rollout="default_ai")
        table = state.game.table
        s = state.s.copy()
        limit = MAX_TURNS if max_turns is None else state.turn + max_turns
        n = FA.playout(s, table.cards, table.mechs, FA.deck_lists(state.decks, state.game.pool), FA.new_plan(), BUF,
                       limit)
        assert n == state.random_playout(np.random.default_rng(0), max_turns)
        assert canonical(to_match(s, table, state.game.pool)) == canonical(state.match)
        assert (s[F.G_WINNER] >= 0) == (max_turns is None)


# -- (d) every card ----------------------------------------------------------------------------------------------------
def test_decks_from_the_whole_pool():
    played = set()
    for g in range(30):
        decks = pool_decks(g)
        played.update(c for d in decks for c in d.cards)
        play_both(new_state(decks, g))
        check_position_values(new_state(decks, 100 + g), g)
        check_plans(new_state(decks, 200 + g), g)
    assert len(played) == len(bundled_pool().collectible)


# -- (e) values by hand ------------------------------------------------------------------------------------------------
def unit_card(cid: str, damage: int, life: int, *keywords: str) -> Card:
    return Card(id=cid, name=cid, card_type="unit", energy=5, requirements=(0, 0, 0, 0), damage=damage, life=life,
                unit_type="Monster", mechanics=tuple(Mechanic(k) for k in keywords))


def test_unit_values_by_hand():
    """Multipliers scale the addends, not the stats: a vanilla 5/5 Flying unit is worth 10 in hand and on the board;
    a 3/3 Lethal Deathless unit 6 + 3 x 0.5 about to be killed (LETHAL), 6 + 3 x 1.5 otherwise."""
    extra = (unit_card("Flyer", 5, 5, "Flying"), unit_card("Undying", 3, 3, "Lethal", "Deathless"))
    game = FifthAeonGame(("March of Undeath", "March of Undeath"), cards=bundled_pool().with_cards(extra))
    state = build_position(boards=(("Flyer", "Undying"), ()), life=(25, 20), game=game)
    table, s = game.table, state.s
    flyer, undying = (s[F.player_base(0) + F.P_BOARD + i] for i in range(2))
    FE.prepare(s, table.cards, table.mechs, 0, BUF)
    card = game.pool.index["Flyer"]
    assert FE.card_value(s, table.cards, table.mechs, card, FE.PLAY, 0, 0, 0, BUF) == 10
    assert FE.unit_value(s, table.cards, table.mechs, flyer, FE.NONLETHAL, BUF) == 10
    assert FE.unit_value(s, table.cards, table.mechs, undying, FE.LETHAL, BUF) == 7.5
    assert FE.unit_value(s, table.cards, table.mechs, undying, FE.NONLETHAL, BUF) == 10.5
    # position: 10 + 10.5 + 0.75 x 25 against 0.75 x 20 (no cards in hand)
    expected = math.tanh((20.5 + 18.75 - 15.0) / 20.0)
    assert FE.position_value(s, table.cards, table.mechs, 0, 20.0, BUF) == pytest.approx(expected, abs=1e-15)


def test_flame_ifrit_counts_the_units_its_play_damage_kills():
    """Flame Ifrit 8/4 (Play: 3 damage to every other unit): 12, - own Pikeman 3, + enemy Pikeman 3 and Imp 2."""
    state = build_position(boards=(("Pikeman", "Knight"), ("Pikeman", "Imp", "Bear")))
    table = state.game.table
    FE.prepare(state.s, table.cards, table.mechs, 0, BUF)
    card = state.game.pool.index["FireElemental"]
    assert FE.card_value(state.s, table.cards, table.mechs, card, FE.PLAY, 0, 0, 0, BUF) == 12 - 3 + 3 + 2


def test_berserker_plays_as_its_python_policy():
    """BerserkerAI (attack with every unit able to, never block) decision for decision, over the 12 decks."""
    for i, deck in enumerate(DECK_LIST):
        play_both(FifthAeonGame((deck, DECK_LIST[(i * 5 + 3) % len(DECK_LIST)])).new_state(i), berserker=True)
