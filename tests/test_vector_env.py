"""``VectorGame`` (``cardboard.envs.vector``) and its faces (``cardboard.envs.vector_env``): Gymnasium's
``VectorEnv`` and SB3's ``VecEnv``.

The core: the compiled and Python loops agree row for row, the AEC env replays any row move for move (chance
included), a row plays the same in a batch of any size, the compiled greedy opponent beats random, outside
opponents (an ``Agent``, a batch policy, an SB3 model) play, and bad input is refused with nothing changed. The
faces: spaces, same-step auto-reset with Gymnasium's ``final_obs`` / ``final_info``, seeding, ``gymnasium.make_vec``,
and MaskablePPO learning on SB3's face."""
from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.spaces import Box, Discrete, MultiDiscrete
from gymnasium.vector import AutoresetMode

import cardboard
from cardboard.envs.errors import IllegalActionError, InvalidParameterError, ProtocolError
from cardboard.envs.vector import GreedyOpponent, RandomOpponent, VectorGame
from cardboard.envs.vector_env import CardboardVectorEnv, sb3_vec_env
from tests.games.tictactoe import TicTacToeGame, TicTacToeState

GAMES = ("lords_of_war", "hearth", "pandemic", "fifth_aeon")
FIELDS = ("observations", "action_masks", "rewards", "terminations", "players", "seats", "final_observations",
          "final_returns", "episode_seeds", "episodes")


def assert_rows_equal(a: VectorGame, b: VectorGame, rows: int | None = None) -> None:
    """Every public array of ``a`` equals ``b``'s first ``rows`` rows (all of them by default)."""
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field)[:rows], err_msg=field)


# ---- the core --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [dict(self_play=True), dict(opponent="random")], ids=["self_play", "random"])
@pytest.mark.parametrize("name", GAMES)
def test_compiled_and_python_loops_agree_row_for_row(name, mode):
    compiled = cardboard.make_vec_env(name, 4, seed=3, **mode)
    python = cardboard.make_vec_env(name, 4, seed=3, compiled=False, **mode)
    assert compiled.compiled and not python.compiled
    for _ in range(150):
        assert_rows_equal(compiled, python)
        actions = compiled.random_actions()
        np.testing.assert_array_equal(actions, python.random_actions())
        compiled.step(actions)
        python.step(actions)
    assert compiled.episodes.sum() > 0


@pytest.mark.parametrize("name", GAMES)
def test_the_aec_env_replays_every_row(name):
    """Self-play row ``i``, dealt from ``episode_seeds[i]``: the AEC env reset with that seed and fed the row's
    actions shows the same observations, masks, rewards and ends (chance nodes sampled alike)."""
    vec = cardboard.make_vec_env(name, 3, self_play=True, seed=11)
    envs = [cardboard.make_env(name).unwrapped for _ in range(vec.num_envs)]
    for i, env in enumerate(envs):
        env.reset(seed=int(vec.episode_seeds[i]))
    games = 0
    for _ in range(400):
        for i, env in enumerate(envs):
            assert env.possible_agents.index(env.agent_selection) == vec.players[i]
            seen = env.observe(env.agent_selection)
            np.testing.assert_array_equal(seen["observation"], vec.observations[i])
            np.testing.assert_array_equal(seen["action_mask"].astype(bool), vec.action_masks[i])
        actions, movers = vec.random_actions(), vec.players.copy()
        vec.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            mover = env.possible_agents[movers[i]]
            ended = all(env.terminations.values())
            assert vec.terminations[i] == ended and vec.rewards[i] == np.float32(env.rewards[mover])
            if ended:
                np.testing.assert_array_equal(vec.final_returns[i], [env.rewards[a] for a in env.possible_agents])
                np.testing.assert_array_equal(vec.final_observations[i], env.observe(mover)["observation"])
                env.reset(seed=int(vec.episode_seeds[i]))
                games += 1
    assert games > 0


@pytest.mark.parametrize("name", ["lords_of_war", "pandemic"])
def test_a_row_plays_the_same_in_a_batch_of_any_size(name):
    small, big = (cardboard.make_vec_env(name, n, seed=21) for n in (4, 16))
    for _ in range(100):
        assert_rows_equal(small, big, 4)
        actions = big.random_actions()
        np.testing.assert_array_equal(actions[:4], small.random_actions())
        small.step(actions[:4])
        big.step(actions)


