"""Agent ``sb3``: a trained checkpoint in matches and tournaments, typed refusals of bad checkpoints, no torch
import until such an agent is built."""
from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3 import A2C, PPO  # noqa: E402

from cardboard import make_seat_env, registry  # noqa: E402
from cardboard.cli import main  # noqa: E402
from cardboard.envs.errors import CheckpointError, InvalidParameterError  # noqa: E402
from cardboard.envs.protocol import CHANCE, sample_chance  # noqa: E402
from cardboard.evaluation.match import play_match_specs  # noqa: E402

GAME = "lords_of_war"
torch.set_num_threads(1)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """A tiny MaskablePPO trained for 128 steps, an untrained PPO and an untrained A2C, saved as zips."""
    folder = tmp_path_factory.mktemp("sb3")
    env = make_seat_env(GAME, seat=None, seed=0)
    small = dict(policy_kwargs=dict(net_arch=[16]), seed=0, device="cpu")
    MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, **small).learn(128).save(folder / "mppo")
    PPO("MlpPolicy", env, n_steps=64, batch_size=64, **small).save(folder / "ppo")
    A2C("MlpPolicy", env, n_steps=8, **small).save(folder / "a2c")
    return {name: str(folder / f"{name}.zip") for name in ("mppo", "ppo", "a2c")}


def without_seconds(records):
    return [replace(r, seconds=()) for r in records]


def test_plays_legal_moves_identically_in_one_and_two_workers(checkpoints, tmp_path):
    specs = [f"sb3:path={checkpoints['mppo']}", "random"]
    one = play_match_specs(GAME, specs, games=4, seed=3, workers=1)  # an illegal action would raise
    two = play_match_specs(GAME, specs, games=4, seed=3, workers=2)
    assert without_seconds(one) == without_seconds(two)
    assert {r.index for r in one} == set(range(4)) and all(r.turns > 0 for r in one)


@pytest.mark.parametrize("name", ["mppo", "ppo"])
@pytest.mark.parametrize("deterministic", [True, False])
def test_acts_legally_as_predict_does_and_reproducibly(checkpoints, name, deterministic):
    game = registry.make_game(GAME)
    agent = registry.make_agent(f"sb3:path={checkpoints[name]},deterministic={int(deterministic)}", game)
    model = (MaskablePPO if name == "mppo" else PPO).load(checkpoints[name], device="cpu")

    def play(seed):
        state, rng, actions = game.new_state(seed), np.random.default_rng(seed), []
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            action = agent.act(state, rng)
            assert state.action_mask()[action]
            if name == "mppo" and deterministic:  # what masked predict picks
                predicted, _ = model.predict(state.observation(state.current_player), deterministic=True,
                                             action_masks=state.action_mask())
                assert action == int(predicted)
            actions.append(action)
            state.apply(action)
        return actions

    assert play(5) == play(5)


def test_plain_ppo_picks_the_most_probable_legal_action(checkpoints):
    game = registry.make_game(GAME)
    agent = registry.make_agent(f"sb3:path={checkpoints['ppo']}", game)
    state = game.new_state(0)
    while state.current_player == CHANCE:
        state.apply(sample_chance(state, np.random.default_rng(0)))
    obs, _ = agent.policy.obs_to_tensor(state.observation(state.current_player))
    with torch.no_grad():
        probs = agent.policy.get_distribution(obs).distribution.probs[0].numpy()
    legal = np.flatnonzero(state.action_mask())
    assert agent.act(state, np.random.default_rng(0)) == legal[np.argmax(probs[legal])]


def test_tournament_from_the_command_line(checkpoints, tmp_path):
    out = tmp_path / "tourn"
    code = main(["tournament", GAME, "--agents", f"sb3:path={checkpoints['mppo']},random,greedy", "--games", "2",
                 "--seed", "1", "--out", str(out), "--quiet"])
    assert code == 0
    result = json.loads((out / "tournament.json").read_text())
    assert f"sb3:path={checkpoints['mppo']}" in json.dumps(result)


def bad_checkpoints(folder, good):
    """name -> (path, words the error must contain)."""
    (folder / "text.zip").write_text("not a zip")
    blob = open(good, "rb").read()
    (folder / "truncated.zip").write_bytes(blob[: len(blob) // 2])
    with zipfile.ZipFile(folder / "other.zip", "w") as archive:
        archive.writestr("notes.txt", "hello")
    with zipfile.ZipFile(folder / "garbled.zip", "w") as archive:
        with zipfile.ZipFile(good) as source:
            for item in source.namelist():
                archive.writestr(item, b"garbage" if item == "policy.pth" else source.read(item))
    return {"missing": (folder / "missing.zip", "no such file"),
            "text": (folder / "text.zip", "not a zip"),
            "truncated": (folder / "truncated.zip", "truncated"),
            "other_zip": (folder / "other.zip", "not a stable-baselines3 checkpoint"),
            "garbled": (folder / "garbled.zip", "cannot be loaded")}


@pytest.mark.parametrize("case", ["missing", "text", "truncated", "other_zip", "garbled", "a2c"])
def test_a_bad_checkpoint_is_refused_typed_before_anything_is_written(checkpoints, tmp_path, case):
    cases = bad_checkpoints(tmp_path, checkpoints["mppo"])
    cases["a2c"] = (checkpoints["a2c"], "not a PPO or MaskablePPO checkpoint")
    path, words = cases[case]
    with pytest.raises(CheckpointError, match=words) as caught:
        registry.make_agent(f"sb3:path={path}", registry.make_game(GAME))
    assert str(path) in str(caught.value)
    results = tmp_path / "results.jsonl"
    with pytest.raises(CheckpointError):
        play_match_specs(GAME, [f"sb3:path={path}", "random"], games=2, seed=0, workers=2, results_path=results)
    assert not results.exists()
    assert main(["tournament", GAME, "--agents", f"sb3:path={path}", "random", "greedy", "--games", "2",
                 "--out", str(tmp_path / "tourn"), "--quiet"]) != 0
    assert not (tmp_path / "tourn").exists()


def test_a_checkpoint_for_another_game_is_refused_naming_both_shapes(checkpoints):
    hearth = registry.make_game("hearth")
    with pytest.raises(InvalidParameterError, match=r"\(1066,\) and 338 actions.*'hearth'.*\(3198,\) and 116 actions"):
        registry.make_agent(f"sb3:path={checkpoints['mppo']}", hearth)


def test_the_spec_needs_a_path():
    with pytest.raises(InvalidParameterError, match="path=PATH"):
        registry.make_agent("sb3", registry.make_game(GAME))


def test_listing_games_and_agents_imports_no_torch():
    code = ("import sys, cardboard\nfrom cardboard import registry\nfrom cardboard.cli import main\n"
            "registry.describe_agents(); registry.make_game('hearth'); registry.make_game('lords_of_war')\n"
            "main(['agents']); main(['games'])\n"
            "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules, 'torch imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "sb3" in done.stdout
