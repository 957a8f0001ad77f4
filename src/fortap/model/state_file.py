"""Save and load any module's tensors as one safetensors file — never pickle.

`save_state(module, path)` writes every tensor of `module.state_dict()` (float32 ones narrowed
to bfloat16 on request, for a released checkpoint) with a CRC-32 of its bytes in the file's
metadata, so a flipped byte is caught on load and reported by tensor name.
Tensors that are the same storage (a tied MLM decoder and the word embeddings) are written
once; the other names are recorded as aliases. `load_state(module, path)` checks every name,
shape, dtype (bfloat16 is accepted for float32 and widened) and checksum before copying
anything and raises `CheckpointError` naming the file
and the tensor. `read_tensors(path)` is the checked read on its own (used for foreign files
such as the MiniLM weights, which carry no checksums).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file
from torch import nn

from fortap.errors import CheckpointError

CRC_KEY = "fortap.crc32"
ALIAS_KEY = "fortap.aliases"


def crc32(tensor: torch.Tensor) -> int:
    """CRC-32 of a tensor's raw bytes (any dtype)."""
    raw = tensor.detach().contiguous().reshape(-1).view(torch.uint8)
    return zlib.crc32(raw.numpy().data)


def save_state(
    module: nn.Module | dict[str, torch.Tensor], path: str | Path, dtype: torch.dtype | None = None
) -> None:
    """Write `module`'s state dict (or a dict of tensors) to `path` as safetensors; `dtype`
    (e.g. `torch.bfloat16` for a released checkpoint) narrows every float32 tensor."""
    state = module.state_dict() if isinstance(module, nn.Module) else module
    tensors: dict[str, torch.Tensor] = {}
    aliases: dict[str, str] = {}
    seen: dict[tuple, str] = {}
    for name, tensor in state.items():
        t = tensor.detach().cpu()
        key = (  # of the module's own tensor: a narrowed or GPU-to-CPU copy is a temporary
            # whose address recurs
            tensor.device,
            tensor.untyped_storage().data_ptr(),
            tensor.storage_offset(),
            tuple(tensor.shape),
            tensor.stride(),
            tensor.dtype,
        )
        if t.numel() and key in seen:
            aliases[name] = seen[key]
            continue
        seen[key] = name
        if dtype is not None and t.dtype == torch.float32:
            t = t.to(dtype)
        tensors[name] = t.contiguous().clone()  # own storage: views of one buffer cannot be saved
    metadata = {
        "format": "pt",
        CRC_KEY: json.dumps({name: crc32(t) for name, t in tensors.items()}),
        ALIAS_KEY: json.dumps(aliases),
    }
    save_file(tensors, str(path), metadata=metadata)


def read_tensors(path: str | Path) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """All tensors of a safetensors file (checksums verified when present) and its aliases."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint file not found: {path}")
    try:
        with safe_open(str(path), framework="pt") as f:
            metadata = f.metadata() or {}
            tensors = {name: _get(f, name, path) for name in f.keys()}  # noqa: SIM118
    except (SafetensorError, OSError, ValueError) as err:
        cut = truncated_tensor(path)
        if cut is not None:
            raise CheckpointError(f"{path}: tensor {cut!r} is cut short (truncated file)") from None
        raise CheckpointError(f"{path} is not a readable safetensors file: {err}") from None
    sums, aliases = _metadata(metadata, path)
    for name, expected in sums.items():
        if name not in tensors:
            raise CheckpointError(f"{path}: tensor {name!r} is listed in the checksums but missing")
        if crc32(tensors[name]) != expected:
            raise CheckpointError(f"{path}: tensor {name!r} is corrupt (checksum mismatch)")
    return tensors, aliases


def load_state(module: nn.Module, path: str | Path, absent: frozenset[str] = frozenset()) -> None:
    """Copy the tensors of `path` into `module`; every name, shape and dtype must match. The
    names in `absent` must not be in the file, and `module` keeps its own values there."""
    path = Path(path)
    tensors, aliases = read_tensors(path)
    for alias, name in aliases.items():
        if name in tensors:
            tensors.setdefault(alias, tensors[name])
    for name in absent & set(tensors):
        raise CheckpointError(f"{path}: tensor {name!r} is stored, but its config rebuilds it")
    own = module.state_dict()
    expected = {k: v for k, v in own.items() if k not in absent}
    for name, target in expected.items():
        if name not in tensors:
            raise CheckpointError(f"{path}: tensor {name!r} is missing")
        check_match(tensors[name], target, name, path)
        tensors[name] = tensors[name].to(target.dtype)  # a narrowed tensor is widened back
    extra = sorted(set(tensors) - set(expected))
    if extra:
        raise CheckpointError(f"{path}: unexpected tensor {extra[0]!r} (not in the model)")
    module.load_state_dict({**{name: own[name] for name in absent},
                            **{name: tensors[name] for name in expected}}, strict=True)  # fmt: skip


def check_match(found: torch.Tensor, target: torch.Tensor, name: str, path: Path) -> None:
    """Raise `CheckpointError` when a file tensor's shape or dtype differs from the model's."""
    if found.shape != target.shape:
        raise CheckpointError(
            f"{path}: tensor {name!r} has shape {list(found.shape)}, "
            f"the model expects {list(target.shape)}"
        )
    narrowed = (found.dtype, target.dtype) == (torch.bfloat16, torch.float32)
    if found.dtype != target.dtype and not narrowed:
        raise CheckpointError(
            f"{path}: tensor {name!r} has dtype {found.dtype}, the model expects {target.dtype}"
        )


def truncated_tensor(path: Path) -> str | None:
    """The first tensor whose bytes lie past the end of a file with an intact header, if any.

    Layout: 8-byte little-endian header length, JSON header, then the data; each header entry
    holds `data_offsets` relative to the data start.
    """
    try:
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            if size > path.stat().st_size - 8:
                return None  # no intact header (not a safetensors file at all)
            header = json.loads(f.read(size))
        data_bytes = path.stat().st_size - 8 - size
        ends = {
            name: entry["data_offsets"][1]
            for name, entry in header.items()
            if name != "__metadata__"
        }
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    cut = [name for name, end in sorted(ends.items(), key=lambda kv: kv[1]) if end > data_bytes]
    return cut[0] if cut else None


def _get(f, name: str, path: Path) -> torch.Tensor:
    try:
        return f.get_tensor(name)
    except (SafetensorError, OSError, ValueError) as err:
        raise CheckpointError(f"{path}: tensor {name!r} cannot be read: {err}") from None


def _metadata(metadata: dict[str, str], path: Path) -> tuple[dict[str, int], dict[str, str]]:
    try:
        sums = json.loads(metadata.get(CRC_KEY, "{}"))
        aliases = json.loads(metadata.get(ALIAS_KEY, "{}"))
    except json.JSONDecodeError as err:
        raise CheckpointError(f"{path}: corrupt checkpoint metadata: {err}") from None
    return sums, aliases
