"""Common candidates: formulas that many workbooks write, learnt in R1C1, moved to the target.

`CommonTable` is learnt by `fortap train-ranker` from the workbooks it trains on and saved beside
the ranker (`common.json`): every same-sheet formula whose references are all relative (no `$`,
no sheet name, no defined name), with at least one reference, counted once per workbook that
writes it in R1C1. Those written in at least `MIN_BOOKS` workbooks are kept, and the `LIMIT` most
written are proposed. `=R[-1]C+RC[-1]` (a running total), `=RC[-2]*RC[-1]` (price times
quantity) or `=RC[-1]` (the value to the left, carried over) mean the same thing wherever they
stand, so each is a candidate at any target where every reference covers a visible non-empty
cell and none covers the target (hidden cells count as empty). Features: how many workbooks
write it, its rank, and what its references land on. `CommonSource` is the source, built with
the table (`Ranker.common`).

The table reads no formula of the user's workbook, so the source works in every setting, the
paper setting included. A training workbook must not see its own counts: `without(book)` is the
table learnt from the other workbooks (leave one out), which `train` uses for that workbook's
targets.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import ClassVar

from fortap.errors import FortapError
from fortap.formula import Formula, parse_formula
from fortap.formula.nodes import Ref
from fortap.suggest.candidates.anchor import Land, land, reanchor_ast, refs_of
from fortap.suggest.candidates.base import Candidate
from fortap.suggest.candidates.copy import LAND_FEATURES, land_features
from fortap.suggest.context import BookContext, Place, Target

FILE = "common.json"
MIN_BOOKS = 3  # a formula enters the table when this many workbooks write it
LIMIT = 60  # formulas kept, most written first


@dataclass(frozen=True)
class BookCounts:
    """The relative formulas one workbook writes: R1C1 -> an A1 example (text, row, col)."""

    formulas: Mapping[str, tuple[str, int, int]]

    @classmethod
    def of(cls, ctx: BookContext) -> BookCounts:
        formulas: dict[str, tuple[str, int, int]] = {}
        for name in ctx.sheet_names():
            sc = ctx.sheets[name]
            for (r, c), f in zip(sc.cells, sc.formulas, strict=True):
                if f.r1c1 is not None and f.r1c1 not in formulas and _relative(f):
                    formulas[f.r1c1] = (f.text, r, c)
        return cls(formulas)


def _relative(f: Formula) -> bool:
    """Same-sheet, `$`-free references only, and at least one of them."""
    refs = refs_of(f.ast)
    return bool(refs) and all(_plain(ref) for ref in refs)


def _plain(ref: Ref) -> bool:
    if ref.kind not in ("cell", "area") or ref.sheet is not None:
        return False
    ends = [a for a in (ref.start, ref.end) if a is not None]
    return all(a.row is not None and a.col is not None and not (a.abs_row or a.abs_col)
               for a in ends)  # fmt: skip


@dataclass
class CommonTable:
    """Formulas written across workbooks (module doc), with how many workbooks write each."""

    formulas: Counter = field(default_factory=Counter)  # R1C1 -> workbooks
    examples: dict = field(default_factory=dict)  # R1C1 -> (A1 text, row, col)

    @classmethod
    def learn(cls, books: Iterable[BookCounts]) -> CommonTable:
        table = cls()
        for book in books:
            table.formulas.update(book.formulas.keys())
            for key, example in book.formulas.items():
                table.examples.setdefault(key, example)
        return table

    def without(self, book: BookCounts) -> CommonTable:
        """The table as the other workbooks alone would give it."""
        return CommonTable(self.formulas - Counter(book.formulas.keys()), self.examples)

    @cached_property
    def placed(self) -> list[tuple[str, int, Formula]]:
        """(R1C1, workbooks, parsed example) of the kept formulas, most written first."""
        top = [(k, n) for k, n in self.formulas.most_common() if n >= MIN_BOOKS][:LIMIT]
        out = []
        for key, n in top:
            text, r, c = self.examples[key]
            try:
                parsed = parse_formula(text, None, (r, c))
            except FortapError:
                continue
            if _relative(parsed):  # a hand-edited file may hold anything
                out.append((key, n, parsed))
        return out

    def save(self, folder: Path) -> None:
        kept = [[k, n, *self.examples[k]] for k, n in self.formulas.most_common() if n >= MIN_BOOKS]
        data = {"min_books": MIN_BOOKS, "formulas": kept}
        (Path(folder) / FILE).write_text(json.dumps(data, indent=0) + "\n")

    @classmethod
    def load(cls, folder: Path) -> CommonTable | None:
        """The table saved in `folder`, None when the folder has none (an older ranker)."""
        path = Path(folder) / FILE
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
            formulas = Counter({k: int(n) for k, n, *_ in data["formulas"]})
            examples = {k: (str(t), int(r), int(c)) for k, _, t, r, c in data["formulas"]}
        except (OSError, ValueError, KeyError, TypeError, OverflowError) as err:
            raise FortapError(f"cannot read {path}: {err}") from None
        return cls(formulas, examples)


@dataclass(frozen=True)
class CommonSource:
    """The common formulas of a `CommonTable` as a candidate source (`base.Source`)."""

    table: CommonTable
    name: ClassVar[str] = "common"
    needs_formulas: ClassVar[bool] = False
    FEATURES: ClassVar[tuple[str, ...]] = ("cm_log_books", "cm_rank", *LAND_FEATURES)

    def candidates(self, ctx: BookContext, target: Target, hidden: frozenset[Place]):
        """Common `Candidate`s for `target`: each kept formula moved there, where every
        reference covers a visible non-empty cell and none covers the target (hidden cells
        count as empty)."""
        spot = (target.sheet, target.row, target.col)
        hidden = hidden | {spot}  # the target is never read, whoever calls
        out = []
        for rank, (key, books, formula) in enumerate(self.table.placed):
            copy = reanchor_ast(formula.ast, formula.cell, (target.row, target.col))
            if copy is None:
                continue
            parts = [land(ctx, target.sheet, (ref,), spot, hidden) for ref in copy.refs]
            if any(p.self_ref or p.numbers + p.text == 0 for p in parts):
                continue
            totals = (sum(getattr(p, f) for p in parts) for f in ("cells", "numbers", "text"))
            feats = {"cm_log_books": math.log1p(books), "cm_rank": float(rank)}
            feats |= land_features(Land(*totals))
            what = f"a common formula ({books} workbooks write {key})"
            out.append(Candidate(copy.text, "common", what, feats))
        return out
