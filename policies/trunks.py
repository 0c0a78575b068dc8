"""Network trunks shaped by a game's ``ObservationStructure`` (``cardboard.envs.structure``, issue 33).

An encoder per part (token parts of one shape share theirs), each reading its values out of the flat
observation at the structure's positions:

=======  =====================================================================================================
planes   ``PLANE_LAYERS`` 3x3 convolutions of ``PLANE_WIDTH`` channels, a 1x1 convolution to ``PLANE_OUT``
         channels, flattened square by square (the squares keep their place: actions name squares)
tokens   DeepSets: one two-layer MLP (phi) over each slot, its attached features included, zero for an empty
         slot; per part the mean of phi's first ``TOKEN_WIDTH`` outputs over its slots (permutation-invariant,
         empty slots count as zeros), then phi's other ``SLOT_OUT`` outputs of each slot in slot order (actions
         name slots). Token parts of the same shape and presence share one phi (the same card is encoded
         the same way in either hand) and one pass
graph    a node embedding and ``GRAPH_ROUNDS`` rounds of h <- relu(W_self h + W_nbr (mean of the neighbours'
         h)); the mean over the nodes, then each node's ``SLOT_OUT``-wide projection in node order
globals  every ``Globals`` part together: one linear layer and a ReLU to ``GLOBAL_WIDTH``
=======  =====================================================================================================

``StructuredTrunk`` concatenates the encoders' outputs and passes them through an MLP of widths ``hidden``
(ReLU after each) to the heads (``PolicyValueNet(info, structure=...)``). For the policy heads of the
structure's action ranges (``policies.heads``) it also hands back the elements of the parts they name
(``trunk(flat, elements=True)``): per square of a ``Planes`` part its input planes and the last 3x3
convolution's output ([B, C + PLANE_WIDTH, H, W], the planes' own [H, W] order, so square ``row * W + column``),
per slot of a ``Tokens`` part its features and phi's outputs ([B, N, F + TOKEN_WIDTH + SLOT_OUT], zero for an
empty slot), per node of a ``Graph`` part its features and its embedding after the rounds ([B, N, F +
GRAPH_WIDTH]).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..envs.structure import Globals, Graph, ObservationStructure, Planes, Tokens

PLANE_WIDTH, PLANE_LAYERS, PLANE_OUT = 16, 2, 8
TOKEN_WIDTH = 32
GRAPH_WIDTH, GRAPH_ROUNDS = 32, 2
SLOT_OUT = 4
GLOBAL_WIDTH = 64


def pointwise(weight: torch.Tensor, bias: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """A 1x1 convolution of ``x`` [B, C, S] (S squares): ``weight`` [O, C], ``bias`` [O, S] or [O, 1] -> [B, O, S].
    One batched matrix product: on the CPU a few times cheaper than mkldnn's convolution of a small board or
    ``matmul`` with a weight that requires grad (which copies), on the GPU one kernel either way."""
    return torch.baddbmm(bias, weight.expand(x.shape[0], -1, -1), x)


class PartEncoder(nn.Module):
    """An encoder reading the values at positions ``index`` (any shape) of flat observations [B, L]."""

    def __init__(self, index: np.ndarray):
        super().__init__()
        self.register_buffer("index", torch.as_tensor(np.asarray(index).ravel(), dtype=torch.long), persistent=False)
        self.shape = tuple(np.shape(index))

    def read(self, flat: torch.Tensor) -> torch.Tensor:
        """The part's values [B, *index.shape]."""
        return flat.index_select(1, self.index).view(flat.shape[0], *self.shape)


