"""Turn-card-set data from self-play replays, the card-play trainer and the Table 4.2 measurement (issue 18)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import DataError
from cardboard.training import selfplay
from cardboard.evaluation.papers.p001_hearthstone.card_play_data import CACHE, features, turn_card_sets
from cardboard.evaluation.papers.p001_hearthstone.card_play_learn import decode, split, strict_accuracy, train
from cardboard.training.selfplay import load_data, replay_game

SPEC = "uct:iterations=8,depth=2,prune=1"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tcs") / "handlock"
    selfplay.generate("hearth", [SPEC], 4, 7, folder, options={"decks": "handlock"})
    return folder


def test_replay_gives_back_every_recorded_decision(run):
    header, records = load_data(run)
    game = cardboard.registry.make_game("hearth", decks="handlock")
    for index in range(4):
        rows = np.flatnonzero(records["game"] == index)
        seen = [(s.observation(s.current_player).copy(), a) for s, a in replay_game(game, 7, records, index)]
        assert len(seen) == len(rows)
        for (obs, action), row in zip(seen, rows):
            assert np.array_equal(obs, records["obs"][row]) and action == records["action"][row]


def test_replay_refuses_records_that_do_not_fit(run):
    header, records = load_data(run)
    game = cardboard.registry.make_game("hearth", decks="handlock")
    bad = dict(records, action=records["action"].copy())
    row = np.flatnonzero(bad["game"] == 1)[5]
    bad["action"][row] = 1000 % game.info.num_actions if bad["action"][row] != 0 else 1
    bad["seat"] = bad["seat"].copy()
    bad["seat"][row] = 1 - bad["seat"][row]
    with pytest.raises(DataError, match="game 1, record 5"):
        list(replay_game(game, 7, bad, 1))
    with pytest.raises(DataError, match="without a record"):
        list(replay_game(game, 7, {k: v[:-3] for k, v in records.items()}, 3))


def test_targets_are_the_cards_the_player_plays_in_the_rest_of_the_turn(run):
    header, samples = turn_card_sets(run)
    _, records = load_data(run)
    game = cardboard.registry.make_game("hearth", decks="handlock")
    encoder = game.new_state(0).card_play_features()
    for index in range(4):
        decisions = [(s.clone(), a) for s, a in replay_game(game, 7, records, index)]
        rows = np.flatnonzero(samples["game"] == index)
        assert len(rows) == len(decisions)
        for k, row in enumerate(rows):
            state = decisions[k][0]
            expected = np.zeros(encoder.K, dtype=np.uint8)
            for later, action in decisions[k:]:
                if (later.current_player, later.turn) != (state.current_player, state.turn):
                    break
                if later.played_card(action) >= 0:
                    expected[encoder.column_of[later.played_card(action)]] = 1
            assert np.array_equal(samples["target"][row], expected)
            previous = decisions[k - 1][0] if k else None
            assert samples["first"][row] == (previous is None or (previous.current_player, previous.turn) !=
                                             (state.current_player, state.turn))
            dense = features(samples, np.array([row]), encoder)
            for got, want in zip(dense, encoder.encode(state, state.current_player, True)):
                assert np.array_equal(got[0], want)
    assert samples["target"][samples["first"]].sum() > 0  # some turns play cards


def test_cache_is_reused_rebuilt_for_other_games_and_after_a_cut(run, tmp_path):
    turn_card_sets(run)
    cache = run / CACHE
    stamp = cache.stat().st_mtime_ns
    turn_card_sets(run)
    assert cache.stat().st_mtime_ns == stamp
    cache.write_bytes(cache.read_bytes()[:100])
    _, samples = turn_card_sets(run)
    assert len(samples["game"]) > 0 and cache.stat().st_size > 100


def test_split_is_by_game_disjoint_and_seeded():
    games = np.arange(40)
    train_g, val_g, test_g = split(games, 0.15, 0.1, 3)
    assert len(test_g) == 6 and len(val_g) == 4 and len(train_g) == 30
    assert not set(train_g) & set(val_g) and not set(train_g) & set(test_g) and not set(val_g) & set(test_g)
    assert all(np.array_equal(a, b) for a, b in zip(split(games, 0.15, 0.1, 3), (train_g, val_g, test_g)))
    assert not np.array_equal(split(games, 0.15, 0.1, 4)[2], test_g)


def test_decoding_is_threshold_on_held_cards_and_accuracy_is_strict():
    probs = np.array([[0.9, 0.6, 0.1], [0.2, 0.4, 0.3]])
    held = np.array([[True, False, True], [True, True, True]])
    predicted = decode(probs, held)
    assert predicted.tolist() == [[True, False, False], [False, False, False]]
    assert strict_accuracy(predicted, np.array([[1, 0, 0], [0, 1, 0]])).tolist() == [True, False]


def test_training_writes_a_checkpoint_with_its_held_out_games_and_curves(run, tmp_path):
    from cardboard.evaluation.papers.p001_hearthstone.card_play import CardPlayNet

    out = tmp_path / "dnn"
    log = train(str(run), "dnn_140k", str(out), epochs=3, patience=5, test_fraction=0.25, val_fraction=0.34,
                quiet=True)
    assert {p.name for p in out.iterdir()} == {"model.safetensors", "log.json", "curve.png"}
    meta = CardPlayNet.metadata(out / "model.safetensors")
    assert meta["training"]["games"]["test"] == log["games"]["test"] and len(log["games"]["test"]) == 1
    assert json.loads((out / "log.json").read_text())["history"][0]["epoch"] == 1
    assert CardPlayNet.load(out / "model.safetensors", num_cards=27).num_cards == 27
    history = log["history"]
    assert history[-1]["train_bce"] < history[0]["train_bce"] or len(history) < 2


def test_table_4_2_measurement_counts_every_held_out_turn_start(run, tmp_path):
    from cardboard.evaluation.papers.p001_hearthstone.card_play_accuracy import measure
    from rich.console import Console

    train(str(run), "dnn_140k", str(run / "dnn_140k"), epochs=1, test_fraction=0.5, val_fraction=0.0, quiet=True)
    result = measure([str(run)], ["dnn_140k"], ["greedy_h"], 0, None, Console(quiet=True))
    entry = result["folders"]["handlock"]
    _, samples = turn_card_sets(run)
    assert entry["test_games"] == 2
    assert [n for _, n in entry["dnn_140k"]] == [n for _, n in entry["greedy_h"]] == entry["bucket_states"]
    assert sum(entry["bucket_states"]) == entry["states"] > 0
    assert all(0 <= hit <= n for method in ("dnn_140k", "greedy_h") for hit, n in entry[method])


def test_a_truncated_shard_is_named_and_nothing_is_trained(run, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    (copy / CACHE).unlink(missing_ok=True)
    shard = sorted(copy.glob("shard-*.npz"))[1]
    shard.write_bytes(shard.read_bytes()[:300])
    with pytest.raises(DataError, match=shard.name):
        turn_card_sets(copy)
    with pytest.raises(DataError, match=shard.name):
        train(str(copy), "dnn_140k", str(tmp_path / "out"), epochs=1, quiet=True)
    assert not (tmp_path / "out").exists() and not (copy / CACHE).exists()


def test_the_empty_set_reference_counts_the_turns_without_a_card(run):
    from rich.console import Console

    from cardboard.evaluation.papers.p001_hearthstone.card_play_accuracy import bucket_of, measure, test_games

    train(str(run), "dnn_140k", str(run / "dnn_140k"), epochs=1, test_fraction=0.5, val_fraction=0.0, quiet=True)
    entry = measure([str(run)], ["dnn_140k"], ["nothing"], 0, None, Console(quiet=True))["folders"]["handlock"]
    _, samples = turn_card_sets(run)
    bucket = bucket_of(samples["mana"].astype(np.int64))
    rows = np.isin(samples["game"], test_games(run, ["dnn_140k"])) & samples["first"] & (bucket >= 0)
    empty = samples["target"].sum(axis=1) == 0
    assert entry["nothing"] == [[int((rows & empty & (bucket == i)).sum()), int((rows & (bucket == i)).sum())]
                                for i in range(4)]
