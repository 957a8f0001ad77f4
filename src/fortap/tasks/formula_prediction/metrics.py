"""Formula-prediction metrics (pure): exact match of prefix token sequences, as the paper.

A formula is compared as its *formula key*: the sketch tokens without `[START]`/`[END]`, each
`[RANGE]` replaced by the A1 address (no `$`) of the sheet cell it refers to, in order. A range
`A1:B2` is `[:] A1 B2`; constants stay `[C-NUM]`/`[C-STR]`/`[C-BOOL]`, since the sketch cannot
hold their values. So commutative rewrites, `A1:A3` against `A1,A2,A3`, or different formulas
with equal values all count as wrong.

- formula top-1 / top-k: the gold key equals the first / one of the first k predicted keys;
- sketch top-1 / top-k: the same on sketches alone;
- range accuracy (the reference's): among formulas whose top-1 sketch is right, the share whose
  references are all right; reference accuracy: the share of `[RANGE]` slots of those formulas
  pointed right;
- accuracy by sketch length (operators + functions + references, `1`..`5`, `6+`);
- error classes of the top-1 guess: `correct`, `wrong_sketch`, `reference_not_in_input` (right
  sketch, but a gold reference was not in the model's input, so no pointer could reach it),
  `wrong_reference`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from fortap.formula.tokens import COLON, CONST_VOCAB, END, RANGE, START
from fortap.sheet.model import a1

Cell = tuple[int, int]
NOT_A_CELL = "<WR>"  # rendering of a pointer that maps to no sheet cell
ERROR_CLASSES = ("correct", "wrong_sketch", "reference_not_in_input", "wrong_reference")
LENGTH_BUCKETS = ("1", "2", "3", "4", "5", "6+")
_NOT_COUNTED = {START, END, COLON, *CONST_VOCAB.values()}


@dataclass(frozen=True)
class Guess:
    """One formula: sketch tokens (`FORMULA_VOCAB` strings, `[START]`/`[END]` optional) and the
    sheet cell of each `[RANGE]` slot (None when it points nowhere)."""

    sketch: tuple[str, ...]
    ranges: tuple[Cell | None, ...]


@dataclass(frozen=True)
class Gold(Guess):
    """The true formula; `reachable` is False when a reference lies outside the model's input."""

    reachable: bool = True


def sketch_key(sketch: Sequence[str]) -> tuple[str, ...]:
    return tuple(t for t in sketch if t not in (START, END))


def formula_key(guess: Guess) -> tuple[str, ...]:
    """Sketch tokens with each `[RANGE]` replaced by its cell's A1 address (see module doc)."""
    ranges = iter(guess.ranges)
    out = []
    for token in sketch_key(guess.sketch):
        if token == RANGE:
            cell = next(ranges, None)
            out.append(NOT_A_CELL if cell is None else a1(*cell))
        else:
            out.append(token)
    return tuple(out)


def sketch_length(sketch: Sequence[str]) -> int:
    """Operators + functions + references: every token but `[START]`, `[END]`, `[:]`, constants."""
    return sum(1 for t in sketch if t not in _NOT_COUNTED)


def length_bucket(n: int) -> str:
    return "6+" if n >= 6 else str(max(n, 1))


def error_class(gold: Gold, top1: Guess | None) -> str:
    """Which of `ERROR_CLASSES` the top-1 guess falls in."""
    if top1 is not None and formula_key(top1) == formula_key(gold):
        return "correct"
    if top1 is None or sketch_key(top1.sketch) != sketch_key(gold.sketch):
        return "wrong_sketch"
    return "wrong_reference" if gold.reachable else "reference_not_in_input"


def example_hits(gold: Gold, guesses: Sequence[Guess], k: int = 5) -> dict[str, int]:
    """Whether one example's ranked `guesses` hold its gold formula and sketch first and among
    the first `k`: {formula_top1, formula_top{k}, sketch_top1, sketch_top{k}} as 0 / 1 (the
    per-target view of `formula_metrics`, e.g. for per-workbook tallies)."""
    top = list(guesses[:k])
    gold_f, gold_s = formula_key(gold), sketch_key(gold.sketch)
    f_keys = [formula_key(g) for g in top]
    s_keys = [sketch_key(g.sketch) for g in top]
    return {
        "formula_top1": int(bool(f_keys) and f_keys[0] == gold_f),
        f"formula_top{k}": int(gold_f in f_keys),
        "sketch_top1": int(bool(s_keys) and s_keys[0] == gold_s),
        f"sketch_top{k}": int(gold_s in s_keys),
    }


def formula_metrics(
    golds: Sequence[Gold], predictions: Sequence[Sequence[Guess]], k: int = 5
) -> dict[str, float | int | dict]:
    """All metrics of the module doc over aligned `golds` and ranked `predictions`."""
    if len(golds) != len(predictions):
        raise ValueError(f"formula_metrics: {len(golds)} golds but {len(predictions)} predictions")
    n = len(golds)
    hits: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    by_len: dict[str, list[int]] = {b: [0, 0] for b in LENGTH_BUCKETS}
    sketch_right = slots = slots_right = 0
    for gold, guesses in zip(golds, predictions, strict=True):
        top = list(guesses[:k])
        one = example_hits(gold, top, k)
        hits.update(one)
        errors[error_class(gold, top[0] if top else None)] += 1
        bucket = by_len[length_bucket(sketch_length(gold.sketch))]
        bucket[0] += 1
        bucket[1] += one["formula_top1"]
        if one["sketch_top1"]:
            sketch_right += 1
            hits["range"] += one["formula_top1"]
            pairs = list(zip(gold.ranges, top[0].ranges, strict=False))
            slots += len(gold.ranges)
            slots_right += sum(1 for g, p in pairs if g is not None and g == p)
    share = lambda x, d: x / d if d else 0.0  # noqa: E731
    return {
        "n": n,
        "formula_top1": share(hits["formula_top1"], n),
        f"formula_top{k}": share(hits[f"formula_top{k}"], n),
        "sketch_top1": share(hits["sketch_top1"], n),
        f"sketch_top{k}": share(hits[f"sketch_top{k}"], n),
        "range_acc": share(hits["range"], sketch_right),
        "reference_acc": share(slots_right, slots),
        "reachable": share(sum(g.reachable for g in golds), n),
        "errors": {name: share(errors[name], n) for name in ERROR_CLASSES},
        "by_sketch_length": {
            b: {"n": c[0], "formula_top1": share(c[1], c[0])} for b, c in by_len.items()
        },
    }
