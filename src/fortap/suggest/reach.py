"""Same-sheet against cross-sheet targets in `bench/suggest.py`'s records: every metric of each
part, and where the ranker goes wrong on the cross-sheet ones.

A target is cross-sheet when its gold formula names another sheet (`records.jsonl`'s
`cross_sheet`). For each setting and part: targets, workbooks, exact top-1 printed and
ranker-only, top-5, recall; and for the targets the ranker gets wrong, why: the gold is not
among the candidates (`missed`), or it is, below the top-1 (`outranked`), with the sources of
the candidates that took the top-1 then (`beaten by`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path


def reach_rows(records: Path) -> list[dict]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for line in records.read_text().splitlines():
        r = json.loads(line)
        if "cross_sheet" not in r:
            continue
        part = "cross-sheet" if r["cross_sheet"] else "same sheet"
        groups.setdefault((r["setting"], part), []).append(r)
    rows = []
    for (setting, part), recs in sorted(groups.items()):
        n = len(recs)
        wrong = [r for r in recs if r["rank"] != 0]
        outranked = [r for r in wrong if r["rank"] is not None]
        rows.append({
            "setting": setting, "part": part, "targets": n,
            "books": len({r["book"] for r in recs}),
            "printed_top1": round(sum(r["printed_rank"] == 0 for r in recs) / n, 4),
            "top1": round(sum(r["rank"] == 0 for r in recs) / n, 4),
            "top5": round(sum(r["rank"] is not None and r["rank"] < 5 for r in recs) / n, 4),
            "recall": round(sum(r["rank"] is not None for r in recs) / n, 4),
            "missed": round((len(wrong) - len(outranked)) / n, 4),
            "outranked": round(len(outranked) / n, 4),
            "beaten_by": dict(Counter(r["top1_source"] for r in outranked).most_common(4)),
        })  # fmt: skip
    return rows
