"""The small exact test games (tests/games): full protocol conformance and their known answers."""
from __future__ import annotations

import itertools
import sys
from collections.abc import Hashable
from pathlib import Path

import numpy as np
import pytest

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:  # --import-mode=importlib does not put the repo root on sys.path
    sys.path.insert(0, _ROOT)

from cardboard.envs.errors import IllegalActionError, ProtocolError  # noqa: E402
from cardboard.envs.protocol import CHANCE, TERMINAL, Game, GameState, sample_chance  # noqa: E402
from tests.games import dice_race, hidden_cards, nim  # noqa: E402
from tests.games.dice_race import DiceRaceGame  # noqa: E402
from tests.games.hidden_cards import BET, CALL, FOLD, HiddenCardsGame  # noqa: E402
from tests.games.nim import NimGame, NimState, winning_moves  # noqa: E402
from tests.games.tictactoe import TicTacToeGame  # noqa: E402

GAMES = {
    "nim135": lambda: NimGame((1, 3, 5)),
    "nim_k2": lambda: NimGame((2, 3, 4), max_take=2),
    "tictactoe": TicTacToeGame,
    "hidden_cards": lambda: HiddenCardsGame(5),
    "dice_race": lambda: DiceRaceGame(10, 3),
}


@pytest.fixture(params=sorted(GAMES), scope="module")
def game(request):
    return GAMES[request.param]()


# ---- generic protocol checks -------------------------------------------------------------------
def check_node(s, rng) -> None:
    info = s.info
    legal = s.legal_actions()
    assert legal.dtype.kind == "i" and not legal.flags.writeable
    assert list(legal) == sorted(set(int(a) for a in legal))
    assert all(0 <= a < info.num_actions for a in legal)
    mask = s.action_mask()
    assert mask.dtype == bool and mask.shape == (info.num_actions,)
    assert np.array_equal(np.flatnonzero(mask), legal)
    assert s.is_terminal() == (s.current_player == TERMINAL) == (len(legal) == 0)
    for p in range(info.num_players):
        for perfect in (False, True):
            obs = s.observation(p, perfect=perfect)
            assert obs.dtype == np.float32 and obs.shape == info.observation_shape
            assert np.all((obs >= 0) & (obs <= 1))
        h = s.heuristic(p)
        assert isinstance(h, float) and -1.0 <= h <= 1.0
    for a in legal:
        assert isinstance(s.action_key(int(a)), Hashable)
        hash(s.action_key(int(a)))
        assert isinstance(s.action_to_string(int(a)), str)
    # illegal actions raise and leave the state unchanged
    key = s.state_key()
    illegal = [-1, info.num_actions, 10**6] + [a for a in range(info.num_actions) if not mask[a]]
    for a in illegal + [True, 1.0, "0"]:
        with pytest.raises(IllegalActionError):
            s.apply(a)
        assert s.state_key() == key
    # chance outcomes only at chance nodes
    if s.current_player == CHANCE:
        outs = s.chance_outcomes()
        assert abs(sum(p for _, p in outs) - 1.0) < 1e-12 and all(p > 0 for _, p in outs)
        assert sorted(o for o, _ in outs) == list(legal)
    else:
        with pytest.raises(ProtocolError):
            s.chance_outcomes()
    # determinize keeps every observer's own view
    if s.current_player != CHANCE:
        for p in range(info.num_players):
            det = s.determinize(p, rng)
            assert det is not s
            assert np.array_equal(det.observation(p), s.observation(p))
            assert det.current_player == s.current_player and det.turn == s.turn
            assert np.array_equal(det.legal_actions(), legal)
            if info.information == "perfect":
                assert det == s
    # clone independence
    if len(legal):
        c = s.clone()
        assert c == s
        c.apply(int(legal[0]))
        assert s.state_key() == key and c != s


def test_protocol_types(game):
    assert isinstance(game, Game)
    s = game.new_state(0)
    assert isinstance(s, GameState)
    assert s.info is game.info and s.num_players == 2 and s.num_actions == game.info.num_actions
    assert game.info.utility == "zero_sum" and game.info.num_players == 2
    assert isinstance(game.render_ansi(s), str) and isinstance(game.render_ansi(s, perspective=1), str)
    with pytest.raises(NotImplementedError):
        game.render_rgb(s)
    with pytest.raises(ValueError):
        s.observation(2)


def test_random_playouts(game):
    info = game.info
    rng = np.random.default_rng(1)
    for ep in range(40):
        s = game.new_state(ep)
        decisions, decider = 0, s.current_player
        assert s.turn == 0 and decider >= 0
        while not s.is_terminal():
            if ep < 8:
                check_node(s, rng)
            turn = s.turn
            if s.current_player == CHANCE:
                s.apply(sample_chance(s, rng))
            else:
                legal = s.legal_actions()
                s.apply(int(legal[rng.integers(len(legal))]))
                decisions += 1
            nxt = s.current_player
            if nxt >= 0:  # a turn is a run of decisions by one player
                assert s.turn == turn + (nxt != decider)
                decider = nxt
            else:
                assert s.turn == turn
            assert decisions <= 100
        check_node(s, rng)
        assert s.turn < info.max_turns
        r = s.returns()
        assert r.shape == (2,) and abs(r.sum()) < 1e-12
        assert info.min_return <= r.min() and r.max() <= info.max_return
        for p in (0, 1):
            assert s.heuristic(p) == float(np.sign(r[p]))


