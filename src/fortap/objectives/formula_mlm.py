"""Formula masked language modelling (`formula_mlm`; ForTaP's formula MLM, reference note §6.7).

Only for samples that show their formula as tokens (`FormulaTargets.tokens`). With
chance `operator_rate` every operator and function token of the formula is masked, otherwise
every reference token (when the drawn kind has none, the other kind is masked):

- a masked operator becomes [MASK] (it keeps the formula cell's position, format and number
  features, which it had already) and is recovered over the 41-token formula vocabulary;
- a masked reference becomes [MASK] with "not a number" features and the formula cell's row,
  column, tree coordinates and format, so nothing of the referenced cell leaks through its
  position; it is recovered by pointing at the referenced cell among the input cells. A
  reference whose cell is not in the input is masked but has no target.

Heads: operators Linear → GELU → LayerNorm → Linear(41); references score
(W·h_mask)·h_cell over the example's cells. Loss: the sum of the two cross-entropies.
Letters: B batch, C cells, N masked operators, M masked references, D hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from fortap.encoding.arrays import NUMBERS, POSITION, TOKEN, ExampleArrays
from fortap.encoding.example import Batch
from fortap.encoding.formula_targets import FORMULA_KEY
from fortap.formula.tokens import FORMULA_VOCAB
from fortap.model.output import EncoderOutput
from fortap.objectives.base import Objective, TargetContext, hidden_size
from fortap.objectives.draft import Draft, on_example
from fortap.text.numbers import NOT_A_NUMBER
from fortap.text.tokenizer import FORMULA_TOKEN_BASE

NAME = "formula_mlm"


@dataclass(frozen=True)
class FormulaMlmConfig:
    operator_rate: float = 0.5  # chance of masking the operators (else the references)

    def __post_init__(self) -> None:
        if not 0.0 <= self.operator_rate <= 1.0:
            raise ValueError(
                f"FormulaMlmConfig.operator_rate must be in [0, 1], got {self.operator_rate}"
            )


def build(draft: Draft, cfg: FormulaMlmConfig, ctx: TargetContext) -> None:
    """Targets: `op_positions`/`op_labels` (vocab ids) and `ref_positions`/`ref_cells` (ids)."""
    facts = draft.facts
    target: dict[str, list[int]] = {
        "op_positions": [],
        "op_labels": [],
        "ref_positions": [],
        "ref_cells": [],
    }
    ops, refs = draft.remember(NAME, formula_tokens)
    if ops or refs:
        use_ops = ctx.rng.random() < cfg.operator_rate
        if not (ops if use_ops else refs):
            use_ops = not use_ops
        chosen = ops if use_ops else refs
        sep = draft.starts[facts.cell]  # the formula cell's [SEP]
        at = [sep + offset for offset, _, _, _ in chosen]
        ints, formats = draft.writable([facts.cell])
        shown = ints[at, TOKEN] - FORMULA_TOKEN_BASE  # (n,) the facts match the tokens
        assert shown.tolist() == [vocab for _, _, vocab, _ in chosen], (at, shown)
        ints[at, TOKEN] = ctx.vocab.mask
        if use_ops:
            target["op_positions"] = at
            target["op_labels"] = [vocab for _, _, vocab, _ in chosen]
        else:
            ints[at, NUMBERS] = NOT_A_NUMBER
            ints[at, POSITION] = ints[sep, POSITION]
            formats[at] = formats[sep]
            target["ref_positions"] = [pos for pos, t in zip(at, chosen, strict=True) if t[3]]
            target["ref_cells"] = [ref for _, _, _, ref in chosen if ref]
    draft.targets[NAME] = target


targets = on_example(build)  # the same on an `Example`, returning a new one


def formula_tokens(sample: ExampleArrays) -> tuple[list, list]:
    """(operator tokens, reference tokens) of a sample's formula (`FormulaTargets.tokens`)."""
    facts = sample.targets.get(FORMULA_KEY)
    tokens = facts.tokens if facts else ()
    return [t for t in tokens if t[1] == "op"], [t for t in tokens if t[1] == "ref"]


