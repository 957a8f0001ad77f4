"""`audit`: a workbook's findings: the checks find, the auditor plans, budgets and scores.

Each check of `checks.CHECKS` reads every sheet audited (`checks.base.AuditedSheet`: its parsed
formulas, its typed numbers, and the years and codes among them that are labels, `labels`) and
returns its findings unscored (`checks.base.Found`); one finding per cell and kind stands, the
first check's. Some ask for the suggestion engine (`Found.engine`: `typed_numbers` asks for every
typed number the structure did not settle). A suggest call costs 10-45 ms, so asking it for
every number of a 10,000-number model would take minutes: the auditor puts those asks in one
fixed order (`Found.priority`, the structure's pointers first; ties by sheet, row, column) and
grants the first `AuditConfig.max_checks`, a count that keeps an audit to seconds and its
findings the same on every run. The order and the grant are the whole book's even when only
some sheets are audited, so a sheet's findings do not depend on whether the others are. `check_seconds` is a safety stop only (off by default): once
the engine checks took that long no other starts, and `Audit.stopped` says so, since a run
stopped by the clock checks as many numbers as the machine allowed. Each finding's facts are
scored (`score.Weights`, one model per kind over the facts its checks declare); findings under
their kind's threshold (`AuditConfig.cutoff`) are dropped. Every typed number is scored: one the
structure and the engine say nothing of scores the share of key cells among such numbers where
the weights were fitted (`score.Weights.base_rate`), under any fitted threshold. `Audit` counts
how each was scored: by the structure alone (not given engine checks) or with the engine's
checks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fortap.audit import checks
from fortap.audit.checks.base import AuditedSheet, Check, Found, read_sheet
from fortap.audit.findings import KINDS, Finding
from fortap.audit.score import WEIGHTS_FILE, Weights, load_weights
from fortap.errors import FortapError
from fortap.formula.references import quote_sheet
from fortap.sheet.model import a1
from fortap.suggest.api import Suggester


@dataclass(frozen=True)
class AuditConfig:
    """What an audit checks and reports."""

    # findings scored below this are not reported (None: each kind's threshold fitted with the
    # weights, `cutoff`)
    min_score: float | None = None
    max_checks: int = 300  # findings asking for the engine (typed numbers the structure did not
    # settle) given its candidates, in order
    check_seconds: float = 0.0  # safety stop: no check starts once they took this long (0: none)
    top: int = 3  # suggestions previewed per typed number checked
    weights: Path | Weights | None = None  # a weights.json, or loaded weights (None: shipped)

    def __post_init__(self) -> None:
        if self.min_score is not None and not 0.0 <= self.min_score <= 1.0:
            raise FortapError(f"AuditConfig.min_score must be in [0, 1], got {self.min_score}")
        if self.max_checks < 0 or self.top < 1 or self.check_seconds < 0:
            raise FortapError(
                "AuditConfig.max_checks and check_seconds must be >= 0, AuditConfig.top >= 1"
            )

    def load_weights(self) -> Weights:
        """The weights the audit scores with (`weights`, or the shipped ones)."""
        if isinstance(self.weights, Weights):
            return self.weights
        return load_weights(WEIGHTS_FILE if self.weights is None else self.weights)

    def cutoff(self) -> dict[str, float]:
        """The score a finding of each kind needs to be reported."""
        if self.min_score is None:
            return dict(self.load_weights().thresholds)
        return dict.fromkeys(KINDS, self.min_score)


@dataclass(frozen=True)
class Audit:
    """An audit's findings (best score first) and how much of the workbook was checked."""

    findings: list[Finding]
    typed: int  # typed numbers in the sheets audited (labels apart)
    checked: int  # of them, given the engine's candidates
    formulas: int  # formula cells in the sheets audited
    labels: int  # typed years and codes read as labels (`labels`), not audited
    planned: int  # engine checks the book's budget grants the sheets audited (`audit`)
    stopped: bool  # the safety stop (`check_seconds`) ended the checks before `planned`
    seconds: float  # wall time of the audit (the one field that differs between runs)

    @property
    def by_structure(self) -> int:
        """Typed numbers the structure alone scored (a hole's previewed fix, or no hole: the
        base rate), not given engine checks; the engine's checks scored the other `checked`,
        with the structure's facts too."""
        return self.typed - self.checked

    def to_json(self) -> dict:
        """The counts and findings, as `fortap audit --json` prints them (less the book)."""
        return {"typed_numbers": self.typed, "labels": self.labels, "formulas": self.formulas,
                "planned_checks": self.planned, "checked": self.checked,
                "scored_by_structure": self.by_structure, "scored_by_engine": self.checked,
                "stopped_by_check_seconds": self.stopped,
                "seconds": round(self.seconds, 3),
                "findings": [f.to_json() for f in self.findings]}  # fmt: skip