def test_random_playout_fast_path(game):
    rng = np.random.default_rng(5)
    for ep in range(20):
        s = game.new_state(ep)
        n = s.random_playout(rng)
        assert s.is_terminal() and n >= 1
        s = game.new_state(ep)
        s.random_playout(rng, max_turns=1)
        assert s.is_terminal() or s.turn == 1


def test_new_state_seeding(game):
    assert game.new_state(3) == game.new_state(3)
    if game.info.chance == "setup":
        deals = {tuple(game.new_state(seed).cards) for seed in range(200)}
        assert len(deals) == 20 and all(a != b for a, b in deals)
    assert game.new_state(np.random.default_rng(3)).info is game.info


# ---- exact solver ------------------------------------------------------------------------------
def solve(s, memo=None) -> float:
    """Exact (expecti)minimax value for player 0 of a perfect-information state."""
    memo = {} if memo is None else memo
    key = s.state_key()
    if key in memo:
        return memo[key]
    if s.is_terminal():
        v = float(s.returns()[0])
    elif s.current_player == CHANCE:
        v = 0.0
        for o, p in s.chance_outcomes():
            c = s.clone()
            c.apply(o)
            v += p * solve(c, memo)
    else:
        vals = []
        for a in s.legal_actions():
            c = s.clone()
            c.apply(int(a))
            vals.append(solve(c, memo))
        v = max(vals) if s.current_player == 0 else min(vals)
    memo[key] = v
    return v


def action_values(s, memo) -> dict[int, float]:
    """Value of each legal action for the player to move."""
    sign = 1.0 if s.current_player == 0 else -1.0
    out = {}
    for a in s.legal_actions():
        c = s.clone()
        c.apply(int(a))
        out[int(a)] = sign * solve(c, memo)
    return out


# ---- Nim -----------------------------------------------------------------------------------------
def test_nim_action_ids():
    g = NimGame((1, 3, 5))
    s = g.new_state()
    assert g.info.num_actions == 15 and list(s.legal_actions()) == [0, 5, 6, 7, 10, 11, 12, 13, 14]
    assert s.decode(7) == (1, 3) and s.action_key(7) == ("take", 1, 3)
    s.apply(7)
    assert s.heaps == [1, 0, 5] and s.current_player == 1 and s.turn == 1


@pytest.mark.parametrize("k", [1, 2, 3, None])
def test_nim_xor_rule_matches_minimax(k):
    for heaps in itertools.product(range(4), repeat=3):
        if sum(heaps) == 0:
            continue
        g = NimGame(heaps, max_take=k)
        memo: dict = {}
        for player in (0, 1):
            s = NimState(g, heaps, player)
            vals = action_values(s, memo)
            wins = sorted(a for a, v in vals.items() if v == 1.0)
            assert winning_moves(s) == wins, (heaps, k, player)
            assert (nim.grundy(s) != 0) == bool(wins)


def test_nim_135_first_player_wins():
    s = NimGame((1, 3, 5)).new_state()
    assert nim.grundy(s) == 1 ^ 3 ^ 5 == 7
    assert [s.decode(a) for a in winning_moves(s)] == [(2, 3)]  # 5 -> 2 leaves 1^3^2 = 0
    assert solve(s) == 1.0


# ---- Tic-tac-toe ---------------------------------------------------------------------------------
def test_tictactoe_value_is_draw():
    g = TicTacToeGame()
    memo: dict = {}
    assert solve(g.new_state(), memo) == 0.0
    first = action_values(g.new_state(), memo)
    assert max(first.values()) == 0.0 and first[4] == 0.0 and min(first.values()) == 0.0  # every opening draws
    from tests.games.tictactoe import TicTacToeState
    s = TicTacToeState(g, "XX.OO....")  # X to move wins at cell 2
    assert s.current_player == 0 and action_values(s, memo)[2] == 1.0
    s.apply(2)
    assert s.is_terminal() and list(s.returns()) == [1.0, -1.0]
    d = TicTacToeState(g, "XOXXOOOXX")
    assert d.is_terminal() and list(d.returns()) == [0.0, 0.0]


# ---- Hidden cards --------------------------------------------------------------------------------
def test_hidden_cards_observation_hides_opponent_card():
    g = HiddenCardsGame(5)
    s = g.state_with(3, 5)
    other = g.state_with(3, 1)
    assert np.array_equal(s.observation(0), other.observation(0))
    assert not np.array_equal(s.observation(1), other.observation(1))
    assert not np.array_equal(s.observation(0, perfect=True), other.observation(0, perfect=True))
    assert s.action_key(BET) == ("bet",) and s.action_key(FOLD) == ("fold",) and s.action_key(CALL) == ("call",)
    s.apply(BET)
    s.apply(CALL)  # showdown reveals
    assert s.observation(0)[5 + 5 - 1] == 1.0 and list(s.returns()) == [-2.0, 2.0]