def test_the_compiled_greedy_opponent_beats_random():
    """Random plays each seat of 20 games against greedy: greedy wins most of the 40 first games."""
    greedy_wins = 0
    for seat in (0, 1):
        vec = cardboard.make_vec_env("lords_of_war", 20, opponent="greedy", seat=seat, seed=5)
        assert isinstance(vec.opponent, GreedyOpponent) and vec.compiled
        first = np.full(vec.num_envs, np.nan)
        while np.isnan(first).any():
            vec.step(vec.random_actions())
            new = vec.terminations & np.isnan(first)
            first[new] = vec.rewards[new]
        greedy_wins += int((first < 0).sum())
    assert greedy_wins >= 26


def test_an_agent_and_a_batch_policy_play_the_other_seats():
    agent = cardboard.make_agent("random", cardboard.make_game("lords_of_war"))
    calls = []

    def first_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(len(observations))
        assert observations.shape[1:] == (1066,) and masks.shape == (len(observations), 338) and masks.any(1).all()
        return masks.argmax(1)

    for opponent in (agent, first_legal):
        vec = cardboard.make_vec_env("lords_of_war", 4, opponent=opponent, seat=None, seed=2)
        assert vec.opponent is opponent
        for _ in range(150):
            vec.step(vec.random_actions())
        assert vec.episodes.sum() > 0 and set(vec.seats) == {0, 1}
    assert calls and max(calls) <= 4


def test_bad_input_is_refused_with_nothing_changed():
    game = cardboard.make_game("lords_of_war")
    with pytest.raises(InvalidParameterError, match="reset"):
        VectorGame(game, 2).step(np.zeros(2, dtype=np.int64))
    for kwargs in (dict(num_envs=0), dict(num_envs=2, seat=2), dict(num_envs=2, opponent="random"),
                   dict(num_envs=2, self_play=True, opponent=RandomOpponent())):
        with pytest.raises(InvalidParameterError):
            VectorGame(game, **kwargs)
    a, b = (cardboard.make_vec_env("lords_of_war", 4, seed=9) for _ in range(2))
    legal = a.random_actions()
    masked_out = legal.copy()
    masked_out[2] = np.flatnonzero(~a.action_masks[2])[0]
    before = {field: getattr(a, field).copy() for field in FIELDS}
    for actions, error in ((legal[:3], InvalidParameterError), (legal.reshape(2, 2), InvalidParameterError),
                           (legal.astype(float), InvalidParameterError), (masked_out, IllegalActionError),
                           (np.where(legal == legal[1], -1, legal), IllegalActionError),
                           (np.full(4, game.info.num_actions), IllegalActionError)):
        with pytest.raises(error):
            a.step(actions)
        for field, value in before.items():
            np.testing.assert_array_equal(getattr(a, field), value, err_msg=field)
    np.testing.assert_array_equal(legal, b.random_actions())
    a.step(legal)
    b.step(legal)
    assert_rows_equal(a, b)
    cheat = cardboard.make_vec_env("lords_of_war", 2, opponent=lambda obs, masks: np.full(len(obs), -1), seat=0,
                                   seed=1)
    with pytest.raises(IllegalActionError, match="opponent"):
        for _ in range(500):
            cheat.step(cheat.random_actions())


# ---- Gymnasium's face ------------------------------------------------------------------------------------------
def test_gymnasium_make_vec_builds_the_batch():
    envs = gymnasium.make_vec("cardboard/lords_of_war-v0", num_envs=8, vectorization_mode="vector_entry_point",
                              opponent="random")
    assert isinstance(envs, CardboardVectorEnv) and envs.num_envs == 8 and envs.spec.id == "cardboard/lords_of_war-v0"
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert isinstance(envs.vec.opponent, RandomOpponent) and envs.vec.fixed_seat is None
    hearth = gymnasium.make_vec("cardboard/hearth-v0", num_envs=2, seat=1, decks="handlock")  # the default mode
    assert isinstance(hearth, CardboardVectorEnv) and hearth.vec.game is cardboard.make_game("hearth", decks="handlock")
    assert set(hearth.vec.seats) == {1}


