"""The conformance suite: every registered game, through the protocol and the AEC env only.

Parametrised over ``cardboard.games()`` (each new game, bundled or installed as a
plugin, gets it for free) and, for the env, over hidden (``open=False``) and
open (``open=True``) information. Where the protocol cannot tell states apart or
count cards, the optional hooks ``state_key()`` / ``card_multiset()`` are used
(see ``tests/conftest.py``).

Imperfect information is checked in both directions (STYLE.md habit 3):
nothing hidden leaks into a seat's observation, and ``determinize`` really
resamples what the seat cannot see (a resampler that returns the true state
fails here) while conserving every card.

The rules of the protocol page that search relies on are ``check_*`` functions,
run on every registered game and, to prove each can fail, on deliberately
broken variants of a tiny dice game (the end of this file).
"""
from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import inspect
import json
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_check

import cardboard
from cardboard.envs.aec import CardboardAECEnv
from cardboard.envs.errors import IllegalActionError, ProtocolError
from cardboard.envs.protocol import CHANCE, HOOKS, TERMINAL, GameState, hook
from cardboard.envs.view import Card, View, Zone, menu, status_line

from .games.dice_race import ROLL, DiceRaceGame, DiceRaceState
from .conftest import states_in_play
from .games.hidden_cards import NAMES, HiddenCardsGame, HiddenCardsState

GAMES = cardboard.games()
MODES = [pytest.param(False, id="hidden"), pytest.param(True, id="open")]


def _legal(state: GameState) -> list[int]:
    return [] if state.is_terminal() else [int(a) for a in state.legal_actions()]


# ---- the protocol ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_info_and_initial_state(name):
    game = cardboard.make_game(name)
    info = game.info
    assert info.name == name
    assert info.chance in ("none", "setup", "explicit")
    assert info.information in ("perfect", "imperfect")
    assert info.utility in ("zero_sum", "general_sum", "cooperative")
    assert info.min_return < info.max_return and info.max_turns > 0 and info.num_actions > 0
    state = cardboard.new_state(name, seed=0)
    assert isinstance(state, GameState)
    assert state.info == info and state.num_players == info.num_players and state.num_actions == info.num_actions
    assert not state.is_terminal() and state.turn == 0
    assert state.current_player in (*range(info.num_players), CHANCE)
    for p in range(info.num_players):
        for perfect in (False, True):
            obs = state.observation(p, perfect=perfect)
            assert obs.dtype == np.float32 and obs.shape == info.observation_shape


@pytest.mark.parametrize("name", GAMES)
def test_new_state_is_seeded(name, kit):
    a, b = cardboard.new_state(name, seed=7), cardboard.new_state(name, seed=7)
    assert kit.full_key(a) == kit.full_key(b)
    if cardboard.make_game(name).info.chance == "setup":  # the deal happens in new_state
        keys = {kit.full_key(cardboard.new_state(name, seed=s))[1] for s in range(8)}
        assert len(keys) > 1, "new_state ignores its seed"


@pytest.mark.parametrize("name", GAMES)
def test_legal_actions_and_mask_agree(name, kit):
    for state in kit.midgame_states(name):
        for p in range(state.num_players):
            assert -1.0 <= state.heuristic(p) <= 1.0
        if state.current_player == CHANCE:
            continue
        with pytest.raises(ProtocolError):
            state.chance_outcomes()
        legal = state.legal_actions().copy()
        assert len(legal) > 0
        assert np.all(np.diff(legal) > 0), "legal actions must be strictly increasing"
        assert 0 <= legal[0] and legal[-1] < state.num_actions
        mask = state.action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (state.num_actions,)
        assert np.array_equal(np.flatnonzero(mask), legal)
        for a in legal:
            hash(state.action_key(int(a)))
            assert isinstance(state.action_to_string(int(a)), str) and state.action_to_string(int(a))


@pytest.mark.parametrize("name", GAMES)
def test_legal_actions_view_cannot_corrupt_the_state(name, kit):
    """The protocol promises a read-only view: writing into it must not change the state's legal moves."""
    state = next(s for s in kit.midgame_states(name) if s.current_player != CHANCE)
    legal = state.legal_actions()
    before = legal.copy()
    try:
        legal[0] = before[-1] + 1 if before[-1] + 1 < state.num_actions else 0
    except ValueError:
        pass  # read-only: good
    assert np.array_equal(state.legal_actions(), before)


@pytest.mark.parametrize("name", GAMES)
def test_clone_is_independent(name, kit):
    rng = np.random.default_rng(5)
    for state in kit.midgame_states(name)[::2]:
        key = kit.full_key(state)
        clone = state.clone()
        assert kit.full_key(clone) == key
        kit.advance(clone, rng, 40)  # mutate the clone: the source does not move
        assert kit.full_key(state) == key
        assert kit.full_key(clone) != key
        clone = state.clone()
        clone_key = kit.full_key(clone)
        kit.advance(state, rng, 40)  # and the other way round
        assert kit.full_key(clone) == clone_key


@pytest.mark.parametrize("name", GAMES)
def test_state_survives_deepcopy_and_pickle(name, kit):
    state = kit.played_state(name, seed=2, depth=25)
    for copied in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert copied is not state and kit.full_key(copied) == kit.full_key(state)
        a, b = state.clone(), copied.clone()
        kit.advance(a, np.random.default_rng(9), 1000)
        kit.advance(b, np.random.default_rng(9), 1000)
        assert kit.full_key(a) == kit.full_key(b)


