"""The testbed procedure (003 §3.1; ``cardboard.evaluation.papers.p003_pandemic.testbed``): k-medoids (PAM) on point sets with a known answer, the
default policy's record on one set-up, a whole tiny run into a folder (files, resuming after a kill, a config
clash, the same records on a Ray cluster, Ctrl-C's resume line), and the ten bundled set-ups (003 notes §1.4, §3.1 [code]: 4 players, the paper's roles, 44 player cards in
4 piles of 11 with one epidemic each, 39 infection cards).
"""
from __future__ import annotations

import itertools
import json
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "envs" / "pandemic" / "tests"))  # the game's helpers
from pandemic_helpers import L, check_invariants, deck_orders, hand, piles  # noqa: E402

import cardboard  # noqa: E402
from cardboard.envs.errors import InvalidParameterError  # noqa: E402
from cardboard.envs.pandemic import load_setup  # noqa: E402
from cardboard.evaluation.papers.p003_pandemic import testbed as T  # noqa: E402
from cardboard.envs.pandemic.setup_file import TESTBED_DIR  # noqa: E402
from cardboard.jobs.backends import Backend  # noqa: E402

BUNDLED = [f"S{i:02d}" for i in range(1, 11)]


# ---- k-medoids -----------------------------------------------------------------------------------------------
def total_cost(points, medoids):
    d = np.linalg.norm(points[:, None, :] - points[None, list(medoids), :], axis=-1)
    return d.min(axis=1).sum()


@pytest.mark.parametrize("seed", range(5))
def test_k_medoids_puts_one_medoid_in_each_tight_cluster(seed):  # PAM (Kaufman & Rousseeuw)
    points = np.array([[0, 0], [0.01, 0], [0, 0.01], [5, 5], [5.01, 5], [5, 5.01]], dtype=float)
    medoids = T.k_medoids(points, 2, np.random.default_rng(seed))
    assert sorted(medoids.tolist()) == [0, 3]  # each cluster's centre point
    three = np.array([[0, 0], [0.1, 0], [-0.1, 0], [10, 0], [10.1, 0], [9.9, 0], [0, 10], [0, 10.1], [0, 9.9]])
    assert sorted(T.k_medoids(three, 3, np.random.default_rng(seed)).tolist()) == [0, 3, 6]


@pytest.mark.parametrize("seed", range(3))
def test_k_medoids_matches_brute_force_on_small_sets(seed):  # k = 1 and k = 2: the best medoids of all subsets
    rng = np.random.default_rng(100 + seed)
    points = np.concatenate([rng.normal(0, 0.3, (5, 2)), rng.normal(3, 0.3, (4, 2))])
    for k in (1, 2):
        got = T.k_medoids(points, k, np.random.default_rng(seed))
        best = min(total_cost(points, c) for c in itertools.combinations(range(len(points)), k))
        assert total_cost(points, got) == pytest.approx(best)
        assert len(set(got.tolist())) == k


def test_k_medoids_with_k_equal_to_n_takes_every_point():
    points = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5]])
    assert sorted(T.k_medoids(points, 5, np.random.default_rng(0)).tolist()) == [0, 1, 2, 3, 4]
    same = np.zeros((3, 2))  # duplicates: still 3 distinct indices
    assert sorted(T.k_medoids(same, 3, np.random.default_rng(0)).tolist()) == [0, 1, 2]


@pytest.mark.parametrize("k", [0, -1, 6])
def test_k_medoids_refuses_a_bad_k(k):
    with pytest.raises(InvalidParameterError):
        T.k_medoids(np.zeros((5, 2)), k, np.random.default_rng(0))


# ---- one set-up's record ----------------------------------------------------------------------------------------
def test_setup_state_is_a_four_player_easy_deal_with_the_papers_roles():  # 003 §3.1, §1.4
    state = T.setup_state(0, 7)
    roles = [L.ROLE_NAMES.index(r) for r in L.PAPER_ROLES]  # the authors' files: OE, Medic, Scientist, Researcher
    assert state.num_players == 4 and state.s[L.ROLE:L.ROLE + 4].tolist() == roles == [0, 1, 3, 2]
    assert piles(state) == [(11, 1)] * 4 and len(deck_orders(state)[1]) == 39
    assert np.array_equal(state.s, T.setup_state(0, 7).s) and not np.array_equal(state.s, T.setup_state(0, 8).s)