Key = tuple[str, str, tuple[int, int]]  # a finding's kind, sheet and cell


def audit(
    sg: Suggester,
    sheets: list[str] | None = None,
    cfg: AuditConfig | None = None,
    update: Callable[[float, str], None] | None = None,
) -> Audit:
    """Findings of the sheets named (default: all), best score first. The engine's checks are
    granted over the whole book, then those of the sheets named run: a sheet's findings are the
    same whether it is audited alone or with the rest of its workbook."""
    begin = time.perf_counter()
    cfg = cfg or AuditConfig()
    weights, cut = cfg.load_weights(), cfg.cutoff()
    every = [read_sheet(sg, name, cfg.top) for name in sg.context.sheet_names()]
    chosen = set(sheets or sg.context.sheet_names())
    if unknown := sorted(chosen - set(sg.context.sheet_names())):
        raise FortapError(f"no sheet {', '.join(map(repr, unknown))} in {sg.workbook.path}")
    read = [s for s in every if s.name in chosen]
    found = _find(every, checks.CHECKS)
    granted = plan(found)[: cfg.max_checks]  # the book's budget, in its one order
    found = {key: v for key, v in found.items() if key[1] in chosen}
    granted = [key for key in granted if key[1] in chosen]
    planned = len(granted)
    done, stopped = _ask_engine(found, granted, cfg.check_seconds, update)
    scored = [_scored(check, sheet, f, weights) for (_, sheet, _), (check, f) in found.items()]
    kept = [f for f in scored if f.score >= cut[f.kind]]
    kept.sort(key=lambda f: (-f.score, f.sheet, f.row, f.col))
    typed, heads = sum(len(s.typed) for s in read), sum(len(s.labels) for s in read)
    formulas = sum(len(s.context.cells) for s in read)
    seconds = time.perf_counter() - begin
    return Audit(kept, typed, done, formulas, heads, planned, stopped, seconds)


def _find(read: list[AuditedSheet], every: tuple[Check, ...]) -> dict[Key, tuple[Check, Found]]:
    """Every check's findings on every sheet, one per cell and kind: the first check's (a
    short total stands for its cell over a break of a block), its facts the declared ones."""
    out: dict[Key, tuple[Check, Found]] = {}
    for sheet in read:
        for check in every:
            names = {fact.name for fact in check.facts}
            for f in check.find(sheet):
                if unknown := sorted(set(f.facts) - names):
                    where = f"{quote_sheet(sheet.name)}!{a1(*f.cell)}"
                    raise FortapError(f"check {check.name!r} wrote facts it does not declare "
                                      f"at {where}: {', '.join(unknown)}")  # fmt: skip
                out.setdefault((check.kind, sheet.name, f.cell), (check, f))
    return out


def plan(found: dict[Key, tuple[Check, Found]]) -> list[Key]:
    """The findings that ask for the engine, in the one order its checks are granted in: the
    structure's pointers first (`Found.priority`), then sheet, row, column."""
    asking = [key for key, (_, f) in found.items() if f.engine is not None]
    return sorted(asking, key=lambda key: (-found[key][1].priority, key[1], key[2], key[0]))


def _ask_engine(found: dict[Key, tuple[Check, Found]], granted: list[Key], check_seconds: float,
                update: Callable[[float, str], None] | None) -> tuple[int, bool]:  # fmt: skip
    """Each granted finding replaced by its engine check's, in order, until the safety stop
    (`check_seconds` since the first, 0: none); how many ran, and whether the stop cut them."""
    start = time.perf_counter()
    for done, key in enumerate(granted):
        if check_seconds and time.perf_counter() - start >= check_seconds:
            return done, True
        check, f = found[key]
        if update is not None:
            update(done, f"{quote_sheet(key[1])}!{a1(*f.cell)}")
        found[key] = (check, f.engine())  # `plan` queues only the findings that ask
    return len(granted), False


def _scored(check: Check, sheet: str, f: Found, weights: Weights) -> Finding:
    score = weights.score(check.kind, f.facts)
    return Finding(sheet, *f.cell, check.kind, score, f.evidence, f.fix, tuple(f.facts.items()))
