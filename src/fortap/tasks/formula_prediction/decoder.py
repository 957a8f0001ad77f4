"""ForTaP's formula decoder: a sketch LSTM with cross-attention, then a range pointer.

The target cell's encoder state f (its `[SEP]`, shown as `[SEP] [FORMULA]`) starts both parts:

- *sketch decoder*: formula-vocabulary embeddings -> an LSTM of `layers` layers with h0 = f in
  every layer and c0 = 0 -> multi-head cross-attention from each decoder state to the encoder's
  token states (a key padding mask hides padding) -> concat[context; decoder state] -> Linear to
  the 41 formula tokens;
- *range decoder*: a second LSTM (h0 = f) over the sketch decoder's concat features; at step t
  the pointer score of input cell j is (W r_t) . e_j, e_j the cell's `[SEP]` state; cells that
  cannot be referenced (padding, the target itself) score -1e9.

One addition to the paper, on by default (`relative_pointer`): the key of cell j also gets
learned embeddings of its row and column offset from the target (clipped to +-`max_offset`),
e_j + R[dr] + K[dc]. Formulas mostly point "two cells left" or "the block above", and absolute
row/column embeddings make a small model learn that once per position. A second one, also on
by default (`pointer_feedback`): the range decoder's input at step t also holds the state of the
cell pointed at by the previous `[RANGE]` slot (the gold one in training, the chosen one in
decoding; zeros before the first or after an unreachable one), so the second end of `A1:B2`
knows where the first went (without it, both ends of a pair tend to point at the same cell).
With both off the decoder is the paper's. A third, off by default (`copy`), is for the sheet
setting, where the input shows the other formulas: a head that scores copying each of them
against writing a new formula (`fortap.tasks.formula_prediction.copy_head`).

Everything is batch-first (the reference passed batch-first states into a sequence-first
attention layer, which scrambles memory for batch sizes above one). Step t reads sketch token t
and predicts token t + 1; its range score points at the cell of token t + 1 when that token is
`[RANGE]`. Letters: B batch, S sketch steps, T tokens, C cells, D hidden, V vocabulary (41).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from fortap.formula.tokens import FORMULA_VOCAB
from fortap.tasks.formula_prediction.copy_head import CopyHead

VOCAB = len(FORMULA_VOCAB)  # V = 41
PAD = VOCAB  # embedding row of padding steps (never predicted)
MASKED = -1e9  # score of a cell that cannot be pointed at


@dataclass(frozen=True)
class DecoderConfig:
    """Sizes of the formula decoder (the hidden width is the encoder's)."""

    layers: int = 3  # LSTM layers of the sketch and of the range decoder (the reference's 3)
    heads: int = 8  # cross-attention heads (the encoder width must divide by it)
    dropout: float = 0.1  # dropout between LSTM layers and on the concat features
    init_std: float = 0.02  # std of the normal init of embeddings and linear weights
    relative_pointer: bool = True  # add target-relative row/column embeddings to pointer keys
    pointer_feedback: bool = True  # feed the previously pointed cell to the range decoder
    max_offset: int = 16  # offsets beyond +-this share the outermost embedding
    copy: bool = False  # a copy head (the sheet setting): copy a shown formula or write one

    def __post_init__(self) -> None:
        for name in ("layers", "heads", "max_offset"):
            if getattr(self, name) < 1:
                raise ValueError(f"DecoderConfig.{name} must be >= 1, got {getattr(self, name)}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"DecoderConfig.dropout must be in [0, 1), got {self.dropout}")
        if self.init_std <= 0:
            raise ValueError(f"DecoderConfig.init_std must be positive, got {self.init_std}")


State = tuple[torch.Tensor, torch.Tensor]  # LSTM (h, c), each (layers, B, D)


class FormulaDecoder(nn.Module):
    """Sketch decoder and range pointer over one encoder's states (see module doc)."""

    def __init__(self, hidden: int, cfg: DecoderConfig | None = None) -> None:
        super().__init__()
        cfg = cfg or DecoderConfig()
        if hidden % cfg.heads:
            raise ValueError(
                f"DecoderConfig.heads ({cfg.heads}) must divide the encoder width ({hidden})"
            )
        self.cfg, self.hidden = cfg, hidden
        between = cfg.dropout if cfg.layers > 1 else 0.0
        self.embed = nn.Embedding(VOCAB + 1, hidden, padding_idx=PAD)
        self.sketch_lstm = nn.LSTM(hidden, hidden, cfg.layers, batch_first=True, dropout=between)
        self.attention = nn.MultiheadAttention(hidden, cfg.heads, batch_first=True)
        self.dropout = nn.Dropout(cfg.dropout)
        self.sketch_out = nn.Linear(2 * hidden, VOCAB)
        width = (3 if cfg.pointer_feedback else 2) * hidden
        self.range_lstm = nn.LSTM(width, hidden, cfg.layers, batch_first=True, dropout=between)
        self.range_query = nn.Linear(hidden, hidden)
        offsets = 2 * cfg.max_offset + 1
        self.offset_rows = nn.Embedding(offsets, hidden) if cfg.relative_pointer else None
        self.offset_cols = nn.Embedding(offsets, hidden) if cfg.relative_pointer else None
        self._init_weights()
        self.copy_head = CopyHead(hidden, cfg.max_offset, cfg.init_std) if cfg.copy else None

    def _init_weights(self) -> None:
        parts = (self.embed, self.sketch_out, self.range_query, self.offset_rows, self.offset_cols)
        for module in (m for m in parts if m is not None):
            nn.init.normal_(module.weight, mean=0.0, std=self.cfg.init_std)
            if getattr(module, "bias", None) is not None:
                nn.init.zeros_(module.bias)
        with torch.no_grad():
            self.embed.weight[PAD].zero_()

    def start_state(self, formula_state: torch.Tensor) -> State:
        """h0 = the target cell's state in every layer, c0 = 0."""
        h = (
            formula_state.unsqueeze(0).expand(self.cfg.layers, -1, -1).contiguous()
        )  # (layers, B, D)
        return h, torch.zeros_like(h)

    def sketch_step(
        self,
        tokens: torch.Tensor,  # (B, S) formula-vocabulary ids
        state: State,
        memory: torch.Tensor,  # (B, T, D) encoder token states
        memory_pad: torch.Tensor,  # (B, T) True on padding
    ) -> tuple[torch.Tensor, torch.Tensor, State]:
        """Run the sketch decoder over `tokens` from `state`: logits, concat features, new state."""
        x = self.embed(tokens)  # (B, S, D)
        out, state = self.sketch_lstm(x, state)  # (B, S, D)
        context, _ = self.attention(
            out, memory, memory, key_padding_mask=memory_pad, need_weights=False
        )  # (B, S, D)
        features = self.dropout(torch.cat([context, out], dim=-1))  # (B, S, 2D)
        return self.sketch_out(features), features, state  # (B, S, V), (B, S, 2D)

    def pointer_keys(
        self,
        cell_states: torch.Tensor,  # (B, C, D)
        offsets: torch.Tensor | None,  # (B, C, 2) cell (row, col) minus the target's
    ) -> torch.Tensor:
        """(B, C, D) what each cell offers a pointer: its state (+ its offset embeddings)."""
        if self.offset_rows is None or self.offset_cols is None:
            return cell_states
        if offsets is None:
            raise ValueError("FormulaDecoder: relative_pointer needs the cells' offsets")
        m = self.cfg.max_offset
        at = offsets.clamp(-m, m) + m  # (B, C, 2)
        return cell_states + self.offset_rows(at[..., 0]) + self.offset_cols(at[..., 1])

    def range_inputs(self, features: torch.Tensor, previous: torch.Tensor | None) -> torch.Tensor:
        """Range-decoder input: sketch features (+ the previously pointed cell's state)."""
        if not self.cfg.pointer_feedback:
            return features  # (B, S, 2D)
        if previous is None:
            previous = features.new_zeros(*features.shape[:2], self.hidden)
        return torch.cat([features, previous], dim=-1)  # (B, S, 3D)

    def range_scores(
        self,
        features: torch.Tensor,  # (B, S, 2D) sketch features of a whole sketch
        formula_state: torch.Tensor,  # (B, D)
        keys: torch.Tensor,  # (B, C, D) from `pointer_keys`
        candidates: torch.Tensor,  # (B, C) bool, True where a cell may be pointed at
        previous: torch.Tensor | None = None,  # (B, S, D) see `previous_pointed`
        state: State | None = None,
    ) -> tuple[torch.Tensor, State]:
        """(B, S, C) pointer scores of every step over the input cells, and the LSTM state."""
        x = self.range_inputs(features, previous)
        r, state = self.range_lstm(x, state or self.start_state(formula_state))  # (B, S, D)
        scores = self.range_query(r) @ keys.transpose(1, 2)  # (B, S, C)
        return scores.masked_fill(~candidates[:, None, :], MASKED), state  # (B, S, C)

    def forward(
        self,
        memory: torch.Tensor,  # (B, T, D)
        memory_pad: torch.Tensor,  # (B, T) True on padding
        formula_state: torch.Tensor,  # (B, D)
        cell_states: torch.Tensor,  # (B, C, D)
        candidates: torch.Tensor,  # (B, C) bool
        sketch_in: torch.Tensor,  # (B, S) teacher-forced sketch (ends with PAD where shorter)
        offsets: torch.Tensor | None = None,  # (B, C, 2)
        pointers: torch.Tensor | None = None,  # (B, S) gold cell index per step, < 0 for none
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Teacher-forced sketch logits (B, S, V) and range scores (B, S, C)."""
        logits, features, _ = self.sketch_step(
            sketch_in, self.start_state(formula_state), memory, memory_pad
        )
        previous = None if pointers is None else previous_pointed(cell_states, pointers)
        keys = self.pointer_keys(cell_states, offsets)
        ranges, _ = self.range_scores(features, formula_state, keys, candidates, previous)
        return logits, ranges


def previous_pointed(cell_states: torch.Tensor, pointers: torch.Tensor) -> torch.Tensor:
    """(B, S, D): at step t, the state of the cell pointed at by the last step before t that
    points (`pointers[b, s] >= 0`); zeros before the first. `cell_states` (B, C, D)."""
    b = torch.arange(cell_states.shape[0], device=cell_states.device)
    running = cell_states.new_zeros(cell_states.shape[0], cell_states.shape[-1])  # (B, D)
    out = []
    for t in range(pointers.shape[1]):
        out.append(running)
        ptr = pointers[:, t]  # (B,)
        pointed = cell_states[b, ptr.clamp(min=0)]  # (B, D)
        running = torch.where((ptr >= 0)[:, None], pointed, running)
    return torch.stack(out, dim=1)  # (B, S, D)
