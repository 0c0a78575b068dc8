"""Policy-value networks for any registered game (issue 17), shaped by the game where it declares how (issue 33).

``PolicyValueNet(info, hidden, options, structure)`` maps ``state.observation(player)`` to two heads:
``info.num_actions`` policy logits (``masked_policy`` turns them into priors over the legal actions) and one value
per player, ``tanh`` scaled to [``info.min_return``, ``info.max_return``]. Its trunk is built from the game's
``ObservationStructure`` (``envs.structure.structure_of(game)``: ``policies.trunks``' convolutions over board
planes, set encoders over card tokens, message passing over a map, an MLP over the joined parts) where one is
given, and is an MLP over the flattened observation otherwise. Where the structure also maps ranges of action ids
onto its parts (``ActionPairs``, ``ActionCells``, ``ActionNodes``), the policy logits of those ids come from the
trunk's square, slot and node features (``policies.heads.StructuredPolicyHead``: a deployment is a card x square
pair) and a linear layer gives the others; without ranges one linear layer gives them all. ``cardboard train``
(``--trunk structured``, the default) and the untrained ``net`` agent give every game that declares a structure
the structured trunk (and its action ranges' heads; ``cardboard train --policy-head flat`` keeps the linear layer).

Checkpoints are one safetensors file (``policies.checkpoints``; cardboard's training commands name it
``model.safetensors``): the state dict and a JSON string of metadata (game name and options, every ``GameInfo``
field, the layer sizes, the observation structure, torch's version) in its header; nothing is unpickled, and
``load`` rebuilds the network without the game. A missing, truncated or foreign file, a ``torch.save`` checkpoint
of cardboard before issue 33 (no longer read), or a network of another game (another name, or shapes that differ
from the game it is loaded for), raises ``CheckpointError`` naming the file and what is wrong.

This module imports torch: the registry never imports it (``import cardboard`` stays torch-free).
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..envs.errors import CheckpointError, InvalidParameterError
from ..envs.protocol import GameInfo
from ..envs.structure import ObservationStructure
from . import checkpoints
from .heads import StructuredPolicyHead
from .trunks import StructuredTrunk

FORMAT = "cardboard.policy_value_net/1"
SHAPE_FIELDS = ("observation_shape", "num_actions", "num_players", "min_return", "max_return")


def masked_policy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax of ``logits`` [B, A] over the legal actions: illegal logits (``mask`` False) are set to -inf
    first, so their probability is exactly 0. Every row of ``mask`` needs at least one legal action."""
    return logits.masked_fill(~mask, float("-inf")).softmax(dim=-1)


DEFAULT_HIDDEN = (176, 176)  # 279,124 parameters on Lords of War


