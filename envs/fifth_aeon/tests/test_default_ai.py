"""DefaultAI and BerserkerAI, checked against ``runs/fa_defaultai.md`` (the model's bot, paraphrased).

Evaluation points (cards.json): a unit is worth its stats plus product(multipliers) x sum(addends) of its
mechanics; Minotaur 4/5 = 9, Knight 3/3 = 6, Bear 3/4 = 7, Pikeman 2/1 = 3, Charging Tiger 3/2 Rush = 5 (Rush adds
nothing), Castle 4/7 CannotAttack = 6, Gryphon 2/4 Flying = 6, Imp 1/1 Flying = 2.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardboard.envs.fifth_aeon import Berserker, DefaultAI, FifthAeonGame
from cardboard.envs.fifth_aeon import layout as L
from cardboard.envs.fifth_aeon.cards import STANDARD_DECKS, Card, Deck, Mechanic, bundled_pool
from cardboard.envs.fifth_aeon.constants import BOARD_SLOTS
from cardboard.envs.fifth_aeon.default_policy import knapsack
from cardboard.envs.fifth_aeon.evaluation import LETHAL, PLAY, Evaluator
from cardboard.envs.fifth_aeon.positions import build_position, unit
from cardboard.policies.agents import RandomAgent

POOL = bundled_pool()
RNG = np.random.default_rng(0)


def test_card(cid: str, damage: int, life: int, *mechanics: Mechanic, requirements=(0, 0, 0, 0), energy=5) -> Card:
    return Card(id=cid, name=cid, card_type="unit", energy=energy, requirements=requirements, damage=damage,
                life=life, unit_type="Monster", mechanics=tuple(mechanics))


test_card.__test__ = False  # a helper, not a test


def value(card: Card, ctx: str = PLAY) -> float:
    """The value of ``card`` in hand for player 0 on an empty board."""
    s = build_position()
    return Evaluator(s.match, 0).card(card, ctx, 0)


def game_with(deck0: tuple[str, ...], extra: tuple[Card, ...] = ()) -> FifthAeonGame:
    pool = POOL.with_cards(list(extra)) if extra else POOL
    return FifthAeonGame((Deck("t0", deck0), Deck("t1", ("Minotaur",) * 40)), cards=pool)


def run_agent(s, agent, stop) -> list[int]:
    """Let ``agent`` act for the acting player until ``stop(state)``; the actions it took."""
    out = []
    while not stop(s):
        a = agent.act(s, RNG)
        out.append(a)
        s.apply(a)
    return out


# -- evaluation ---------------------------------------------------------------------------------------------------
def test_minotaur_is_worth_9():
    """A vanilla 4/5 is worth its stats: 9."""
    assert value(POOL["Minotaur"]) == 9


def test_flame_ifrit_on_an_empty_board_is_its_stats_12():
    """Flame Ifrit 8/4 (3 damage to every other unit on Play): 12 with no unit to hit."""
    assert value(POOL["FireElemental"]) == 12


def test_flame_ifrit_counts_the_units_its_play_damage_kills():
    """Flame Ifrit's Play damage adds V_LR of each unit with life < 3, + for enemies, - for own units."""
    s = build_position(boards=(("Pikeman", "Knight"), ("Pikeman", "Imp", "Bear")))
    ev = Evaluator(s.match, 0)
    # own Pikeman -3, own Knight (life 3, not < 3) 0, enemy Pikeman +3, Imp +2, Bear 0
    assert ev.card(POOL["FireElemental"], PLAY, 0) == pytest.approx(12 - 3 + 3 + 2)


def test_flying_does_not_multiply_stats():
    """A vanilla 5/5 Flying unit is worth 10: multipliers scale mechanic addends, not stats."""
    assert value(test_card("Flyer", 5, 5, Mechanic("Flying"))) == 10


def test_lethal_adds_3():
    """Lethal is an addend of 3 (Snapping Cobra 1/2 = 6); with Flying it is multiplied by 1.3."""
    assert value(POOL["SnappingCobra"]) == 6
    assert value(test_card("LethalFlyer", 5, 5, Mechanic("Flying"), Mechanic("Lethal"))) == pytest.approx(10 + 3.9)