def test_hidden_cards_determinize_resamples():
    g = HiddenCardsGame(5)
    rng = np.random.default_rng(0)
    for c0, c1 in itertools.permutations(range(1, 6), 2):
        s = g.state_with(c0, c1)
        for p in (0, 1):
            seen = {s.determinize(p, rng).cards[1 - p] for _ in range(200)}
            assert seen == set(range(1, 6)) - {s.cards[p]}
            assert s.cards == [c0, c1]
    s = g.state_with(2, 4)
    s.apply(BET)
    s.apply(CALL)
    assert all(s.determinize(0, rng) == s for _ in range(20))  # the showdown revealed everything


def _ev_bet(n: int, c0: int, p1_calls: dict[int, bool]) -> float:
    ev = 0.0
    for c1 in range(1, n + 1):
        if c1 != c0:
            ev += (2.0 if c0 > c1 else -2.0) if p1_calls[c1] else 1.0
    return ev / (n - 1)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_hidden_cards_right_move_matches_brute_force(n):
    g = HiddenCardsGame(n)
    for c0 in range(1, n + 1):
        # player 0: BET is right iff it beats folding (-1) against every pure strategy of player 1
        worst = min(_ev_bet(n, c0, dict(zip(range(1, n + 1), calls)))
                    for calls in itertools.product((False, True), repeat=n))
        c1 = 1 if c0 != 1 else 2
        s = g.state_with(c0, c1)
        assert hidden_cards.right_move(s) == (BET if worst > -1.0 else None), (n, c0, worst)
    for c1 in range(1, n + 1):
        # player 1 facing a bet: a move is right iff it is at least as good against every card of player 0
        call_vals = [2.0 if c1 > c0 else -2.0 for c0 in range(1, n + 1) if c0 != c1]
        expected = CALL if min(call_vals) > -1.0 else FOLD if max(call_vals) < -1.0 else None
        s = g.state_with(1 if c1 != 1 else 2, c1)
        s.apply(BET)
        assert hidden_cards.right_move(s) == expected
    end = g.state_with(1, 2)
    end.apply(FOLD)
    assert hidden_cards.right_move(end) is None


def test_hidden_cards_cheating_search_errs_where_determinization_does_not():
    g = HiddenCardsGame(5)
    s = g.state_with(3, 5)
    assert hidden_cards.right_move(s) == BET
    memo: dict = {}
    cheat = action_values(s, memo)  # perfect-information minimax sees the 5
    assert max(cheat, key=cheat.get) == FOLD
    rng = np.random.default_rng(0)
    dets = {tuple(d.cards): d for d in (s.determinize(0, rng) for _ in range(200))}
    assert sorted(dets) == [(3, 1), (3, 2), (3, 4), (3, 5)]  # uniform over the unseen cards
    pimc = {a: np.mean([action_values(d, memo)[a] for d in dets.values()]) for a in (FOLD, BET)}
    assert max(pimc, key=pimc.get) == BET
    assert pimc == {FOLD: -1.0, BET: -0.5}


# ---- Dice race ----------------------------------------------------------------------------------
def test_dice_race_chance_nodes():
    g = DiceRaceGame(10, 3)
    s = g.new_state()
    assert s.current_player == 0 and g.info.num_actions == 5
    s.apply(dice_race.ROLL)
    assert s.current_player == CHANCE and s.turn == 0
    outs = s.chance_outcomes()
    assert [o for o, _ in outs] == [2, 3, 4] and all(abs(p - 1 / 3) < 1e-15 for _, p in outs)
    assert s.action_key(4) == ("face", 3)
    with pytest.raises(IllegalActionError):
        s.apply(dice_race.STOP)
    s.apply(4)
    assert s.totals == [3, 0] and s.current_player == 0 and s.turn == 0
    s.apply(dice_race.STOP)
    assert s.current_player == 1 and s.turn == 1
    for _ in range(4):
        s.apply(dice_race.ROLL)
        s.apply(4)
    assert s.is_terminal() and list(s.returns()) == [1.0, -1.0]  # 12 > 10: player 1 busts


def test_dice_race_right_moves_are_optimal():
    for target, faces in [(10, 3), (6, 2), (8, 4)]:
        g = DiceRaceGame(target, faces)
        memo: dict = {}
        documented = 0
        for t0 in range(target + 1):
            positions = [g.state_with((t0, t1), 1) for t1 in range(target + 1)] + [g.state_with((t0, 0), 0)]
            for s in positions:
                move = dice_race.right_move(s)
                if move is None:
                    continue
                documented += 1
                vals = action_values(s, memo)
                assert vals[move] == max(vals.values()), (target, faces, s.totals, s.current_player)
                if s.current_player == 1 and s.totals[1] < s.totals[0]:
                    assert vals[move] > vals[1 - move]  # strictly: stopping behind loses
        assert documented > target
    g = DiceRaceGame(10, 3)
    s = g.state_with((8, 6), 1)  # the docstring's example
    assert dice_race.right_move(s) == dice_race.ROLL