# ---- hidden information: no leak, and real resampling --------------------------------------------
SAMPLES_PER_STATE = 6


@pytest.mark.parametrize("name", GAMES)
def test_determinize_keeps_the_observers_view_and_resamples_the_rest(name, kit):
    check_determinize_resamples(kit.midgame_states(name), cardboard.make_game(name).info, kit)


@pytest.mark.parametrize("name", GAMES)
def test_the_compiled_observation_is_the_observation_and_hides_as_it_does(name, kit):
    """A game whose compiled model offers the ``observation`` kernel (what a leaf value net reads inside search,
    ``search.leaf_value``): the kernel writes exactly ``observation(p)`` for every seat, and so the same for p on
    every determinization from p's view (no hidden information reaches the network)."""
    states = kit.midgame_states(name)
    make = getattr(states[0], HOOKS["compiled_model"].name, None)
    if make is None or make().observation is None:
        pytest.skip(f"{name} offers no compiled observation kernel")
    rng = np.random.default_rng(7)

    def compiled(state: GameState, p: int) -> np.ndarray:
        model = state.compiled_model()
        out = np.full(int(np.prod(state.info.observation_shape)), np.nan, dtype=np.float32)  # every entry written
        model.observation(model.state, model.table, np.int64(p), out)
        return out

    for state in states:
        for p in range(state.num_players):
            seen = compiled(state, p)
            assert np.array_equal(seen, np.asarray(state.observation(p), np.float32).ravel()), f"seat {p}: {state!r}"
            for _ in range(3):
                assert np.array_equal(compiled(state.determinize(p, rng), p), seen), f"seat {p} sees hidden: {state!r}"


@pytest.mark.parametrize("name", GAMES)
def test_a_compiled_state_is_rebuilt_from_its_array(name, kit):
    """``envs.vector`` keeps a compiled game as rows of arrays and hands agents ``type(state)(game, array)``: that
    rebuilds the very state (its moves and observations), from a copy, for a game with an observation kernel."""
    states = kit.midgame_states(name)
    make = getattr(states[0], HOOKS["compiled_model"].name, None)
    if make is None or make().observation is None:
        pytest.skip(f"{name} offers no compiled observation kernel")
    for state in states:
        array = state.compiled_model().state.copy()
        rebuilt = type(state)(state.game, array)
        assert rebuilt == state and rebuilt.current_player == state.current_player, repr(state)
        if not state.is_terminal():
            assert np.array_equal(rebuilt.legal_actions(), state.legal_actions())
        for p in range(state.num_players):
            assert np.array_equal(rebuilt.observation(p), state.observation(p))


def check_determinize_resamples(states: list[GameState], info, kit) -> None:
    """For every seat p, many mid-game states and many samples ``det = state.determinize(p, rng)``:

    * p's observation is exactly unchanged, and so are p's legal moves (and their keys) when p acts;
      as ``det`` resamples what p cannot see, this is the no-leak check for p's observation;
    * every card is conserved (for games that offer ``card_multiset``), and the source is not modified;
    * the samples really differ from the true state (full key, and, for games with private
      information, the opponent's own view), and rarely reproduce the opponent's true view.
    """
    rng = np.random.default_rng(2024)
    samples = differs = opponent_view_differs = 0
    for state in states:
        key = kit.full_key(state)
        cards = kit.card_multiset(state)  # None: the game offers no card_multiset, conservation is not checked
        for p in range(state.num_players):
            own_view = state.observation(p)
            other_views = {q: state.observation(q) for q in range(state.num_players) if q != p}
            for _ in range(SAMPLES_PER_STATE):
                det = state.determinize(p, rng)
                samples += 1
                assert det is not state
                assert np.array_equal(det.observation(p), own_view), f"player {p}'s view changed: {state!r}"
                assert cards is None or kit.card_multiset(det) == cards, "determinize lost or invented cards"
                assert det.current_player == state.current_player and det.turn == state.turn
                if state.current_player == p:
                    assert _legal(det) == _legal(state)
                    assert [det.action_key(a) for a in _legal(det)] == [state.action_key(a) for a in _legal(state)]
                differs += kit.state_key(det) != kit.state_key(state)
                opponent_view_differs += any(not np.array_equal(det.observation(q), v) for q, v in other_views.items())
        assert kit.full_key(state) == key, "determinize modified the source state"
    assert samples > 100
    if info.information == "perfect":
        assert differs == 0, "a perfect-information game has nothing to resample"
        return
    assert differs > 0.5 * samples, f"determinize resampled only {differs}/{samples} samples"
    if info.private_information:
        # opponents' hands really change: an identity (or nearly) resampler fails here
        assert opponent_view_differs > 0.5 * samples, f"opponent's view changed in {opponent_view_differs}/{samples}"


# ---- the AEC env ---------------------------------------------------------------------------------
@pytest.mark.parametrize("open_", MODES)
@pytest.mark.parametrize("name", GAMES)
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_pettingzoo_api(name, open_):
    api_test(cardboard.make_env(name, open=open_), num_cycles=300)


@pytest.mark.parametrize("open_", MODES)
@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_seed(name, open_):
    seed_test(lambda: cardboard.make_env(name, open=open_), num_cycles=300)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_state_space(name):
    env = cardboard.make_env(name)
    env.reset(seed=0)
    pettingzoo_state_space_check(env)
    assert env.state_space.contains(env.state())