class PolicyValueNet(nn.Module):
    """A policy-value network for the game described by ``info``: an MLP over the flat observation, or with
    ``structure`` (the game's ``ObservationStructure``, ``envs.structure.structure_of(game)``) a trunk shaped by
    it (``policies.trunks``: convolutions, set encoders, message passing, an MLP over the joined parts), and the
    policy logits of the action ranges the structure declares from the parts' elements (``policies.heads``).

    ``hidden``: the widths of the MLP (ReLU after each; the default gives Lords of War about 280k parameters, the
    size of issue 17's reference MLP), over the joined parts with a structure; ``options``: the game's options.
    Both, and the structure, are recorded in checkpoints, so that ``load`` rebuilds the network without the game.
    """

    def __init__(self, info: GameInfo, hidden: Sequence[int] = DEFAULT_HIDDEN,
                 options: Mapping[str, Any] | None = None, structure: ObservationStructure | None = None):
        super().__init__()
        hidden = tuple(hidden)
        if not hidden or not all(isinstance(h, int) and h > 0 for h in hidden):
            raise InvalidParameterError(f"hidden={hidden!r}: expected one or more positive layer widths")
        if structure is not None and structure.observation_shape != tuple(info.observation_shape):
            raise InvalidParameterError(f"an observation structure of shape {structure.observation_shape} for game "
                                        f"{info.name!r}, whose observations have {tuple(info.observation_shape)}")
        if structure is not None and structure.actions and structure.num_actions != info.num_actions:
            raise InvalidParameterError(f"an observation structure with action ranges over {structure.num_actions} "
                                        f"actions for game {info.name!r}, which has {info.num_actions}")
        self.info, self.hidden, self.options, self.structure = info, hidden, dict(options or {}), structure
        self.observation_size = int(np.prod(info.observation_shape))
        layers: list[nn.Module] = []
        if structure is None:
            width = self.observation_size
            for h in hidden:
                layers += [nn.Linear(width, h), nn.ReLU()]
                width = h
            self.trunk = nn.Sequential(*layers)
        else:
            self.trunk = StructuredTrunk(structure, hidden)
            width = self.trunk.out_features
        self.structured_policy = structure is not None and bool(structure.actions)
        if self.structured_policy:
            self.policy_head = StructuredPolicyHead(structure, width, self.trunk.element_features)
        else:
            self.policy_head = nn.Linear(width, info.num_actions)
        self.value_head = nn.Linear(width, info.num_players)
        self._layers = (*layers[::2], self.value_head)  # the MLP's Linear layers, for ``forward``
        self.register_buffer("value_mid", torch.tensor((info.max_return + info.min_return) / 2))
        self.register_buffer("value_half", torch.tensor((info.max_return - info.min_return) / 2))

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits [B, num_actions], values [B, num_players])`` of observations [B, *observation_shape].

        The layers are applied as functions of their current weights (read from each layer's parameter dict):
        a module call and each attribute read through ``nn.Module`` cost microseconds of Python, which a search
        evaluating a few states at a time pays on every pass. A structured trunk is one module call (its structured
        policy head another)."""
        *trunk, value = ((m._parameters["weight"], m._parameters["bias"]) for m in self._layers)
        features = observations.reshape(observations.shape[0], self.observation_size)
        if self.structured_policy:
            features, elements = self.trunk(features, elements=True)
            logits = self.policy_head(features, elements)
        else:
            if self.structure is not None:
                features = self.trunk(features)
            for weight, bias in trunk:  # each Linear of the trunk is followed by a ReLU
                features = F.relu(F.linear(features, weight, bias))
            policy = self.policy_head._parameters
            logits = F.linear(features, policy["weight"], policy["bias"])
        values = self.value_mid + self.value_half * torch.tanh(F.linear(features, *value))
        return logits, values

    def num_parameters(self) -> int:
        """The number of trainable parameters."""
        return sum(p.numel() for p in self.parameters())

    def metadata(self) -> dict[str, Any]:
        """What a checkpoint records beside the weights (JSON-serializable)."""
        return {"format": FORMAT, "game": self.info.name, "options": self.options,
                "info": dataclasses.asdict(self.info), "hidden": list(self.hidden),
                "structure": None if self.structure is None else self.structure.to_dict(),
                "torch": torch.__version__}

    def save(self, path: str | Path) -> None:
        """Write the weights and ``metadata()`` to ``path``: one safetensors file (``save_checkpoint``: CPU tensors,
        the metadata as JSON in its header, written through a temporary file), which ``load`` reads back on the CPU
        without unpickling anything (``model.safetensors`` by cardboard's training commands' convention)."""
        save_checkpoint(self, self.metadata(), path)

    @classmethod
    def load(cls, path: str | Path, info: GameInfo | None = None) -> "PolicyValueNet":
        """The network saved at ``path`` (on the CPU, in eval mode). With ``info``, it must be a network of that
        game: the same name and shapes (``CheckpointError`` naming both games otherwise, also when only the names
        differ); without it, the checkpoint's own ``GameInfo``."""
        metadata, state_dict = read_checkpoint(path, FORMAT, "policy-value")
        try:
            fields = dict(metadata["info"], observation_shape=tuple(metadata["info"]["observation_shape"]))
            saved_info = GameInfo(**fields)
            hidden = tuple(metadata["hidden"])
            structure = metadata.get("structure")
            structure = None if structure is None else ObservationStructure.from_dict(structure)
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"{path}: not a cardboard policy-value checkpoint, or a truncated one "
                                  f"({type(exc).__name__}: {exc})") from None
        if info is not None and info.name != saved_info.name:
            raise CheckpointError(f"{path}: the network of game {saved_info.name!r} does not match game "
                                  f"{info.name!r}: a network of another game (whatever its shapes)")
        if info is not None and any(getattr(info, f) != getattr(saved_info, f) for f in SHAPE_FIELDS):
            raise CheckpointError(f"{path}: the network of game {saved_info.name!r} ({_shapes(saved_info)}) does "
                                  f"not match game {info.name!r} ({_shapes(info)})")
        return load_weights(cls(info or saved_info, hidden, metadata.get("options"), structure), state_dict, path)


def save_checkpoint(weights: nn.Module | Mapping[str, torch.Tensor], metadata: dict[str, Any],
                    path: str | Path) -> None:
    """One safetensors file (``checkpoints``): the weights (a module's state dict, or a state dict) as CPU tensors
    and ``metadata`` as JSON in its header, written through a temporary file renamed over ``path``."""
    from safetensors.torch import save

    state = weights.state_dict() if isinstance(weights, nn.Module) else weights
    tensors = {k: v.detach().to("cpu").clone(memory_format=torch.contiguous_format) for k, v in state.items()}
    checkpoints.write(save(tensors, {checkpoints.METADATA_KEY: json.dumps(metadata)}), path)


def read_checkpoint(path: str | Path, fmt: str, what: str) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """``(metadata, state_dict)`` (CPU tensors) of a ``save_checkpoint`` file whose metadata has format ``fmt``;
    ``CheckpointError`` naming the file for a missing, empty, truncated, random or foreign one, and for a
    ``torch.save`` checkpoint of cardboard before issue 33, which is no longer read (``what``: the kind, for it)."""
    return checkpoints.read(path, fmt, what, framework="pt")


def load_weights(net: nn.Module, state_dict: dict[str, torch.Tensor], path: str | Path) -> Any:
    """``net`` with ``state_dict`` loaded, in eval mode; ``CheckpointError`` when the weights do not fit (a name
    missing or unexpected, a shape that differs)."""
    try:
        net.load_state_dict(state_dict)
    except RuntimeError as exc:
        raise CheckpointError(f"{path}: its weights do not fit its own metadata ({exc})") from None
    return net.eval()


def _shapes(info: GameInfo) -> str:
    return ", ".join(f"{f}={getattr(info, f)}" for f in SHAPE_FIELDS)
