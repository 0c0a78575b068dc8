"""The model zoo (issue 33): trained policy-value networks shipped in the package, by name.

A model is ``policies/models/<game>-v<N>.safetensors`` (a ``PolicyValueNet`` checkpoint, ``policies.checkpoints``)
with its model card ``<game>-v<N>.md`` beside it (``model_card`` writes one, ``ship`` puts both in place). Its
metadata are the network's own (``game`` among them, which must be the one its name says) plus, optionally,
``agent``: the spec of the agent it plays best in, without its network (``ismcts:iterations=200,prior=1``).

Names: ``<game>-v<N>`` is one model; ``<game>`` alone is that game's latest version. Agents:

    zoo[:NAME]              the model's ``agent`` with the model as its network (``net=zoo:NAME``; a ``net`` spec
                            gets ``model=NAME``), or its raw policy (``net:model=NAME``) when it names none; NAME
                            defaults to the game being played (``zoo`` is registered by ``cardboard.registry``)
    zoo:NAME,KNOB=V,...     that agent with its knobs overridden (``agent_spec``): ``zoo:lords_of_war,seconds=0.05``
                            plays it at 50 ms a move; ``zoo,KNOB=V`` the game being played's model
    net:model=NAME          the raw network (``net:path=zoo:NAME`` is the same)
    ismcts:net=zoo:NAME     any search agent guided by a shipped model (``duct:net=zoo:NAME`` too)

A name of an unknown game or version, or of another game than the one played, raises ``InvalidParameterError``
naming the models shipped; a model file whose metadata are not a cardboard checkpoint of the game its name says
raises ``CheckpointError`` naming the file. ``MODELS_DIR`` is where the models are looked for (tests point it at a
folder of their own). Torch-free until a network is loaded or shipped.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..envs.errors import CheckpointError, InvalidParameterError
from ..envs.files import read_text
from . import checkpoints

if TYPE_CHECKING:
    from ..envs.protocol import GameInfo
    from .network import PolicyValueNet

MODELS_DIR = Path(__file__).with_name("models")
PREFIX = "zoo:"  # a network path naming a shipped model: net:path=zoo:NAME, ismcts:net=zoo:NAME
NAME = re.compile(r"(.+)-v([1-9][0-9]*)")
NETWORK_KNOBS = ("net", "path", "model", "vnet")  # parameters naming an agent's networks: the zoo fills its own
LEAF_VALUE_FORMAT = "cardboard.leaf_value_net/1"  # ``search.leaf_value.FORMAT``: a model the agent reads as vnet=


@dataclass(frozen=True)
class ZooModel:
    """A shipped model: ``name`` (``<game>-v<version>``), its file, its configured agent (None: the raw policy)
    and the checkpoint's metadata."""

    name: str
    game: str
    version: int
    path: Path
    agent: str | None
    metadata: dict[str, Any] = field(compare=False, repr=False)

    @property
    def card_path(self) -> Path:
        """The model card beside the weights."""
        return self.path.with_suffix(".md")

    @property
    def card(self) -> str:
        """The model card's markdown ('' when the card is missing; ``InputFileError`` when it is no regular file or
        over its limit)."""
        return read_text(self.card_path, what="model card") if self.card_path.exists() else ""

    @property
    def knob(self) -> str:
        """The knob through which its agent reads it: ``vnet`` for a leaf value net (``policies.value_net``), else
        ``net``."""
        return "vnet" if self.metadata.get("format") == LEAF_VALUE_FORMAT else "net"

    @property
    def spec(self) -> str:
        """The agent spec that plays this model (what ``zoo:NAME`` builds)."""
        return agent_spec(self.name, self.agent, knob=self.knob)


