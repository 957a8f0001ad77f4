"""One post-LN BERT layer with a boolean attention mask.

attention → dropout → add & LayerNorm → FFN (GELU, erf form) → dropout → add & LayerNorm,
as BERT and TUTA (reference note §4). Module names mirror the MiniLM/BERT safetensors
(`attention.self.query`, `attention.output.LayerNorm`, `intermediate.dense`, `output.dense`, …)
so the shipped weights map by name; Q, K and V stay separate linears for that reason.

Attention runs through `F.scaled_dot_product_attention` with a (B, 1, T, T) bool mask (True =
may attend), shared by all heads. There is no attention-probability dropout: on CPU it costs a
third of the step (cpu_stack note §4.5) and TUTA's mask already sparsifies attention.
Letters: B batch, T tokens, D hidden, H heads, d head width.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from fortap.model.config import ModelConfig


class SelfAttention(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.heads = config.heads
        self.query = nn.Linear(config.hidden, config.hidden)
        self.key = nn.Linear(config.hidden, config.hidden)
        self.value = nn.Linear(config.hidden, config.hidden)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        B, T, D = x.shape
        shape = (B, T, self.heads, D // self.heads)
        q = self.query(x).view(shape).transpose(1, 2)  # (B, H, T, d)
        k = self.key(x).view(shape).transpose(1, 2)  # (B, H, T, d)
        v = self.value(x).view(shape).transpose(1, 2)  # (B, H, T, d)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # (B, H, T, d)
        return out.transpose(1, 2).reshape(B, T, D)  # (B, T, D)


class AddNorm(nn.Module):
    """Linear → dropout → residual add → LayerNorm (BERT's `*.output` block)."""

    def __init__(self, d_in: int, config: ModelConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(d_in, config.hidden)
        self.LayerNorm = nn.LayerNorm(config.hidden, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout)

    def forward(self, h: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(residual + self.dropout(self.dense(h)))  # (B, T, D)


class Attention(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.self = SelfAttention(config)
        self.output = AddNorm(config.hidden, config)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        return self.output(self.self(x, mask), x)  # (B, T, D)


class Intermediate(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(config.hidden, config.ffn)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(x))  # (B, T, ffn)


class EncoderLayer(nn.Module):
    """One transformer layer: masked self-attention then the feed-forward block."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.attention = Attention(config)
        self.intermediate = Intermediate(config)
        self.output = AddNorm(config.ffn, config)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """x (B, T, D), mask (B, 1, T, T) bool or None → (B, T, D)."""
        x = self.attention(x, mask)  # (B, T, D)
        return self.output(self.intermediate(x), x)  # (B, T, D)
