"""Fifth Aeon's tournament formats (``evaluation.fifth_aeon_formats``) and balancer (``evaluation.fifth_aeon_balancer``):
schedules, deck building, the stopping rule, resuming, the same records on a Ray cluster, Ctrl-C's resume line,
bad input."""
from __future__ import annotations

import json
import shlex
from collections import Counter

import numpy as np
import pytest

from cardboard.envs.errors import CardDataError, InvalidParameterError, UnknownNameError
from cardboard.envs.fifth_aeon.cards import STANDARD_DECKS, bundled_pool
from cardboard.evaluation.papers.p004_fifth_aeon import fifth_aeon_balancer as B
from cardboard.evaluation.papers.p004_fifth_aeon import fifth_aeon_balance
from cardboard.evaluation.papers.p004_fifth_aeon import fifth_aeon_formats as F
from cardboard.jobs.backends import Backend


def interrupt_second_call(monkeypatch, module, name: str) -> None:
    """``module.name`` raises KeyboardInterrupt on its second call (Ctrl-C after the first task's results)."""
    original, calls = getattr(module, name), []

    def interrupted(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, interrupted)


def check_interrupted(capsys, saved: str, out, command: str) -> None:
    """The one line Ctrl-C prints: what is saved where and the command that resumes; no traceback."""
    printed = capsys.readouterr()
    assert f"interrupted: {saved} saved in {out}; resume with: {command}" in printed.out
    assert "Traceback" not in printed.out + printed.err


# ---- formats ----------------------------------------------------------------------------------------------------
def test_schedule_sizes_follow_the_competition_configs():
    """Constructed: every deck pair of two agents x games x 2 seat orders; limited: games x 2 a pair;
    preconstructed: every standard deck against every one (mirrors too) x games x 2."""
    games = {"constructed": 2, "limited": 3, "preconstructed": 1}
    jobs = F.schedule(["a", "b", "c"], list(F.FORMATS), games, seed=0)
    per = Counter(j.fmt for j in jobs)
    pairs = 3
    assert per["constructed"] == pairs * 2 * len(F.STARTER_DECKS) ** 2 * 2
    assert per["limited"] == pairs * 3 * 2
    assert per["preconstructed"] == pairs * 1 * len(STANDARD_DECKS) ** 2 * 2
    assert [j.index for j in jobs] == list(range(len(jobs)))
    for j in jobs:  # every game has its mirror with the seats swapped
        assert j.first != j.second


def test_each_game_is_played_once_from_each_seat():
    jobs = F.schedule(["a", "b"], ["preconstructed"], {"preconstructed": 1}, seed=0)
    seen = Counter((j.first, j.decks) for j in jobs)
    assert all(n == 1 for n in seen.values())
    firsts = Counter(j.first for j in jobs)
    assert firsts[0] == firsts[1] == len(jobs) // 2


def test_limited_decks_come_from_one_shared_pool():
    """One 100-card pool; each agent's 40 cards are drawn from its own copy of it (copies beyond 4 allowed)."""
    decks = F.limited_decks(3, seed=7)
    pool = Counter()
    rng = np.random.default_rng([7, 1])
    ids = [c.id for c in bundled_pool().collectible]
    pool.update(ids[i] for i in rng.integers(len(ids), size=100))
    for d in decks:
        assert len(d.cards) == 40
        assert not Counter(d.cards) - pool  # never more copies than the pool holds
    assert decks[0].cards != decks[1].cards
    assert F.limited_decks(3, seed=7) == decks


def test_schedule_refuses_bad_input():
    with pytest.raises(UnknownNameError, match="draft"):
        F.schedule(["a", "b"], ["draft"], {"draft": 1}, 0)
    with pytest.raises(InvalidParameterError, match="two agents"):
        F.schedule(["a"], ["limited"], {"limited": 1}, 0)
    with pytest.raises(InvalidParameterError, match="games"):
        F.schedule(["a", "b"], ["limited"], {"limited": 0}, 0)
    with pytest.raises(CardDataError, match="Nowhere"):
        F.schedule(["a", "b"], ["constructed"], {"constructed": 1}, 0, deck_lists=[["Nowhere"], ["Dominion"]])


def test_summarize_counts_draws_half():
    records = [{"fmt": "limited", "first": 0, "second": 1, "winner": 0},
               {"fmt": "limited", "first": 1, "second": 0, "winner": -1}]
    table = F.summarize(["x", "y"], ["limited"], records)
    assert table["formats"]["limited"]["x"]["win_rate"] == 0.75
    assert table["formats"]["limited"]["y"]["vs"]["x"] == 0.25
    assert table["mean"]["x"] == 0.75


