"""Hidden decklists (Fifth Aeon's ``decklists="hidden"``), the ``deck_model`` keyword of ``determinize`` and search's
``deckmodel=`` knob (``cardboard.search.deck_models``; issue 37): hidden lists reveal nothing, worlds keep what the
player saw and respect copy limits, the deck models deal legal cards, seeds repeat, and the knob is refused where
it cannot work. The predictor is a stub here (paper 000's lives in its home)."""
from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

import cardboard
from cardboard import registry
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.fifth_aeon.cards import STARTER_DECKS, bundled_pool, load_deck
from cardboard.envs.fifth_aeon.constants import MAX_COPIES
from cardboard.envs.fifth_aeon.hidden_lists import UniformDeck
from cardboard.search.deck_models import PredictedDeck, TrueDeck

from .conftest import advance

COLLECTIBLE = {c.id for c in bundled_pool().collectible}


def hidden_game():
    return cardboard.make_game("fifth_aeon", decklists="hidden", deckpool="starter")


def midgame(seed: int = 3, steps: int = 60, game=None):
    return advance((game or hidden_game()).new_state(seed), np.random.default_rng(seed), steps)


class StubPredictor:
    """A predictor that always predicts ``deck`` with the cards observed (short of ``size``: the scores fill it) and
    scores its cards by count."""

    def __init__(self, deck: tuple[str, ...]):
        self.deck = Counter(deck)
        self.calls = 0

    def predict(self, observed, size):
        self.calls += 1
        return self.deck | Counter(observed)

    def scores(self, observed):
        return {c: float(n) for c, n in self.deck.items()}


def test_hidden_lists_reveal_nothing_of_the_opponents_unseen_cards():
    """Two states that differ only in the opponent's unseen cards look the same to the player: observation, view,
    text and the log of its moves."""
    state = midgame()
    other = state.determinize(0, np.random.default_rng(1))  # the opponent's unseen cards dealt anew
    other.match.sides[0].deck = list(state.match.sides[0].deck)  # the player's own deck as it was
    assert other.hidden_cards(0) != state.hidden_cards(0)
    assert np.array_equal(other.observation(0), state.observation(0))
    assert other.view(0).to_json() == state.view(0).to_json()
    assert other.game.render_ansi(other, 0) == state.game.render_ansi(state, 0)
    if state.current_player == 0:
        assert [other.action_seen(a, 0) for a in state.legal_actions()] == \
            [state.action_seen(a, 0) for a in state.legal_actions()]


def test_determinize_keeps_what_the_player_saw_and_respects_copy_limits():
    rng = np.random.default_rng(0)
    for seed in range(3):
        state = midgame(seed, 40 + 20 * seed)
        for p in range(2):
            seen, unseen = state.seen_cards(p), len(state.hidden_cards(p))
            for _ in range(5):
                world = state.determinize(p, rng)
                assert world.seen_cards(p) == seen and len(world.hidden_cards(p)) == unseen
                dealt = Counter(world.hidden_cards(p))
                assert set(dealt) <= COLLECTIBLE
                assert max((dealt + seen).values()) <= MAX_COPIES
                assert Counter(world.decks[1 - p]) == dealt + seen  # the world's list of the opponent
                assert world.decks[p] == state.decks[p] and world.card_multiset() == state.card_multiset()


def test_open_lists_keep_the_opponents_cards_and_refuse_a_deck_model():
    state = midgame(game=cardboard.make_game("fifth_aeon"))
    world = state.determinize(0, np.random.default_rng(0))
    assert sorted(world.hidden_cards(0)) == sorted(state.hidden_cards(0))
    with pytest.raises(InvalidParameterError, match="decklists are open"):
        state.determinize(0, np.random.default_rng(0), deck_model=TrueDeck([]))


def test_the_deck_pool_draws_each_players_list_from_the_starter_decks_by_the_seed():
    game = hidden_game()
    starters = {tuple(sorted(load_deck(d).cards)) for d in STARTER_DECKS}
    lists = [game.new_state(seed).decks for seed in range(12)]
    assert all(tuple(sorted(d)) in starters for pair in lists for d in pair)
    assert len({pair for pair in lists}) > 3 and game.new_state(5).decks == lists[5]


def test_deck_models_deal_legal_cards():
    rng = np.random.default_rng(0)
    seen = Counter({"Skeleton": 4, "Toxin": 1})
    uniform = UniformDeck(bundled_pool()).sample(seen, 45, rng)
    assert len(uniform) == 45 and set(uniform) <= COLLECTIBLE and "Skeleton" not in uniform
    assert max((Counter(uniform) + seen).values()) <= MAX_COPIES
    assert sorted(TrueDeck(["a", "b", "b"]).sample(seen, 3, rng)) == ["a", "b", "b"]
    stub = StubPredictor(("Toxin",) * 4 + ("Lich",) * 4)
    model = PredictedDeck(stub)
    short = model.sample(Counter({"Toxin": 1}), 10, rng)  # the prediction holds 7 unseen cards: 3 by scores
    assert sorted(short[:7]) == ["Lich"] * 4 + ["Toxin"] * 3 and set(short[7:]) <= {"Toxin", "Lich"}
    assert sorted(model.sample(Counter({"Toxin": 1}), 5, rng)) != [] and stub.calls == 2  # cached per (seen, count)
    model.sample(Counter({"Toxin": 1}), 10, rng)
    assert stub.calls == 2


def allowed(seen: Counter) -> Counter:
    """The copies of each collectible card the opponent may still hold unseen: ``MAX_COPIES`` less those seen, none
    once as many are seen (a card an effect made may be seen more often)."""
    return Counter({c: MAX_COPIES - seen[c] for c in COLLECTIBLE if seen[c] < MAX_COPIES})