def _seeded_trajectory(env, seed: int, choices: int, steps: int = 40) -> tuple:
    """What the env shows over ``steps`` moves after ``reset(seed)``, the moves picked by a generator seeded
    with ``choices`` (the same picks for every seed), so only the env's own chance can tell two apart."""
    env.reset(seed=seed)
    choices = np.random.default_rng(choices)
    shown = []
    while env.agents and len(shown) < steps:
        obs, _, terminated, truncated, _ = env.last()
        shown.append(env.unwrapped.state().tobytes() + obs["observation"].tobytes())
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if terminated or truncated else int(legal[choices.integers(len(legal))]))
    return tuple(shown)


def check_reset_seed_changes_the_game(env) -> None:
    """Another seed deals another game: with chance at set-up the first observation already differs; a game
    whose chance comes later (a die rolled in play) shows it later in the trajectory (three streams of move
    picks, in case one of them ends the game before any chance)."""
    differ = [len({_seeded_trajectory(env, seed, choices) for seed in range(6)}) > 1 for choices in range(3)]
    assert any(differ), "six seeds gave the same game: the env's chance ignores its seed"


@pytest.mark.parametrize("open_", MODES)
@pytest.mark.parametrize("name", GAMES)
def test_reset_seed_changes_the_deal(name, open_):
    if cardboard.make_game(name).info.chance == "none":
        pytest.skip("no chance: every seed deals the same game")
    check_reset_seed_changes_the_game(cardboard.make_env(name, open=open_))


