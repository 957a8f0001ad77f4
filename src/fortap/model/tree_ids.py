"""Tree coordinates → node ids ("unzipping", reference note §1.2).

A tree coordinate holds, per level, the sibling index of the cell's ancestor at that level
(-1 = no node at that level). Each level gets its own id range, offset by the sum of the
previous levels' fan-outs (0, 32, 64, 128 for degrees (32, 32, 64, 256)); a missing level or
a sibling index at or above the level's fan-out maps to one shared null id (Σ degrees = 384).
Both the tree embeddings and the tree-distance mask read these ids.

Letters: B batch, T tokens, L tree levels.
"""

from __future__ import annotations

import torch


def null_node_id(degrees: tuple[int, ...]) -> int:
    """The shared "no node" id: one past the last level's range."""
    return sum(degrees)


def tree_node_ids(coords: torch.Tensor, degrees: tuple[int, ...]) -> torch.Tensor:
    """Flatten `coords` (B, T, L) sibling indices into node ids (B, T, L) in 0..Σ degrees."""
    assert coords.shape[-1] == len(degrees), (coords.shape, degrees)
    degree = torch.tensor(degrees, dtype=coords.dtype, device=coords.device)  # (L,)
    offset = torch.cumsum(degree, 0) - degree  # (L,)
    valid = (coords >= 0) & (coords < degree)  # (B, T, L)
    null = torch.full_like(coords, null_node_id(degrees))
    return torch.where(valid, coords + offset, null)  # (B, T, L)
