"""Derived lines typed by hand (`helpers.derived_lines`) as audit evidence, on the TASI key.

    .venv/bin/python bench/audit_derived.py FOUND.jsonl [--tasi DIR] [--json PATH]

FOUND is the findings file `bench/audit.py --json J` writes (`J.found.jsonl`). For every key
sheet the derived lines are found among its typed numbers; each cell they compute gets two facts
(`relation`: the share of places where its relation holds; `relation_rows`: how many, capped at
13, over 13), merged into its missing-formula finding or added as one (not engine-checked).
Then the held-out scoring of `bench/audit.py` is repeated on both sets of findings: each half of
the books scored with weights fitted on the other half, at that half's threshold. The table
shows the detector alone (its cells against the key's missing-formula cells) and the held-out
P / R / F1 without and with its facts; the ratio is with / without.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from fortap.audit.evaluate import Scored, gold_of
from fortap.audit.findings import MISSING
from fortap.audit.keys import resolve_sheet, tasi_key
from fortap.audit.refit import cross_fit, held_out, on_key, read_findings
from fortap.audit.structure import is_number
from fortap.console import progress
from fortap.sheet.read import read_workbook
from helpers.derived_lines import relations
from helpers.paths import DATA

CAP = 13  # relation_rows counts up to this many places (as the audit's run_cells does)


def derived_cells(key) -> tuple[list[tuple], float]:
    """(book, sheet, row, col, share, places) of every key-sheet cell a derived line computes,
    and the seconds the detector took (reading the books apart)."""
    books = defaultdict(list)
    for ks in key:
        books[ks.book].append(ks)
    out, seconds = [], 0.0
    with progress("derived lines", len(books)) as update:
        for i, (book, sheets) in enumerate(sorted(books.items())):
            update(i, book.name)
            try:
                wb = read_workbook(book)
            except Exception as err:  # a book the audit cannot read either: skipped, reported
                print(f"skipped {book}: {err}", file=sys.stderr)
                continue
            for ks in sheets:
                sheet = resolve_sheet(wb.sheets, ks.sheet, book)
                typed = {rc for rc in sheet.cells if is_number(sheet, *rc)}
                begin = time.perf_counter()
                found = relations(sheet, typed)
                seconds += time.perf_counter() - begin
                out += [(str(book), ks.sheet, *cell, r.share, r.holds) for cell, r in found.items()]
    return out, seconds


def with_relations(found: list[Scored], cells: list[tuple]) -> list[Scored]:
    """`found` with each derived cell's facts merged into its missing-formula finding, or added."""
    out = list(found)
    at = {(s.place, s.kind): i for i, s in enumerate(out)}
    for book, sheet, row, col, share, holds in cells:
        place = (book, sheet, row, col)
        facts = {"relation": share, "relation_rows": min(holds, CAP) / CAP}
        i = at.get((place, MISSING))
        if i is None:
            base = {"checked": 0.0, "run_end": 0.0}
            out.append(Scored(place, MISSING, 0.0, tuple((base | facts).items())))
        else:
            merged = dict(out[i].facts) | facts
            out[i] = dataclasses.replace(out[i], facts=tuple(merged.items()))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("found", type=Path)
    ap.add_argument("--tasi", type=Path, default=DATA / "tasi")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    key = tasi_key(args.tasi)
    gold = gold_of(key)
    found = on_key(read_findings(args.found), key, [args.tasi], args.found)
    cells, seconds = derived_cells(key)
    missing = gold_of(key, MISSING)
    hits = sum((b, s, r, c) in missing for b, s, r, c, _, _ in cells)
    p, r = hits / max(len(cells), 1), hits / len(missing)
    rows = [{"system": "derived lines alone", "flagged": len(cells), "hits": hits,
             "precision": round(p, 4), "gold": len(missing), "recall": round(r, 4),
             "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
             "seconds": round(seconds, 2)}]  # fmt: skip
    for name, fs in (("audit", found), ("audit + derived lines", with_relations(found, cells))):
        m = held_out(key, fs, cross_fit(fs, gold))["held-out"]
        rows.append({"system": f"{name}, held out", **m["audit"],
                     "missing_f1": m["audit_by_kind"][MISSING]["f1"]})  # fmt: skip
    print(
        f"{'system':32} {'flagged':>8} {'hits':>6} {'P':>6} {'R':>6} {'F1':>6} {'missing F1':>10}"
    )
    for row in rows:
        extra = f"{row['missing_f1']:10.3f}" if "missing_f1" in row else ""
        print(f"{row['system']:32} {row['flagged']:8d} {row['hits']:6d} {row['precision']:6.3f} "
              f"{row['recall']:6.3f} {row['f1']:6.3f} {extra}")  # fmt: skip
    ratio = rows[2]["f1"] / rows[1]["f1"] if rows[1]["f1"] else None
    print(f"held-out F1 with / without the derived lines: {ratio}")
    targets = [{"name": "held-out F1 with / without derived lines",
                "value": None if ratio is None else round(ratio, 4), "target": 1.0,
                "met": ratio is not None and ratio > 1.0}]  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"results": rows, "targets": targets}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
