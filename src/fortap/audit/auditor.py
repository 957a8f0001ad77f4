"""`audit`: a workbook's findings, structure first, the engine's candidates for the rest.

For each sheet: formula cells that break their block (`inconsistent.breaks`) and typed numbers
in runs of formulas (`missing.holes`) are found from the parsed R1C1 texts alone. Years and codes
that head a block (`labels`) are labels, not typed numbers: they end runs as text does. The
structure decides first, for every typed number: a number in a run with formulas gets the run's
formula re-anchored to it (its hole's fix) previewed at the cell (about 1 ms), and a fix that
gives the typed value settles it; a number in no run with formulas has no block asking for a
formula (a hole whose fix leaves the sheet has no preview). The numbers not settled are put in
one fixed order (`plan`: those the structure points at first, a hole between two equal
formulas, a high share of formulas in the run, the last number of a run where totals stand;
ties by sheet, row, column), and the first `AuditConfig.max_checks` get the suggestion engine's
top suggestions (`evidence.candidates`). A suggest call costs 10-45 ms, so asking it for every
number of a 10,000-number model would take minutes; the budget, a count of engine checks, keeps
an audit to seconds and its findings the same on every run. `check_seconds` is a safety stop
only (off by default): once the checks took that long no other starts, and `Audit.stopped` says
so, since a run stopped by the clock checks as many numbers as the machine allowed. Each cell's
facts are scored (`score.combine`, fitted weights); findings under their kind's threshold
(`AuditConfig.cutoff`) are dropped. Every typed number is scored: one the structure and the
engine say nothing of (no hole, no matching candidate) scores the share of key cells among such
numbers where the weights were fitted (`score.Weights.base_rate`), under any fitted threshold.
`Audit` counts how each was scored: by the structure alone (not given engine checks) or with
the engine's checks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from fortap.audit import evidence
from fortap.audit.aggregates import Short, adds_up_to, shorts, totalled
from fortap.audit.display import same_shown
from fortap.audit.findings import INCONSISTENT, KINDS, MISSING, Finding
from fortap.audit.inconsistent import Break, breaks, describe
from fortap.audit.labels import labels
from fortap.audit.missing import Hole, holes, line_holes, numbers
from fortap.audit.score import combine, default_thresholds
from fortap.audit.structure import AXES, AXIS_NAMES, runs
from fortap.errors import FortapError
from fortap.sheet.model import a1
from fortap.suggest import api
from fortap.suggest.api import SheetContext, Suggester

WEAK_SOURCES = frozenset({"verbatim", "induced", "echo", "book"})  # matches: `weak_equal`
# `run_cells` of a break counts up to this: the 75th percentile of the run lengths of the TASI
# key's inconsistent-formula findings (13 cells), which the weights are fitted on
RUN_SEEN = 13


@dataclass(frozen=True)
class AuditConfig:
    """What an audit checks and reports."""

    # findings scored below this are not reported (None: each kind's threshold fitted with the
    # weights, `cutoff`)
    min_score: float | None = None
    max_checks: int = 300  # typed numbers per workbook the structure did not settle given the
    # engine's candidates, in order
    check_seconds: float = 0.0  # safety stop: no check starts once they took this long (0: none)
    top: int = 3  # suggestions previewed per typed number checked

    def __post_init__(self) -> None:
        if self.min_score is not None and not 0.0 <= self.min_score <= 1.0:
            raise FortapError(f"AuditConfig.min_score must be in [0, 1], got {self.min_score}")
        if self.max_checks < 0 or self.top < 1 or self.check_seconds < 0:
            raise FortapError(
                "AuditConfig.max_checks and check_seconds must be >= 0, AuditConfig.top >= 1"
            )

    def cutoff(self) -> dict[str, float]:
        """The score a finding of each kind needs to be reported."""
        if self.min_score is None:
            return default_thresholds()
        return dict.fromkeys(KINDS, self.min_score)


@dataclass(frozen=True)
class Audit:
    """An audit's findings (best score first) and how much of the workbook was checked."""

    findings: list[Finding]
    typed: int  # typed numbers in the sheets audited (labels apart)
    checked: int  # of them, given the engine's candidates
    formulas: int  # formula cells in the sheets audited
    labels: int  # typed years and codes read as labels (`labels`), not audited
    planned: int  # engine checks the budget allows: min(max_checks, typed not settled)
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


