"""Seconds per 1,000 cells of `fortap audit` on large workbooks, with the counts it reports.

Open (read, parse, load the engine) and audit are timed apart, with the bench's setting. A
book already audited by the fault part (`helpers.audit_fault_recall.BookFaults`: its
original's times and counts) is not audited again.
"""

from __future__ import annotations

from pathlib import Path

from fortap.audit.auditor import AuditConfig
from helpers.audit_fault_recall import BookFaults, counts_of, timed_audit


def speed_rows(books: tuple[Path, ...], cfg: AuditConfig, measured: list[BookFaults]) -> list:
    """One row per book, printed as it comes."""
    known = {b.book: b for b in measured}
    rows = []
    for path in books:
        b = known.get(path.name)
        if b is not None:
            cells, seconds, counts = b.cells, b.seconds, b.counts
        else:
            sg, done, seconds = timed_audit(path, cfg)
            cells, counts = sum(len(s.cells) for s in sg.workbook.sheets), counts_of(done)
            del sg  # the engine of a large book holds a few hundred MB
        per = 1e3 * (seconds["open_s"] + seconds["audit_s"]) / cells
        rows.append({"key": "speed", "book": path.name, "cells": cells, **seconds, **counts,
                     "s_per_1000_cells": round(per, 3)})  # fmt: skip
        print(f"speed {path.name:30} {cells:7d} cells: open {seconds['open_s']:7.1f} s, audit "
              f"{seconds['audit_s']:7.1f} s, {per:.3f} s per 1,000 cells; {counts}", flush=True)  # fmt: skip
    return rows