def test_dusk_factor_multiplies_the_whole_addend_sum():
    """A Dusk draw (3, factor 2) multiplies every addend: 2/2 Lethal + Dusk draw = 4 + 2 x (3 + 3) = 16."""
    card = test_card("DuskLethal", 2, 2, Mechanic("Lethal"), Mechanic("DrawCard", "Dusk", (("count", 1),)))
    assert value(card) == 16


def test_play_trigger_is_worth_nothing_off_play_context():
    """A Play trigger's factor is 0 outside the Play context (Search the Archives: 6 in Play, 0 in LethalRemoval)."""
    assert value(POOL["ArchivesSearch"]) == 6
    assert value(POOL["ArchivesSearch"], LETHAL) == 0


def test_deathless_context_multipliers():
    """Deathless multiplies by 0.5 in LethalRemoval, 1.5 otherwise (addends only: a Skeleton stays 2)."""
    card = test_card("DL", 1, 1, Mechanic("Deathless", None, (("charges", 1),)), Mechanic("Lethal"))
    assert value(card) == pytest.approx(2 + 1.5 * 3)
    assert value(card, LETHAL) == pytest.approx(2 + 0.5 * 3)


def test_self_target_mechanic_counts_in_hand():
    """Botanic Elemental 3/3 (Dawn: +1/+1 to itself) is worth 6 + 1.5 x (1+1) x 1.1 = 9.3 in hand too."""
    assert value(POOL["BotanicElemental"]) == pytest.approx(9.3)


def test_self_target_mechanic_counts_on_the_board():
    """Botanic Elemental on the board: 6 + 1.5 x 2.2 = 9.3."""
    s = build_position(boards=(("BotanicElemental",), ()))
    assert Evaluator(s.match, 0).unit(unit(s, "BotanicElemental"), PLAY) == pytest.approx(9.3)


# -- the knapsack -------------------------------------------------------------------------------------------------
def test_knapsack_picks_the_best_subset():
    """6 energy, costs 2 / 4 / 5 worth 3 / 5 / 7: {2, 4} (8) beats {5} (7); indices in reverse input order."""
    assert knapsack([(2, 3.0), (4, 5.0), (5, 7.0)], 6) == [1, 0]


def test_knapsack_prefers_the_single_big_item_when_better():
    """6 energy, costs 2 / 4 / 5 worth 1 / 5 / 7: {5} (7) beats {2, 4} (6)."""
    assert knapsack([(2, 1.0), (4, 5.0), (5, 7.0)], 6) == [2]


def test_knapsack_ties_prefer_not_adding():
    """On a tie the later item is not added: {2, 4} (8) is kept over {6} (8); of two equal cards the first."""
    assert knapsack([(2, 3.0), (4, 5.0), (6, 8.0)], 6) == [1, 0]
    assert knapsack([(3, 5.0), (3, 5.0)], 3) == [0]


def test_knapsack_capacity_zero_takes_nothing():
    """Capacity 0 takes nothing, not even a free card."""
    assert knapsack([(0, 5.0), (1, 2.0)], 0) == []


def test_knapsack_never_takes_non_positive_scores():
    """Items worth 0 or less are never chosen."""
    assert knapsack([(1, 0.0), (1, -2.0)], 5) == []


# -- playing cards ------------------------------------------------------------------------------------------------
def test_plays_the_best_scored_card_of_the_knapsack_set_first_then_replans():
    """6 energy, Minotaur (4: 9), Knight (3: 6), Bear (3: 7): the set {Knight, Bear} (13) beats Minotaur; the
    Bear (best score) is cast first, then the re-plan casts the Knight; the Minotaur is never cast."""
    s = build_position(hands=(("Minotaur", "Knight", "Bear"), ()), resources=((0, 4, 0, 2), (0, 0, 0, 0)))
    ai = DefaultAI()
    assert ai.act(s, RNG) == L.PLAY + 2
    s.apply(L.PLAY + 2)
    hand = [h[0] for h in s.match.sides[0].hand]
    assert ai.act(s, RNG) == L.PLAY + hand.index("Knight")
    s.apply(L.PLAY + hand.index("Knight"))
    assert ai.act(s, RNG) == L.PASS
    assert [h[0] for h in s.match.sides[0].hand] == ["Minotaur"]