def agent_spec(name: str, agent: str | None, overrides: Mapping[str, object] | None = None, knob: str = "net") -> str:
    """The spec of ``agent`` (a spec without this network; None: the raw policy, ``net``) playing shipped model
    ``name`` through ``knob`` (``net``, or ``vnet`` for a leaf value net), each knob of ``overrides`` replacing the
    agent's knob of that name or appended (``seconds=0.05``). The agent may name another network only as a shipped
    model (``net=zoo:OTHER`` beside a ``vnet`` model); an override of a network knob (``NETWORK_KNOBS``) is an
    ``InvalidParameterError`` naming it."""
    base, _, params = (part.strip() for part in (agent or "net").partition(":"))
    items = [item.strip() for item in params.split(",") if item.strip()]
    named = {k.strip(): v.strip() for k, _, v in (item.partition("=") for item in items)}
    if agent is not None and any(k in NETWORK_KNOBS and (k in (knob, "path", "model") or not v.startswith(PREFIX))
                                 for k, v in named.items()):
        raise InvalidParameterError(f"agent {agent!r} of model {name!r} names its network itself, or another network "
                                    f"by path; the zoo gives it the model (leave out {knob}, path, model; other "
                                    f"networks as {PREFIX}NAME)")
    for key, value in (overrides or {}).items():
        if key in NETWORK_KNOBS:
            raise InvalidParameterError(f"zoo:{name}: {key}= cannot be overridden, the zoo gives the agent its "
                                        f"model (override any knob but {', '.join(NETWORK_KNOBS)})")
        knobs = [item.partition("=")[0].strip() for item in items]
        if key in knobs:
            items[knobs.index(key)] = f"{key}={value}"
        else:
            items.append(f"{key}={value}")
    items.append(f"model={name}" if base == "net" else f"{knob}={PREFIX}{name}")
    return f"{base}:{','.join(items)}"


def models(directory: str | Path | None = None) -> list[ZooModel]:
    """The models shipped in ``directory`` (default ``MODELS_DIR``), by game then version; none when it is
    missing. A ``.safetensors`` file not named ``<game>-v<N>``, or whose metadata are not a cardboard
    checkpoint of that game, raises ``CheckpointError`` naming it."""
    folder = MODELS_DIR if directory is None else Path(directory)
    found = [_read(file) for file in folder.glob("*.safetensors")] if folder.is_dir() else []
    return sorted(found, key=lambda m: (m.game, m.version))


def find(name: str, game: str | None = None, directory: str | Path | None = None, knob: str | None = None) -> ZooModel:
    """The shipped model ``name``: ``<game>-v<N>``, or ``<game>`` for its latest version (with ``knob``, the latest
    read through it: ``net`` a policy-value network, ``vnet`` a leaf value net). With ``game`` (the game to be
    played), the model must be of it. ``InvalidParameterError`` naming what is shipped otherwise."""
    shipped = models(directory)
    match = NAME.fullmatch(name)
    wanted = match[1] if match else name
    if game is not None and wanted != game:
        raise InvalidParameterError(f"zoo model {name!r} is for game {wanted!r}, not {game!r}; {game}'s shipped "
                                    f"models: {_names(m for m in shipped if m.game == game)}")
    candidates = [m for m in shipped if (m.name == name if match else m.game == name and knob in (None, m.knob))]
    if not candidates:
        what = f"zoo model {name!r}" if match else f"zoo model of game {name!r}" + (f" read as {knob}=" if knob else "")
        raise InvalidParameterError(f"no {what}; shipped: {_names(shipped)}")
    return max(candidates, key=lambda m: m.version)


def resolve(path: str, game: str | None = None, directory: str | Path | None = None, knob: str = "net") -> str:
    """``path``, or the file of the shipped model that ``zoo:NAME`` names (``find``: checked against ``game``; a bare
    game name: its latest model read through ``knob``)."""
    if not path.startswith(PREFIX):
        return path
    return str(find(path[len(PREFIX):], game, directory, knob).path)


def load(name: str, info: GameInfo | None = None, directory: str | Path | None = None) -> PolicyValueNet:
    """The network of shipped model ``name`` (``find``), on the CPU in eval mode; with ``info``, checked to be of
    that game and its shapes (``InvalidParameterError`` / ``CheckpointError``). Imports torch."""
    from .network import PolicyValueNet

    return PolicyValueNet.load(find(name, None if info is None else info.name, directory, "net").path, info)


