"""What the encoder returns: token states and cell states.

Letters: B batch, T tokens, C cells, D hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class EncoderOutput:
    token_states: torch.Tensor  # (B, T, D) last-layer state of every token
    cell_states: torch.Tensor  # (B, C, D) state at each cell's [SEP] (zeros on padded cells)
