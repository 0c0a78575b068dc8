"""The named parts of a game's observation vector, so that a network can take the game's shape (torch-free).

A game whose states offer the optional hook ``observation_structure()`` (``protocol.HOOKS``) returns an
``ObservationStructure``: parts that tile the flat ``state.observation(player)`` vector exactly, each with a
name, its offset, its kind, its shape and what it means. ``cardboard.policies.trunks`` builds a network trunk
from it (``PolicyValueNet(info, structure=structure_of(game))``); a game that declares nothing gets an MLP over
the flat vector.

=============  =====================  ===================================================================
kind           shape                  meaning
=============  =====================  ===================================================================
``Planes``     [C, H, W]              a board: C feature planes over an H x W grid; ``channels_last``
                                      when the vector stores it square by square ([H, W, C])
``Tokens``     [N, F]                 a set of N slots (cards) of F features; a slot is occupied when any
                                      of its features in ``range(*presence)`` is non-zero, else empty
``Graph``      [N, F]                 F features per node of a fixed undirected graph (``edges``: pairs)
``Attached``   [N, F] or [F, N]       further features of the elements of the ``Tokens`` or ``Graph``
                                      part ``of``, stored in a block of their own (``node_major=False``:
                                      feature by feature, as a seat x city block)
``Globals``    [F]                    flat features
=============  =====================  ===================================================================

A structure may also say how ranges of the game's action ids (``num_actions`` of them) map onto its parts, so
that a network scores those actions from the parts' elements (``policies.heads``) instead of learning each id
on its own; ids no range covers keep the flat policy head. The ranges must lie in ``range(num_actions)`` and not
overlap:

================  ==========================  ==============================================================
action range      ids                         one action per
================  ==========================  ==============================================================
``ActionPairs``   offset + slot * (H * W)     (slot of the ``Tokens`` part ``tokens``, square of the
                  + row * W + column          ``Planes`` part ``planes``): "deploy the card of slot k on s"
``ActionCells``   offset + row * W + column   square of the ``Planes`` part ``planes``: "shoot at s"
``ActionNodes``   offset + node               node of the ``Graph`` part ``graph``: "drive to city c"
================  ==========================  ==============================================================

A square is numbered as the planes' [H, W] grid reads it row by row (``row * W + column``, whatever the
storage): a game declares a range only where its action ids number the squares (and slots, nodes) exactly as the
observation of the player to move shows them (the same frame: a network scores a move from what that player sees).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from math import prod
from typing import Any, ClassVar, Union

import numpy as np

from .errors import InvalidParameterError
from .protocol import Game, GameState, hook


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidParameterError(message)


def _positive(part: Any, *fields: str) -> None:
    for f in fields:
        value = getattr(part, f)
        _require(isinstance(value, int) and value > 0, f"part {part.name!r}: {f}={value!r}, expected a positive int")
    _require(isinstance(part.offset, int) and part.offset >= 0,
             f"part {part.name!r}: offset={part.offset!r}, expected a non-negative int")


@dataclass(frozen=True)
class Planes:
    """A board of ``channels`` feature planes over a ``height`` x ``width`` grid."""

    kind: ClassVar[str] = "planes"
    name: str
    offset: int
    channels: int
    height: int
    width: int
    channels_last: bool = False  # the vector stores it square by square, [H, W, C]
    meaning: str = ""

    def __post_init__(self) -> None:
        _positive(self, "channels", "height", "width")

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.channels, self.height, self.width)

    def index(self) -> np.ndarray:
        if self.channels_last:
            grid = np.arange(self.height * self.width * self.channels).reshape(self.height, self.width, self.channels)
            return self.offset + grid.transpose(2, 0, 1)
        return self.offset + np.arange(prod(self.shape)).reshape(self.shape)


@dataclass(frozen=True)
class Tokens:
    """A set of ``count`` slots of ``features`` each; a slot is occupied when any feature in
    ``range(*presence)`` is non-zero (an empty slot is all zeros)."""

    kind: ClassVar[str] = "tokens"
    name: str
    offset: int
    count: int
    features: int
    presence: tuple[int, int]
    meaning: str = ""

    def __post_init__(self) -> None:
        _positive(self, "count", "features")
        object.__setattr__(self, "presence", tuple(self.presence))
        start, stop = self.presence
        _require(0 <= start < stop <= self.features,
                 f"part {self.name!r}: presence={self.presence}, expected a range inside its {self.features} features")

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.count, self.features)

    def index(self) -> np.ndarray:
        return self.offset + np.arange(self.count * self.features).reshape(self.shape)


@dataclass(frozen=True)
class Graph:
    """``features`` per node of a fixed undirected graph of ``nodes`` nodes (``edges``: pairs of node ids)."""

    kind: ClassVar[str] = "graph"
    name: str
    offset: int
    nodes: int
    features: int
    edges: tuple[tuple[int, int], ...]
    meaning: str = ""

    def __post_init__(self) -> None:
        _positive(self, "nodes", "features")
        edges = tuple((int(a), int(b)) for a, b in self.edges)
        bad = [e for e in edges if not (0 <= e[0] < self.nodes and 0 <= e[1] < self.nodes and e[0] != e[1])]
        _require(not bad, f"part {self.name!r}: edges {bad[:3]} are not pairs of distinct nodes in range({self.nodes})")
        object.__setattr__(self, "edges", edges)

    @property
    def count(self) -> int:
        return self.nodes

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.nodes, self.features)

    def index(self) -> np.ndarray:
        return self.offset + np.arange(self.nodes * self.features).reshape(self.shape)


@dataclass(frozen=True)
class Attached:
    """Further ``features`` of each of the ``count`` elements of the ``Tokens`` or ``Graph`` part ``of``, in a
    block of their own: [count, features], or [features, count] when not ``node_major``."""

    kind: ClassVar[str] = "attached"
    name: str
    offset: int
    of: str
    count: int
    features: int
    node_major: bool = True
    meaning: str = ""

    def __post_init__(self) -> None:
        _positive(self, "count", "features")

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.count, self.features)

    def index(self) -> np.ndarray:
        """Positions as [count, features], whichever way the block is stored."""
        flat = np.arange(self.count * self.features)
        if self.node_major:
            return self.offset + flat.reshape(self.count, self.features)
        return self.offset + flat.reshape(self.features, self.count).T.copy()


@dataclass(frozen=True)
class Globals:
    """``size`` flat features."""

    kind: ClassVar[str] = "globals"
    name: str
    offset: int
    size: int
    meaning: str = ""

    def __post_init__(self) -> None:
        _positive(self, "size")

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.size,)

    def index(self) -> np.ndarray:
        return self.offset + np.arange(self.size)


Part = Union[Planes, Tokens, Graph, Attached, Globals]
KINDS: dict[str, type] = {k.kind: k for k in (Planes, Tokens, Graph, Attached, Globals)}


class _ActionRange:
    """What every action range shares: its ``offset`` is checked when it is made."""

    offset: int

    def __post_init__(self) -> None:
        _require(isinstance(self.offset, int) and not isinstance(self.offset, bool) and self.offset >= 0,
                 f"{type(self).__name__}: offset={self.offset!r}, expected a non-negative int")


@dataclass(frozen=True)
class ActionPairs(_ActionRange):
    """Action ids ``offset + slot * (H * W) + square``: one per (slot of the ``Tokens`` part ``tokens``, square
    ``row * W + column`` of the ``Planes`` part ``planes`` [C, H, W])."""

    kind: ClassVar[str] = "pairs"
    offset: int
    tokens: str
    planes: str
    meaning: str = ""

    @property
    def parts(self) -> tuple[tuple[str, type], ...]:
        return ((self.tokens, Tokens), (self.planes, Planes))

    def size(self, structure: "ObservationStructure") -> int:
        board = structure.part(self.planes)
        return structure.part(self.tokens).count * board.height * board.width


@dataclass(frozen=True)
class ActionCells(_ActionRange):
    """Action ids ``offset + square``: one per square ``row * W + column`` of the ``Planes`` part ``planes``."""

    kind: ClassVar[str] = "cells"
    offset: int
    planes: str
    meaning: str = ""

    @property
    def parts(self) -> tuple[tuple[str, type], ...]:
        return ((self.planes, Planes),)

    def size(self, structure: "ObservationStructure") -> int:
        board = structure.part(self.planes)
        return board.height * board.width


@dataclass(frozen=True)
class ActionNodes(_ActionRange):
    """Action ids ``offset + node``: one per node of the ``Graph`` part ``graph``."""

    kind: ClassVar[str] = "nodes"
    offset: int
    graph: str
    meaning: str = ""

    @property
    def parts(self) -> tuple[tuple[str, type], ...]:
        return ((self.graph, Graph),)

    def size(self, structure: "ObservationStructure") -> int:
        return structure.part(self.graph).nodes


ActionRange = Union[ActionPairs, ActionCells, ActionNodes]
ACTION_KINDS: dict[str, type] = {k.kind: k for k in (ActionPairs, ActionCells, ActionNodes)}


@dataclass(frozen=True)
class ObservationStructure:
    """Parts that tile an observation of ``observation_shape`` exactly (``InvalidParameterError`` otherwise), and
    optionally ``actions``: ranges of the game's ``num_actions`` action ids scored from the parts' elements
    (``ActionPairs``, ``ActionCells``, ``ActionNodes``), inside ``range(num_actions)`` and without overlaps."""

    parts: tuple[Part, ...]
    observation_shape: tuple[int, ...]
    actions: tuple[ActionRange, ...] = ()
    num_actions: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(self.parts))
        object.__setattr__(self, "observation_shape", tuple(int(d) for d in self.observation_shape))
        object.__setattr__(self, "actions", tuple(self.actions))
        names = [p.name for p in self.parts]
        _require(len(set(names)) == len(names), f"part names repeat: {sorted(n for n in names if names.count(n) > 1)}")
        end, after = 0, "the start"
        for p in sorted(self.parts, key=lambda p: p.offset):
            _require(p.offset == end, f"part {p.name!r} starts at {p.offset}, expected {end} (after {after}): "
                                      "the parts must tile the observation without gaps or overlaps")
            end, after = p.offset + prod(p.shape), f"part {p.name!r}"
        _require(end == prod(self.observation_shape),
                 f"the parts cover {end} values, the observation of shape {self.observation_shape} has "
                 f"{prod(self.observation_shape)}")
        for p in self.parts:
            if isinstance(p, Attached):
                owner = self.part(p.of)
                _require(isinstance(owner, (Tokens, Graph)) and owner.count == p.count,
                         f"part {p.name!r} is attached to {p.of!r}, which is no Tokens or Graph part of {p.count} "
                         "elements")
        self._check_actions()

    def _check_actions(self) -> None:
        n = self.num_actions
        _require(n is None or (isinstance(n, int) and not isinstance(n, bool) and n > 0),
                 f"num_actions={n!r}, expected a positive int (or None without action ranges)")
        _require(n is not None or not self.actions, "action ranges need num_actions, the size of the action space")
        names = {p.name: p for p in self.parts}
        for a in self.actions:
            _require(isinstance(a, tuple(ACTION_KINDS.values())),
                     f"{a!r} is no ActionPairs, ActionCells or ActionNodes")
            for name, kind in a.parts:
                _require(isinstance(names.get(name), kind),
                         f"{type(a).__name__} at offset {a.offset} names {name!r}, which is no {kind.__name__} part")
        end, after = 0, None
        for a, ids in sorted(zip(self.actions, self.action_ids()), key=lambda x: x[1].start):
            _require(ids.stop <= n, f"{type(a).__name__} at offset {a.offset} covers ids {ids.start}..{ids.stop - 1}, "
                                    f"outside the {n} actions")
            _require(ids.start >= end, f"{type(a).__name__} at offset {a.offset} (ids {ids.start}..{ids.stop - 1}) "
                                       f"overlaps {after}")
            end, after = ids.stop, f"{type(a).__name__} at offset {a.offset} (ids {a.offset}..{ids.stop - 1})"

    def action_ids(self) -> tuple[range, ...]:
        """The ids of each action range, in declaration order."""
        return tuple(range(a.offset, a.offset + a.size(self)) for a in self.actions)

    def flat_actions(self) -> np.ndarray:
        """The action ids no range covers (the flat policy head's), in increasing order."""
        covered = np.zeros(self.num_actions or 0, dtype=bool)
        for ids in self.action_ids():
            covered[ids.start:ids.stop] = True
        return np.flatnonzero(~covered)

    def without_actions(self) -> "ObservationStructure":
        """The same parts, with no action ranges (a network with the flat policy head)."""
        return ObservationStructure(self.parts, self.observation_shape)

    def part(self, name: str) -> Part:
        """The part called ``name``."""
        for p in self.parts:
            if p.name == name:
                return p
        raise InvalidParameterError(f"no part {name!r}; parts: {', '.join(p.name for p in self.parts)}")

    def of_kind(self, kind: type) -> tuple[Part, ...]:
        """The parts of one kind (``Planes``, ...), in declaration order."""
        return tuple(p for p in self.parts if isinstance(p, kind))

    def elements(self, name: str) -> np.ndarray:
        """Positions [count, features] of the ``Tokens`` or ``Graph`` part ``name``'s features followed by those
        of the parts attached to it, in declaration order."""
        blocks = [self.part(name).index()] + [a.index() for a in self.of_kind(Attached) if a.of == name]
        return np.concatenate(blocks, axis=1)

    def globals_index(self) -> np.ndarray:
        """Positions of every ``Globals`` part's features, one after the other."""
        return np.concatenate([p.index() for p in self.of_kind(Globals)] or [np.zeros(0, dtype=np.int64)])

    def split(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Every part of ``observation`` (shape [..., *observation_shape]) by name, in the part's shape."""
        observation = np.asarray(observation)
        flat = observation.reshape(*observation.shape[:observation.ndim - len(self.observation_shape)], -1)
        return {p.name: flat[..., p.index()] for p in self.parts}

    def to_dict(self) -> dict[str, Any]:
        """JSON-serializable form (``from_dict`` reads it back)."""
        return {"observation_shape": list(self.observation_shape),
                "parts": [{"kind": p.kind, **asdict(p)} for p in self.parts],
                "actions": [{"kind": a.kind, **asdict(a)} for a in self.actions], "num_actions": self.num_actions}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ObservationStructure":
        parts = []
        for fields in data["parts"]:
            fields = dict(fields)
            kind = KINDS[fields.pop("kind")]
            if kind is Graph:
                fields["edges"] = tuple(tuple(e) for e in fields["edges"])
            parts.append(kind(**fields))
        actions = []
        for fields in data.get("actions", ()):  # none in checkpoints from before action ranges
            fields = dict(fields)
            actions.append(ACTION_KINDS[fields.pop("kind")](**fields))
        return cls(tuple(parts), tuple(data["observation_shape"]), tuple(actions), data.get("num_actions"))


def structure_of(game_or_state: Game | GameState) -> ObservationStructure | None:
    """The observation structure a game (a ``Game`` or one of its states) declares, or None."""
    probe = game_or_state.new_state(0) if hasattr(game_or_state, "new_state") else game_or_state
    declared = hook(probe, "observation_structure")
    if declared is None:
        return None
    structure = declared()
    _require(structure.observation_shape == tuple(probe.info.observation_shape),
             f"game {probe.info.name!r} declares an observation structure of shape {structure.observation_shape}, "
             f"its observations have {tuple(probe.info.observation_shape)}")
    _require(structure.num_actions is None or structure.num_actions == probe.info.num_actions,
             f"game {probe.info.name!r} declares action ranges over {structure.num_actions} actions, it has "
             f"{probe.info.num_actions}")
    return structure