def test_play_setup_is_deterministic_and_its_counts_add_up():  # 003 §3.1 step 1
    first = T.play_setup(0, 3, 6)
    assert first == T.play_setup(0, 3, 6)
    assert first["index"] == 3 and first["games"] == 6
    assert first["wins"] + sum(first["losses"].values()) == 6
    assert set(first["losses"]) == {"outbreaks", "cubes", "player_deck"}
    assert first["win_ratio"] == pytest.approx(first["wins"] / 6)
    assert 1 <= first["mean_turns"] <= T.MAX_GAME_TURNS + 1


# ---- a whole run -----------------------------------------------------------------------------------------------
SIZE = dict(setups=6, games=3, keep=4, k=2, seed=0, workers=1, quiet=True)


def live(s):
    """``s`` without the slots of cards already drawn (scratch below the decks' tops)."""
    s = s.copy()
    s[L.IDECK:L.IDECK + s[L.ITOP]] = 0
    s[L.PDECK:L.PDECK + s[L.PTOP]] = 0
    return s


def lines(path):
    return [json.loads(x) for x in (path / "setups.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("testbed")
    return out, T.build_testbed(out, **SIZE)


def test_build_testbed_writes_the_medoids_and_the_summary(run):  # 003 §3.1 steps 1-3
    out, medoids = run
    assert [m["name"] for m in medoids] == ["S01", "S02"]
    assert medoids[0]["win_ratio"] >= medoids[1]["win_ratio"]  # best first
    for name in ("S01.json", "S02.json", "testbed.json", "testbed.png", "setups.jsonl", "config.json"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0
    assert not (out / "S03.json").exists()
    records = lines(out)
    assert sorted(r["index"] for r in records) == list(range(6))
    summary = json.loads((out / "testbed.json").read_text())
    assert summary["k"] == 2 and summary["keep"] == 4 and len(summary["kept"]) == 4
    kept_ratios = sorted((r["win_ratio"] for r in records), reverse=True)[:4]
    assert sorted((r["win_ratio"] for r in summary["kept"]), reverse=True) == kept_ratios  # the best 4 kept
    assert {m["index"] for m in medoids} <= {r["index"] for r in summary["kept"]}
    for m in medoids:
        setup = load_setup(str(out / f"{m['name']}.json"))
        state = cardboard.make_game("pandemic", setup=str(out / f"{m['name']}.json")).new_state(0)
        check_invariants(state)
        dealt = T.setup_state(0, m["index"])
        assert np.array_equal(live(setup.array()), live(dealt.s))  # the medoid's own deal, deck orders included
        assert T.play_setup(0, m["index"], 3) == {k: v for k, v in m.items() if k != "name"}


@pytest.mark.parametrize("cut", ["line", "half"])
def test_build_testbed_resumes_after_a_kill(run, tmp_path, cut):  # testbed.py: nothing lost or counted twice
    out, medoids = run
    for name in ("config.json", "setups.jsonl"):
        (tmp_path / name).write_text((out / name).read_text())
    text = (tmp_path / "setups.jsonl").read_text().splitlines(keepends=True)
    last = text[-1]
    (tmp_path / "setups.jsonl").write_text("".join(text[:-1]) + ("" if cut == "line" else last[:len(last) // 2]))
    again = T.build_testbed(tmp_path, **SIZE)
    assert again == medoids
    records = lines(tmp_path)
    assert sorted(r["index"] for r in records) == list(range(6))  # each set-up once
    assert sorted(records, key=lambda r: r["index"]) == sorted(lines(out), key=lambda r: r["index"])
    assert (tmp_path / "S01.json").read_text() == (out / "S01.json").read_text()


def test_build_testbed_refuses_another_config_in_the_same_folder(run):
    out, _ = run
    with pytest.raises(InvalidParameterError):
        T.build_testbed(out, **{**SIZE, "games": 4})


@pytest.mark.parametrize("bad", [dict(k=5), dict(keep=7), dict(k=0)])
def test_build_testbed_refuses_bad_sizes(tmp_path, bad):
    with pytest.raises(InvalidParameterError):
        T.build_testbed(tmp_path, **{**SIZE, **bad})


def test_build_testbed_gives_the_same_records_on_a_ray_cluster(run, ray_cluster, tmp_path, monkeypatch):
    out, medoids = run
    monkeypatch.setattr(T, "CHUNK", 2)  # three tasks for the two workers
    assert T.build_testbed(tmp_path, **SIZE, backend=Backend("ray", 2)) == medoids
    by_index = (lambda folder: sorted(lines(folder), key=lambda r: r["index"]))
    assert by_index(tmp_path) == by_index(out)


def test_ctrl_c_prints_the_saved_setups_and_the_resume_command(run, tmp_path, monkeypatch, capsys):
    from cardboard.cli import main

    monkeypatch.setattr(T, "CHUNK", 2)
    play_chunk, calls = T._play_chunk, []

    def interrupted_second(settings, indices):
        calls.append(indices)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return play_chunk(settings, indices)

    monkeypatch.setattr(T, "_play_chunk", interrupted_second)
    argv = ["pandemic-testbed", "--out", str(tmp_path), "--setups", "6", "--games", "3", "--keep", "4", "--k", "2",
            "--quiet"]
    assert main(argv) == 130
    printed = capsys.readouterr()
    assert f"interrupted: 2 set-ups saved in {tmp_path}; resume with: cardboard {shlex.join(argv)}" in printed.out
    assert "Traceback" not in printed.out + printed.err and len(lines(tmp_path)) == 2
    monkeypatch.setattr(T, "_play_chunk", play_chunk)
    assert main(argv) == 0  # resumed: the other four set-ups, the same testbed
    assert sorted(lines(tmp_path), key=lambda r: r["index"]) == sorted(lines(run[0]), key=lambda r: r["index"])


# ---- the bundled set-ups ----------------------------------------------------------------------------------------
def test_the_ten_bundled_setups():  # 003 §3.1, notes §1.4 [code]
    arrays = []
    for name in BUNDLED:
        assert (TESTBED_DIR / f"{name}.json").is_file()
        g = cardboard.make_game("pandemic", setup=name)
        state = g.new_state(0)
        check_invariants(state)
        assert state.num_players == 4
        # seated as roles=paper seats a dealt game and the authors' files do: Scientist before Researcher
        paper = cardboard.new_state("pandemic", players=4, roles="paper").s[L.ROLE:L.ROLE + 4]
        assert state.s[L.ROLE:L.ROLE + 4].tolist() == paper.tolist() == [0, 1, 3, 2]
        assert [len(hand(state, q)) for q in range(4)] == [2, 2, 2, 2]
        assert piles(state) == [(11, 1)] * 4  # 44 player cards, one epidemic in each pile
        assert len(deck_orders(state)[0]) == 44 and len(deck_orders(state)[1]) == 39
        assert int(state.s[L.CUBES:L.CUBES + L.NUM_CITIES * 4].sum()) == 18  # 3/3/3, 2/2/2, 1/1/1
        assert state.turn == 0 and state.current_player == 0 and state.s[L.OUTBREAKS] == 0
        assert np.array_equal(g.new_state(5).s, state.s)  # a set-up fixes both deck orders
        arrays.append(state.s.copy())
    assert all(not np.array_equal(a, b) for a, b in itertools.combinations(arrays, 2))
    summary = json.loads((TESTBED_DIR / "testbed.json").read_text())
    assert [m["name"] for m in summary["medoids"]] == BUNDLED


def test_each_bundled_setup_is_its_medoid_as_the_testbed_command_deals_and_scores_it():  # 003 §3.1; issue 47
    summary = json.loads((TESTBED_DIR / "testbed.json").read_text())
    seed, games = summary["config"]["seed"], summary["config"]["games"]
    for medoid in summary["medoids"]:
        dealt = T.setup_state(seed, medoid["index"])  # roles=paper: the authors' seat order
        assert np.array_equal(live(load_setup(medoid["name"]).array()), live(dealt.s)), medoid["name"]
        assert T.play_setup(seed, medoid["index"], games) == {k: v for k, v in medoid.items() if k != "name"}