def test_gymnasium_face_spaces_same_step_autoreset_and_copies():
    envs = CardboardVectorEnv(cardboard.make_vec_env("lords_of_war", 8))
    vec = envs.vec
    assert envs.single_observation_space == Box(0.0, 1.0, (1066,), np.float32)
    assert envs.single_action_space == Discrete(338) and envs.action_space == MultiDiscrete([338] * 8)
    obs, infos = envs.reset(seed=3)
    assert envs.observation_space.contains(obs) and set(infos) == {"action_mask", "player"}
    assert infos["action_mask"].shape == (8, 338) and infos["action_mask"].dtype == bool
    kept = [(obs, obs.copy())]
    ended_games = 0
    for _ in range(300):
        actions, movers = vec.random_actions(), vec.players.copy()
        assert envs.action_space.contains(actions)
        obs, rewards, terminations, truncations, infos = envs.step(actions)
        assert envs.observation_space.contains(obs) and not truncations.any()
        np.testing.assert_array_equal(infos["action_mask"], envs.action_masks())
        np.testing.assert_array_equal(infos["player"], vec.players)
        kept.append((obs, obs.copy()))
        if not terminations.any():
            assert "final_obs" not in infos
            continue
        for key in ("_final_obs", "_final_info", "_returns"):
            np.testing.assert_array_equal(infos[key], terminations)
        for i in range(envs.num_envs):
            final = infos["final_obs"][i]
            if not terminations[i]:
                assert final is None and rewards[i] == 0
                continue
            ended_games += 1
            assert envs.single_observation_space.contains(final)
            assert infos["final_info"]["seat"][i] == movers[i]
            assert rewards[i] == infos["returns"][i, movers[i]] == infos["final_info"]["returns"][i, movers[i]]
            np.testing.assert_array_equal(obs[i], vec.state(i).observation(int(vec.seats[i])))  # the next game's
            kept.append((final, final.copy()))
    assert ended_games > 0
    for handed_out, copy in kept:  # nothing handed out is overwritten by later steps
        np.testing.assert_array_equal(handed_out, copy)
    with pytest.raises(IllegalActionError):
        envs.step(np.full(8, -1))
    with pytest.raises(InvalidParameterError, match="options"):
        envs.reset(options={"seat": 0})
    envs.close()
    assert envs.closed


def test_gymnasium_reset_seed_replays_the_batch():
    runs = []
    for seed in (5, 5, 6):
        envs = CardboardVectorEnv(cardboard.make_vec_env("hearth", 4))
        obs, _ = envs.reset(seed=seed)
        run = [obs, envs.vec.episode_seeds.copy()]
        for _ in range(60):
            run.extend(envs.step(envs.vec.random_actions())[:3])
        runs.append(run)
    assert all(np.array_equal(x, y) for x, y in zip(runs[0], runs[1]))
    assert not np.array_equal(runs[0][1], runs[2][1])


# ---- SB3's face ------------------------------------------------------------------------------------------------
def test_sb3_face_api_and_terminal_observations():
    vec_env = pytest.importorskip("stable_baselines3.common.vec_env")
    env = sb3_vec_env(cardboard.make_vec_env("lords_of_war", 6))
    vec = env.vec
    assert isinstance(env, vec_env.VecEnv) and env.num_envs == 6
    assert env.observation_space == Box(0.0, 1.0, (1066,), np.float32) and env.action_space == Discrete(338)
    env.seed(7)
    first, seeds = env.reset(), vec.episode_seeds.copy()
    env.seed(7)
    np.testing.assert_array_equal(env.reset(), first)
    np.testing.assert_array_equal(vec.episode_seeds, seeds)
    masks = env.action_masks()
    assert masks.shape == (6, 338) and masks.dtype == bool and not np.shares_memory(masks, vec.action_masks)
    np.testing.assert_array_equal(np.stack(env.env_method("action_masks")), masks)
    np.testing.assert_array_equal(np.stack(env.env_method("action_masks", indices=[1, 3])), masks[[1, 3]])
    assert env.has_attr("action_masks") and env.get_attr("render_mode") == [None] * 6
    assert env.env_is_wrapped(gymnasium.Wrapper) == [False] * 6
    done_rows = 0
    for _ in range(300):
        seats = vec.seats.copy()
        obs, rewards, dones, infos = env.step(vec.random_actions())
        assert obs.shape == (6, 1066) and len(infos) == 6
        for i in range(6):
            if not dones[i]:
                assert infos[i] == {} and rewards[i] == 0
                continue
            done_rows += 1
            assert infos[i]["TimeLimit.truncated"] is False
            np.testing.assert_array_equal(infos[i]["terminal_observation"], vec.final_observations[i])
            assert rewards[i] == infos[i]["returns"][seats[i]]
    assert done_rows > 0
    with pytest.raises(IllegalActionError):
        env.step(np.full(6, 338))
    env.close()


def test_sb3_seed_replays_the_batch_after_steps():
    """Reset right after steps that start rows' next deals ahead (a game ended the step before): the same seed,
    the same batch."""
    env = sb3_vec_env(cardboard.make_vec_env("lords_of_war", 6))
    env.seed(7)
    first, ended = env.reset(), False
    for _ in range(300):
        dones = env.step(env.vec.random_actions())[2]
        if ended and not dones.any():
            env.seed(7)
            np.testing.assert_array_equal(env.reset(), first)
        ended = dones.any()


