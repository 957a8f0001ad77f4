"""Table embeddings: what a token is, which number it holds, where its cell sits, how it looks.

Following TUTA's implicit tree embedding (reference note §2), for each token

    LayerNorm( token
             + [magnitude | precision | first digit | last digit]        (4 × D/4)
             + in-cell position
             + [row | left tree, 4 levels | column | top tree, 4 levels]  (D/8 + 4·3D/32 + D/8 + 4·3D/32)
             + W_format · format )                                       (no bias)

then dropout. Each tree has one table of Σ degrees + 1 rows (the last row is the learned
"no node" vector); a token's 4 node ids (`tree_ids.tree_node_ids`) are looked up in it and
concatenated. Widths when D does not split evenly: each number part is D//4 and the last one
takes the remainder; row = D//8, each tree level = (3D//8)//L, and the column slice takes
whatever is left so the block sums to D (for D = 384: 48 | 4×36 | 48 | 4×36; D = 64: 8 | 4×6 | 8 | 4×6).

With `config.table_embeddings` off only the token table and the LayerNorm remain: the plain
BERT baseline the encoder's speed was measured against (no 1-D positions: TUTA has none either).

Word embeddings and the LayerNorm use the MiniLM names (`word_embeddings`, `LayerNorm`) so the
shipped weights map by name. Letters: B batch, T tokens, D hidden, L tree levels, F formats.

The row and column tables start as sinusoids (`sinusoid_table`, amplitude
`config.row_col_init`; Vaswani et al.'s encoding): a product of two rows' vectors then depends on
their offset alone, so "the header two rows above" can be read before the tables are trained.
Tree tables start random; MiniLM has weights for none of them.
"""

from __future__ import annotations

import torch
from torch import nn

from fortap.encoding.example import Batch
from fortap.model.config import ModelConfig
from fortap.model.tree_ids import null_node_id, tree_node_ids


def number_widths(hidden: int) -> tuple[int, int, int, int]:
    """Widths of the magnitude, precision, first-digit and last-digit slices (sum = hidden)."""
    part = hidden // 4
    return (part, part, part, hidden - 3 * part)


def sinusoid_table(n: int, width: int, amplitude: float) -> torch.Tensor:
    """(n, width): row p holds amplitude·[sin(p·w_0), cos(p·w_0), sin(p·w_1), ...], w_k =
    10000^(-2k/width); an odd width ends with one more sine."""
    p = torch.arange(n, dtype=torch.float64).unsqueeze(1)  # (n, 1)
    k = torch.arange((width + 1) // 2, dtype=torch.float64)
    angle = p * 10000.0 ** (-2 * k / width)  # (n, ceil(width/2))
    table = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)[:, :width]  # (n, width)
    return (amplitude * table).float()


def position_widths(hidden: int, depth: int) -> tuple[int, int, int]:
    """(row width, width of one tree level, column width); row + col + 2·depth·level = hidden."""
    row = hidden // 8
    level = (3 * hidden // 8) // depth
    col = hidden - row - 2 * depth * level
    return row, level, col


class TableEmbeddings(nn.Module):
    """Sums the token, number, in-cell, position-block and format embeddings of every token."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        D = config.hidden
        self.word_embeddings = nn.Embedding(config.vocab_size, D)
        if config.table_embeddings:
            self.number_embeddings = nn.ModuleList(
                nn.Embedding(config.number_size, width) for width in number_widths(D)
            )
            self.in_cell_embeddings = nn.Embedding(config.max_cell_positions, D)
            row_w, level_w, col_w = position_widths(D, config.tree_depth)
            n_nodes = null_node_id(config.tree_degrees) + 1
            self.row_embeddings = nn.Embedding(config.row_col_size, row_w)
            self.col_embeddings = nn.Embedding(config.row_col_size, col_w)
            self.left_tree_embeddings = nn.Embedding(n_nodes, level_w)
            self.top_tree_embeddings = nn.Embedding(n_nodes, level_w)
            self.format_embeddings = nn.Linear(config.format_dim, D, bias=False)
        self.LayerNorm = nn.LayerNorm(D, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout)

    def init_row_col(self) -> None:
        """Row and column tables as sinusoids (module doc); no-op when `row_col_init` is 0."""
        amplitude = self.config.row_col_init
        if not self.config.table_embeddings or amplitude == 0:
            return
        with torch.no_grad():
            for table in (self.row_embeddings, self.col_embeddings):
                table.weight.copy_(sinusoid_table(*table.weight.shape, amplitude))

    def forward(self, batch: Batch) -> torch.Tensor:
        """(B, T, D) embeddings of `batch`'s tokens (before the first layer)."""
        check_ranges(batch, self.config)
        x = self.word_embeddings(batch.token_ids)  # (B, T, D)
        if self.config.table_embeddings:
            x = x + self._numbers(batch.numbers)
            x = x + self.in_cell_embeddings(batch.in_cell_pos)
            x = x + self._positions(batch)
            x = x + self.format_embeddings(batch.formats.to(x.dtype))
        return self.dropout(self.LayerNorm(x))  # (B, T, D)

    def _numbers(self, numbers: torch.Tensor) -> torch.Tensor:
        parts = [table(numbers[..., k]) for k, table in enumerate(self.number_embeddings)]
        return torch.cat(parts, dim=-1)  # (B, T, D)

    def _positions(self, batch: Batch) -> torch.Tensor:
        degrees = self.config.tree_degrees
        B, T = batch.token_ids.shape
        left = self.left_tree_embeddings(tree_node_ids(batch.left_coords, degrees))  # (B, T, L, w)
        top = self.top_tree_embeddings(tree_node_ids(batch.top_coords, degrees))  # (B, T, L, w)
        block = [
            self.row_embeddings(batch.rows),
            left.reshape(B, T, -1),
            self.col_embeddings(batch.cols),
            top.reshape(B, T, -1),
        ]
        return torch.cat(block, dim=-1)  # (B, T, D)


def check_ranges(batch: Batch, config: ModelConfig) -> None:
    """Raise ValueError naming the Batch field whose ids fall outside its embedding table.

    Tree coordinates are exempt: out-of-range levels are null by definition.
    """
    limits = {"token_ids": config.vocab_size}
    if config.table_embeddings:
        limits |= {
            "numbers": config.number_size,
            "in_cell_pos": config.max_cell_positions,
            "rows": config.row_col_size,
            "cols": config.row_col_size,
        }
    for name, limit in limits.items():
        ids = getattr(batch, name)
        if ids.numel() == 0:
            continue
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= limit:
            bad = low if low < 0 else high
            raise ValueError(f"Batch.{name} holds {bad}, outside the model's range 0..{limit - 1}")
    if config.table_embeddings and batch.formats.shape[-1] != config.format_dim:
        raise ValueError(
            f"Batch.formats has width {batch.formats.shape[-1]}, the model expects {config.format_dim}"
        )
