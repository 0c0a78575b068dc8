"""Paper 001's card-play networks (Zhang 2017, §4.5; notes §3.4): which cards will this turn play? (issue 18)

Both read the three feature groups of ``cardboard.envs.hearth.features`` (Table 4.1: global ``[47]``, hand
``[16, K]``, board ``[18, K, 5]``) and give ``K`` logits, one per card column: the sigmoid of logit ``k`` is the
probability that the turn plays card ``k`` (the turn-card-set target, §3.1; train with BCE on the logits).

``CardPlayCNNMerge``: a global fully connected branch; the board through a 3x5 convolution, 2x2 max-pooling and
3x3 convolutions; the hand as a 1D sequence over the K columns through convolutions of width 3; the three
flattened and merged, then fully connected layers with dropout and the K outputs. ``CardPlayDNNMerge``: each
group flattened through one fully connected layer, merged, the same head. Leaky ReLU (slope 0.2) throughout,
Xavier-uniform weights and zero biases, 'same' padding (the thesis gives neither padding nor the FC widths).

``PRESETS`` name the thesis's four sizes (CNN 1.75M and 290k, DNN 230k and 140k parameters); the thesis does not
give K, so the widths are chosen so that every mirror of this engine (K = 25 Face Hunter, 27 Handlock, 28 Mech
Mage) lands within 10% of the stated count.

Checkpoints: one safetensors file of the weights and JSON metadata (architecture, K, widths; ``policies.checkpoints``),
nothing unpickled. A missing, truncated or foreign file, a ``torch.save`` checkpoint of cardboard before issue 33 (no
longer read), a checkpoint of the other architecture, or one whose K is not the game's card pool raises
``CheckpointError`` naming what differs.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import torch
from torch import nn

from cardboard.envs.errors import CheckpointError, InvalidParameterError
from cardboard.policies.network import load_weights, read_checkpoint, save_checkpoint

FORMAT = "cardboard.card_play_net/1"
GLOBAL_SIZE, HAND_ROWS, BOARD_PLANES, HP_BUCKETS = 47, 16, 18, 5  # Table 4.1 (envs/hearth/features.py)
LEAKY_SLOPE = 0.2  # 001 §4.5
DROPOUT = 0.5  # 001 §4.5


@dataclass(frozen=True)
class CNNWidths:
    """CNN+Merge sizes: ``filters`` per convolution, ``board_convs`` 3x3 layers after the 3x5 one, ``hand_convs``
    width-3 layers, the global branch's width and the merged FC widths."""

    filters: int = 96
    board_convs: int = 5
    hand_convs: int = 6
    global_width: int = 128
    merge: tuple[int, ...] = (208, 208)


@dataclass(frozen=True)
class DNNWidths:
    """DNN+Merge sizes: one FC layer per group, then the merged FC widths."""

    global_width: int = 64
    hand_width: int = 64
    board_width: int = 72
    merge: tuple[int, ...] = field(default=(128,))


class CardPlayNet(nn.Module):
    """Shared head, initialisation, parameter count and checkpoints of the two architectures."""

    architecture: ClassVar[str]
    widths_type: ClassVar[type]

    def __init__(self, num_cards: int, widths: Any):
        super().__init__()
        if not isinstance(num_cards, int) or num_cards < 2:
            raise InvalidParameterError(f"num_cards (K) must be an int >= 2, got {num_cards!r}")
        values = asdict(widths)
        if not all(isinstance(v, int) and v > 0 for v in values.values() if not isinstance(v, tuple)) or \
                not all(isinstance(w, int) and w > 0 for w in values["merge"]):
            raise InvalidParameterError(f"{type(widths).__name__}: every width must be a positive int, got {values}")
        self.num_cards, self.widths = num_cards, widths

    def _head(self, width: int) -> nn.Sequential:
        layers: list[nn.Module] = []
        for w in self.widths.merge:
            layers += [nn.Linear(width, w), nn.LeakyReLU(LEAKY_SLOPE), nn.Dropout(DROPOUT)]
            width = w
        return nn.Sequential(*layers, nn.Linear(width, self.num_cards))

    def _initialise(self) -> None:
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Conv1d, nn.Conv2d)):
                nn.init.xavier_uniform_(module.weight)
                nn.init.zeros_(module.bias)

    def _check(self, global_: torch.Tensor, hand: torch.Tensor, board: torch.Tensor) -> None:
        k = self.num_cards
        expected = ((GLOBAL_SIZE,), (HAND_ROWS, k), (BOARD_PLANES, k, HP_BUCKETS))
        for name, tensor, shape in zip(("global", "hand", "board"), (global_, hand, board), expected):
            if tuple(tensor.shape[1:]) != shape:
                raise InvalidParameterError(f"{self.architecture}: {name} features of shape "
                                            f"{tuple(tensor.shape)}, expected [B, {', '.join(map(str, shape))}]")

    def num_parameters(self) -> int:
        """The number of trainable parameters."""
        return sum(p.numel() for p in self.parameters())

    def save(self, path: str | Path, training: dict[str, Any] | None = None) -> None:
        """Write the weights and metadata (architecture, K, widths; ``training``: what produced them) to ``path``."""
        metadata = {"format": FORMAT, "architecture": self.architecture, "num_cards": self.num_cards,
                    "widths": asdict(self.widths), "torch": torch.__version__}
        if training is not None:
            metadata["training"] = training
        save_checkpoint(self, metadata, path)

    @staticmethod
    def metadata(path: str | Path) -> dict[str, Any]:
        """The metadata of the checkpoint at ``path`` (``CheckpointError`` for a bad file)."""
        return read_checkpoint(path, FORMAT, "card-play")[0]

    @classmethod
    def load(cls, path: str | Path, num_cards: int | None = None) -> "CardPlayNet":
        """The network at ``path`` (CPU, eval mode). Called on a subclass, the checkpoint must be of that
        architecture; with ``num_cards``, its K must be the game's (``features_for(game).K``)."""
        metadata, state_dict = read_checkpoint(path, FORMAT, "card-play")
        try:
            kind = ARCHITECTURES[metadata["architecture"]]
            widths = dict(metadata["widths"], merge=tuple(metadata["widths"]["merge"]))
            net = kind(int(metadata["num_cards"]), kind.widths_type(**widths))
        except (KeyError, TypeError, ValueError, InvalidParameterError) as exc:
            raise CheckpointError(f"{path}: not a cardboard card-play checkpoint, or a truncated one "
                                  f"({type(exc).__name__}: {exc})") from None
        if cls is not CardPlayNet and kind is not cls:
            raise CheckpointError(f"{path}: a {kind.architecture} checkpoint, not {cls.architecture}")
        if num_cards is not None and net.num_cards != num_cards:
            raise CheckpointError(f"{path}: a network over K = {net.num_cards} cards; this game's card pool has "
                                  f"K = {num_cards}")
        return load_weights(net, state_dict, path)