def audit(
    sg: Suggester,
    sheets: list[str] | None = None,
    cfg: AuditConfig | None = None,
    update: Callable[[float, str], None] | None = None,
) -> Audit:
    """Findings of the sheets named (default: all), best score first."""
    cfg = cfg or AuditConfig()
    begin = time.perf_counter()
    found: list[Finding] = []
    queue: list[Planned] = []
    formulas = heads = 0
    typed_of: dict[str, set[tuple[int, int]]] = {}  # sheet -> its typed numbers, labels too
    for name in sheets or sg.context.sheet_names():
        sc = sg.context.sheet(name)
        formulas += len(sc.cells)
        typed = typed_of[sc.sheet.name] = numbers(sc)
        named = labels(sc, typed)
        found += _formula_findings(sg, name, sc, named)
        heads += len(named)
        queue += plan(sc, typed - named)
    queue.sort(key=lambda p: p.order)
    # the structure decides first: every hole's fix previewed at its cell (about 1 ms each);
    # a number it gives is settled, and the engine checks only the others. The safety stop's
    # clock starts here, though it stops engine checks only
    start = time.perf_counter()
    fixed = {(p.sheet, p.cell): _fix_number(sg, p) for p in queue if p.hole is not None}
    settled = {place for place, (_, equal) in fixed.items() if equal}
    planned = min(cfg.max_checks, len(queue) - len(settled))
    checks, stopped = 0, False
    totals: dict[str, set[tuple[int, int]]] = {}  # sheet -> its typed numbers a total adds up
    cut = cfg.cutoff()
    for p in queue:
        engine = (p.sheet, p.cell) not in settled and checks < planned and not stopped
        if engine and cfg.check_seconds and time.perf_counter() - start >= cfg.check_seconds:
            engine, stopped = False, True
        if engine and update is not None:
            update(checks, f"{p.sheet}!{a1(*p.cell)}")
        checks += engine
        sc = sg.context.sheet(p.sheet)
        if engine and p.sheet not in totals:
            totals[p.sheet] = totalled(sc, typed_of[p.sheet])
        got = fixed.get((p.sheet, p.cell), (None, False))
        finding = _missing(sg, sc, p, engine, got, totals.get(p.sheet, set()), cfg, cut)
        if finding is not None:
            found.append(finding)
    found = [f for f in found if f.score >= cut[f.kind]]
    found.sort(key=lambda f: (-f.score, f.sheet, f.row, f.col))
    seconds = time.perf_counter() - begin
    return Audit(found, len(queue), checks, formulas, heads, planned, stopped, seconds)


def _fix_number(sg: Suggester, p: Planned) -> tuple[float | None, bool]:
    """The hole's fix previewed at the cell: its number, and whether it shows the typed one."""
    if p.hole is None or p.hole.fix is None:
        return None, False
    got = evidence.fix_value(sg, p.sheet, p.cell, p.hole.fix)
    c = sg.context.sheet(p.sheet).sheet.cell(*p.cell)
    return got, got is not None and same_shown(got, float(c.value), c.style.number_format)


@dataclass(frozen=True)
class Planned:
    """A typed number in the order of checks, with what the structure says of it."""

    sheet: str
    cell: tuple[int, int]
    hole: Hole | None  # its best hole (None: in no run with formulas)
    end: bool  # the last cell of a value run of 3+ (where a total stands)

    @property
    def order(self) -> tuple:
        """Structure first (`_priority`), then sheet, row, column: one order on every run."""
        return (-_priority(self.hole, self.end), self.sheet, self.cell)