def test_replans_after_each_cast():
    """4 energy, Knight (3), Bear (3), Pikeman (1): Bear + Pikeman (10); Bear first, then the Pikeman."""
    s = build_position(hands=(("Knight", "Bear", "Pikeman"), ()), resources=((0, 3, 0, 1), (0, 0, 0, 0)))
    ai = DefaultAI()
    acts = run_agent(s, ai, lambda st: st.turn != 10)
    assert acts == [L.PLAY + 1, L.PLAY + 1, L.PASS]  # Bear (slot 1), then Pikeman (now slot 1), then pass
    assert s.match.sides[0].hand == [("Knight", 0, 0)]


def test_decapitate_kills_the_most_valuable_enemy_unit():
    """Decapitate targets the enemy unit worth most (Minotaur 9 over Knight 6 and Pikeman 3)."""
    s = build_position(hands=(("Decapitate",), ()), boards=(("Pikeman",), ("Pikeman", "Minotaur", "Knight")),
                       resources=((0, 0, 4, 0), (0, 0, 0, 0)))
    ai = DefaultAI()
    assert ai.act(s, RNG) == L.PLAY + 0
    s.apply(L.PLAY + 0)
    assert ai.act(s, RNG) == L.TARGET + BOARD_SLOTS + 1


def test_mandatory_target_worth_less_than_nothing_is_not_cast():
    """Decapitate with only own units to target scores below 0, so the knapsack leaves it."""
    s = build_position(hands=(("Decapitate",), ()), boards=(({"card": "Pikeman", "ready": False},), ()),
                       resources=((0, 0, 4, 0), (0, 0, 0, 0)))
    assert DefaultAI().act(s, RNG) == L.PASS


# -- resources ----------------------------------------------------------------------------------------------------
def resource_choice(hand, res, deck=("Minotaur",) * 40, extra=()) -> int:
    s = build_position(hands=(hand, ()), resources=(res, (0, 0, 0, 0)), played_resource=False,
                       game=game_with(deck, extra))
    a = DefaultAI().act(s, RNG)
    assert L.RESOURCE <= a < L.PLAY
    return a - L.RESOURCE


def test_resource_for_the_hand_card_with_the_smallest_deficit():
    """Knight (renewal 2) is closer than Decapitate (decay 3): renewal; with decay 2, Decapitate (1 short): decay."""
    assert resource_choice(("Decapitate", "Knight"), (0, 0, 0, 0)) == 3
    assert resource_choice(("Decapitate", "Knight"), (0, 0, 2, 0)) == 2


def test_resource_largest_deficit_type_of_that_card_ties_in_type_order():
    """The closest card's largest deficit type is played; ties go in the order synthesis, growth, decay, renewal."""
    hybrid = Card(id="Hybrid", name="Hybrid", card_type="spell", energy=3, requirements=(1, 0, 2, 0))
    even = Card(id="Even", name="Even", card_type="spell", energy=3, requirements=(0, 2, 0, 2))
    assert resource_choice(("Hybrid",), (0, 0, 0, 0), extra=(hybrid, even)) == 2
    assert resource_choice(("Even",), (0, 0, 0, 0), extra=(hybrid, even)) == 1


def test_resource_falls_back_to_the_deck_list():
    """With every hand card castable, the deck list's closest card decides (Pikeman, renewal 1, over Minotaur)."""
    deck = ("Minotaur",) * 20 + ("Pikeman",) * 20
    assert resource_choice((), (0, 0, 0, 0), deck=deck) == 3
    assert resource_choice(("Imp",), (0, 0, 1, 0), deck=deck) == 3


def test_resource_falls_back_to_the_most_needed_type_of_the_unique_cards():
    """With every card met, the type with the largest requirement sum over the deck's distinct cards:
    growth 4 (Minotaur) beats renewal 1 (Pikeman) although Pikemen are 36 of the 40 cards."""
    deck = ("Minotaur",) * 4 + ("Pikeman",) * 36
    assert resource_choice((), (0, 4, 0, 1), deck=deck) == 1


# -- blocking -----------------------------------------------------------------------------------------------------
def ai_blocks(attackers, blockers, life=25, agent=None) -> list[tuple[str, str]]:
    """Player 1 attacks with every unit of ``attackers``; the agent (player 0) blocks; (blocker, attacker)."""
    s = build_position(turn_player=1, boards=(blockers, attackers), life=(life, 25))
    m = s.match
    for i in range(len(m.board[1])):
        s.apply(L.ATTACK + i)
    s.apply(L.PASS)
    if s.phase != "block":
        return []
    out = []
    for a in run_agent(s, agent or DefaultAI(), lambda st: st.phase != "block"):
        if L.BLOCK <= a < L.ORDER:
            b, att = divmod(a - L.BLOCK, BOARD_SLOTS)
            out.append((b, att))
    return [(blockers[b], attackers[att]) for b, att in out]