class CardPlayCNNMerge(CardPlayNet):
    """001 §4.5's CNN+Merge over (global [B, 47], hand [B, 16, K], board [B, 18, K, 5]) -> logits [B, K]."""

    architecture = "cnn_merge"
    widths_type = CNNWidths

    def __init__(self, num_cards: int, widths: CNNWidths = CNNWidths()):
        super().__init__(num_cards, widths)
        f, act = widths.filters, nn.LeakyReLU(LEAKY_SLOPE)
        board: list[nn.Module] = [nn.Conv2d(BOARD_PLANES, f, (3, 5), padding=(1, 2)), act, nn.MaxPool2d(2)]
        for _ in range(widths.board_convs):
            board += [nn.Conv2d(f, f, 3, padding=1), act]
        hand: list[nn.Module] = [nn.Conv1d(HAND_ROWS, f, 3, padding=1), act]
        for _ in range(widths.hand_convs - 1):
            hand += [nn.Conv1d(f, f, 3, padding=1), act]
        self.board, self.hand = nn.Sequential(*board, nn.Flatten()), nn.Sequential(*hand, nn.Flatten())
        self.global_branch = nn.Sequential(nn.Linear(GLOBAL_SIZE, widths.global_width), act)
        merged = widths.global_width + f * (num_cards // 2) * (HP_BUCKETS // 2) + f * num_cards
        self.head = self._head(merged)
        self._initialise()

    def forward(self, global_: torch.Tensor, hand: torch.Tensor, board: torch.Tensor) -> torch.Tensor:
        self._check(global_, hand, board)
        return self.head(torch.cat([self.global_branch(global_), self.hand(hand), self.board(board)], dim=1))


class CardPlayDNNMerge(CardPlayNet):
    """001 §4.5's DNN+Merge: each feature group flattened through one FC layer, merged, the same head."""

    architecture = "dnn_merge"
    widths_type = DNNWidths

    def __init__(self, num_cards: int, widths: DNNWidths = DNNWidths()):
        super().__init__(num_cards, widths)
        act = nn.LeakyReLU(LEAKY_SLOPE)
        self.global_branch = nn.Sequential(nn.Linear(GLOBAL_SIZE, widths.global_width), act)
        self.hand = nn.Sequential(nn.Flatten(), nn.Linear(HAND_ROWS * num_cards, widths.hand_width), act)
        self.board = nn.Sequential(nn.Flatten(), nn.Linear(BOARD_PLANES * num_cards * HP_BUCKETS,
                                                           widths.board_width), act)
        self.head = self._head(widths.global_width + widths.hand_width + widths.board_width)
        self._initialise()

    def forward(self, global_: torch.Tensor, hand: torch.Tensor, board: torch.Tensor) -> torch.Tensor:
        self._check(global_, hand, board)
        return self.head(torch.cat([self.global_branch(global_), self.hand(hand), self.board(board)], dim=1))


ARCHITECTURES: dict[str, type[CardPlayNet]] = {c.architecture: c for c in (CardPlayCNNMerge, CardPlayDNNMerge)}

PRESETS: dict[str, tuple[type[CardPlayNet], Any, int]] = {
    # name: (architecture, widths, the thesis's parameter count; 001 §4.5 and Table 4.2)
    "cnn_1.75m": (CardPlayCNNMerge, CNNWidths(), 1_750_000),
    "cnn_290k": (CardPlayCNNMerge, CNNWidths(filters=32, board_convs=2, hand_convs=2, global_width=64,
                                             merge=(144,)), 290_000),
    "dnn_230k": (CardPlayDNNMerge, DNNWidths(), 230_000),
    "dnn_140k": (CardPlayDNNMerge, DNNWidths(global_width=32, hand_width=32, board_width=48, merge=(96,)), 140_000),
}


def make_card_play_net(preset: str, num_cards: int) -> CardPlayNet:
    """The network of preset ``preset`` (``PRESETS``) over ``num_cards`` card columns."""
    if preset not in PRESETS:
        raise InvalidParameterError(f"unknown card-play preset {preset!r}; known: {', '.join(PRESETS)}")
    kind, widths, _ = PRESETS[preset]
    return kind(num_cards, widths)


__all__: Sequence[str] = ("CardPlayNet", "CardPlayCNNMerge", "CardPlayDNNMerge", "CNNWidths", "DNNWidths",
                          "PRESETS", "make_card_play_net")
