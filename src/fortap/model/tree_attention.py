"""Tree-distance attention mask: which tokens each token may attend to.

ForTaP's token-level rule (reference note §3): the distance between two tokens is the sum over
both trees (top and left) and their L levels of a per-level term computed on node ids
(`tree_ids`): both null 0, exactly one null 1, both set and equal 0, both set and different 2.
A key is hidden from a query when the distance exceeds the threshold (default 8). [CLS] and
context tokens have all-null coordinates, so their distance to a cell is its number of non-null
levels (at most 8): they see, and are seen by, everything at the default threshold.

Beyond the distance rule: padding keys are hidden, padding queries see only themselves, and
every query sees itself (so no softmax row is empty).

The distance is built level by level in int8 from (B, T) id vectors — 2·L broadcast
comparisons of (B, T, T), never the reference's (B, T, T, 385) one-hot tensors.
Letters: B batch, T tokens, L tree levels.
"""

from __future__ import annotations

import torch

from fortap.encoding.example import Batch
from fortap.model.config import ModelConfig
from fortap.model.tree_ids import null_node_id, tree_node_ids


def tree_distance(
    top_coords: torch.Tensor, left_coords: torch.Tensor, degrees: tuple[int, ...]
) -> torch.Tensor:
    """(B, T, T) int8 token-to-token tree distance from raw (B, T, L) coordinates."""
    B, T, _ = top_coords.shape
    null = null_node_id(degrees)
    dist = torch.zeros(B, T, T, dtype=torch.int8, device=top_coords.device)
    for coords in (top_coords, left_coords):
        ids = tree_node_ids(coords, degrees).to(torch.int16)  # (B, T, L)
        for level in range(ids.shape[-1]):
            node = ids[..., level]  # (B, T)
            is_set = node != null  # (B, T)
            differ = node[:, :, None] != node[:, None, :]  # (B, T, T)
            both_set = is_set[:, :, None] & is_set[:, None, :]  # (B, T, T)
            dist += differ.to(torch.int8)  # one null or different: 1
            dist += (differ & both_set).to(torch.int8)  # both set and different: 2
    return dist  # (B, T, T)


def tree_attention_mask(batch: Batch, threshold: int, degrees: tuple[int, ...]) -> torch.Tensor:
    """(B, T, T) bool, True where query i may attend to key j."""
    dist = tree_distance(batch.top_coords, batch.left_coords, degrees)  # (B, T, T)
    return _with_padding(dist <= threshold, batch.token_mask)


def padding_mask(token_mask: torch.Tensor) -> torch.Tensor:
    """(B, T, T) bool: real tokens see every real token (the plain BERT mask)."""
    B, T = token_mask.shape
    everything = torch.ones(B, T, T, dtype=torch.bool, device=token_mask.device)
    return _with_padding(everything, token_mask)


def attention_mask(batch: Batch, config: ModelConfig) -> torch.Tensor | None:
    """(B, 1, T, T) bool mask for `scaled_dot_product_attention`; None when nothing is hidden."""
    if config.tree_attention:
        mask = tree_attention_mask(batch, config.attention_distance, config.tree_degrees)
    elif bool(batch.token_mask.all()):
        return None
    else:
        mask = padding_mask(batch.token_mask)
    return mask[:, None]  # (B, 1, T, T)


def _with_padding(visible: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
    T = token_mask.shape[1]
    real = token_mask.bool()
    visible = visible & real[:, None, :] & real[:, :, None]  # (B, T, T)
    eye = torch.eye(T, dtype=torch.bool, device=visible.device)  # (T, T)
    return visible | eye  # (B, T, T)