def test_blocks_when_the_attacker_dies():
    """AttackerDies: Knight blocks an attacking Pikeman."""
    assert ai_blocks(("Pikeman",), ("Knight",)) == [("Knight", "Pikeman")]


def test_blocks_when_neither_dies():
    """NeitherDies: Castle 4/7 blocks a Minotaur 4/5."""
    assert ai_blocks(("Minotaur",), ("Castle",)) == [("Castle", "Minotaur")]


def test_blocks_an_even_trade():
    """BothDie with an even trade (Knight for Knight, 6 for 6) is blocked."""
    assert ai_blocks(("Knight",), ("Knight",)) == [("Knight", "Knight")]


def test_blocks_a_favourable_trade():
    """BothDie trading a Pikeman (3) for a Charging Tiger (5) is blocked."""
    assert ai_blocks(("ChargingTiger",), ("Pikeman",)) == [("Pikeman", "ChargingTiger")]


def test_does_not_block_an_unfavourable_trade():
    """BothDie trading a Charging Tiger (5) for a Pikeman (3) is not blocked."""
    assert ai_blocks(("Pikeman",), ("ChargingTiger",)) == []


def test_chump_blocks_only_against_lethal_damage():
    """BlockerDies (Pikeman in front of a Minotaur): not at 10 life, yes at 4 (4 incoming is lethal)."""
    assert ai_blocks(("Minotaur",), ("Pikeman",), life=10) == []
    assert ai_blocks(("Minotaur",), ("Pikeman",), life=4) == [("Pikeman", "Minotaur")]


def test_lethal_check_uses_the_damage_left_after_earlier_blocks():
    """At 7 life against Minotaur + Knight: the Imp chumps the Minotaur (cheapest), then 3 is not lethal."""
    assert ai_blocks(("Minotaur", "Knight"), ("Pikeman", "Imp"), life=7) == [("Imp", "Minotaur")]


def test_flying_attackers_get_blockers_first():
    """At 5 life, Minotaur + Imp (Flying) attack a lone Gryphon: the Imp is handled first (the Gryphon kills it),
    so the Gryphon does not chump the Minotaur."""
    assert ai_blocks(("Minotaur", "Imp"), ("Gryphon",), life=5) == [("Gryphon", "Imp")]


def test_higher_attack_attackers_first():
    """Knight then Pikeman: the lone Knight blocks the Knight (even trade) rather than the Pikeman."""
    assert ai_blocks(("Pikeman", "Knight"), ("Knight",)) == [("Knight", "Knight")]


# -- attacking ----------------------------------------------------------------------------------------------------
def ai_attacks(mine, theirs, agent=None) -> list[str]:
    """The card ids the agent (player 0, nothing in hand) attacks with."""
    s = build_position(boards=(mine, theirs))
    acts = run_agent(s, agent or DefaultAI(), lambda st: st.phase != "play1" or st.match.turn_player != 0)
    return [mine[a - L.ATTACK] for a in acts if L.ATTACK <= a < L.BLOCK]


@pytest.mark.parametrize("mine,theirs,attacks", [
    (("Minotaur",), ("Pikeman",), ["Minotaur"]),  # the Pikeman's block would only lose it
    (("Minotaur",), ("Castle",), []),  # NeitherDies: favourable for the defender
    (("Minotaur",), ({"card": "Castle", "exhausted": True},), ["Minotaur"]),  # exhausted units do not count
    (("Knight",), ("Knight",), ["Knight"]),  # BothDie, V(a) = V(e): not favourable
    (("ChargingTiger",), ("Pikeman",), []),  # BothDie, V(Tiger) 5 > V(Pikeman) 3: favourable
    (("Pikeman",), ("ChargingTiger",), ["Pikeman"]),  # BothDie, 3 < 5
    (("Dragon",), ("Castle",), ["Dragon"]),  # the Castle cannot block a flyer
    (("Pikeman",), ("ScoutGlider",), ["Pikeman"]),  # CannotBlock
    (("Minotaur", "Pikeman"), ("Knight",), ["Minotaur"]),  # each attacker checked on its own
])
def test_attack_rule(mine, theirs, attacks):
    """Attack only with units no untapped enemy unit could favourably block."""
    assert ai_attacks(mine, theirs) == attacks