def collate(values: list[dict | None], batch: Batch) -> dict[str, torch.Tensor]:
    """Flat (N,) operator tensors and flat (M,) reference tensors (cells 0-based)."""
    op_b, op_pos, op_lab, ref_b, ref_pos, ref_cell = [], [], [], [], [], []
    for b, target in enumerate(values):
        if not target:
            continue
        op_b += [b] * len(target["op_positions"])
        op_pos += target["op_positions"]
        op_lab += target["op_labels"]
        ref_b += [b] * len(target["ref_positions"])
        ref_pos += target["ref_positions"]
        ref_cell += [c - 1 for c in target["ref_cells"]]
    as_long = lambda xs: torch.tensor(xs, dtype=torch.long)  # noqa: E731
    return {"op_batch": as_long(op_b), "op_index": as_long(op_pos), "op_labels": as_long(op_lab),
            "ref_batch": as_long(ref_b), "ref_index": as_long(ref_pos), "ref_cells": as_long(ref_cell)}  # fmt: skip


class FormulaMlmHead(nn.Module):
    """Operator decoder over the formula vocabulary and a pointer from references to cells."""

    def __init__(self, encoder: nn.Module, cfg: FormulaMlmConfig | None = None) -> None:
        super().__init__()
        D = hidden_size(encoder)
        self.operator = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.LayerNorm(D, eps=1e-12),
                                      nn.Linear(D, len(FORMULA_VOCAB)))  # fmt: skip
        self.pointer = nn.Linear(D, D)
        self.scale = D**-0.5  # scaled dot products, as in cell cloze: logits stay O(1) at start
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)

    def forward(self, output: EncoderOutput, batch: Batch) -> dict[str, torch.Tensor]:
        target = batch.targets[NAME]
        tokens = output.token_states  # (B, T, D)
        ops = self.operator(tokens[target["op_batch"], target["op_index"]])  # (N, 41)
        query = self.pointer(tokens[target["ref_batch"], target["ref_index"]])  # (M, D)
        keys = output.cell_states[target["ref_batch"]]  # (M, C, D)
        refs = (keys @ query.unsqueeze(-1)).squeeze(-1) * self.scale  # (M, C)
        refs = refs.masked_fill(~batch.cell_mask[target["ref_batch"]], -1e4)  # (M, C)
        return {"op": ops, "ref": refs}


def loss(scores: dict[str, torch.Tensor], target: dict[str, torch.Tensor]) -> torch.Tensor:
    total = scores["op"].sum() * 0.0 + scores["ref"].sum() * 0.0  # keeps the graph when empty
    if scores["op"].shape[0]:
        total = total + F.cross_entropy(scores["op"].float(), target["op_labels"])
    if scores["ref"].shape[0]:
        total = total + F.cross_entropy(scores["ref"].float(), target["ref_cells"])
    return total


def metric(scores: dict[str, torch.Tensor], target: dict[str, torch.Tensor]) -> dict[str, float]:
    """Accuracy over all masked tokens with a target, and per kind."""
    n_op, n_ref = scores["op"].shape[0], scores["ref"].shape[0]
    op_hits = int((scores["op"].argmax(-1) == target["op_labels"]).sum()) if n_op else 0
    ref_hits = int((scores["ref"].argmax(-1) == target["ref_cells"]).sum()) if n_ref else 0
    n = n_op + n_ref
    return {"acc": (op_hits + ref_hits) / n if n else 0.0, "n": float(n),
            "acc_op": op_hits / n_op if n_op else 0.0, "n_op": float(n_op),
            "acc_ref": ref_hits / n_ref if n_ref else 0.0, "n_ref": float(n_ref)}  # fmt: skip


OBJECTIVE = Objective(
    name=NAME,
    config=FormulaMlmConfig,
    build=build,
    collate=collate,
    head=FormulaMlmHead,
    loss=loss,
    metric=metric,
    order=20,
)