class PlaneEncoder(PartEncoder):
    """Convolutions over the planes at positions ``index`` [C, H, W]."""

    def __init__(self, index: np.ndarray, width: int = PLANE_WIDTH, layers: int = PLANE_LAYERS,
                 out: int = PLANE_OUT):
        channels, height, breadth = index.shape
        super().__init__(index)
        self.convs = nn.ModuleList(nn.Conv2d(channels if i == 0 else width, width, 3, padding=1) for i in range(layers))
        self.reduce = nn.Conv2d(width, out, 1)
        self.out_features = out * height * breadth
        self.element_features = channels + width  # a square's: its input planes, then the last 3x3 layer's

    def encode(self, flat: torch.Tensor, elements: bool = True) -> tuple[list[torch.Tensor], torch.Tensor | None]:
        """``(forward's pieces, square features [B, C + width, H, W])``: each square's input planes and the last
        3x3 convolution's output there, the squares in the planes' [H, W] order; a square's features see the
        squares within ``layers`` steps (king moves) of it and no others. ``elements`` False: None for them."""
        x = planes = self.read(flat)
        for conv in self.convs:
            x = F.relu(conv(x))
        reduced = pointwise(self.reduce.weight.flatten(1), self.reduce.bias[:, None], x.flatten(2))
        return [F.relu(reduced).flatten(1)], torch.cat((planes, x), dim=1) if elements else None

    def forward(self, flat: torch.Tensor) -> list[torch.Tensor]:
        return self.encode(flat, elements=False)[0]


class SetEncoder(PartEncoder):
    """DeepSets over P sets of N slots at positions ``index`` [P, N, F]: each set pooled, then each slot's own
    features; a slot is empty when all its features in ``range(*presence)`` are zero."""

    def __init__(self, index: np.ndarray, presence: tuple[int, int], width: int = TOKEN_WIDTH,
                 slot_out: int = SLOT_OUT):
        sets, count, features = index.shape
        super().__init__(index)
        self.presence = slice(*presence)
        self.first = nn.Linear(features, width)
        self.second = nn.Linear(width, width + slot_out)
        self.width = width
        self.out_features = sets * (width + count * slot_out)
        self.element_features = features + width + slot_out  # a slot's: its features, then phi's outputs

    def encode(self, flat: torch.Tensor, elements: bool = True) -> tuple[list[torch.Tensor], torch.Tensor | None]:
        """``(forward's pieces, slot embeddings [B, P, N, F + width + slot_out])``: each slot's features and phi
        of them (all zero for an empty slot), the slots in order: a slot's embedding depends on that slot only."""
        x = self.read(flat)
        empty = (x[..., self.presence] == 0).all(-1, keepdim=True)
        phi = F.relu(self.second(F.relu(self.first(x)))).masked_fill(empty, 0.0)
        pieces = [phi[..., :self.width].mean(2).flatten(1), phi[..., self.width:].flatten(1)]
        return pieces, torch.cat((x.masked_fill(empty, 0.0), phi), dim=-1) if elements else None

    def forward(self, flat: torch.Tensor) -> list[torch.Tensor]:
        """``[pooled sets [B, P * width], slots [B, P * N * slot_out]]``."""
        return self.encode(flat, elements=False)[0]


class GraphEncoder(PartEncoder):
    """Message passing over the nodes at positions ``index`` [N, F] of a fixed undirected graph."""

    def __init__(self, index: np.ndarray, edges: Sequence[tuple[int, int]], width: int = GRAPH_WIDTH,
                 rounds: int = GRAPH_ROUNDS, slot_out: int = SLOT_OUT):
        nodes, features = index.shape
        super().__init__(index)
        adjacency = np.zeros((nodes, nodes), dtype=np.float32)
        for a, b in edges:
            adjacency[a, b] = adjacency[b, a] = 1.0
        adjacency /= np.maximum(adjacency.sum(1, keepdims=True), 1.0)  # a row averages the node's neighbours
        self.register_buffer("mean", torch.from_numpy(adjacency), persistent=False)
        self.embed = nn.Linear(features, width)
        self.own = nn.ModuleList(nn.Linear(width, width) for _ in range(rounds))
        self.neighbours = nn.ModuleList(nn.Linear(width, width, bias=False) for _ in range(rounds))
        self.slot = nn.Linear(width, slot_out, bias=False)
        self.out_features = width + nodes * slot_out
        self.element_features = features + width  # a node's: its features, then its embedding after the rounds

    def _rounds(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.embed(x))
        for own, neighbours in zip(self.own, self.neighbours):
            h = F.relu(own(h) + neighbours(self.mean @ h))
        return h

    def nodes(self, flat: torch.Tensor) -> torch.Tensor:
        """Each node's embedding [B, N, width] after the rounds: a node hears only nodes within ``rounds`` edges."""
        return self._rounds(self.read(flat))

    def encode(self, flat: torch.Tensor, elements: bool = True) -> tuple[list[torch.Tensor], torch.Tensor | None]:
        """``(forward's pieces, node embeddings [B, N, F + width])``: each node's features and ``nodes``' output,
        in node order."""
        x = self.read(flat)
        h = self._rounds(x)
        return [h.mean(1), self.slot(h).flatten(1)], torch.cat((x, h), dim=-1) if elements else None

    def forward(self, flat: torch.Tensor) -> list[torch.Tensor]:
        return self.encode(flat, elements=False)[0]


