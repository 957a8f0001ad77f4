"""Audits scored against the answer keys (`keys`): what `fortap evaluate formula-audit` and
`bench/audit.py` report.

`audit_key` audits exactly the key's sheets of each book (every finding kept, whatever its
score: every typed number is one), with the ranker `ranker_for(book)` names (per half in the
bench). `tasi_metrics` then sets thresholds, one per kind, on each half of the books
(`measure.best_thresholds`) and
reports the other half with them, overall and per kind, beside the seven checkers' verdicts on
the same cells; `excelint_metrics` reports precision and recall on ExceLint's cells, split into
formula and typed cells, at given thresholds.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fortap.audit.auditor import AuditConfig, audit
from fortap.audit.findings import INCONSISTENT, KINDS, MISSING
from fortap.audit.keys import CHECKERS, KeySheet, resolve_sheet
from fortap.audit.measure import HALVES, Place, above, best_thresholds, half_of, scores
from fortap.console import progress
from fortap.errors import FortapError


@dataclass(frozen=True)
class KeyAudit:
    """What `audit_key` found: every finding, per-book seconds, and what each gold cell holds."""

    found: list[Scored]
    times: dict[str, dict[str, float]]  # book -> {"load_s", "audit_s"}
    gold_kinds: dict[Place, str]  # gold place -> "formula" or "typed"
    errors: list[dict]  # {"path", "error"} of books that could not be audited


@dataclass(frozen=True)
class Scored:
    """A finding's place, kind and score (what the metrics read)."""

    place: Place
    kind: str
    score: float
    facts: tuple[tuple[str, float], ...] = ()


def audit_key(
    key: list[KeySheet],
    cfg: AuditConfig,
    ranker_for: Callable[[Path], Path | None] = lambda book: None,
) -> KeyAudit:
    """Every finding on the key's sheets (threshold 0), per-book timings and the gold cells'
    kinds; a book that cannot be read is reported in `KeyAudit.errors` and skipped."""
    from fortap.suggest.api import open_book

    by_book: dict[Path, list[KeySheet]] = {}
    for ks in key:
        by_book.setdefault(ks.book, []).append(ks)
    found, times, kinds, errors = [], {}, {}, []
    cfg = dataclasses.replace(cfg, min_score=0.0)
    with progress("audit", len(by_book)) as update:
        for i, (book, sheets) in enumerate(by_book.items()):
            update(i, book.name)
            try:
                start = time.perf_counter()
                sg = open_book(book, ranker=ranker_for(book))
                loaded = time.perf_counter()
                names = [resolve_sheet(sg.workbook.sheets, ks.sheet, book).name for ks in sheets]
                got = audit(sg, names, cfg).findings
            except FortapError as err:
                errors.append({"path": str(book), "error": str(err)})
                continue
            times[str(book)] = {"load_s": loaded - start, "audit_s": time.perf_counter() - loaded}
            rename = {n: ks.sheet for n, ks in zip(names, sheets, strict=True)}
            for n, ks in zip(names, sheets, strict=True):
                sheet = sg.context.sheet(n).sheet
                for r, c in ks.cells:
                    held = sheet.cell(r, c).formula is not None
                    kinds[(str(book), ks.sheet, r, c)] = "formula" if held else "typed"
            found += [Scored((str(book), rename[f.sheet], f.row, f.col), f.kind, f.score, f.facts)
                      for f in got]  # fmt: skip
    return KeyAudit(found, times, kinds, errors)


def gold_of(key: list[KeySheet], kind: str | None = None) -> set[Place]:
    return {(str(ks.book), ks.sheet, r, c) for ks in key for (r, c), k in ks.cells.items()
            if kind is None or k == kind}  # fmt: skip


def _best_per_place(found: list[Scored], kind: str | None = None) -> dict[Place, float]:
    out: dict[Place, float] = {}
    for s in found:
        if kind is None or s.kind == kind:
            out[s.place] = max(out.get(s.place, 0.0), s.score)
    return out


def tasi_metrics(key: list[KeySheet], found: list[Scored]) -> dict:
    """Per half: the thresholds (one per kind) from the other half, the audit's scores on this
    half overall and per kind, and each checker's on the same cells; "held-out" pools both."""
    half = {str(ks.book): half_of(str(ks.book)) for ks in key}
    parts = {h: [ks for ks in key if half[str(ks.book)] == h] for h in HALVES}
    by_kind = {k: _best_per_place(found, k) for k in KINDS}
    thresholds = {}
    for h in HALVES:
        own = {k: {p: s for p, s in by_kind[k].items() if half[p[0]] == h} for k in KINDS}
        thresholds[h] = best_thresholds(own, gold_of(parts[h]))
    out: dict = {"thresholds_set_on": thresholds}
    flagged_all, kind_flags = set(), {k: set() for k in KINDS}
    for h in HALVES:
        cut = thresholds[HALVES[1 - HALVES.index(h)]]
        per_kind, flagged = {}, set()
        for k in KINDS:
            kf = above({p: s for p, s in by_kind[k].items() if half[p[0]] == h}, cut[k])
            kind_flags[k] |= kf
            flagged |= kf
            per_kind[k] = scores(kf, gold_of(parts[h], k)).to_json()
        flagged_all |= flagged
        out[h] = {"threshold": cut, "books": len({ks.book for ks in parts[h]}),
                  "sheets": len(parts[h]), "audit": scores(flagged, gold_of(parts[h])).to_json(),
                  "audit_by_kind": per_kind, "checkers": _checkers(parts[h])}  # fmt: skip
    out["held-out"] = {"audit": scores(flagged_all, gold_of(key)).to_json(),
                       "audit_by_kind": {k: scores(kind_flags[k], gold_of(key, k)).to_json()
                                         for k in KINDS},
                       "checkers": _checkers(key)}  # fmt: skip
    return out


def _checkers(part: list[KeySheet]) -> dict:
    """Each checker's scores on `part`, overall and (recall only) per kind."""
    out = {}
    for name in CHECKERS.values():
        flags = {(str(ks.book), ks.sheet, r, c) for ks in part for r, c in ks.flags.get(name, ())}
        row = scores(flags, gold_of(part)).to_json()
        row["recall_by_kind"] = {k: round(scores(flags, gold_of(part, k)).recall, 4) for k in KINDS}
        out[name] = row
    return out


def excelint_metrics(key: list[KeySheet], run: KeyAudit,
                     threshold_for: Callable[[str], dict]) -> dict:  # fmt: skip
    """Precision and recall on ExceLint's cells, each book at `threshold_for(book)` (kind ->
    threshold): all cells,
    then formula cells against inconsistent-formula findings and typed cells against
    missing-formula findings."""

    def flagged(kind: str | None) -> set[Place]:
        if kind is None:
            return flagged(MISSING) | flagged(INCONSISTENT)
        return {p for p, s in _best_per_place(run.found, kind).items()
                if s >= threshold_for(p[0])[kind]}  # fmt: skip

    gold = gold_of(key)
    out = {"sheets": len(key), "books": len({ks.book for ks in key}),
           "all": scores(flagged(None), gold).to_json()}  # fmt: skip
    for held, kind in (("formula", INCONSISTENT), ("typed", MISSING)):
        theirs = {p for p in gold if run.gold_kinds.get(p) == held}
        out[held] = scores(flagged(kind), theirs).to_json()
    return out
