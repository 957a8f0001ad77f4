"""Rankers for `bench/audit.py`, one per half of an answer key, each blind to its half's books.

The shipped ranker saw the train side of the EUSES folders the TASI key's books come from
(`suggest/ranker_default/PROVENANCE.md`). To score half H of the key, `train_halves` learns a
ranker from the same training books with every book of H left out by `corpus.split.book_key`
(so its .xls, .xlsx and `checkcell_benchmarks` copies go together). One pass reads the books and
builds each one's query groups (`suggest.train.examples`, the sheet setting only: the audit asks
as a user does, the cell alone hidden); each half's ranker is then `suggest.ranker.train_ranker`
over the groups of the books outside it. The halves are those of the answer key's books
(`halves_of`: their `book_key`s by `fortap.audit.measure.half_of`).

    python bench/helpers/audit_rankers.py OUT KEY FOLDER...

KEY: the answer key's folder (`../shared/data/tasi`); FOLDER...: the shipped ranker's eight
training folders (`suggest/ranker_default/PROVENANCE.md`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from fortap.audit.measure import HALVES, half_of
from fortap.audit.refit import read_key
from fortap.console import progress
from fortap.corpus.split import book_key
from fortap.corpus.spread import spread
from fortap.suggest.books import contexts, targets_of, workbooks_on
from fortap.suggest.ranker import RankerConfig, train_ranker
from fortap.suggest.train import examples

PER_BOOK = 60  # targets per workbook, as the shipped ranker's sheet setting


def book_groups(paths: list[str]) -> dict[str, tuple[list, list]]:
    """book key -> (query groups, labels) of the training side's books under `paths`."""
    files = workbooks_on(paths, "train", "audit rankers", "--side")
    out: dict[str, tuple[list, list]] = {}
    done = {p: i for i, p in enumerate(files)}
    with progress("ranker examples", len(files)) as update:
        for path, ctx in contexts(files):
            update(done[path], path.name)
            targets = spread(targets_of(ctx), PER_BOOK)
            g, y, _, _ = examples(ctx, targets, "sheet")
            key = book_key(str(path))
            old = out.setdefault(key, ([], []))
            old[0].extend(g)
            old[1].extend(y)
    return out


def halves_of(key_folder: Path) -> dict[str, list[str]]:
    """Half -> the book keys of the answer key's books in it."""
    books = {str(ks.book) for ks in read_key([key_folder])}
    return {h: sorted({book_key(b) for b in books if half_of(b) == h}) for h in HALVES}


def train_halves(out: Path, halves: dict[str, list[str]], paths: list[str]) -> dict:
    """One ranker per half under `out/<half>`, trained without the half's book keys."""
    start = time.time()
    groups = book_groups(paths)
    info = {}
    for half, keys in halves.items():
        left_out = set(keys)
        g = [q for k, (gs, _) in groups.items() if k not in left_out for q in gs]
        y = [q for k, (_, ys) in groups.items() if k not in left_out for q in ys]
        meta = {"left_out": sorted(left_out), "queries": len(g), "paths": paths}
        train_ranker(g, y, RankerConfig(), meta).save(out / half)
        info[half] = {"queries": len(g), "books": sum(k not in left_out for k in groups)}
    info["seconds"] = round(time.time() - start, 1)
    (out / "rankers.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the rankers' folder (OUT/A, OUT/B)")
    ap.add_argument("key", type=Path, help="the answer key's folder, e.g. ../shared/data/tasi")
    ap.add_argument("folders", nargs="+", help="the shipped ranker's training folders")
    args = ap.parse_args()
    print(train_halves(args.out, halves_of(args.key), args.folders))
