"""Recall of injected faults (`audit.faults`) by `fortap audit`, and the false alarms
the faults cause, on real workbooks the audit was not fitted on.

Per book: the original is opened and audited; `faults` are planned on its blocks (the heads of
shared formulas avoided); each shifted formula's value is previewed on the original, so the
copy caches what a spreadsheet program would have; all of the book's faults go into one copy
(far apart: `plan`'s `gap`), which is opened and audited the same way. A fault is *found* when
a finding of the copy lands on its cell, of either kind; `right_kind` also asks for the kind
its slip is (`KIND_OF`). A *new alarm* is a cell flagged on the copy, flagged on no fault's
cell and not on the original. The interval of a recall is a bootstrap over books (faults of
one book are not independent), beside Wilson's over faults.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fortap.audit.auditor import Audit, AuditConfig, audit
from fortap.audit.evidence import number_of
from fortap.audit.fault_files import heads, write_copy
from fortap.audit.faults import FAULT_KINDS, TYPED, Fault, plan
from fortap.audit.findings import INCONSISTENT, MISSING
from fortap.suggest import api

# the finding each slip should raise: a formula typed over is missing, any other edit breaks
# its block
KIND_OF = {k: MISSING if k == TYPED else INCONSISTENT for k in FAULT_KINDS}
Z95 = 1.959964


@dataclass
class BookFaults:
    """One book's faults and what the audits of its original and faulted copy said."""

    book: str
    cells: int  # non-empty cells of the original
    faults: list[Fault]
    found: list[dict]  # per fault: {"kind", "score"} of the finding on its cell, or {}
    new_alarms: list[dict] = field(default_factory=list)  # findings only the copy has
    seconds: dict = field(default_factory=dict)  # open and audit, original and copy
    counts: dict = field(default_factory=dict)  # the original's audit counts (typed, checked..)

    def to_json(self) -> dict:
        faults = [f.to_json() | {"found": x} for f, x in zip(self.faults, self.found, strict=True)]
        return {"book": self.book, "cells": self.cells, "seconds": self.seconds,
                "counts": self.counts, "faults": faults, "new_alarms": self.new_alarms}  # fmt: skip


def counts_of(done: Audit) -> dict:
    """Every count the audit reports beside its findings and time (typed numbers, checked,
    scored by structure and by the engine, formulas, ...), as `fortap audit --json` names them."""
    return {k: v for k, v in done.to_json().items() if k not in ("findings", "seconds")}


def timed_audit(path: Path, cfg: AuditConfig) -> tuple[api.Suggester, Audit, dict]:
    start = time.perf_counter()
    with api.native_stderr_silenced():
        sg = api.open_book(path)
        opened = time.perf_counter()
        done = audit(sg, None, cfg)
    end = time.perf_counter()
    return sg, done, {"open_s": round(opened - start, 2), "audit_s": round(end - opened, 2)}


def with_value(sg: api.Suggester, f: Fault) -> Fault:
    """A fault's edited formula with the value it shows on the original (None: no number)."""
    if f.after is None:
        return f
    with api.native_stderr_silenced():
        got = number_of(api.preview(sg, f.sheet, (f.row, f.col), f.after))
    value = got if got is not None and math.isfinite(got) else None
    return Fault(f.sheet, f.row, f.col, f.kind, f.before, f.after, value)


def book_faults(path: Path, n: int, rng: np.random.Generator, workdir: Path, cfg: AuditConfig,
                gap: int = 10) -> BookFaults:  # fmt: skip
    """`n` faults (fewer when the book has fewer blocks far apart) in one copy of `path`."""
    sg, base, seconds = timed_audit(path, cfg)
    cells = sum(len(s.cells) for s in sg.workbook.sheets)
    faults = plan(sg.context.sheets, n, rng, gap, avoid=heads(path))
    faults = [with_value(sg, f) for f in faults]
    del sg  # the engine of a large book holds a few hundred MB
    copy = workdir / f"faulted-{path.name}"
    write_copy(path, copy, faults)
    _, done, copied = timed_audit(copy, cfg)
    seconds |= {f"copy_{k}": v for k, v in copied.items()}
    at = {(f.sheet, f.row, f.col): f for f in done.findings}
    before = {(f.sheet, f.row, f.col) for f in base.findings}
    found = [{"kind": at[x.place].kind, "score": at[x.place].score} if x.place in at else {}
             for x in faults]  # fmt: skip
    places = {x.place for x in faults}
    new = [f.to_json() for p, f in at.items() if p not in before and p not in places]
    copy.unlink()
    return BookFaults(path.name, cells, faults, found, new, seconds, counts_of(base))


def wilson(hits: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p, z2 = hits / n, Z95 * Z95
    mid, half = p + z2 / (2 * n), Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (max(0.0, (mid - half) / (1 + z2 / n)), min(1.0, (mid + half) / (1 + z2 / n)))


def recall_table(books: list[BookFaults], seed: int = 0, draws: int = 2000) -> list[dict]:
    """Rows per fault kind and overall: faults, found, of the right kind, recall with its
    Wilson and book-bootstrap 95 % intervals, new alarms per fault."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(books), size=(draws, len(books))) if books else None
    rows = []
    for kind in (*FAULT_KINDS, "all"):
        per_book = []  # (faults, found, right kind) per book
        for b in books:
            got = [(x, f) for x, f in zip(b.faults, b.found, strict=True)
                   if kind in ("all", x.kind)]  # fmt: skip
            right = sum(bool(f) and f["kind"] == KIND_OF[x.kind] for x, f in got)
            per_book.append((len(got), sum(bool(f) for _, f in got), right))
        n, hits, right = (int(sum(t[i] for t in per_book)) for i in range(3))
        arr = np.array(per_book, float).reshape(-1, 3)
        boot = [0.0, 1.0]
        if picks is not None and n:
            sums = arr[picks].sum(axis=1)  # (draws, 3)
            ok = sums[:, 0] > 0
            boot = list(np.quantile(sums[ok, 1] / sums[ok, 0], [0.025, 0.975]))
        alarms = sum(len(b.new_alarms) for b in books)
        rows.append({"key": "faults", "part": kind, "faults": n, "found": hits,
                     "found_right_kind": right, "recall": hits / n if n else 0.0,
                     "recall_wilson95": [round(v, 3) for v in wilson(hits, n)],
                     "recall_books95": [round(float(v), 3) for v in boot],
                     "new_alarms": alarms if kind == "all" else None,
                     "new_alarms_per_fault": round(alarms / n, 3) if kind == "all" and n
                     else None})  # fmt: skip
    return rows


def print_recall(table: list[dict]) -> None:
    print(f"{'kind':18} {'faults':>6} {'found':>5} {'right kind':>10} {'recall':>6}  "
          f"{'Wilson 95%':>14}  {'books 95%':>14}")  # fmt: skip
    for r in table:
        w, b = r["recall_wilson95"], r["recall_books95"]
        print(f"{r['part']:18} {r['faults']:6d} {r['found']:5d} {r['found_right_kind']:10d} "
              f"{r['recall']:6.3f}  [{w[0]:.3f}, {w[1]:.3f}]  [{b[0]:.3f}, {b[1]:.3f}]")  # fmt: skip