def plan(sc: SheetContext, typed: set[tuple[int, int]]) -> list[Planned]:
    """The sheet's typed numbers `typed` (labels left out) with their holes and run ends."""
    best = {h.cell: h for h in _best(holes(sc, typed), _hole_rank)}
    for h in _best(line_holes(sc, typed - set(best)), _hole_rank):
        best[h.cell] = h
    ends = _run_ends(typed | set(sc.cells))
    return [Planned(sc.sheet.name, c, best.get(c), c in ends) for c in sorted(typed)]


def _formula_findings(sg: Suggester, name: str, sc: SheetContext,
                      named: set[tuple[int, int]]) -> list[Finding]:  # fmt: skip
    """Breaks and short totals of a sheet (`named`: its labels), one finding per cell: a total
    stopping short names the rows it leaves out, so it stands for its cell over a break of a
    block. The pick is by structure, not by score: the findings the weights are fitted on do not
    depend on the weights (one cell picked by score moved the held-out precision by 0.02)."""
    odd = {f.a1: f for f in (_inconsistent(sg, name, b) for b in _best(breaks(sc), _break_rank))}
    for short in shorts(sc, named):
        f = _short(name, short)
        odd[f.a1] = f
    return list(odd.values())


def _best(items, rank):
    """One item per cell: the best by `rank` (a run per axis may flag the same cell twice)."""
    out = {}
    for item in items:
        old = out.get(item.cell)
        if old is None or rank(item) > rank(old):
            out[item.cell] = item
    return list(out.values())


def _break_rank(b: Break) -> tuple:
    return (b.interior, b.share)


def _hole_rank(h: Hole) -> tuple:
    return (h.hole, h.share, h.fix is not None)


def _priority(hole: Hole | None, end: bool) -> float:
    structure = 0.0 if hole is None else hole.share + 0.5 * hole.hole
    return structure + 0.25 * end


