"""Paper 001's network-guided rollouts in search (HLR), the card scorer, the CNN + greedy agent and their knobs."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import cardboard
from cardboard.envs.errors import CheckpointError, InvalidParameterError
from cardboard.envs.hearth import layout as L
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.evaluation.papers.p001_hearthstone.card_play import make_card_play_net
from cardboard.evaluation.papers.p001_hearthstone.card_play_agent import CardPlayAgent
from cardboard.evaluation.papers.p001_hearthstone.hlr import CardScorer, HLRRollout, num_card_ids
from cardboard.search.batching import Request, run_together
from cardboard.search.mcts import SearchConfig, TreeSearch


def hearth(deck: str = "handlock"):
    return cardboard.registry.make_game("hearth", decks=deck)


def decision(deck: str = "handlock", seed: int = 2, turn: int = 8):
    state = hearth(deck).new_state(seed)
    rng = np.random.default_rng(seed)
    while state.current_player == CHANCE or state.turn < turn or state.phase != "main":
        if state.current_player == CHANCE:
            state.apply(sample_chance(state, rng))
        else:
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    return state


def checkpoint(tmp_path, deck: str = "handlock", preset: str = "dnn_140k", name: str = "net.pt") -> str:
    k = decision(deck).card_play_features().K
    torch.manual_seed(0)
    path = tmp_path / name
    make_card_play_net(preset, k).save(path)
    return str(path)


class Counting:
    """A batching scorer that records the size of every flush."""

    def __init__(self, scores: np.ndarray):
        self.scores, self.queue, self.flushes, self._held = scores, self, [], []

    def submit(self, states):
        self._held.append(len(states))
        return len(states)

    def flush(self):
        self.flushes.append(sum(self._held))
        self._held = []

    def collect(self, n):
        return [self.scores] * n

    def __call__(self, state):
        return self.scores


def test_scorer_gives_per_card_id_probabilities_batched_equal_to_one_at_a_time(tmp_path):
    from cardboard.evaluation.papers.p001_hearthstone.card_play import CardPlayNet

    states = [decision(seed=s) for s in range(4)]
    features = states[0].card_play_features()
    scorer = CardScorer(CardPlayNet.load(checkpoint(tmp_path), features.K), features, num_card_ids(states[0]))
    together = scorer.scores(states)
    assert together.shape == (4, L.NUM_CARDS)
    outside = np.setdiff1d(np.arange(L.NUM_CARDS), features.columns)
    assert (together[:, outside] == 0).all() and ((together[:, features.columns] > 0) &
                                                   (together[:, features.columns] < 1)).all()
    for state, row in zip(states, together):
        assert np.allclose(scorer(state), row, atol=1e-6)
    token = scorer.submit(states[:2])
    other = scorer.submit(states[2:])
    scorer.flush()
    assert np.allclose(np.stack(scorer.collect(other) + scorer.collect(token)), together[[2, 3, 0, 1]], atol=1e-6)


def test_scorer_refuses_a_network_of_another_card_pool(tmp_path):
    from cardboard.evaluation.papers.p001_hearthstone.card_play import CardPlayNet

    features = decision("handlock").card_play_features()
    net = CardPlayNet.load(checkpoint(tmp_path, "face_hunter"))
    with pytest.raises(InvalidParameterError, match="K = 25 cards; this match-up's encoder has K = 27"):
        CardScorer(net, features, L.NUM_CARDS)


def test_rollout_asks_once_per_simulated_turn_and_stops_after_depth():
    state = decision()
    scorer = Counting(np.full(L.NUM_CARDS, 0.5))
    rollout = HLRRollout(scorer)
    world = state.clone()
    steps = rollout.steps(world, np.random.default_rng(0), SearchConfig(depth=3))
    asked = []
    try:
        request = next(steps)
        while True:
            assert isinstance(request, Request) and len(request.states) == 1
            asked.append(request.states[0].turn)
            request = steps.send([scorer.scores])
    except StopIteration:
        pass
    assert asked == list(range(state.turn, state.turn + len(asked))) and 1 <= len(asked) <= 3
    assert world.is_terminal() or world.turn == state.turn + 3


def test_search_batches_the_rollouts_in_flight_and_matches_a_synchronous_rollout():
    state = decision()
    scorer = Counting(np.linspace(0, 1, L.NUM_CARDS))
    batched = TreeSearch(SearchConfig(iterations=60, depth=3, rollout=HLRRollout(scorer), leaves=10), "duct", 10)
    result = batched.search(state, np.random.default_rng(5))
    assert result.iterations == 60 and max(scorer.flushes) > 1  # rollouts of several leaves share a network call
    assert sum(result.visits.values()) >= 50

    class Synchronous:  # the same rollout without ``steps``: run to its end inside the iteration
        def __init__(self, inner):
            self.inner = inner

        def __call__(self, state, rng, config):
            self.inner(state, rng, config)

    one = TreeSearch(SearchConfig(iterations=60, depth=3, rollout=HLRRollout(scorer)), "duct", 10)
    sync = TreeSearch(SearchConfig(iterations=60, depth=3, rollout=Synchronous(HLRRollout(scorer))), "duct", 10)
    a, b = one.search(state, np.random.default_rng(5)), sync.search(state, np.random.default_rng(5))
    assert a.visits == b.visits and a.action == b.action  # with one leaf in flight: the same rng order


def test_searches_run_together_give_the_same_results_as_one_by_one():
    states = [decision(seed=s) for s in (2, 3, 4)]
    config = SearchConfig(iterations=30, depth=2, rollout=HLRRollout(Counting(np.full(L.NUM_CARDS, 0.3))), leaves=4)
    alone = [TreeSearch(config, "duct", 5).search(s, np.random.default_rng(i)) for i, s in enumerate(states)]
    jobs = [TreeSearch(config, "duct", 5).steps(s, np.random.default_rng(i)) for i, s in enumerate(states)]
    together = list(run_together(jobs, 3))  # in the order they finish
    assert sorted(sorted(r.visits.items()) for r in alone) == sorted(sorted(r.visits.items()) for r in together)


def test_hlr_knob_builds_duct_with_network_rollouts_and_refuses_bad_input(tmp_path):
    path = checkpoint(tmp_path)
    agent = cardboard.registry.make_agent(f"duct:iterations=40,depth=3,prune=1,leaves=10,hlr={path}", hearth())
    assert isinstance(agent.searcher.config.rollout, HLRRollout)
    state = decision()
    action = agent.act(state, np.random.default_rng(0))
    assert state.action_mask()[action]
    with pytest.raises(CheckpointError, match="K = 27 cards; this game's card pool has K = 25"):
        cardboard.registry.make_agent(f"duct:depth=3,hlr={path}", hearth("face_hunter"))
    with pytest.raises(InvalidParameterError, match="hlr="):
        cardboard.registry.make_agent(f"duct:depth=3,hlr={path}", cardboard.registry.make_game("lords_of_war"))
    (tmp_path / "cut.pt").write_bytes(open(path, "rb").read()[:500])
    with pytest.raises(CheckpointError, match="cut.pt"):
        cardboard.registry.make_agent(f"duct:depth=3,hlr={tmp_path / 'cut.pt'}", hearth())


def test_cnn_greedy_plays_the_playable_card_the_network_ranks_first(tmp_path):
    from cardboard.envs.hearth.positions import hand_names, position

    state = position(hands=(["Wolfrider", "Leper Gnome"], []), heroes=({"mana": 3, "power_used": True}, {}))
    path = tmp_path / "fh_mm.pt"
    make_card_play_net("dnn_140k", state.card_play_features().K).save(path)  # K = 52: the two decks' cards
    agent = CardPlayAgent(str(path), game=state.game)
    for favourite in ("Wolfrider", "Leper Gnome"):
        scores = np.zeros(L.NUM_CARDS)
        scores[state.game.names.index(favourite)] = 0.9
        agent.scorer = Counting(scores)
        world, rng = state.clone(), np.random.default_rng(0)
        while world.current_player == 0:
            world.apply(agent.act(world, rng))
        assert favourite not in hand_names(world, 0)  # played first; the other no longer affordable
        assert len(hand_names(world, 0)) == 1


def test_cnn_greedy_needs_a_checkpoint_of_the_match_up(tmp_path):
    with pytest.raises(InvalidParameterError, match="path=PATH"):
        cardboard.registry.make_agent("cardplay", hearth())
    with pytest.raises(CheckpointError, match="K = 27"):
        cardboard.registry.make_agent(f"cardplay:path={checkpoint(tmp_path)}", hearth("mech_mage"))
    agent = cardboard.registry.make_agent(f"cardplay:path={checkpoint(tmp_path, preset='cnn_290k')}", hearth())
    state = decision()
    assert state.action_mask()[agent.act(state, np.random.default_rng(0))]


def test_cnn_greedy_handed_a_state_of_another_game_says_so(tmp_path):
    agent = CardPlayAgent(checkpoint(tmp_path))
    lords = cardboard.registry.make_game("lords_of_war").new_state(0)
    with pytest.raises(InvalidParameterError, match="cardplay: game 'lords_of_war' does not support it"):
        agent.act(lords, np.random.default_rng(0))


def test_every_registered_agent_can_be_sent_to_worker_processes():
    cardboard.registry.pickled_entries("hearth", list(cardboard.registry.agents()))  # cardplay's factory once shadowed by its module


def test_agents_of_one_checkpoint_share_its_scorer_and_a_rewritten_file_is_loaded_again(tmp_path):
    path = checkpoint(tmp_path)
    a, b = (cardboard.registry.make_agent(f"duct:depth=3,leaves=4,hlr={path}", hearth()) for _ in range(2))
    assert a.searcher.config.rollout.scorer is b.searcher.config.rollout.scorer  # one queue: one batch per round
    torch.manual_seed(1)
    make_card_play_net("dnn_140k", 27).save(path)
    c = cardboard.registry.make_agent(f"duct:depth=3,hlr={path}", hearth())
    assert c.searcher.config.rollout.scorer is not a.searcher.config.rollout.scorer
