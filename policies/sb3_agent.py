"""Agent ``sb3``: plays a PPO or MaskablePPO checkpoint, such as the ``model.zip`` ``cardboard train-ppo`` writes.

    cardboard tournament hearth --agents sb3:path=runs/ppo/model.zip greedy_h random --option decks=face_hunter

Spec ``sb3:path=PATH[,deterministic=1][,perfect=0][,device=cpu]``. The agent feeds the policy
``state.observation(player, perfect)`` and picks among the legal actions only: with ``deterministic=1`` (the
default) the legal action of highest probability, which is what MaskablePPO's ``predict(obs,
deterministic=True, action_masks=state.action_mask())`` returns, and for plain PPO (trained without masks)
the most probable legal one; with ``deterministic=0`` it samples the policy's distribution restricted to the
legal actions, with the match's ``rng``, so one seed replays the same games either way.

Loading is checked before anything is played. The zip's metadata (its JSON ``data``) is read first, without
torch: a missing or unreadable file, a non-zip or truncated zip, a zip that is not an SB3 checkpoint and an
algorithm other than PPO / MaskablePPO raise ``CheckpointError`` naming the path; a checkpoint whose
observation shape or number of actions differs from the game's raises ``InvalidParameterError`` naming both.
SB3 checkpoints contain pickled data, so only load files you trust. This loader unpickles none of it: the
policy class and spaces are rebuilt from the game, training-only objects (learning-rate schedules, clip
ranges, rollout state) are replaced via ``custom_objects``, and the tensors are read with torch's
``weights_only`` loader; MLP policies whose ``policy_kwargs`` are plain JSON (``net_arch``) load this way.

torch, stable-baselines3 and sb3-contrib (the ``rl`` extra) are imported only when an agent is built. Match
workers rebuild agents from their specs, so each worker process loads the checkpoint itself.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.errors import CheckpointError, InvalidParameterError
from ..envs.files import CHECKPOINT_LIMIT, check_file, errors_as, quoted
from ..envs.protocol import Game, GameInfo, GameState

MASKABLE_POLICIES = "sb3_contrib.common.maskable.policies"
PPO_POLICIES = "stable_baselines3.common.policies"
# the checkpoint's pickled entries other than the policy class and the spaces (rebuilt from the game) are
# training state (schedules, buffers, last observations): replaced by these values, or None
TRAINING_ONLY = {"learning_rate": 0.0, "clip_range": 0.0}


def read_checkpoint(path: str) -> tuple[str, dict[str, Any]]:
    """``(algorithm, data)`` of the SB3 checkpoint at ``path`` ('PPO' or 'MaskablePPO'; ``data`` is its JSON
    metadata, nothing unpickled), or ``CheckpointError`` naming the path and what is wrong."""
    file = Path(path)
    with errors_as(CheckpointError):
        check_file(file, CHECKPOINT_LIMIT, "checkpoint")
    try:
        with zipfile.ZipFile(file) as archive:
            names = set(archive.namelist())
            if not {"data", "policy.pth"} <= names:
                raise CheckpointError(f"{path}: not a stable-baselines3 checkpoint (a zip without "
                                      f"{' and '.join(sorted({'data', 'policy.pth'} - names))})")
            if sum(member.file_size for member in archive.infolist()) > CHECKPOINT_LIMIT:
                raise CheckpointError(f"{path}: unpacks past the {CHECKPOINT_LIMIT >> 20} MiB limit of a checkpoint")
            data = json.loads(archive.read("data"))
    except zipfile.BadZipFile as exc:
        raise CheckpointError(f"{path}: not a zip file, or a truncated one ({exc})") from None
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot be read ({exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{path}: not a stable-baselines3 checkpoint (its 'data' is not JSON: {exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("policy_class"), dict):
        raise CheckpointError(f"{path}: not a stable-baselines3 checkpoint (its 'data' names no policy_class)")
    module = data["policy_class"].get("__module__")
    if module == MASKABLE_POLICIES:
        return "MaskablePPO", data
    if module == PPO_POLICIES and "clip_range" in data:
        return "PPO", data
    raise CheckpointError(f"{path}: not a PPO or MaskablePPO checkpoint (its policy class comes from "
                          f"{quoted(module)}{'' if 'clip_range' in data else ' and it has no clip_range'})")


def _spaces(path: str, data: dict[str, Any]) -> tuple[tuple[int, ...], int]:
    """The observation shape and number of actions recorded (as text) in a checkpoint's metadata."""
    try:
        observation, action = data["observation_space"], data["action_space"]
        if "Box" not in observation[":type:"] or "Discrete" not in action[":type:"]:
            raise ValueError(f"spaces {observation[':type:']} and {action[':type:']}")
        return tuple(int(d) for d in observation["_shape"]), int(action["n"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: no Box observation space and Discrete action space in its metadata "
                              f"({type(exc).__name__}: {exc})") from None


def load_policy(path: str, info: GameInfo, device: str = "cpu") -> Any:
    """The policy network of the PPO / MaskablePPO checkpoint at ``path``, checked against game ``info`` and
    loaded without unpickling (see the module docstring); in evaluation mode on ``device``."""
    algorithm, data = read_checkpoint(path)
    shape, actions = _spaces(path, data)
    if shape != tuple(info.observation_shape) or actions != info.num_actions:
        raise InvalidParameterError(
            f"{path}: the checkpoint has observation shape {shape} and {actions} actions, game {info.name!r} "
            f"has observation shape {tuple(info.observation_shape)} and {info.num_actions} actions")
    kwargs = data.get("policy_kwargs", {})
    if not isinstance(kwargs, dict) or ":serialized:" in kwargs:
        raise CheckpointError(f"{path}: its policy_kwargs are pickled (custom network classes); only JSON "
                              "policy_kwargs such as net_arch are loaded")
    from gymnasium import spaces
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3 import PPO
    from stable_baselines3.common.policies import ActorCriticPolicy

    maskable = algorithm == "MaskablePPO"
    pickled = [key for key, value in data.items() if isinstance(value, dict) and ":serialized:" in value]
    custom = {key: TRAINING_ONLY.get(key) for key in pickled} | {
        "policy_class": MaskableActorCriticPolicy if maskable else ActorCriticPolicy,
        "observation_space": spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32),
        "action_space": spaces.Discrete(actions)}
    try:
        model = (MaskablePPO if maskable else PPO).load(path, device=device, custom_objects=custom)
    except Exception as exc:  # a damaged member, a network that is not an MLP of these spaces: refuse, typed
        raise CheckpointError(f"{path}: the {algorithm} checkpoint cannot be loaded "
                              f"({type(exc).__name__}: {exc})") from None
    model.policy.set_training_mode(False)
    return model.policy


