"""One encoder layer against an explicit softmax-attention reference with the same mask."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from fortap.model.config import ModelConfig
from fortap.model.layers import EncoderLayer


def explicit_layer(layer: EncoderLayer, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Post-LN BERT layer written out: masked softmax(QKᵀ/√d)V, add & norm, GELU FFN, add & norm."""
    att = layer.attention
    B, T, D = x.shape
    H = att.self.heads

    def heads(linear):
        return linear(x).view(B, T, H, D // H).transpose(1, 2)  # (B, H, T, d)

    q, k, v = heads(att.self.query), heads(att.self.key), heads(att.self.value)
    scores = q @ k.transpose(-1, -2) / math.sqrt(D // H)  # (B, H, T, T)
    scores = scores.masked_fill(~mask, float("-inf"))
    ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
    h = att.output.LayerNorm(x + att.output.dense(ctx))
    ffn = layer.output.dense(F.gelu(layer.intermediate.dense(h)))
    return layer.output.LayerNorm(h + ffn)


def test_layer_matches_explicit_attention():
    torch.manual_seed(0)
    layer = EncoderLayer(ModelConfig.tiny(hidden_dropout=0.0))
    x = torch.randn(2, 7, 64)
    mask = torch.rand(2, 1, 7, 7) < 0.5
    mask |= torch.eye(7, dtype=torch.bool)
    torch.testing.assert_close(layer(x, mask), explicit_layer(layer, x, mask), atol=1e-5, rtol=1e-5)


def test_mask_none_is_full_attention():
    torch.manual_seed(0)
    layer = EncoderLayer(ModelConfig.tiny(hidden_dropout=0.0))
    x = torch.randn(1, 5, 64)
    full = torch.ones(1, 1, 5, 5, dtype=torch.bool)
    torch.testing.assert_close(layer(x, None), layer(x, full), atol=1e-6, rtol=0)
