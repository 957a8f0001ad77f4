"""The copy head of the formula decoder (the sheet setting): copy a shown formula, or write one.

When the input shows the other formula cells as their formulas, the target's formula is often
one of them moved to the target (a filled block, a row of totals). The head scores each copy
candidate j (a shown formula cell) against writing a new formula:

    score_j = (W_q f) . (W_k e_j + R[dr_j] + K[dc_j] + a_j u + V x_j) / sqrt(D) + g(x_j, ...)
    write = w . f

f is the target's `[SEP]` state, e_j the candidate's, (dr_j, dc_j) its offset from the target
(clipped to +-`max_offset`, so "the cell above" is learned once), and a_j = log(1 + number of
candidates whose copy is the same formula): agreement is what the fill rule cannot weigh. Each
candidate also carries `FEATURES` numbers x_j (where its copy's references land: on numbers,
empty or text cells, off the table, on the target; its length; how many table cells share its
source's R1C1; its place in the fill rule's order), which enter its key (V x_j) and, with
a_j, the offset and whether the candidate shares the target's row or column, a small network
g whose output is added to the score: the fill rule's knowledge as numbers, with the
interactions a linear term cannot weigh ("the cell above, and its copy reads numbers").
Non-candidates score `MASKED`; a softmax over the candidates and "write" gives the mixture
that decoding ranks by (`fortap.tasks.formula_prediction.copies.rank`).
"""

from __future__ import annotations

import math

import torch
from torch import nn

MASKED = -1e9  # score of a cell that is not a copy candidate
FEATURES = 9  # numbers per candidate (`fortap.tasks.formula_prediction.copies.copy_targets`)
SCORE_HIDDEN = 64  # width of the small network that scores a candidate's numbers


class CopyHead(nn.Module):
    def __init__(self, hidden: int, max_offset: int, init_std: float) -> None:
        super().__init__()
        self.max_offset = max_offset
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.offset_rows = nn.Embedding(2 * max_offset + 1, hidden)
        self.offset_cols = nn.Embedding(2 * max_offset + 1, hidden)
        self.agree = nn.Parameter(torch.zeros(hidden))
        self.write = nn.Linear(hidden, 1)
        self.feature_key = nn.Linear(FEATURES, hidden)
        self.feature_score = nn.Sequential(  # the numbers alone, with their interactions
            nn.Linear(FEATURES + 5, SCORE_HIDDEN), nn.GELU(), nn.Linear(SCORE_HIDDEN, 1)
        )  # fmt: skip
        parts = (self.query, self.key, self.offset_rows, self.offset_cols, self.write,
                 self.feature_key)  # fmt: skip
        for module in parts:
            nn.init.normal_(module.weight, mean=0.0, std=init_std)
            if getattr(module, "bias", None) is not None:
                nn.init.zeros_(module.bias)

    def forward(
        self,
        formula_state: torch.Tensor,  # (B, D) the target's [SEP] state
        cell_states: torch.Tensor,  # (B, C, D)
        offsets: torch.Tensor,  # (B, C, 2) each cell's (row, col) minus the target's
        agree: torch.Tensor,  # (B, C) candidates giving the same copy
        features: torch.Tensor,  # (B, C, FEATURES)
        mask: torch.Tensor,  # (B, C) True on copy candidates
    ) -> torch.Tensor:
        """(B, C + 1) scores: one per cell, then "write" in the last column."""
        m = self.max_offset
        at = offsets.clamp(-m, m) + m  # (B, C, 2)
        votes = torch.log1p(agree)[..., None]  # (B, C, 1)
        keys = (
            self.key(cell_states)
            + self.offset_rows(at[..., 0])
            + self.offset_cols(at[..., 1])
            + votes * self.agree
            + self.feature_key(features)
        )  # (B, C, D)
        query = self.query(formula_state)  # (B, D)
        scores = torch.einsum("bd,bcd->bc", query, keys) / math.sqrt(query.shape[-1])  # (B, C)
        place = offsets.float().clamp(-m, m) / m  # (B, C, 2)
        lines = (offsets == 0).float()  # (B, C, 2) same row, same column
        numbers = torch.cat([features, votes, place, lines], -1)  # (B, C, FEATURES + 5)
        scores = scores + self.feature_score(numbers)[..., 0]  # (B, C)
        scores = scores.masked_fill(~mask, MASKED)
        return torch.cat([scores, self.write(formula_state)], -1)  # (B, C + 1)
