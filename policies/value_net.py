"""Leaf value networks on disk (issue 49): ``search.leaf_value.LeafNet``'s weights in a safetensors checkpoint, and
the builder of the search agents' ``vnet=PATH,mix=λ`` knobs.

A checkpoint holds the tensors ``w1, b1, w2, b2, w3, b3`` (float32; ``leaf_value.LAYERS``), optionally a policy
head ``wp, bp`` (``POLICY_LAYERS``: the ``vprior`` and ``vroll`` knobs read it), and cardboard's
metadata (``checkpoints``): ``format`` ``cardboard.leaf_value_net/1``, ``game``, ``observation_size``,
``num_players``, ``hidden`` ([H1, H2]) and, for a shipped model, ``agent`` (``zoo``). ``training.value_net``
trains one in torch and writes it here. Torch-free: search reads the arrays with numpy.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.errors import CheckpointError, InvalidParameterError
from ..envs.protocol import Game, GameInfo
from ..search.config import SearchConfig
from ..search.leaf_value import FORMAT, LAYERS, POLICY_LAYERS, LeafNet, LearnedRollout, LeafPolicy, LeafValue
from ..search.strategies import PUCT
from . import checkpoints, zoo

WHAT = "leaf value net"


def load(path: str | Path, info: GameInfo) -> LeafNet:
    """The leaf value net at ``path`` (or ``zoo:NAME``) for ``info``'s game; ``CheckpointError`` naming the file when
    it is no such checkpoint, is of another game or its weights do not fit the game."""
    file = zoo.resolve(str(path), info.name, knob="vnet")
    metadata, tensors = checkpoints.read(file, FORMAT, WHAT, "numpy")
    if metadata.get("game") != info.name:
        raise CheckpointError(f"{path}: a leaf value net of game {metadata.get('game')!r}, not of {info.name!r}")
    try:
        return LeafNet.of(tensors, info, str(path))
    except InvalidParameterError as exc:
        raise CheckpointError(str(exc)) from None


def save(net: LeafNet, info: GameInfo, path: str | Path, extra: dict[str, Any] | None = None) -> Path:
    """Write ``net`` for ``info``'s game to ``path`` (through a temporary file renamed over it), with ``extra``
    metadata (training facts, a zoo model's ``agent``)."""
    names = LAYERS + (POLICY_LAYERS if net.has_policy else ())
    tensors = {name: np.ascontiguousarray(a, dtype=np.float32) for name, a in zip(names, net)}
    LeafNet.of(tensors, info)  # it fits the game
    metadata = {"format": FORMAT, "game": info.name, "observation_size": int(net.w1.shape[0]),
                "num_players": info.num_players, "hidden": [int(net.w1.shape[1]), int(net.w2.shape[1])],
                **(extra or {})}
    checkpoints.write_numpy(tensors, metadata, path)
    return Path(path)


def leaf_value_strategy(config: SearchConfig, *, game: Game | None, path: str, mix: float, prior: float = 0.0,
                        rollout: float = 0.0, c_puct: float = 1.25) -> SearchConfig:
    """``config`` with the learned leaf value of the net at ``path`` mixed by ``mix`` (the ``vnet`` knob) and, at
    temperatures above 0, PUCT over its policy head's prior at every node (``vprior``, constant ``c_puct``) and
    rollouts drawn from it (``vroll``); the game must be known and offer the compiled ``observation`` kernel the
    net reads."""
    if game is None:
        raise InvalidParameterError(f"vnet={path}: a leaf value net is built for a game (make_agent(spec, game))")
    make = getattr(game.new_state(0), "compiled_model", None)
    if make is None or make().observation is None:
        raise InvalidParameterError(f"vnet={path}: {game.info.name} offers no compiled observation kernel "
                                    "(compiled_model().observation), which a leaf value net reads")
    for knob, temperature in (("vprior", prior), ("vroll", rollout)):
        if not temperature >= 0:
            raise InvalidParameterError(f"{knob}={temperature}: a softmax temperature > 0 (0: off)")
    net = load(path, game.info)
    config = replace(config, leaf_value=LeafValue(net, mix, name=path))
    if prior > 0:
        config = replace(config, selection=PUCT(c_puct), prior=LeafPolicy(net, prior, name=path))
    if rollout > 0:
        config = replace(config, rollout=LearnedRollout(net, rollout, name=path))
    return config