def ship(checkpoint: str | Path, name: str, card: str, agent: str | None = None,
         directory: str | Path | None = None) -> ZooModel:
    """Put the ``PolicyValueNet`` or leaf value net (``policies.value_net``) checkpoint at ``checkpoint`` in the zoo
    as ``name`` (``<game>-v<N>``, the game
    its own): its weights and metadata (plus ``agent``: the spec it plays best in, without its network) as
    ``<name>.safetensors`` and ``card`` (``model_card``) as ``<name>.md`` in ``directory`` (default
    ``MODELS_DIR``), replacing a model of that name. Imports torch for a ``PolicyValueNet``."""
    match = NAME.fullmatch(name)
    if match is None:
        raise InvalidParameterError(f"zoo model name {name!r}: expected <game>-v<N>, e.g. lords_of_war-v1")
    leaf_value = checkpoints.read(checkpoint, None, "network")[0].get("format") == LEAF_VALUE_FORMAT
    agent_spec(name, agent, knob="vnet" if leaf_value else "net")  # refuses an agent that names its network
    if leaf_value and agent is None:
        raise InvalidParameterError(f"{checkpoint}: a leaf value net plays only inside a search: give its agent")
    metadata, tensors = checkpoints.read(checkpoint, LEAF_VALUE_FORMAT, "leaf value net", "numpy") if leaf_value \
        else _policy_value(checkpoint)
    if metadata.get("game") != match[1]:
        raise InvalidParameterError(f"{checkpoint}: a network of game {metadata.get('game')!r}, not of "
                                    f"{match[1]!r} as {name!r} says")
    folder = MODELS_DIR if directory is None else Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    metadata = {k: v for k, v in metadata.items() if k != "agent"} | ({"agent": agent} if agent else {})
    if leaf_value:
        checkpoints.write_numpy(tensors, metadata, folder / f"{name}.safetensors")
    else:
        from .network import save_checkpoint

        save_checkpoint(tensors, metadata, folder / f"{name}.safetensors")
    checkpoints.write(card.encode(), folder / f"{name}.md")
    return _read(folder / f"{name}.safetensors")


def _policy_value(checkpoint: str | Path) -> tuple[dict[str, Any], dict]:
    """The metadata and state dict of a ``PolicyValueNet`` checkpoint whose weights fit its metadata."""
    from .network import FORMAT, PolicyValueNet, read_checkpoint

    found = read_checkpoint(checkpoint, FORMAT, "policy-value")
    PolicyValueNet.load(checkpoint)
    return found


@dataclass(frozen=True)
class Strength:
    """One row of a model card's strength table: the shipped agent's score (wins plus half the draws, or the win
    rate of a cooperative game) against ``opponent`` over ``games``, with its 95% interval [low, high]."""

    opponent: str
    score: float
    low: float
    high: float
    games: int
    setting: str = ""  # e.g. "equal time, 50 ms a move", "set-ups S01-S10"


def model_card(name: str, *, command: str, data: str, cpu_hours: float, strength: Sequence[Strength],
               agent: str | None = None, notes: str = "", knob: str = "net") -> str:
    """The markdown model card of shipped model ``name``: how to play it (``agent`` as for ``ship``, reading the
    model through ``knob``: ``vnet`` for a leaf value net), the command that trained it, its data (e.g. "12,800
    self-play games, 1.1M positions"), CPU-hours, the strength table and ``notes``."""
    match = NAME.fullmatch(name)
    if match is None:
        raise InvalidParameterError(f"zoo model name {name!r}: expected <game>-v<N>, e.g. lords_of_war-v1")
    rows = [f"| {s.opponent} | {s.setting} | {s.games} | {s.score:.1%} | {100 * s.low:.1f}–{100 * s.high:.1f}% |"
            for s in strength]
    lines = [f"# {name}", "",
             f"A {'leaf value net (`search.leaf_value`)' if knob == 'vnet' else '`PolicyValueNet`'} for "
             f"`{match[1]}`, shipped with cardboard (`cardboard.policies.zoo`).", "",
             f"- plays as: `zoo:{name}` (`{agent_spec(name, agent, knob=knob)}`)"
             + ("" if knob == "vnet" else f"; the raw network: `net:model={name}`"),
             f"- trained by: `{command}`",
             f"- data: {data}",
             f"- compute: {cpu_hours:.2f} CPU-hours", "",
             "## Strength", "",
             "| opponent | setting | games | score | 95% interval |",
             "|---|---|---:|---:|---|", *rows]
    return "\n".join(lines + (["", notes.strip()] if notes.strip() else [])) + "\n"


def _read(file: Path) -> ZooModel:
    match = NAME.fullmatch(file.stem)
    if match is None:
        raise CheckpointError(f"{file}: a shipped model's file is named <game>-v<N>.safetensors")
    metadata = checkpoints.read(file, None, "policy-value")[0]
    if metadata.get("game") != match[1]:
        raise CheckpointError(f"{file}: the network of game {metadata.get('game')!r} under a name of game "
                              f"{match[1]!r}")
    agent = metadata.get("agent")
    if agent is not None and not isinstance(agent, str):
        raise CheckpointError(f"{file}: its agent is {agent!r}, not an agent spec")
    return ZooModel(file.stem, match[1], int(match[2]), file, agent, metadata)


def _names(found: Any) -> str:
    return ", ".join(m.name for m in found) or "none yet"
