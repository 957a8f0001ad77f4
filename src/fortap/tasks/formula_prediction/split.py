"""How formula-prediction examples are split by workbook for a run.

Workbooks are split by key as the corpus does (`fortap.corpus.split`); a corpus's own
`split.json` (`corpus_sides`) can decide every workbook's side, so that no workbook pretraining
trained on is evaluated, and `leaked_books` counts evaluation workbooks that a corpus put in
train. With few workbooks the hashed split can leave dev or test empty; then the workbooks are
assigned in name order (the last quarter to test, one to dev), still never sharing a workbook
between sides, and the note says so. `spread` (`fortap.corpus.spread`) and `spread_per_book`
cap a side evenly, over the whole side or within each workbook.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from fortap.corpus.split import SPLITS, SplitConfig, book_key
from fortap.corpus.spread import spread
from fortap.encoding.example import Example
from fortap.errors import FortapError
from fortap.table.io import read_tables as read_tables  # one reader for every command
from fortap.table.model import Table
from fortap.tasks.formula_prediction.examples import FormulaExamplesConfig, split_examples


def split_for_run(
    tables: Sequence[Table],
    tokenizer,
    cfg: FormulaExamplesConfig,
    seed: int,
    sides: Mapping[str, str] | None = None,
    formulas: Mapping | None = None,
) -> tuple[dict[str, list[Example]], str]:
    """Examples split by workbook (`sides`: workbook key -> side, e.g. a corpus's split, wins
    over the hash); the fallback of the module doc when dev or test is empty. `formulas`: the
    tables' parsed formula cells (`parse_tables`)."""
    hashed = SplitConfig(seed=seed, overrides=sides or {})
    split = split_examples(tables, tokenizer, cfg, hashed, formulas)
    if split["dev"] and split["test"]:
        how = "the corpus's split" if sides else "hashed"
        return split, f"split by workbook ({how})"
    keys = sorted({book_key(t.book) for t in tables})
    if len(keys) < 2:
        raise FortapError(f"formula prediction needs at least 2 workbooks, got {len(keys)}")
    n_test = max(1, len(keys) // 4)
    n_dev = 1 if len(keys) >= 3 else 0
    side = {k: "test" for k in keys[len(keys) - n_test :]}
    side |= {k: "dev" for k in keys[len(keys) - n_test - n_dev : len(keys) - n_test]}
    side |= {k: "train" for k in keys if k not in side}
    split = split_examples(tables, tokenizer, cfg, SplitConfig(seed=seed, overrides=side), formulas)
    note = (
        f"the hashed workbook split left dev or test empty ({len(keys)} workbooks); "
        f"workbooks assigned in name order instead: {len(keys) - n_test - n_dev} train, "
        f"{n_dev} dev, {n_test} test"
    )
    return split, note


def spread_per_book(examples: Sequence[Example], cap: int) -> list[Example]:
    """At most `cap` examples of each workbook (by workbook key; 0 = all), at evenly spaced
    positions among that workbook's examples (`spread`), the order kept: deterministic, and a
    workbook with hundreds of targets no longer outweighs the others, while the kept ones
    still reach every part of it (not just its first table's first column)."""
    if not cap:
        return list(examples)
    books: dict[str, list[int]] = {}
    for i, ex in enumerate(examples):
        books.setdefault(book_key(ex.meta["book"]), []).append(i)
    keep = sorted(j for ids in books.values() for j in spread(ids, cap))
    return [examples[i] for i in keep]


def corpus_sides(corpus: str | Path) -> dict[str, str]:
    """Workbook key -> side of the split a corpus was built with (its `split.json`)."""
    path = Path(corpus) / "split.json"
    try:
        sides = json.loads(path.read_text())["splits"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise FortapError(f"cannot read the corpus split {path}: {err}") from None
    if not isinstance(sides, dict) or not all(v in SPLITS for v in sides.values()):
        raise FortapError(f"{path}: 'splits' must map workbook keys to one of {SPLITS}")
    return sides


def leaked_books(split: Mapping[str, Sequence[Example]], sides: Mapping[str, str]) -> dict:
    """Per evaluation side (dev, test): the workbook keys of its examples that `sides` (a
    corpus's split) puts in train, i.e. books whose formulas pretraining may have seen."""
    out = {}
    for side in ("dev", "test"):
        keys = {book_key(ex.meta["book"]) for ex in split.get(side, ())}
        out[side] = sorted(k for k in keys if sides.get(k) == "train")
    return out
