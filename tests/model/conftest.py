"""Random but valid model inputs, built directly with torch (independent of encoding/collate).

`make_example(config, rng, ...)` lays out a table the way serialisation does: [CLS], a few
context tokens, then row-major cells of 1-4 tokens each starting with their [SEP]; a two-level
top tree over the columns and a flat left tree over the rows, with some null levels and some
out-of-degree indices sprinkled in. `pad(examples)` pads them into a `Batch`.
"""

from __future__ import annotations

import random

import pytest
import torch

from fortap.encoding.example import NULL_POS, Batch
from fortap.model.config import ModelConfig

NOT_A_NUMBER = 11
PAD = {
    "token_ids": 0,
    "numbers": NOT_A_NUMBER,
    "in_cell_pos": 0,
    "rows": NULL_POS,
    "cols": NULL_POS,
    "top_coords": -1,
    "left_coords": -1,
    "formats": 0.0,
    "cell_ids": -1,
    "token_mask": False,
}


def make_example(
    config: ModelConfig, rng: random.Random, n_rows: int = 3, n_cols: int = 4, n_context: int = 2
) -> dict[str, torch.Tensor]:
    """One example as a dict of unpadded tensors: per-token (T, …) and per-cell (C,)."""
    tok: dict[str, list] = {name: [] for name in PAD}
    sep_index: list[int] = []

    def add(token, number, pos, row, col, top, left, cell):
        tok["token_ids"].append(token)
        tok["numbers"].append(number)
        tok["in_cell_pos"].append(pos)
        tok["rows"].append(row)
        tok["cols"].append(col)
        tok["top_coords"].append(top)
        tok["left_coords"].append(left)
        tok["formats"].append([rng.random() for _ in range(config.format_dim)])
        tok["cell_ids"].append(cell)
        tok["token_mask"].append(True)

    null = [-1] * config.tree_depth
    vocab = config.vocab_size
    add(rng.randrange(vocab), [NOT_A_NUMBER] * 4, 0, NULL_POS, NULL_POS, null, null, 0)
    for _ in range(n_context):
        add(rng.randrange(vocab), [NOT_A_NUMBER] * 4, 0, NULL_POS, NULL_POS, null, null, 0)
    for r in range(n_rows):
        for c in range(n_cols):
            top = [-1, -1, c // 2, c % 2] if r > 0 else [-1, -1, c // 2, -1]
            left = [-1, -1, -1, r if rng.random() > 0.1 else 300]
            cell = len(sep_index) + 1
            sep_index.append(len(tok["token_ids"]))
            for pos in range(rng.randint(1, 4)):
                number = [rng.randrange(config.number_size) for _ in range(4)]
                add(rng.randrange(vocab), number, pos, r, c, top, left, cell)
    out = {name: torch.tensor(values) for name, values in tok.items()}
    out["formats"] = out["formats"].float()
    out["sep_index"] = torch.tensor(sep_index)
    return out


def pad(examples: list[dict[str, torch.Tensor]]) -> Batch:
    """Pad examples to the longest one (tokens and cells) and stack them into a `Batch`."""
    T = max(len(e["token_ids"]) for e in examples)
    C = max(len(e["sep_index"]) for e in examples)
    fields = {}
    for name, value in PAD.items():
        rows = []
        for e in examples:
            t = e[name]
            filler = torch.full((T - len(t), *t.shape[1:]), value, dtype=t.dtype)
            rows.append(torch.cat([t, filler]))
        fields[name] = torch.stack(rows)
    sep = [
        torch.cat([e["sep_index"], e["sep_index"].new_zeros(C - len(e["sep_index"]))])
        for e in examples
    ]
    fields["sep_index"] = torch.stack(sep)
    fields["cell_mask"] = torch.stack([torch.arange(C) < len(e["sep_index"]) for e in examples])
    return Batch(**fields)


@pytest.fixture
def tiny_config() -> ModelConfig:
    return ModelConfig.tiny(hidden_dropout=0.0)


@pytest.fixture
def tiny_batch(tiny_config: ModelConfig) -> Batch:
    rng = random.Random(0)
    return pad([make_example(tiny_config, rng), make_example(tiny_config, rng, n_rows=2, n_cols=3)])


@pytest.fixture
def inputs():
    """The builders above, for tests that need their own examples: `inputs.make_example`, `inputs.pad`."""
    import types

    return types.SimpleNamespace(make_example=make_example, pad=pad)
