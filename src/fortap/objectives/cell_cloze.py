"""Cell-level cloze (`cell_cloze`; TUTA's CLC, reference note §5.3).

Targets: a few word-holding table cells are blanked in place to `[SEP] [EMP]` (they keep their
position, tree coordinates and format) and their original pieces are appended after the table
as out-of-table items, shuffled. Cells that a formula sample's ForTaP objectives read
(`draft.formula_related`) are never blanked. The model must point from each appended item back to its
blank: the appended [SEP] state picks the blank's [SEP], the mean of the appended pieces picks
the blank's [EMP]. Candidates are the blanks of the same example.

Head: score = (W_q·x_query) · (W_k·x_key) / sqrt(D). The reference shares one projection
q = tanh(W·x) for both sides; here each side has its own (a pointer from an answer to a blank is
not symmetric) and the score is not squashed, so gradients do not fade with saturation.
Loss: the mean of the two cross-entropies. Letters: B batch, Q blanks per example, T, C, D.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from fortap.encoding.arrays import CELL, ExampleArrays
from fortap.encoding.example import Batch
from fortap.model.output import EncoderOutput
from fortap.objectives.base import Objective, TargetContext, hidden_size, padded
from fortap.objectives.draft import Draft, formula_related, in_table, on_example, word_tokens
from fortap.objectives.vocab import Vocab

NAME = "cell_cloze"


@dataclass(frozen=True)
class CellClozeConfig:
    cell_rate: float = 0.1  # share of word-holding table cells blanked
    min_cells: int = 2  # fewer candidates than this: no cloze in this example
    max_cells: int = 6  # at most this many blanks
    tree_slots: int = 32  # appended items get the tree coordinate (r, r, r, r), r < this

    def __post_init__(self) -> None:
        if not 0.0 <= self.cell_rate <= 1.0:
            raise ValueError(f"CellClozeConfig.cell_rate must be in [0, 1], got {self.cell_rate}")
        if not 2 <= self.min_cells <= self.max_cells:
            raise ValueError("CellClozeConfig needs 2 <= min_cells <= max_cells")
        if not 1 <= self.tree_slots <= 32:
            raise ValueError(f"CellClozeConfig.tree_slots must be in 1..32, got {self.tree_slots}")


def build(draft: Draft, cfg: CellClozeConfig, ctx: TargetContext) -> None:
    """Blank cells and append their content; targets: `blanks` and `answers` (cell ids, paired)."""
    vocab, rng = ctx.vocab, ctx.rng
    candidates = draft.remember(NAME, lambda sample: word_cells(sample, vocab))
    blanks: list[int] = []
    if len(candidates) >= cfg.min_cells:
        n = min(cfg.max_cells, max(cfg.min_cells, round(cfg.cell_rate * len(candidates))))
        chosen = rng.sample(candidates, n)
        room = ctx.max_tokens - len(draft)
        for cell in chosen:
            # blanking turns n pieces into one [EMP] (1 - n); the answer adds [SEP] + n pieces
            if room >= 2:
                blanks.append(cell)
                room -= 2
    if len(blanks) < cfg.min_cells:
        blanks = []
    contents = {cell: draft.content(cell) for cell in blanks}
    draft.blank(blanks, vocab.emp)
    answers: dict[int, int] = {}
    for cell in rng.sample(blanks, len(blanks)):  # appended in shuffled order
        answers[cell] = draft.append(
            contents[cell], vocab.sep, draft.free_slot(rng, cfg.tree_slots)
        )
    draft.targets[NAME] = {"blanks": blanks, "answers": [answers[c] for c in blanks]}


targets = on_example(build)  # the same on an `Example`, returning a new one


def word_cells(sample: ExampleArrays, vocab: Vocab) -> list[int]:
    """The table cells of `sample` that hold a word piece (not special, not a number) and that
    no ForTaP objective reads (`formula_related`), in cell order: the cells cloze may blank."""
    word = word_tokens(sample.ints, vocab)  # (T,)
    related = formula_related(sample)
    found = np.unique(sample.ints[word & in_table(sample)[sample.ints[:, CELL]], CELL]).tolist()
    return [cell for cell in found if cell not in related]


def collate(values: list[dict | None], batch: Batch | None = None) -> dict[str, torch.Tensor]:
    """`blanks`, `answers`: (B, Q) 0-based cell indices (into `sep_index`), `mask`: (B, Q) bool."""
    values = [v or {"blanks": [], "answers": []} for v in values]
    blanks, mask = padded([[c - 1 for c in v["blanks"]] for v in values], np.int64)  # (B, Q)
    answers, _ = padded([[c - 1 for c in v["answers"]] for v in values], np.int64)  # (B, Q)
    as_tensor = torch.from_numpy
    return {"blanks": as_tensor(blanks), "answers": as_tensor(answers), "mask": as_tensor(mask)}


class CellClozeHead(nn.Module):
    """Scores every (appended item, blank) pair of an example, twice: [SEP]s and pieces."""

    def __init__(self, encoder: nn.Module, cfg: CellClozeConfig | None = None) -> None:
        super().__init__()
        D = hidden_size(encoder)
        self.query = nn.Linear(D, D)
        self.key = nn.Linear(D, D)
        self.scale = D**-0.5
        for linear in (self.query, self.key):
            nn.init.normal_(linear.weight, std=0.02)
            nn.init.zeros_(linear.bias)

    def forward(self, output: EncoderOutput, batch: Batch) -> dict[str, torch.Tensor]:
        target = batch.targets[NAME]
        blanks, answers, mask = target["blanks"], target["answers"], target["mask"]
        states = output.token_states  # (B, T, D)
        sep_of = lambda cells: batch.sep_index.gather(1, cells)  # noqa: E731  (B, Q) token index
        key_sep = _gather(states, sep_of(blanks))  # (B, Q, D)
        key_emp = _gather(states, sep_of(blanks) + 1)  # (B, Q, D) the blank's [EMP]
        query_sep = _gather(states, sep_of(answers))  # (B, Q, D)
        members = (batch.cell_ids.unsqueeze(1) == answers.unsqueeze(2) + 1) & (
            batch.in_cell_pos.unsqueeze(1) > 0
        )  # (B, Q, T) pieces of each appended item
        members = members.to(states.dtype)
        query_tok = members @ states / members.sum(-1, keepdim=True).clamp(min=1)  # (B, Q, D)
        hide = ~mask.unsqueeze(1)  # (B, 1, Q) padded blanks are not candidates
        sep_scores = self._scores(query_sep, key_sep).masked_fill(hide, -1e4)  # (B, Q, Q)
        tok_scores = self._scores(query_tok, key_emp).masked_fill(hide, -1e4)  # (B, Q, Q)
        return {"sep": sep_scores, "tok": tok_scores}  # (B, Q, Q) each

    def _scores(self, queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        """(B, Q, D) x (B, Q, D) -> (B, Q, Q) scaled dot products."""
        return self.query(queries) @ self.key(keys).transpose(1, 2) * self.scale


def _gather(states: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """states (B, T, D), index (B, Q) -> (B, Q, D)."""
    return states.gather(1, index.unsqueeze(-1).expand(-1, -1, states.shape[-1]))


def _labels(target: dict[str, torch.Tensor]) -> torch.Tensor:
    """Query i answers blank i; padded queries are ignored (-100)."""
    B, Q = target["mask"].shape
    labels = torch.arange(Q, device=target["mask"].device).expand(B, Q).clone()
    return labels.masked_fill(~target["mask"], -100)


def loss(scores: dict[str, torch.Tensor], target: dict[str, torch.Tensor]) -> torch.Tensor:
    labels = _labels(target).flatten()  # (B·Q,)
    if not bool((labels >= 0).any()):
        return scores["sep"].sum() * 0.0
    parts = [
        F.cross_entropy(scores[key].float().flatten(0, 1), labels, ignore_index=-100)
        for key in ("sep", "tok")
    ]
    return (parts[0] + parts[1]) / 2


def metric(scores: dict[str, torch.Tensor], target: dict[str, torch.Tensor]) -> dict[str, float]:
    labels = _labels(target)
    valid = labels >= 0
    n = int(valid.sum())
    hits = ((scores["sep"].argmax(-1) == labels) & valid).sum().item() if n else 0
    return {"acc": hits / n if n else 0.0, "n": float(n)}


OBJECTIVE = Objective(
    name=NAME,
    config=CellClozeConfig,
    build=build,
    collate=collate,
    head=CellClozeHead,
    loss=loss,
    metric=metric,
    order=10,
)