def test_the_uniform_model_deals_at_most_the_copies_left_after_those_seen():
    """Dealing every card left gives exactly the copies the rules allow, by hand: 4 of a card unseen, 3 of a card
    seen once, 1 of a card seen thrice, none of one seen 4 or 6 times; over 60 seeds a partial deal never deals
    more copies of a card than that."""
    cards = sorted(COLLECTIBLE)
    seen = Counter({cards[0]: 4, cards[1]: 1, cards[2]: 3, cards[3]: 6})
    left = allowed(seen)
    assert (left[cards[0]], left[cards[1]], left[cards[2]], left[cards[3]], left[cards[4]]) == (0, 3, 1, 0, 4)
    total = MAX_COPIES * len(cards) - 4 - 1 - 3 - 4
    assert sum(left.values()) == total
    model = UniformDeck(bundled_pool())
    assert Counter(model.sample(seen, total, np.random.default_rng(0))) == left
    for seed in range(60):
        dealt = Counter(model.sample(seen, 45, np.random.default_rng(seed)))
        assert sum(dealt.values()) == 45 and dealt <= left, seed


def test_determinized_worlds_never_hold_more_copies_than_the_rules_allow():
    """Over 60 midgame positions, each player's worlds deal the opponent's unseen cards within the copies left
    after the cards that player has seen (some of these positions have a card seen 4 times: none more may be
    dealt)."""
    game, full = hidden_game(), 0
    for seed in range(60):
        state = midgame(seed, 40 + 10 * (seed % 5), game)
        for p in range(2):
            seen = state.seen_cards(p)
            full += any(n >= MAX_COPIES for n in seen.values())
            for k in range(3):
                world = state.determinize(p, np.random.default_rng([seed, p, k]))
                dealt = Counter(world.hidden_cards(p))
                assert world.seen_cards(p) == seen and dealt <= allowed(seen), (seed, p, dealt - allowed(seen))
    assert full >= 3  # the positions hold the case that matters


def test_the_same_seed_deals_the_same_worlds():
    state = midgame()
    for model in (None, TrueDeck(state.hidden_cards(0)), PredictedDeck(StubPredictor(("Toxin",) * 4))):
        worlds = [state.determinize(0, np.random.default_rng(9), deck_model=model).state_key() for _ in range(2)]
        assert worlds[0] == worlds[1]


def test_the_knob_is_refused_where_it_cannot_work():
    with pytest.raises(InvalidParameterError, match="deckmodel=uniform: game 'lords_of_war' does not support it"):
        cardboard.make_agent("ismcts:deckmodel=uniform", cardboard.make_game("lords_of_war"))
    with pytest.raises(InvalidParameterError, match="deckmodel=oracle: .*decklists are open"):
        cardboard.make_agent("duct:deckmodel=oracle", cardboard.make_game("fifth_aeon"))
    with pytest.raises(InvalidParameterError, match="expected uniform, oracle, predict or predict:VARIANT"):
        cardboard.make_agent("pimc:deckmodel=oracle:x", hidden_game())
    with pytest.raises(InvalidParameterError, match="both choose the worlds"):
        cardboard.make_agent("ismcts:deckmodel=uniform,accuracy=0.5", cardboard.make_game("hearth"))
    from cardboard.search.agents import ismcts  # a factory called below the registry is handed no predictor

    with pytest.raises(InvalidParameterError, match="needs a deck predictor"):
        ismcts(deckmodel="predict", game=hidden_game())


@pytest.mark.parametrize("spec", ["ismcts:iterations=20,heuristic=1,deckmodel=predict:stub",
                                  "duct:worlds=2,iterations=20,heuristic=1,deckmodel=oracle",
                                  "pimc:worlds=2,iterations=10,deckmodel=uniform"])
def test_search_agents_play_with_a_deck_model_and_repeat_with_a_seed(spec, monkeypatch):
    variants = []
    handed = dataclasses.replace(registry.extensions(), deck_predictor=lambda game, variant: variants.append(variant)
                                 or StubPredictor(("Toxin",) * 4 + ("Skeleton",) * 4))
    monkeypatch.setattr(registry, "extensions", lambda: handed)  # what the registry hands the factories
    state = midgame(seed=1, steps=20)
    while len(state.legal_actions()) < 2:
        state.apply(int(state.legal_actions()[0]))
    actions = [cardboard.make_agent(spec, hidden_game()).act(state, np.random.default_rng(4)) for _ in range(2)]
    assert actions[0] == actions[1] and actions[0] in state.legal_actions()
    assert variants == (["stub"] * 2 if "predict" in spec else [])


def test_paper_000s_predictor_speaks_the_games_card_ids_and_the_registry_hands_it():
    from cardboard.evaluation.papers.p000_play_style.deck_model import GameIds

    class IntPredictor:  # chapter 6's predictors speak integer ids
        def predict(self, observed, size):
            return Counter({0: size - observed.get(1, 0), 1: observed.get(1, 0)})

        def scores(self, observed):
            return {0: 1.0, 1: 0.5}

    named = GameIds(IntPredictor(), ("Skeleton", "Toxin"))
    assert named.predict({"Toxin": 2}, 5) == Counter({"Skeleton": 3, "Toxin": 2})
    assert named.scores({}) == {"Skeleton": 1.0, "Toxin": 0.5}
    from cardboard.evaluation.papers.p000_play_style.deck_model import predictor

    assert registry.extensions().deck_predictor is predictor  # what the registry hands deckmodel=predict