def _run_ends(places: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The last cell of every value run of 3+ cells (where a total stands)."""
    return {run.cells[-1] for axis in AXES for run in runs(places, axis) if len(run.cells) >= 3}


def _inconsistent(sg: Suggester, sheet: str, b: Break) -> Finding:
    facts = {
        "block_share": b.share,
        "interior": float(b.interior),
        "odd": float(b.odd),
        # a run longer than most the key's breaks stand in counts as that long: the fit cannot
        # say what a length it never saw means (a large model's blocks run for 100+ cells)
        "run_cells": float(min(len(b.run.cells), RUN_SEEN)),
        # how much it breaks its block: one slip (each moved reference off by one) inside a
        # block, scored by the share of the run the block holds
        "slip": b.share if b.interior and b.by_one else 0.0,
        # another sketch: the block's references less one (a term left out)
        "dropped": float(b.dropped),
    }
    cell = sg.context.sheet(sheet).sheet.cell(*b.cell)
    text = f"{a1(*b.cell)}: {describe(b)}; expected {b.fix}"
    got = evidence.fix_value(sg, sheet, b.cell, b.fix)
    shown = evidence.number_of(api.current(sg, sheet, b.cell))
    if got is not None and shown is not None:
        differs = not same_shown(got, shown, cell.style.number_format)
        facts["fix_differs"] = float(differs)
        text += f" (gives {got:,.10g}, the cell shows {shown:,.10g})" if differs else ""
    score = combine(INCONSISTENT, facts)
    return Finding(sheet, *b.cell, INCONSISTENT, score, text, b.fix, tuple(facts.items()))


def _short(sheet: str, s: Short) -> Finding:
    # one number left out above is the common slip (the first row under a header); a longer
    # stretch is as often a sub-total of its own group
    above = (1.0 if s.left_out == 1 else 0.5) if s.left_out else 0.0
    facts = {"stops_short": above, "short_below": float(s.below > 0),
             "left_out": float(s.left_out + s.below),
             "blank_ends": float(s.lead + s.trail > 0)}  # fmt: skip
    said = [f"leaves out the {n} number{'s' * (n != 1)} {side} its range"
            for n, side in ((s.left_out, "above"), (s.below, "below")) if n]  # fmt: skip
    what = ["a range stopping short"] * bool(said)
    if s.lead + s.trail:
        said.append(f"reaches past its numbers into empty cells ({', '.join(s.empty)})")
        what.append("reaching past its numbers" if what else "a range reaching past its numbers")
    text = f"{a1(*s.cell)}: {s.text} {' and '.join(said)}: {' and '.join(what)}; expected {s.fix}"
    score = combine(INCONSISTENT, facts)
    return Finding(sheet, *s.cell, INCONSISTENT, score, text, s.fix, tuple(facts.items()))


def _missing(sg: Suggester, sc: SheetContext, p: Planned, checked: bool,
             got: tuple[float | None, bool], inputs: set[tuple[int, int]], cfg: AuditConfig,
             cut: dict[str, float]) -> Finding | None:  # fmt: skip
    """The typed number `p` scored as a missing formula; None when it scores under its kind's
    threshold in `cut` (most numbers: the text is not written for them). `checked`: given the
    engine's candidates; `got`: its hole's fix previewed at the cell (the structure's check,
    `_fix_number`: the number, and whether it shows the typed one);
    `inputs`: the sheet's typed numbers a total already adds up."""
    cell, hole = p.cell, p.hole
    c = sc.sheet.cell(*cell)
    value, fmt = float(c.value), c.style.number_format
    facts: dict[str, float] = {}
    said: list[str] = []
    fix = None
    if hole is not None:
        fix = hole.fix
        if hole.line:  # a line of totals across gaps: the other totals of its row (column)
            facts["total_line"] = 1.0
            said.append(f"the other {AXIS_NAMES[1 - hole.run.axis]} totals of its "
                        f"{AXIS_NAMES[hole.run.axis]} ({hole.formulas}) are formulas")  # fmt: skip
        else:
            # a run of two says less than a run of ten: the share counts fully from 3 formulas
            facts["run_share"] = hole.share * min(hole.formulas, 3) / 3
            facts["hole"] = float(hole.hole)
            facts["run_formulas"] = float(hole.formulas)
            facts["run_cells"] = float(len(hole.run.cells))
            run = f"{AXIS_NAMES[hole.run.axis]} run {hole.run.span()}"
            said.append(f"{hole.formulas} of the other {len(hole.run.cells) - 1} cells of its "
                        f"{run} are formulas")  # fmt: skip
        number, equal = got
        if equal:
            facts["fix_equal"] = 1.0
            said.insert(0, f"{hole.fix} gives {number:,.10g}")
    if checked and "fix_equal" not in facts:
        match = evidence.candidates(sg, sc.sheet.name, cell, value, fmt, cfg.top)
        if match is not None and cell in inputs and adds_up_to(match.formula, sc.sheet.name, cell):
            match = None  # a total over the rows above an input of the table's own total
        if match is not None:
            # formulas fitted to the values (induced), echoes of equal values and formulas
            # copied from elsewhere match a typed number by chance more often than not
            name = "weak_equal" if match.source in WEAK_SOURCES else None
            facts[name or ("top_equal" if match.rank == 1 else "lower_equal")] = 1.0
            facts["match_score"], facts[f"match_{match.source}"] = match.score, 1.0
            if match.source == "copy":
                # the block it is copied from: on TASI the key's typed numbers match copies of
                # smaller blocks (mean log(1 + n) 1.5 against 2.4), a long dragged block's
                # formula gives a number by chance more often (chosen on inner folds of each half)
                facts["copy_block"] = match.block
            said.insert(0, f"{match.formula} ({match.source}, suggestion {match.rank}) gives it")
            fix = fix if hole is not None and hole.hole else match.formula
    facts["checked"], facts["run_end"] = float(checked), float(p.end)
    score = combine(MISSING, facts)
    if score < cut[MISSING]:
        return None
    said = said or [
        "nothing in its runs" + (" or the suggestions" * checked) + " points at a formula"
    ]
    text = f"{a1(*cell)} holds {value:,.10g} typed by hand; " + "; ".join(said)
    return Finding(sc.sheet.name, *cell, MISSING, score, text + ": missing formula", fix,
                   tuple(facts.items()))  # fmt: skip