def test_maskable_ppo_learns_on_the_sb3_face_and_plays_as_an_opponent():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    torch.set_num_threads(1)
    env = VecMonitor(sb3_vec_env(cardboard.make_vec_env("lords_of_war", 8, seed=0)))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=1, policy_kwargs=dict(net_arch=[32]),
                        seed=0, device="cpu").learn(2000)
    assert model.num_timesteps >= 2000 and len(model.ep_info_buffer) > 0  # games ended and VecMonitor saw them
    vec = cardboard.make_vec_env("lords_of_war", 4, opponent=model, seed=1)  # the model plays the other seat
    for _ in range(150):
        vec.step(vec.random_actions())
    assert vec.episodes.sum() > 0


# ---- the trainer's flags ---------------------------------------------------------------------------------------
def test_train_ppo_stops_at_its_cpu_budget_on_either_backend(tmp_path, capsys):
    """A budget spent by the first vector step stops training there (``--smoke`` otherwise trains 256 steps)."""
    pytest.importorskip("sb3_contrib")
    from cardboard.training import ppo

    for backend in ppo.BACKENDS:
        out = tmp_path / backend
        argv = ["lords_of_war", "--smoke", "--quiet", "--backend", backend, "--cpu-minutes", "1e-9", "--out-dir", out]
        assert ppo.main([str(a) for a in argv]) == 0
        assert json.loads((out / "final.json").read_text())["step"] == 2  # one step of the smoke run's 2 envs
    for argv, words in ((["--backend", "subproc"], "--backend must be one of vector, seat"),
                        (["--cpu-minutes", "-1"], "--cpu-minutes must be >= 0")):
        assert ppo.main(["lords_of_war", "--smoke", *argv, "--out-dir", str(tmp_path / "bad")]) == 2
        assert words in capsys.readouterr().out and not (tmp_path / "bad").exists()


class _OneMoveLeft(TicTacToeGame):
    """Tic-tac-toe dealt at ``XXO / XXO / O..`` with O (seat 1, the opponent) to move: cell 8 wins for O at once,
    cell 7 leaves X cell 8, which wins."""

    START = "XXOXXOO.."

    def new_state(self, seed=None):
        return TicTacToeState(self, self.START)


def test_a_new_game_that_ends_before_the_callers_move_is_dealt_again_and_not_counted():
    """The caller's winning move is rewarded +1 once, even when the next game the row deals is lost before the
    caller could move (such a game is dealt again, as the seat env does)."""
    state = _OneMoveLeft().new_state()
    assert state.current_player == 1 and list(state.legal_actions()) == [7, 8]
    vec = VectorGame(_OneMoveLeft(), 8, opponent=RandomOpponent(), seat=0)
    vec.reset(0)
    assert not vec.terminations.any() and not vec.episodes.any() and not vec.rewards.any()
    for _ in range(5):
        wins = np.array([int(np.flatnonzero(vec.action_masks[i])[0]) for i in range(8)])
        vec.step(wins)  # X's only move wins
        assert vec.terminations.all() and (vec.rewards == 1).all() and (vec.final_returns[:, 0] == 1).all()
    assert (vec.episodes == 5).all()


def test_games_that_always_end_before_the_callers_move_are_refused():
    vec = VectorGame(_OneMoveLeft(), 2, opponent=lambda obs, masks: np.full(len(masks), 8), seat=0)  # O wins
    with pytest.raises(ProtocolError, match="deals in a row"):
        vec.reset(0)


def test_an_unseeded_reset_goes_on_from_the_seeded_streams():
    """Gymnasium's convention: after reset(seed), reset() continues deterministically (TorchRL resets unseeded)."""
    runs = []
    for _ in range(2):
        vec = cardboard.make_vec_env("lords_of_war", 3, seed=4)
        first = vec.episode_seeds.copy()
        vec.reset()
        runs.append((first, vec.episode_seeds.copy()))
        assert not np.array_equal(first, vec.episode_seeds)
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_rows_shared_among_threads_play_what_one_thread_plays():
    """``threads=2`` splits a call's rows (at least 2 * SPLIT of them) between two loops: the same games."""
    game = cardboard.make_game("lords_of_war")
    one, two = (VectorGame(game, 300, self_play=True, threads=k) for k in (1, 2))
    for vec in (one, two):
        vec.reset(3)
    for _ in range(60):
        actions = one.random_actions()
        np.testing.assert_array_equal(actions, two.random_actions())
        one.step(actions)
        two.step(actions)
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field), err_msg=field)
    assert one.episodes.sum() == two.episodes.sum() > 0
    two.close()
