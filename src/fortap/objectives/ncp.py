"""Numerical calculation prediction (`ncp`; ForTaP's NCP, reference note §6.6).

For each operator or function among the paper's 17 (`fortap.formula.targets.NCP_CLASSES`:
the 13 operators, SUM, AVERAGE, MAX, MIN) whose direct operands are all numeric cell
references, the states of those operand cells are mean-pooled and classified into the 17
classes. The groups come with the corpus sample (`FormulaTargets.ncp`, cell ids, only
groups whose cells are all in the input); nothing is random here. Besides the sample's own
formula, the table's other kept formulas whose operands are all in the input give groups too
(`ncp_neighbours`: those cells show values, so their operators are not in the input); the
reference used the sample's formula only, which left about one group per four samples.

By default a sample that shows its formula as tokens gives no NCP target for that formula
(`skip_formula_tokens`): the operator would be in the input, one attention hop away.

Head: Linear → GELU → Linear(17). Letters: B batch, C cells, G groups in the batch, D hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from fortap.encoding.example import Batch
from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.formula.targets import NCP_CLASSES
from fortap.model.output import EncoderOutput
from fortap.objectives.base import Objective, TargetContext, hidden_size
from fortap.objectives.draft import Draft, on_example

NAME = "ncp"


@dataclass(frozen=True)
class NcpConfig:
    skip_formula_tokens: bool = True  # no NCP target when the formula itself is in the input

    def __post_init__(self) -> None:
        if not isinstance(self.skip_formula_tokens, bool):
            raise ValueError(
                f"NcpConfig.skip_formula_tokens must be a bool, got {self.skip_formula_tokens!r}"
            )


def build(draft: Draft, cfg: NcpConfig, ctx: TargetContext) -> None:
    """Targets: `groups`, a list of [class id, [cell ids]]."""
    groups = draft.remember(
        NAME, lambda sample: operand_groups(sample.targets.get(FORMULA_KEY), cfg)
    )
    draft.targets[NAME] = {"groups": [[label, list(cells)] for label, cells in groups]}


targets = on_example(build)  # the same on an `Example`, returning a new one


def operand_groups(facts: FormulaTargets | None, cfg: NcpConfig) -> list:
    """The NCP groups of a sample's formula facts: its formula's (unless shown as tokens and
    `skip_formula_tokens`), then those of the table's other formulas (`ncp_neighbours`)."""
    if not facts:
        return []
    return facts.ncp_groups(own=not (cfg.skip_formula_tokens and facts.mode == "tokens"))


def collate(values: list[dict | None], batch: Batch) -> dict[str, torch.Tensor]:
    """`batch_index` (G,), `members` (G, C) bool over 0-based cells, `labels` (G,)."""
    C = batch.sep_index.shape[1]
    groups = [(b, label, cells) for b, v in enumerate(values) if v for label, cells in v["groups"]]
    members = np.zeros((len(groups), C), dtype=bool)  # (G, C)
    members[[g for g, (_, _, cells) in enumerate(groups) for _ in cells],
            [c - 1 for _, _, cells in groups for c in cells]] = True  # fmt: skip
    members = torch.from_numpy(members)
    as_long = lambda xs: torch.tensor(xs, dtype=torch.long)  # noqa: E731
    return {"batch_index": as_long([b for b, _, _ in groups]), "members": members,
            "labels": as_long([label for _, label, _ in groups])}  # fmt: skip


class NumericalCalculationHead(nn.Module):
    """Mean of the operand cells' states -> operator class."""

    def __init__(self, encoder: nn.Module, cfg: NcpConfig | None = None) -> None:
        super().__init__()
        D = hidden_size(encoder)
        self.classify = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.Linear(D, len(NCP_CLASSES)))
        for module in self.classify:
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)

    def forward(self, output: EncoderOutput, batch: Batch) -> torch.Tensor:
        target = batch.targets[NAME]
        cells = output.cell_states[target["batch_index"]]  # (G, C, D)
        members = target["members"].to(cells.dtype).unsqueeze(-1)  # (G, C, 1)
        pooled = (cells * members).sum(1) / members.sum(1).clamp(min=1)  # (G, D)
        return self.classify(pooled)  # (G, 17)


def loss(scores: torch.Tensor, target: dict[str, torch.Tensor]) -> torch.Tensor:
    if scores.shape[0] == 0:
        return scores.sum() * 0.0
    return F.cross_entropy(scores.float(), target["labels"])


def metric(scores: torch.Tensor, target: dict[str, torch.Tensor]) -> dict[str, float]:
    n = scores.shape[0]
    hits = int((scores.argmax(-1) == target["labels"]).sum()) if n else 0
    return {"acc": hits / n if n else 0.0, "n": float(n)}


OBJECTIVE = Objective(
    name=NAME,
    config=NcpConfig,
    build=build,
    collate=collate,
    head=NumericalCalculationHead,
    loss=loss,
    metric=metric,
    order=25,
)