def test_tournament_runs_and_resumes(tmp_path):
    """A small tournament; a killed run (games.jsonl cut) resumes to the same results."""
    games = {"limited": 2}
    out = tmp_path / "t"
    first = F.run_tournament(["default_ai", "random"], ["limited"], games, out, seed=3, quiet=True)
    assert first["formats"]["limited"]["default_ai"]["games"] == 4
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][:10])
    again = F.run_tournament(["default_ai", "random"], ["limited"], games, out, seed=3, quiet=True)
    assert again["formats"] == first["formats"]
    assert len((out / "games.jsonl").read_text().splitlines()) == 4
    with pytest.raises(InvalidParameterError, match="another tournament"):
        F.run_tournament(["default_ai", "random"], ["limited"], {"limited": 3}, out, seed=3, quiet=True)


def test_a_tournament_gives_the_same_records_on_a_ray_cluster(ray_cluster, tmp_path):
    def records(out):
        lines = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
        return sorted(({k: v for k, v in r.items() if k != "seconds"} for r in lines), key=lambda r: r["index"])

    runs = {name: F.run_tournament(["default_ai", "random"], ["limited"], {"limited": 3}, tmp_path / name,
                                   seed=3, quiet=True, backend=backend)
            for name, backend in (("local", Backend("local", 1)), ("ray", Backend("ray", 2)))}
    assert runs["ray"]["formats"] == runs["local"]["formats"]
    assert records(tmp_path / "ray") == records(tmp_path / "local") and len(records(tmp_path / "local")) == 6


def test_tournament_ctrl_c_prints_the_saved_games_and_the_resume_command(tmp_path, monkeypatch, capsys):
    from cardboard.cli import main

    interrupt_second_call(monkeypatch, F, "play_job")
    argv = ["fifth-aeon-tournament", "--agents", "default_ai,random", "--formats", "limited", "--limited-games", "2",
            "--out", str(tmp_path), "--quiet"]
    assert main(argv) == 130
    check_interrupted(capsys, "1 game", tmp_path, f"cardboard {shlex.join(argv)}")
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 1


def quick_games(monkeypatch) -> None:
    """The balancer's games replaced by a stand-in (a result drawn from the seed): rounds take no time."""
    monkeypatch.setattr(B, "play_game", lambda s, pair, target_first, seed: seed % 3 - 1)


def test_balancer_ctrl_c_prints_the_saved_games_and_the_resume_command(tmp_path, monkeypatch, capsys):
    from cardboard.cli import main

    quick_games(monkeypatch)
    interrupt_second_call(monkeypatch, B, "_play_round")
    argv = ["fifth-aeon-balance", "--values", "0:2", "--rounds", "1", "--pairing", "mirror", "--out", str(tmp_path),
            "--quiet"]
    assert main(argv) == 130
    check_interrupted(capsys, "20 games", tmp_path, f"cardboard {shlex.join(argv)}")  # one value's round
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 20


def test_balance_experiments_ctrl_c_prints_the_saved_games_and_the_resume_command(tmp_path, monkeypatch, capsys):
    quick_games(monkeypatch)
    interrupt_second_call(monkeypatch, B, "_play_round")
    monkeypatch.setattr(fifth_aeon_balance, "EXPERIMENTS", (("tiny", "ten_ten", "energy", [0, 1]),))
    argv = ["--out", str(tmp_path), "--rounds", "1"]
    assert fifth_aeon_balance.main(argv) == 130
    check_interrupted(capsys, "200 games", tmp_path,
                      f"python -m cardboard.evaluation.papers.p004_fifth_aeon.fifth_aeon_balance {shlex.join(argv)}")


# ---- balancer ---------------------------------------------------------------------------------------------------
def test_target_card_sets_the_parameter():
    assert B.target_card("ten_ten", "energy", 3).energy == 3
    assert B.target_card("three_three", "damage", 9).damage == 9
    assert B.target_card("relentless", "life", 8).life == 8
    assert "Flying" in B.target_card("five_five_flyer", "energy", 9).keywords
    with pytest.raises(InvalidParameterError, match="parameter"):
        B.target_card("ten_ten", "speed", 1)
    with pytest.raises(InvalidParameterError, match="unit"):
        B.target_card("decapitate_clone", "damage", 1)
    with pytest.raises(InvalidParameterError, match="unknown target card"):
        B.target_card("nine_nine", "energy", 1)


