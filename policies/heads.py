"""Policy heads shaped by the game's action ranges (issue 33): a deployment scored as a (card, square) pair.

A game's ``ObservationStructure`` may map ranges of its action ids onto its parts (``envs.structure``:
``ActionPairs``, ``ActionCells``, ``ActionNodes``). ``StructuredPolicyHead`` scores those ids from the elements
the ``StructuredTrunk`` exposes (``trunk(flat, elements=True)``), with weights shared over the squares, slots and
nodes, instead of one row of a linear layer per id:

=========  ===================================================================================================
pairs      ``<query(slot embedding k), key(square s)> / sqrt(PAIR_WIDTH) + bias(square s)``: the query a
           linear map of the ``Tokens`` part's slot embedding, the key and the bias channels of a 1x1 convolution
           over the ``Planes`` part's square features; one batched matrix product (``baddbmm``) for all (k, s)
cells      one output channel per ``ActionCells`` range of a 1x1 convolution over the square features
nodes      one output per ``ActionNodes`` range of a linear map of the ``Graph`` part's node embeddings
flat       a linear layer over the trunk's features for the ids no range covers (the rest)
=========  ===================================================================================================

All the 1x1 channels over one ``Planes`` part (cells, then each pair range's keys and bias) are one convolution,
computed as one matrix product over the squares, with a learnt bias per channel and square (a square's place: a
convolution sees the board's edges only);
node outputs get a learnt per-node offset likewise. The pieces are joined once and put in id order by one
``index_select``. A pair logit is equivariant in the slot (permuting the slots permutes the logits), and a cell or
pair logit depends only on the square features of its square, which see the squares within
``trunks.PLANE_LAYERS`` king moves: the policy over the squares is as local as the trunk's convolutions.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..envs.structure import ActionCells, ActionNodes, ActionPairs, ObservationStructure
from .trunks import pointwise

PAIR_WIDTH = 32  # the width of a pair's query and key


class StructuredPolicyHead(nn.Module):
    """The policy logits [B, num_actions] of ``structure``'s action ranges (and a flat linear layer over the
    trunk's ``width`` features for the rest), from ``(features [B, width], elements)`` of a ``StructuredTrunk``
    built on ``structure`` (``element_features``: its ``element_features``)."""

    def __init__(self, structure: ObservationStructure, width: int, element_features: dict[str, int],
                 pair_width: int = PAIR_WIDTH):
        super().__init__()
        self.pair_width, self.scale = pair_width, pair_width ** -0.5
        order: list[np.ndarray] = []  # the action ids of the pieces, in the order forward joins them
        rest = structure.flat_actions()
        self.flat = nn.Linear(width, len(rest)) if len(rest) else None
        order.append(rest)
        ranges = list(zip(structure.actions, structure.action_ids()))
        self.boards: list[tuple[str, int, list[str]]] = []  # (planes part, cell channels, pairs' tokens parts)
        convs, queries, places = [], [], []
        for board in dict.fromkeys(a.planes for a in structure.actions if isinstance(a, (ActionPairs, ActionCells))):
            cells = [ids for a, ids in ranges if isinstance(a, ActionCells) and a.planes == board]
            pairs = [(a.tokens, ids) for a, ids in ranges if isinstance(a, ActionPairs) and a.planes == board]
            channels = len(cells) + len(pairs) * (pair_width + 1)
            convs.append(nn.Linear(element_features[board], channels, bias=False))  # a 1x1 convolution's weights
            part = structure.part(board)
            places.append(nn.Parameter(torch.zeros(channels, part.height * part.width)))  # its bias, per square
            queries += [nn.Linear(element_features[tokens], pair_width) for tokens, _ in pairs]
            self.boards.append((board, len(cells), [tokens for tokens, _ in pairs]))
            order += [np.arange(ids.start, ids.stop) for ids in cells] + [np.arange(ids.start, ids.stop)
                                                                          for _, ids in pairs]
        self.convs, self.queries, self.places = nn.ModuleList(convs), nn.ModuleList(queries), nn.ParameterList(places)
        self.graphs: list[str] = []
        nodes, node_places = [], []
        for graph in dict.fromkeys(a.graph for a in structure.actions if isinstance(a, ActionNodes)):
            mine = [ids for a, ids in ranges if isinstance(a, ActionNodes) and a.graph == graph]
            nodes.append(nn.Linear(element_features[graph], len(mine)))
            node_places.append(nn.Parameter(torch.zeros(structure.part(graph).nodes, len(mine))))
            self.graphs.append(graph)
            order.append(np.stack([np.arange(ids.start, ids.stop) for ids in mine], axis=1).ravel())  # node-major
        self.nodes, self.node_places = nn.ModuleList(nodes), nn.ParameterList(node_places)
        joined = np.concatenate(order)
        assert len(joined) == structure.num_actions and np.array_equal(np.sort(joined), np.arange(len(joined)))
        self.register_buffer("order", torch.as_tensor(np.argsort(joined), dtype=torch.long), persistent=False)

    def forward(self, features: torch.Tensor, elements: dict[str, torch.Tensor]) -> torch.Tensor:
        pieces = [] if self.flat is None else [self.flat(features)]
        queries = iter(self.queries)
        for (board, cells, pairs), conv, place in zip(self.boards, self.convs, self.places):
            out = pointwise(conv.weight, place, elements[board].flatten(2))  # [B, channels, squares]
            if cells:
                pieces.append(out[:, :cells].flatten(1))
            c, k = cells, self.pair_width
            for tokens in pairs:  # keys [B, k, S], bias [B, 1, S], queries [B, N, k] -> logits [B, N, S]
                logits = torch.baddbmm(out[:, c + k:c + k + 1], next(queries)(elements[tokens]), out[:, c:c + k],
                                       alpha=self.scale)
                pieces.append(logits.flatten(1))
                c += k + 1
        for graph, linear, place in zip(self.graphs, self.nodes, self.node_places):
            pieces.append((linear(elements[graph]) + place).flatten(1))  # [B, N, ranges], node-major
        return torch.cat(pieces, dim=1).index_select(1, self.order)
