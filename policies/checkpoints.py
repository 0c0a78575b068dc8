"""The file format of cardboard's network checkpoints (issue 33): one safetensors file, nothing unpickled.

The tensors are the network's state dict; safetensors' ``__metadata__`` header holds one entry, ``cardboard``:
the network's metadata as a JSON string, whose ``format`` names the kind of network
(``cardboard.policy_value_net/1``, ``cardboard.card_play_net/1``). ``network.save_checkpoint`` writes it (to a
temporary file renamed over the target, so a reader never sees half a file). Checkpoints written with
``torch.save`` by cardboard before issue 33 are not read: ``read`` raises ``CheckpointError`` naming that format.

Torch-free, and safetensors (the ``rl`` extra) is imported only when a file is read or written: listing the
shipped models (``cardboard agents``) imports no torch, and ``import cardboard`` needs neither.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..envs.errors import CheckpointError
from ..envs.files import CHECKPOINT_LIMIT, check_file, errors_as, quoted

METADATA_KEY = "cardboard"  # the entry of safetensors' __metadata__ holding the JSON metadata
TORCH_SAVE_STARTS = (b"PK\x03\x04", *(bytes((0x80, p)) for p in range(2, 6)))  # a zip (torch >= 1.6), a pickle


def read(path: str | Path, fmt: str | None, what: str, framework: str | None = None) -> tuple[dict[str, Any], dict]:
    """``(metadata, tensors)`` of the checkpoint at ``path`` whose metadata has format ``fmt`` (None: any of
    cardboard's); the tensors loaded for ``framework`` (``"pt"``, ``"numpy"``), none when it is None.

    ``CheckpointError`` naming the file (``what``: the kind of network expected, for the message) for a missing
    file, one that is not a regular file or is over ``CHECKPOINT_LIMIT`` (checked before it is opened), an empty,
    truncated or random file, a ``torch.save`` checkpoint, a safetensors file without cardboard's metadata, or one
    of another format."""
    file = Path(path)
    with errors_as(CheckpointError):
        check_file(file, CHECKPOINT_LIMIT, "checkpoint")
    safetensors = _safetensors()
    try:
        with safetensors.safe_open(file, framework=framework or "numpy") as handle:
            header = handle.metadata() or {}
            tensors = {key: handle.get_tensor(key) for key in handle.keys()} if framework else {}
    except safetensors.SafetensorError as exc:
        raise CheckpointError(f"{path}: {_not_safetensors(file, what, exc)}") from None
    except OSError as exc:
        raise CheckpointError(f"{path}: cannot be read ({exc})") from None
    if METADATA_KEY not in header:
        raise CheckpointError(f"{path}: a safetensors file without cardboard's metadata, not a cardboard {what} "
                              f"checkpoint")
    try:
        metadata = json.loads(header[METADATA_KEY])
    except ValueError as exc:
        raise CheckpointError(f"{path}: its cardboard metadata is not JSON ({exc})") from None
    found = metadata.get("format") if isinstance(metadata, dict) else None
    if not isinstance(found, str) or not found.startswith("cardboard.") or fmt not in (None, found):
        raise CheckpointError(f"{path}: a checkpoint of format {quoted(found)}, not a cardboard {what} checkpoint"
                              + (f" ({fmt!r})" if fmt else ""))
    return metadata, tensors


def write(data: bytes, path: str | Path) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, renamed over it: ``path`` holds either its
    old content or all of ``data``, and nothing is left behind when writing fails."""
    file = Path(path)
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, file)
    finally:
        tmp.unlink(missing_ok=True)


def write_numpy(tensors: dict[str, Any], metadata: dict[str, Any], path: str | Path) -> None:
    """Write numpy ``tensors`` with cardboard's ``metadata`` to ``path`` (``write``: whole or not at all), torch-free."""
    _safetensors()
    from safetensors.numpy import save

    write(save(tensors, metadata={METADATA_KEY: json.dumps(metadata)}), path)


def _safetensors() -> Any:
    try:
        import safetensors
    except ImportError:
        raise CheckpointError("network checkpoints need safetensors: pip install 'cardboard[rl]'") from None
    return safetensors


def _not_safetensors(file: Path, what: str, error: Exception) -> str:
    """Why a file safetensors refuses (``error``) is not a checkpoint: an old ``torch.save`` one, or none at all."""
    with file.open("rb") as handle:
        start = handle.read(4)
    if start.startswith(TORCH_SAVE_STARTS):
        return ("a torch.save (pickle) file, the format of cardboard's checkpoints before issue 33, which is no "
                "longer read: checkpoints are safetensors files now")
    kind = "an empty file" if not start else "not a safetensors file, or a truncated one"
    return f"{kind}, not a cardboard {what} checkpoint ({error})"
