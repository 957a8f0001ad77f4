"""`ModelConfig`: the sizes of the tree transformer, saved beside its weights as config.json.

Defaults are MiniLM size (all-MiniLM-L6-v2: 6 layers, hidden 384, 12 heads, FFN 1536) with
TUTA's table-side sizes (reference note §2, §8): in-cell positions 64, row/column tables of 257
rows (256 + the null row used by [CLS], context and padding), 4 tree levels with fan-outs
(32, 32, 64, 256), 12 ids per number feature (0-9 digits/counts, 10 = "10 or more",
11 = "not a number") and an 11-dim format vector.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fortap.errors import CheckpointError

CELL_POOLING = ("mean", "sep")


@dataclass(frozen=True)
class ModelConfig:
    """Sizes and switches of `FortapEncoder`; `minilm()` and `tiny()` are the presets."""

    vocab_size: int = (
        30522  # rows of the token table (MiniLM vocab; our added tokens reuse its unused ids)
    )
    hidden: int = 384  # D, width of every token state
    layers: int = 6  # transformer layers
    heads: int = 12  # attention heads (hidden must divide by it)
    ffn: int = 1536  # width of the feed-forward layer
    max_cell_positions: int = 64  # rows of the in-cell position table (0 = the cell's [SEP])
    row_col_size: int = 257  # rows of the row and the column tables (index 256 = outside the table)
    tree_depth: int = 4  # L, levels of a tree coordinate
    tree_degrees: tuple[int, ...] = (32, 32, 64, 256)  # fan-out limit per level; larger = null
    number_size: int = 12  # ids per number feature (magnitude, precision, first, last digit)
    format_dim: int = 11  # F, width of the format vector
    attention_distance: int = 8  # keys with tree distance above this are hidden (0..16)
    tree_attention: bool = True  # False: every token sees every real token (plain BERT mask)
    table_embeddings: bool = (
        True  # False: token embeddings only (plain BERT baseline, no positions)
    )
    layer_norm_eps: float = 1e-12  # MiniLM's value (TUTA used 1e-6; either is harmless)
    hidden_dropout: float = 0.1  # dropout after embeddings, attention output and FFN output
    init_std: float = 0.02  # std of the normal init of embeddings and linear weights
    cell_pooling: str = "mean"  # cell state: "mean" of the cell's positions or its "sep" state
    row_col_init: float = 0.1  # row and column tables start as sinusoids of this amplitude, so
    # that row/column offsets are readable from the first update; 0 = normal(init_std) like the rest
    added_from_words: bool = True  # `load_minilm`: our added tokens ([VAL], [FORMULA], [SUM], ...)
    # start from MiniLM's embeddings of words naming them, not from its near-identical unused rows
    words_from: str = ""  # "": the word table is stored; "minilm" / "minilm-bf16": it stayed
    # frozen at MiniLM's and is rebuilt from the installed package (`minilm_words`)

    def __post_init__(self) -> None:
        positive = (
            "vocab_size",
            "hidden",
            "layers",
            "heads",
            "ffn",
            "max_cell_positions",
            "row_col_size",
            "tree_depth",
            "number_size",
            "format_dim",
        )
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"ModelConfig.{name} must be a positive int, got {value!r}")
        object.__setattr__(self, "tree_degrees", tuple(self.tree_degrees))
        if len(self.tree_degrees) != self.tree_depth or min(self.tree_degrees) <= 0:
            raise ValueError(
                f"ModelConfig.tree_degrees must hold {self.tree_depth} positive ints "
                f"(one per level), got {self.tree_degrees!r}"
            )
        if self.hidden % self.heads:
            raise ValueError(
                f"ModelConfig.hidden ({self.hidden}) must be divisible by heads ({self.heads})"
            )
        if self.cell_pooling not in CELL_POOLING:
            raise ValueError(
                f"ModelConfig.cell_pooling must be one of {CELL_POOLING}, got {self.cell_pooling!r}"
            )
        if self.hidden < 16:
            raise ValueError(f"ModelConfig.hidden must be at least 16, got {self.hidden}")
        if not 0 <= self.attention_distance <= 4 * self.tree_depth:
            raise ValueError(
                f"ModelConfig.attention_distance must be in 0..{4 * self.tree_depth}, "
                f"got {self.attention_distance}"
            )
        if not 0.0 <= self.hidden_dropout < 1.0:
            raise ValueError(
                f"ModelConfig.hidden_dropout must be in [0, 1), got {self.hidden_dropout}"
            )
        if self.layer_norm_eps <= 0 or self.init_std <= 0:
            raise ValueError("ModelConfig.layer_norm_eps and init_std must be positive")
        if self.words_from not in ("", "minilm", "minilm-bf16"):
            raise ValueError(
                "ModelConfig.words_from must be '', 'minilm' or 'minilm-bf16', "
                f"got {self.words_from!r}"
            )
        if self.row_col_init < 0:
            raise ValueError(f"ModelConfig.row_col_init must be >= 0, got {self.row_col_init}")

    @classmethod
    def minilm(cls, **overrides: Any) -> ModelConfig:
        """MiniLM size (6 layers, 384 hidden, 12 heads, FFN 1536), the shipped weights' shape."""
        return cls(**overrides)

    @classmethod
    def tiny(cls, **overrides: Any) -> ModelConfig:
        """Unit-test size: hidden 64, 2 layers, 2 heads, FFN 128, a 1,000-token vocab."""
        fields = {"vocab_size": 1000, "hidden": 64, "layers": 2, "heads": 2, "ffn": 128}
        return cls(**(fields | overrides))

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["tree_degrees"] = list(self.tree_degrees)
        if not self.words_from:  # a stored table: the config files written before this field
            del data["words_from"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config") -> ModelConfig:
        """Build from a dict; unknown keys or bad values raise `CheckpointError` naming `source`."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise CheckpointError(f"{source}: unknown model config key {unknown[0]!r}")
        try:
            return cls(**data)
        except (TypeError, ValueError) as err:
            raise CheckpointError(f"{source}: {err}") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> ModelConfig:
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise CheckpointError(f"cannot read model config {path}: {err}") from None
        if not isinstance(data, dict):
            raise CheckpointError(f"model config {path} is not a JSON object")
        return cls.from_dict(data, source=str(path))