class SB3Agent:
    """Plays a PPO or MaskablePPO checkpoint ``path`` (a ``model.zip``), legal actions only; see the module.

    path: the checkpoint, e.g. runs/ppo/GAME-vs-random-seed1/model.zip (required)
    deterministic: the most likely legal action (0: sample from the policy with the match's generator)
    perfect: feed the perfect-information observation (for a model trained with perfect=True)
    device: torch device of the policy
    """

    name = "sb3"

    def __init__(self, path: str = "", deterministic: bool = True, perfect: bool = False, device: str = "cpu",
                 game: Game | None = None):
        if not path:
            raise InvalidParameterError("it needs path=PATH to a PPO or MaskablePPO model.zip")
        if game is None:
            raise InvalidParameterError("it plays the game it is built for: make_agent(spec, game)")
        self.deterministic, self.perfect = deterministic, perfect
        self.policy = load_policy(path, game.info, device)

    def reset(self) -> None:
        """Nothing to forget between games."""

    def act(self, state: GameState, rng: np.random.Generator) -> int:
        import torch

        observation = state.observation(state.current_player, self.perfect)
        with torch.no_grad():
            tensor, _ = self.policy.obs_to_tensor(observation)
            logits = self.policy.get_distribution(tensor).distribution.logits[0].cpu().numpy().astype(np.float64)
        legal = np.flatnonzero(state.action_mask())
        logits = logits[legal]
        if self.deterministic:
            return int(legal[np.argmax(logits)])
        probs = np.exp(logits - logits.max())
        return int(legal[rng.choice(len(legal), p=probs / probs.sum())])