def test_full_injection_adds_four_copies_to_every_deck():
    s = B.setup(B.target_card("ten_ten", "energy", 5))
    assert len(s.pairs) == 100 and all(len(d.cards) == 44 for d in s.target_decks + s.goal_decks)
    assert all(Counter(d.cards)[B.TARGET_ID] == 4 for d in s.target_decks)
    assert all(Counter(d.cards)["Decapitate"] >= 4 for d in s.goal_decks)
    assert len(B.setup(B.target_card("ten_ten", "energy", 5), pairing="mirror").pairs) == 10


def test_stopping_bounds():
    """The score interval comes from the win rate's: 0 when it holds 0.5, else the nearer end's distance."""
    rate, low, high = B.score_bounds(100, 200, 1.96)
    assert rate == 0.5 and low == 0.0 and high < 0.08
    rate, low, high = B.score_bounds(180, 200, 2.576)
    assert low > 0.3 and high > low


def test_balancer_stops_a_clearly_bad_value_and_resumes(tmp_path):
    """A free 10/10 (about 80% for the Target decks) is dropped early next to a dear one; the answer and the
    games survive a cut results file."""
    out = tmp_path / "b"
    card = dict(B.TEST_CARDS["ten_ten"])
    summary = B.balance(card, "energy", [0, 9], out, rounds=4, pairing="all", quiet=True)
    rows = {r["value"]: r for r in summary["rows"]}
    assert rows[0]["stopped_after_round"] is not None and rows[0]["games"] < rows[9]["games"]
    assert summary["best"] == 9
    text = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join(text[:-30]) + "\n" + text[-30][:5])
    again = B.balance(card, "energy", [0, 9], out, rounds=4, pairing="all", quiet=True)
    assert again["rows"] == summary["rows"]
    assert json.loads((out / "balance.json").read_text())["best"] == 9
    assert (out / "balance.png").stat().st_size > 0


def test_parse_values():
    assert B.parse_values("0:3") == [0, 1, 2, 3]
    assert B.parse_values("1,5") == [1, 5]
    with pytest.raises(InvalidParameterError):
        B.parse_values("a:b")


# ---- search with DefaultAI's evaluation ---------------------------------------------------------------------------
def test_heuristic_knob_values_leaves_without_rollouts():
    """``heuristic=1``: the leaf is valued by the game's heuristic (depth 0), refused with depth or a network."""
    import cardboard

    game = cardboard.make_game("fifth_aeon")
    agent = cardboard.make_agent("ismcts:iterations=20,heuristic=1", game)
    assert agent.searcher.config.depth == 0
    assert cardboard.make_agent("ismcts:iterations=20", game).searcher.config.depth is None
    with pytest.raises(InvalidParameterError, match="depth must be 0"):
        cardboard.make_agent("ismcts:heuristic=1,depth=2", game)
    with pytest.raises(InvalidParameterError, match="net="):
        cardboard.make_agent("duct:heuristic=1,net=x.pt", game)
    state = game.new_state(0)
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()


def test_default_ai_rollouts_and_pruned_resources():
    """``rollout=default_ai`` plays DefaultAI on both sides in ``random_playout`` (deterministic given the state);
    ``sensible_actions`` keeps DefaultAI's resource only."""
    import cardboard
    from cardboard.envs.fifth_aeon import layout as L

    game = cardboard.make_game("fifth_aeon", rollout="default_ai")
    a, b = game.new_state(5), game.new_state(5)
    a.random_playout(np.random.default_rng(1))
    b.random_playout(np.random.default_rng(2))
    assert a.is_terminal() and a.state_key() == b.state_key()
    s = game.new_state(0)
    while s.phase != "play1":
        s.apply(int(s.legal_actions()[-1]))
    resources = [x for x in s.sensible_actions() if L.RESOURCE <= x < L.RESOURCE + 4]
    assert len(resources) == 1 and len([x for x in s.legal_actions() if L.RESOURCE <= x < L.RESOURCE + 4]) == 4
    with pytest.raises(UnknownNameError, match="rollout"):
        cardboard.make_game("fifth_aeon", rollout="greedy")


def test_limited_pools_cycle_over_repetitions():
    """``pools=P``: repetition k builds from pool k mod P (pool 0 is the one-pool tournament's)."""
    one = F.schedule(["a", "b"], ["limited"], {"limited": 4}, seed=1)
    many = F.schedule(["a", "b"], ["limited"], {"limited": 4}, seed=1, pools=2)
    assert len({j.decks for j in one}) == 2  # one pool: the same two decks, in both seat orders
    assert len({j.decks for j in many}) == 4
    assert many[0].decks == one[0].decks and many[4].decks == one[0].decks
    with pytest.raises(InvalidParameterError, match="pools"):
        F.schedule(["a", "b"], ["limited"], {"limited": 1}, seed=1, pools=0)