def _play_env(env, rng: np.random.Generator, open_: bool, steps: int | None = None):
    """Step a reset env with random legal actions, checking every observation on the way.

    Returns the final reward each agent saw in ``last()`` when terminated (None if stopped after
    ``steps`` moves) and the number of moves made.
    """
    raw = env.unwrapped
    index = {a: i for i, a in enumerate(env.possible_agents)}
    final = {}
    count = 0
    while env.agents:  # not agent_iter: stopping after `steps` must leave the env ready for the next step
        agent = env.agent_selection
        obs, reward, terminated, truncated, info = env.last()
        state = raw.game_state
        assert isinstance(info, dict)
        for other in env.agents:
            seen = env.observe(other)
            assert env.observation_space(other).contains(seen), f"{other}'s observation is outside its space"
            assert np.array_equal(seen["observation"], state.observation(index[other], perfect=open_))
            if other == agent and not (terminated or truncated):
                assert state.current_player == index[agent]
                assert np.array_equal(np.flatnonzero(seen["action_mask"]), state.legal_actions())
                assert np.array_equal(seen["action_mask"].astype(bool), state.action_mask())
            else:
                assert not seen["action_mask"].any(), f"{other} has a mask while {agent} acts"
        assert np.array_equal(obs["observation"], env.observe(agent)["observation"])
        assert env.state_space.contains(env.state()), "env.state() is outside env.state_space"
        if terminated or truncated:
            assert state.is_terminal()
            final[agent] = reward
            env.step(None)
            continue
        if steps is not None and count >= steps:
            return None, count
        mask = obs["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        count += 1
    return final, count


@pytest.mark.parametrize("open_", MODES)
@pytest.mark.parametrize("name", GAMES)
def test_env_masks_observations_and_rewards(name, open_):
    """At every step: observations in their space and equal to the state's view; the mask of the
    acting agent equals the legal actions, all zeros for the others; final rewards = returns."""
    env = cardboard.make_env(name, open=open_)
    for seed in range(3):
        env.reset(seed=seed)
        state = env.unwrapped.game_state
        final, _ = _play_env(env, np.random.default_rng(seed), open_)
        returns = state.returns()
        assert state.turn <= state.info.max_turns
        assert final == {a: float(returns[i]) for i, a in enumerate(env.possible_agents)}
        assert env.agents == []


@pytest.mark.parametrize("name", GAMES)
def test_env_hides_and_open_mode_shows(name, kit):
    """Swap the env's live state for determinizations of it: a hidden env's observation for that
    seat does not move; an open env shows the resampled cards in some samples."""
    imperfect = cardboard.make_game(name).info.information == "imperfect"
    rng = np.random.default_rng(77)
    moved = {False: 0, True: 0}
    for open_ in (False, True):
        env = _mid_game_env(name, open_, seed=4, steps=30)
        raw = env.unwrapped
        true_state = raw.game_state
        for p, agent in enumerate(env.possible_agents):
            before = env.observe(agent)
            for _ in range(20):
                raw.game_state = true_state.determinize(p, rng)
                after = env.observe(agent)
                assert np.array_equal(after["action_mask"], before["action_mask"])
                same = np.array_equal(after["observation"], before["observation"])
                if not open_:
                    assert same, f"hidden env leaks: {agent}'s observation depends on cards it cannot see"
                moved[open_] += not same
            raw.game_state = true_state
    if imperfect:
        assert moved[True] > 0, "open mode does not show the cards determinize resamples"


def _mid_game_env(name: str, open_: bool, seed: int, steps: int, render_mode: str | None = None,
                  illegal: str = "lose"):
    """An env stopped after ``steps`` random moves, or halfway through the game if it is shorter."""
    probe = cardboard.make_env(name, open=open_)
    probe.reset(seed=seed)
    _, length = _play_env(probe, np.random.default_rng(seed), open_)
    env = cardboard.make_env(name, open=open_, render_mode=render_mode, illegal=illegal)
    env.reset(seed=seed)
    _play_env(env, np.random.default_rng(seed), open_, steps=min(steps, length // 2))
    assert not env.unwrapped.game_state.is_terminal()
    return env


def _env_snapshot(env) -> tuple:
    obs, reward, terminated, truncated, info = env.last()
    return (
        env.agent_selection,
        tuple(env.agents),
        reward, terminated, truncated,
        tuple((a, o["observation"].tobytes(), o["action_mask"].tobytes()) for a in env.agents
              for o in [env.observe(a)]),
        tuple(sorted(env.unwrapped._cumulative_rewards.items())),
        env.unwrapped.state().tobytes(),
    )


def _step_to_end(env, rng: np.random.Generator) -> list[tuple]:
    trace = []
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        trace.append(_env_snapshot(env))
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    trace.append(tuple(env.unwrapped.game_state.returns().tolist()))
    return trace


@pytest.mark.parametrize("open_", MODES)
@pytest.mark.parametrize("name", GAMES)
def test_env_survives_deepcopy_and_pickle(name, open_, kit):
    """A mid-game env copied with deepcopy or pickle keeps its game (PettingZoo #1186, #1271, #1307)."""
    env = _mid_game_env(name, open_, seed=11, steps=25)
    snapshot = _env_snapshot(env)
    state_key = kit.full_key(env.unwrapped.game_state)
    copies = {"deepcopy": copy.deepcopy(env), "pickle": pickle.loads(pickle.dumps(env))}
    for how, other in copies.items():
        assert other.unwrapped.game_state is not env.unwrapped.game_state
        assert kit.full_key(other.unwrapped.game_state) == state_key, f"{how} lost the game"
        assert _env_snapshot(other) == snapshot, f"{how} changed the env"
        assert other.unwrapped.open == open_
    # stepping a copy leaves the original alone
    moved = copies["deepcopy"]
    obs, *_ = moved.last()
    moved.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert _env_snapshot(env) == snapshot and kit.full_key(env.unwrapped.game_state) == state_key
    # the original and the pickled copy play on identically to the end, and reset to the same deal
    traces = [_step_to_end(e, np.random.default_rng(3)) for e in (env, copies["pickle"])]
    assert traces[0] == traces[1] and len(traces[0]) > 2
    env.reset()
    copies["pickle"].reset()
    assert _env_snapshot(env) == _env_snapshot(copies["pickle"]), "the env's random generator was not copied"


@pytest.mark.parametrize("name", GAMES)
def test_env_rejects_an_illegal_action_and_keeps_the_state(name, kit):
    """Ids outside the action space and a non-integer are always illegal; a masked id of the space is
    tried too when there is one (every action may be legal at a node). ``illegal="raise"``: the default ends
    the game instead (tests/test_pettingzoo_conventions.py)."""
    env = _mid_game_env(name, False, seed=5, steps=10, illegal="raise")
    state = env.unwrapped.game_state
    key = kit.full_key(state)
    snapshot = _env_snapshot(env)
    masked = np.flatnonzero(~state.action_mask())
    for illegal in (state.num_actions, -1, 0.5, *masked[:1].tolist()):
        with pytest.raises(IllegalActionError):
            env.step(illegal)
        assert kit.full_key(env.unwrapped.game_state) == key and _env_snapshot(env) == snapshot, illegal


@pytest.mark.parametrize("name", GAMES)
def test_terminal_state(name, kit):
    state = kit.played_state(name, seed=1, depth=100_000)
    assert state.is_terminal() and state.current_player == TERMINAL
    returns = state.returns()
    info = state.info
    assert returns.shape == (info.num_players,)
    assert np.all((info.min_return <= returns) & (returns <= info.max_return))
    if info.utility == "zero_sum":
        assert abs(returns.sum()) < 1e-9
    assert not state.action_mask().any() and len(state.legal_actions()) == 0


@pytest.mark.parametrize("name", GAMES)
def test_render_modes(name, capsys):
    """Every declared render mode draws at the start, mid-game and at the end ("human" prints the ansi board and
    returns None, PettingZoo's convention)."""
    env = cardboard.make_env(name)
    env.reset(seed=0)
    assert env.render() is None  # no render_mode: nothing to draw
    for mode in env.metadata["render_modes"]:
        env = cardboard.make_env(name, render_mode=mode)
        env.reset(seed=0)
        frames = [env.render()]
        env = _mid_game_env(name, False, seed=0, steps=20, render_mode=mode)
        frames.append(env.render())
        _play_env(env, np.random.default_rng(0), False)
        frames.append(env.render())
        if mode == "human":
            assert frames == [None, None, None] and capsys.readouterr().out.count("\n") >= 3
            continue
        for frame in frames:
            if mode == "ansi":
                assert isinstance(frame, str) and frame.strip()
            elif mode == "rgb_array":
                assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
                assert frame.ndim == 3 and frame.shape[2] == 3 and frame.shape[0] > 0 and frame.shape[1] > 0
        assert frames[0] is not frames[1]
        if mode == "ansi":
            assert frames[0] != frames[1] != frames[2]
        else:
            assert not np.array_equal(frames[0], frames[1])


# ---- the rules search relies on (the protocol page), as checks that can fail ----------------------
PROTOCOL_NAMES = frozenset(GameState.__annotations__) | {n for n in vars(GameState) if not n.startswith("_")}
HOOK_METHODS = sorted({h.name for h in HOOKS.values()} - PROTOCOL_NAMES)
HOOK_KEYWORDS = {h.keyword: h for h in HOOKS.values() if h.keyword is not None}
NEAR_MISS = 0.85  # difflib ratio: 'random_playouts', 'legal_actions_keys', 'statekey' score 0.94-0.97


def played_games(game, games: int = 4) -> list[list[GameState]]:
    """Every state (a clone) of ``games`` seeded random games of ``game``, from the deal to the end."""
    out = []
    for seed in range(games):
        rng = np.random.default_rng([seed, 7])
        state = game.new_state(seed)
        trail = [state.clone()]
        while not state.is_terminal():
            state.apply(_random_move(state, rng))
            trail.append(state.clone())
        out.append(trail)
    return out


def _random_move(state: GameState, rng: np.random.Generator) -> int:
    """A uniformly random legal action, or chance outcome (uniform too: rare outcomes get visited)."""
    if state.current_player == CHANCE:
        outcomes = state.chance_outcomes()
        return outcomes[int(rng.integers(len(outcomes)))][0]
    legal = state.legal_actions()
    return int(legal[rng.integers(len(legal))])


@functools.lru_cache(maxsize=None)
def _played(name: str) -> tuple:
    return tuple(tuple(trail) for trail in played_games(cardboard.make_game(name)))


def check_determinize_is_independent(states, kit) -> None:
    """Rule 1: ``determinize`` returns a new state, even for perfect information: playing on the sample never
    changes the source, and playing on the source never changes the sample."""
    rng = np.random.default_rng(31)
    for state in states:
        for p in range(state.num_players):
            source = state.clone()
            det = source.determinize(p, rng)
            assert det is not source, f"determinize({p}) returned the state itself, not a new one"
            source_key = kit.full_key(source)
            kit.advance(det, rng, 30)
            assert kit.full_key(source) == source_key, f"playing on determinize({p})'s sample changed the source"
            det = source.determinize(p, rng)
            det_key = kit.full_key(det)
            kit.advance(source, rng, 30)
            assert kit.full_key(det) == det_key, f"playing on the source changed determinize({p})'s sample"


def check_determinize_rejects_bad_players(state: GameState) -> None:
    """Rule 1: a player outside ``range(num_players)`` raises ``ValueError``."""
    for bad in (-1, state.num_players):
        try:
            state.determinize(bad, np.random.default_rng(0))
        except ValueError:
            continue
        raise AssertionError(f"determinize({bad}) with {state.num_players} players did not raise ValueError")


def check_chance_outcomes(states) -> None:
    """Rule 2: at every chance node of ``states``, outcome ids are non-negative ints distinct within the node,
    and the probabilities are positive and sum to 1."""
    for state in (s for s in states if s.current_player == CHANCE):
        outcomes = state.chance_outcomes()
        ids = [a for a, _ in outcomes]
        bad = [a for a in ids if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) or a < 0]
        assert not bad, f"chance outcome ids must be non-negative ints, got {bad}"
        assert len(set(ids)) == len(ids), f"chance outcome ids repeat within a node: {ids}"
        probs = [p for _, p in outcomes]
        assert min(probs) > 0 and abs(sum(probs) - 1.0) < 1e-9, f"chance probabilities {probs}"


def check_turns(games: list[list[GameState]]) -> None:
    """Rule 3: ``turn`` starts at 0, never decreases, differs between consecutive decisions of different
    players (chance nodes between them do not count; games that declare ``info.reactions`` are exempt) and
    never exceeds ``info.max_turns``."""
    for trail in games:
        assert trail[0].turn == 0, f"the first state's turn is {trail[0].turn}, not 0"
        last_turn, last_decision = 0, None
        for state in trail:
            turn, player = state.turn, state.current_player
            assert turn >= last_turn, f"turn went down from {last_turn} to {turn}"
            assert turn <= state.info.max_turns, f"turn {turn} > info.max_turns {state.info.max_turns}"
            if player >= 0:
                if last_decision is not None and last_decision[0] != player and not state.info.reactions:
                    assert turn != last_decision[1], (f"players {last_decision[0]} and {player} decide one after "
                                                      f"the other in the same turn {turn}")
                last_decision = (player, turn)
            last_turn = turn


def check_hook_names(state: GameState) -> None:
    """Optional hooks: a public name (or a ``determinize`` keyword) that looks like a declared hook but is not
    one is a misspelling that would make search fall back to the slow path without a word."""
    for name in dir(state):
        if name.startswith("_") or name in PROTOCOL_NAMES or name in HOOK_METHODS:
            continue
        close = difflib.get_close_matches(name, HOOK_METHODS, n=1, cutoff=NEAR_MISS)
        assert not close, (f"{type(state).__name__}.{name} looks like the optional hook {close[0]!r} "
                           f"({HOOKS[close[0]].signature}) but is not it: rename it, or make it private")
    for name in inspect.signature(state.determinize).parameters:
        close = difflib.get_close_matches(name, HOOK_KEYWORDS, n=1, cutoff=NEAR_MISS)
        assert name in HOOK_KEYWORDS or not close, (
            f"determinize's keyword {name!r} looks like the optional hook {close[0]!r} "
            f"({HOOK_KEYWORDS[close[0]].signature}) but is not it")


@pytest.mark.parametrize("name", GAMES)
def test_determinize_returns_an_independent_state_and_rejects_bad_players(name, kit):
    check_determinize_is_independent(kit.midgame_states(name)[::4], kit)
    check_determinize_rejects_bad_players(cardboard.new_state(name, seed=0))


@pytest.mark.parametrize("name", GAMES)
def test_chance_outcomes_follow_the_rules(name):
    states = [s for trail in _played(name) for s in trail]
    if cardboard.make_game(name).info.chance == "explicit":
        assert any(s.current_player == CHANCE for s in states), "an explicit-chance game met no chance node"
    check_chance_outcomes(states)


@pytest.mark.parametrize("name", GAMES)
def test_turns_follow_the_rules(name):
    check_turns(_played(name))


@pytest.mark.parametrize("name", GAMES)
def test_no_name_is_a_near_miss_of_a_hook(name):
    check_hook_names(cardboard.new_state(name, seed=0))


# ---- the view hooks (envs.view): what a person sees, on every game that offers them ------------------------
VIEW_SAMPLES = 2  # worlds per state and seat


def _view_states(name: str, kit) -> list[GameState]:
    """A few states of ``name``: every eighth mid-game state, and up to three chance nodes of played games."""
    chance = [s for trail in _played(name) for s in trail[::5] if s.current_player == CHANCE][:3]
    return kit.midgame_states(name)[::8] + chance


def _view(state: GameState, perspective: int | None) -> dict:
    return state.view(perspective).to_json()


def _view_difference(a: dict, b: dict) -> str:
    lines = difflib.unified_diff(json.dumps(a, indent=1).splitlines(), json.dumps(b, indent=1).splitlines(),
                                 lineterm="", n=1)
    return "\n".join(list(lines)[2:30])


def check_view_shows_only_what_the_seat_sees(states) -> None:
    """``view(p)`` is plain JSON data and the same in every world ``p`` could be in (``determinize(p, rng)``), so
    it holds nothing ``p`` may not see; a spectator's ``view(None)`` is the same in the worlds of every seat. With
    private information, a seat's view does change in the worlds of another: it shows the seat its own cards."""
    rng = np.random.default_rng(36)
    changed = 0
    for state in states:
        n = state.num_players
        views = {p: _view(state, p) for p in (*range(n), None)}
        for p, view in views.items():
            assert view["perspective"] == p, f"view({p}) says it is seat {view['perspective']}'s"
            try:
                json.dumps(view)
            except TypeError as e:
                raise AssertionError(f"view({p}).to_json() is not JSON data: {e}") from None
        for p in range(n):
            for _ in range(VIEW_SAMPLES):
                det = state.determinize(p, rng)
                for q in (p, None):
                    seen = _view(det, q)
                    assert seen == views[q], (f"view({q}) differs between worlds seat {p} cannot tell apart: it shows "
                                              f"what {q} may not see\n{_view_difference(views[q], seen)}")
                changed += any(_view(det, q) != views[q] for q in range(n) if q != p)
    if states and states[0].info.private_information:
        assert changed, "no seat's view ever changed with the worlds of another: views show no seat its own cards"


def check_menus(states) -> None:
    """At every decision, ``envs.view.menu`` groups the legal actions (their ``action_path`` are distinct tuples of
    non-empty strings, none running through another's move) and the paths are the same in every world of the
    player to move (a menu that depends on hidden cards shows them)."""
    rng = np.random.default_rng(37)
    for state in (s for s in states if s.current_player >= 0):
        legal = _legal(state)
        paths = [state.action_path(a) for a in legal]
        for a, path in zip(legal, paths):
            assert isinstance(path, tuple) and path and all(isinstance(part, str) and part.strip() for part in path), \
                f"action {a}'s menu path {path!r} is not a tuple of non-empty strings"
        try:
            menu(state, legal)
        except ValueError as e:
            raise AssertionError(str(e)) from None
        det = state.determinize(state.current_player, rng)
        assert [det.action_path(a) for a in legal] == paths, "the menu changed between worlds its player cannot tell apart"


def check_actions_seen(states, actions_per_state: int = 4) -> None:
    """``action_seen`` is a string or None for every seat and the spectator, and reveals nothing hidden: a move
    or chance outcome reads alike for ``p`` (a seat or the spectator) in any two worlds ``p`` cannot tell apart
    (the state and ``determinize(seat, rng)``, a random seat's for the spectator) where it is legal and after which
    ``p``'s view is the same too (a move that shows its actor a drawn card may read differently)."""
    rng = np.random.default_rng(38)
    for state in states:
        n = state.num_players
        actions = _legal(state) if state.current_player >= 0 else [a for a, _ in state.chance_outcomes()]
        actions = [actions[i] for i in sorted(rng.permutation(len(actions))[:actions_per_state])]
        for p in (*range(n), None):
            for a in actions:
                seen = state.action_seen(a, p)
                assert seen is None or isinstance(seen, str), f"action_seen({a}, {p}) is {seen!r}, not a string or None"
            det = state.determinize(int(rng.integers(n)) if p is None else p, rng)
            there = set(_legal(det) if det.current_player >= 0 else [o for o, _ in det.chance_outcomes()])
            for a in (a for a in actions if a in there):
                after_here, after_there = state.clone(), det.clone()
                after_here.apply(a)
                after_there.apply(a)
                if _view(after_here, p) == _view(after_there, p):
                    assert det.action_seen(a, p) == state.action_seen(a, p), (
                        f"{'chance outcome' if state.current_player == CHANCE else 'action'} {a} reads "
                        f"{state.action_seen(a, p)!r} to {p} here and {det.action_seen(a, p)!r} in a world {p} "
                        f"cannot tell apart, after which {p} sees the same")


def _offers_views(name: str) -> GameState:
    state = cardboard.new_state(name, seed=0)
    if not all(hook(state, h) is not None for h in ("view", "action_path", "action_seen")):
        pytest.skip(f"{name} offers no view hooks (envs.view draws it from render_ansi and action_to_string)")
    return state


@pytest.mark.parametrize("name", GAMES)
def test_views_show_only_what_the_seat_sees(name, kit):
    _offers_views(name)
    check_view_shows_only_what_the_seat_sees(_view_states(name, kit))


@pytest.mark.parametrize("name", GAMES)
def test_menus_group_the_legal_actions(name, kit):
    _offers_views(name)
    check_menus(_view_states(name, kit))


@pytest.mark.parametrize("name", GAMES)
def test_actions_seen_reveal_nothing_hidden(name, kit):
    _offers_views(name)
    check_actions_seen(_view_states(name, kit))


# ---- option variants: games whose options change what a player may know --------------------------------------
VARIANTS = {"fifth_aeon[decklists=hidden]": ("fifth_aeon", {"decklists": "hidden", "deckpool": "starter"})}


@functools.cache
def _variant_states(variant: str) -> tuple:
    name, options = VARIANTS[variant]
    return tuple(states_in_play(cardboard.make_game(name, **options)))


@pytest.mark.parametrize("variant", VARIANTS)
def test_variants_determinize_keeps_the_view_and_resamples_the_rest(variant, kit):
    states = [s.clone() for s in _variant_states(variant)]
    check_determinize_resamples(states, states[0].info, kit)
    check_determinize_is_independent(states[::4], kit)
    check_determinize_rejects_bad_players(states[0])
    check_hook_names(states[0])


@pytest.mark.parametrize("variant", VARIANTS)
def test_variants_views_menus_and_logs_reveal_nothing_hidden(variant):
    states = [s.clone() for s in _variant_states(variant)[::8]]
    check_view_shows_only_what_the_seat_sees(states)
    check_menus(states)
    check_actions_seen(states)


# ---- each check fails on a deliberately broken tiny game ---------------------------------------------
def broken_dice_race(**methods) -> DiceRaceGame:
    """The dice race of ``tests/games`` (explicit chance, perfect information) with state ``methods`` replaced."""
    state_class = type("BrokenDiceRaceState", (DiceRaceState,), methods)
    game = DiceRaceGame()
    game.new_state = lambda seed=None: state_class(game)
    return game


def _outcomes_mapped(f):
    """A ``chance_outcomes`` whose ids are ``f(ids)``."""
    def chance_outcomes(self):
        outcomes = DiceRaceState.chance_outcomes(self)
        return list(zip(f([a for a, _ in outcomes]), [p for _, p in outcomes]))
    return chance_outcomes


def _rolled(game: DiceRaceGame) -> DiceRaceState:
    """A chance node of the dice race: player 0 has rolled."""
    state = game.new_state(0)
    state.apply(ROLL)
    return state


CHECKS = {
    "independent": lambda game, kit: check_determinize_is_independent(kit.states_in_play(game), kit),
    "bad players": lambda game, kit: check_determinize_rejects_bad_players(game.new_state(0)),
    "chance": lambda game, kit: check_chance_outcomes([_rolled(game)]),
    "turns": lambda game, kit: check_turns(played_games(game, games=20)),
    "hook names": lambda game, kit: check_hook_names(game.new_state(0)),
    "seeds": lambda game, kit: check_reset_seed_changes_the_game(CardboardAECEnv(game)),
}
BROKEN = [
    pytest.param("independent", {"determinize": lambda self, player, rng: self}, "returned the state itself",
                 id="determinize-returns-self"),
    pytest.param("independent", {"determinize": lambda self, player, rng: copy.copy(self)},
                 "changed the source", id="determinize-shares-lists"),
    pytest.param("bad players", {"determinize": lambda self, player, rng: self.clone()}, "did not raise",
                 id="determinize-takes-any-player"),
    pytest.param("chance", {"chance_outcomes": _outcomes_mapped(lambda ids: [-1 - a for a in ids])},
                 "non-negative", id="negative-outcome-ids"),
    pytest.param("chance", {"chance_outcomes": _outcomes_mapped(lambda ids: [float(a) for a in ids])},
                 "non-negative ints", id="float-outcome-ids"),
    pytest.param("chance", {"chance_outcomes": _outcomes_mapped(lambda ids: [ids[0]] * len(ids))}, "repeat",
                 id="repeated-outcome-ids"),
    pytest.param("turns", {"turn": property(lambda self: self._turn + 1)}, "not 0", id="turn-starts-at-1"),
    pytest.param("turns", {"turn": property(lambda self: self._turn + self.pending)}, "went down",
                 id="turn-goes-down"),
    pytest.param("turns", {"turn": property(lambda self: 0)}, "same turn", id="players-share-a-turn"),
    pytest.param("turns", {"turn": property(lambda self: 3 * self._turn)}, "max_turns", id="turn-past-max"),
    pytest.param("hook names", {"random_playouts": DiceRaceState.random_playout}, "'random_playout'",
                 id="random_playouts"),
    pytest.param("hook names", {"legal_actions_keys": lambda self: None}, "'legal_action_keys'",
                 id="legal_actions_keys"),
    pytest.param("hook names", {"sensible_action": lambda self: None}, "'sensible_actions'", id="sensible_action"),
    pytest.param("hook names", {"determinize": lambda self, player, rng, acuracy=None: self.clone()},
                 "keyword 'acuracy'.*'accuracy'", id="acuracy-keyword"),
    pytest.param("seeds", {"sample_chance": lambda self, rng: 2 + self.totals[self.player] % 3}, "ignores its seed",
                 id="dice-ignore-the-seed"),
]


@pytest.mark.parametrize("check, methods, message", BROKEN)
def test_each_rule_check_fails_on_a_broken_game(check, methods, message, kit):
    with pytest.raises(AssertionError, match=message):
        CHECKS[check](broken_dice_race(**methods), kit)


@pytest.mark.parametrize("check", CHECKS)
def test_each_rule_check_passes_on_the_unbroken_dice_race(check, kit):
    CHECKS[check](broken_dice_race(), kit)


def test_a_game_with_reactions_may_let_players_share_a_turn():
    """Rule 3's exception: with ``info.reactions`` a player may decide inside another's turn."""
    game = broken_dice_race(turn=property(lambda self: 0))
    game.info = dataclasses.replace(game.info, reactions=True)
    check_turns(played_games(game, games=5))


# ---- each view check fails on a deliberately broken view of the hidden-cards game ----------------------------
def _hidden_cards_view(self: HiddenCardsState, perspective: int | None) -> View:
    """The right view: a seat sees its own card, both after a showdown; the spectator neither before it."""
    hands = tuple(Zone("hand", (Card(str(c)) if p == perspective or self.showdown else Card.unseen(),), p)
                  for p, c in enumerate(self.cards))
    return View("hidden cards", status_line(self), perspective, " ".join(NAMES[a] for a in self.history),
                zones=hands)


VIEW_HOOKS = {"view": _hidden_cards_view, "action_path": lambda self, a: (NAMES[a],),
              "action_seen": lambda self, a, p: f"player {self.current_player}: {NAMES[a]}"}


def viewed_hidden_cards(**methods) -> HiddenCardsGame:
    """The hidden-cards game of ``tests/games`` (private cards dealt at set-up) with the view hooks, ``methods``
    replacing some of them."""
    state_class = type("ViewedHiddenCardsState", (HiddenCardsState,), {**VIEW_HOOKS, **methods})
    game = HiddenCardsGame()
    deal = game.new_state
    game.new_state = lambda seed=None: state_class(game, *deal(seed).cards)
    return game


def _leaky_view(self, perspective):
    return dataclasses.replace(_hidden_cards_view(self, perspective), counters={"cards": str(self.cards)})


VIEW_CHECKS = {
    "view": check_view_shows_only_what_the_seat_sees,
    "menu": check_menus,
    "seen": check_actions_seen,
}
VIEW_BROKEN = [
    pytest.param("view", {"view": _leaky_view}, "differs between worlds", id="view-shows-the-opponent-card"),
    pytest.param("view", {"view": lambda self, p: dataclasses.replace(_hidden_cards_view(self, None), perspective=p)},
                 "own cards",
                 id="view-shows-no-seat-its-card"),
    pytest.param("view", {"view": lambda self, p: dataclasses.replace(_hidden_cards_view(self, p),
                                                                       counters={"card": np.int64(self.cards[0])})},
                 "not JSON", id="view-holds-numpy-ints"),
    pytest.param("menu", {"action_path": lambda self, a: ("move",)}, "share the menu path", id="paths-collide"),
    pytest.param("menu", {"action_path": lambda self, a: (NAMES[a], "")}, "non-empty", id="empty-path-part"),
    pytest.param("menu", {"action_path": lambda self, a: (NAMES[a], f"against {self.cards[1 - self.current_player]}")},
                 "menu changed", id="menu-shows-the-opponent-card"),
    pytest.param("seen", {"action_seen": lambda self, a, p: f"{NAMES[a]} against {self.cards[1]}"},
                 "cannot tell apart", id="seen-shows-the-opponent-card"),
    pytest.param("seen", {"action_seen": lambda self, a, p: len(NAMES[a])}, "not a string", id="seen-not-a-string"),
]


def _hidden_cards_states(game: HiddenCardsGame) -> list[GameState]:
    states = []
    for seed in range(6):
        state = game.new_state(seed)
        states.append(state.clone())
        state.apply(1)  # bet: player 1 to answer
        states.append(state)
    return states


@pytest.mark.parametrize("check, methods, message", VIEW_BROKEN)
def test_each_view_check_fails_on_a_broken_view(check, methods, message):
    with pytest.raises(AssertionError, match=message):
        VIEW_CHECKS[check](_hidden_cards_states(viewed_hidden_cards(**methods)))


@pytest.mark.parametrize("check", VIEW_CHECKS)
def test_each_view_check_passes_on_the_right_view(check):
    VIEW_CHECKS[check](_hidden_cards_states(viewed_hidden_cards()))