class GlobalEncoder(PartEncoder):
    """One linear layer and a ReLU over the values at positions ``index`` [G]."""

    def __init__(self, index: np.ndarray, width: int = GLOBAL_WIDTH):
        super().__init__(index)
        self.linear = nn.Linear(len(index), width)
        self.out_features = width

    def encode(self, flat: torch.Tensor, elements: bool = True) -> tuple[list[torch.Tensor], None]:
        return self(flat), None

    def forward(self, flat: torch.Tensor) -> list[torch.Tensor]:
        return [F.relu(self.linear(flat.index_select(1, self.index)))]


def encoders(structure: ObservationStructure) -> list[nn.Module]:
    """The encoders of ``structure``'s parts: one per ``Planes`` and ``Graph`` part, one per group of ``Tokens``
    parts of the same shape and presence, one for every ``Globals`` part (``Attached`` parts join their owner's).
    Each names the parts whose elements it encodes (``names``; a token group's in its order of sets)."""
    out: list[nn.Module] = []
    sets: dict[tuple, list[tuple[str, np.ndarray]]] = {}
    for part in structure.parts:
        if isinstance(part, Planes):
            out.append(PlaneEncoder(part.index()))
            out[-1].names = (part.name,)
        elif isinstance(part, Graph):
            out.append(GraphEncoder(structure.elements(part.name), part.edges))
            out[-1].names = (part.name,)
        elif isinstance(part, Tokens):
            index = structure.elements(part.name)
            sets.setdefault((index.shape, part.presence), []).append((part.name, index))
    for (_, presence), group in sets.items():
        out.append(SetEncoder(np.stack([index for _, index in group]), presence))
        out[-1].names = tuple(name for name, _ in group)
    if structure.of_kind(Globals):
        out.append(GlobalEncoder(structure.globals_index()))
        out[-1].names = ()
    return out


class StructuredTrunk(nn.Module):
    """The parts' encoders, concatenated, then an MLP of widths ``hidden``: flat observations [B, L] ->
    features [B, hidden[-1]]; with ``elements=True`` also the elements of the parts the structure's action
    ranges name (``policies.heads``), by part name: square features [B, F, H, W] of a ``Planes`` part, slot
    embeddings [B, N, F] of a ``Tokens`` part, node embeddings [B, N, F] of a ``Graph`` part
    (``element_features[name]``: their F)."""

    def __init__(self, structure: ObservationStructure, hidden: Sequence[int]):
        super().__init__()
        self.encoders = nn.ModuleList(encoders(structure))
        widths = [sum(e.out_features for e in self.encoders), *hidden]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
        self.out_features = widths[-1]
        wanted = {name for action in structure.actions for name, _ in action.parts}
        self._wanted = [tuple((j if isinstance(e, SetEncoder) else None, n) for j, n in enumerate(e.names)
                              if n in wanted) for e in self.encoders]
        self.element_features = {n: e.element_features for e, w in zip(self.encoders, self._wanted) for _, n in w}

    def forward(self, flat: torch.Tensor, elements: bool = False) -> Any:
        pieces: list[torch.Tensor] = []
        found: dict[str, torch.Tensor] = {}
        for encoder, wanted in zip(self.encoders, self._wanted):
            out, element = encoder.encode(flat, elements and bool(wanted))
            pieces += out
            if elements:
                for j, name in wanted:
                    found[name] = element if j is None else element[:, j]
        h = torch.cat(pieces, dim=1)
        for layer in self.layers:
            h = F.relu(layer(h))
        return (h, found) if elements else h