def test_zero_attack_units_never_attack():
    """An Observation Balloon (0/3) never attacks, even into an empty board."""
    assert ai_attacks(("ObsesrvationBallon", "Pikeman"), ()) == ["Pikeman"]


# -- choices ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_mulligan_replaces_cards_costing_more_than_the_deck_mean(seed):
    """At the mulligan (0 energy) every card with |0 - cost| above the mean over the deck's distinct cards is
    replaced, the others kept, for both players."""
    game = FifthAeonGame(("Ancient Giants", "The King's Legions"))
    s = game.new_state(seed)
    for p in (0, 1):
        assert s.current_player == p and s.phase == "choice"
        m = s.match
        unique = list(dict.fromkeys(game.decks[p].cards))
        mean = sum(m.card(c).energy for c in unique) / len(unique)
        hand = [h[0] for h in m.sides[p].hand]
        expected = [c for c in hand if m.card(c).energy > mean]
        run_agent(s, DefaultAI(), lambda st: st.current_player != p or st.phase != "choice")
        n = len(expected)
        assert Counter(m.sides[p].deck[len(m.sides[p].deck) - n:]) == Counter(expected)
        kept = Counter(hand) - Counter(expected)
        assert not kept - Counter(h[0] for h in m.sides[p].hand)


def discard_pick(hand, energy) -> str:
    s = build_position(hands=(hand, ()), energy=(energy, 0), resources=((0, 6, 0, 4), (0, 0, 0, 0)))
    s.apply(L.PASS)
    assert s.phase == "choice" and s.match.choices[0].kind == "discard"
    a = DefaultAI().act(s, RNG)
    return hand[a - L.OPTION]


def test_discard_picks_the_card_farthest_from_the_energy():
    """End-of-turn discard down to 8 drops the worst card: |energy - cost| largest."""
    hand = ("Pikeman", "Knight", "Knight", "Bear", "Bear", "Minotaur", "Minotaur", "Gryphon", "ElderDragon")
    assert discard_pick(hand, 0) == "ElderDragon"
    assert discard_pick(hand, 10) == "Pikeman"


# -- Berserker ----------------------------------------------------------------------------------------------------
def test_berserker_attacks_with_everything():
    """BerserkerAI declares every unit able to attack, 0-attack ones and bad attacks included."""
    assert ai_attacks(("ObsesrvationBallon", "Pikeman", "Minotaur"), ("Castle",), Berserker()) == \
        ["ObsesrvationBallon", "Pikeman", "Minotaur"]


def test_berserker_never_blocks():
    """BerserkerAI passes the block phase even with a free kill available."""
    assert ai_blocks(("Pikeman",), ("Knight",), agent=Berserker()) == []
    assert ai_blocks(("Minotaur",), ("Pikeman",), life=4, agent=Berserker()) == []


def test_berserker_plays_cards_like_default_ai():
    """Resources and casting are DefaultAI's (the knapsack's best card first)."""
    s = build_position(hands=(("Minotaur", "Knight", "Bear"), ()), resources=((0, 4, 0, 2), (0, 0, 0, 0)))
    assert Berserker().act(s, RNG) == DefaultAI().act(s, RNG) == L.PLAY + 2


# -- statistical smoke --------------------------------------------------------------------------------------------
def test_default_ai_beats_random():
    """DefaultAI wins at least 18 of 20 seeded games against a uniformly random agent (seats swapped, the
    standard decks in rotating pairs)."""
    wins = 0
    for g in range(20):
        rng = np.random.default_rng(g)
        decks = (STANDARD_DECKS[g % 10], STANDARD_DECKS[(3 * g + 1) % 10])
        s = FifthAeonGame(decks).new_state(g)
        seat = g % 2
        agents = {seat: DefaultAI(), 1 - seat: RandomAgent()}
        while not s.is_terminal():
            s.apply(agents[s.current_player].act(s, rng))
        wins += s.winner() == seat
    assert wins >= 18
