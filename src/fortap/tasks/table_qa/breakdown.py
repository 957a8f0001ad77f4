"""Where answers fail: each wrong answer's cause (`cause_of`), and the tally by question kind
(`breakdown`).

A wrong answer gets the first cause that holds, in this order (`CAUSES`):

- `out of operation set`: HiTab's labels map to no operation (`Target.op` None); only chance
  can answer it;
- `gold cells cut`: its verified gold cells did not all survive the input's cut (`inputs`:
  `meta["gold_shown"]` False); no choice among the shown cells gives them;
- `matching`: the value is right, HiTab's rules mark it wrong: the operation and the cells are
  the gold ones, or the answer agrees loosely (`loosely_equal`: numbers within 1 %, or 100
  times apart within 1 %, a share for a percent; text equal once all but letters and digits
  are dropped);
- `operation wrong` (the cells right), `cells wrong` (the operation right), `both wrong`: against
  the gold operation and cells. The gold cells are the verified target's operands, else the
  cells HiTab links to `[ANSWER]`.

The first two causes need no system (`lost_cause`): they measure how many questions no answer
of the operation set over the shown cells can get right.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from fortap.encoding.piece import RC
from fortap.tasks.table_qa.evaluate import scored
from fortap.tasks.table_qa.kinds import KINDS, question_kind
from fortap.tasks.table_qa.matching import to_value
from fortap.tasks.table_qa.operations import execute
from fortap.tasks.table_qa.predict import Prediction
from fortap.tasks.table_qa.questions import Item

LOST = ("out of operation set", "gold cells cut")
CAUSES = (*LOST, "matching", "operation wrong", "cells wrong", "both wrong")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def lost_cause(item: Item) -> str | None:
    """`out of operation set` or `gold cells cut` when one holds, else None (no system needed)."""
    if item.target.op is None:
        return "out of operation set"
    if item.example.meta.get("gold_shown") is False:
        return "gold cells cut"
    return None


def cause_of(item: Item, found: Prediction) -> str | None:
    """The cause of a wrong answer (see module doc); None when the answer is right."""
    if scored(item, found.run, found.op).right:
        return None
    lost = lost_cause(item)
    if lost is not None:
        return lost
    op_right = found.op == item.target.op
    used = found.run.operands if found.run is not None else found.cells
    cells_right = frozenset(used) == gold_cells(item)
    answer = found.run.answer if found.run is not None else ()
    if (op_right and cells_right) or loosely_equal(answer, item.sample.answer):
        return "matching"
    if op_right:
        return "cells wrong"
    return "operation wrong" if cells_right else "both wrong"


def gold_cells(item: Item) -> frozenset[RC]:
    """The verified target's operands, else the cells HiTab links to `[ANSWER]`."""
    target = item.target
    if target.verified and target.op is not None:
        run = execute(target.op, target.cells, item.paths)
        if run is not None:
            return frozenset(run.operands)
    return frozenset(item.sample.answer_cells)


def loosely_equal(predicted: Sequence, gold: Sequence) -> bool:
    """Each gold value met by its own prediction under the loose rule of the module doc."""
    if not gold or len(predicted) != len(gold):
        return False
    free = [to_value(p) for p in predicted]
    for g in map(to_value, gold):
        hit = next((i for i, p in enumerate(free) if _near(p, g)), None)
        if hit is None:
            return False
        free.pop(hit)
    return True


def _near(p, g) -> bool:
    if isinstance(p, float) and isinstance(g, float):
        return any(abs(p * k - g) <= 0.01 * abs(g) for k in (1.0, 100.0, 0.01))
    if isinstance(p, str) and isinstance(g, str):
        return bool(_NOT_ALNUM.sub("", g)) and _NOT_ALNUM.sub("", p) == _NOT_ALNUM.sub("", g)
    return False


def breakdown(items: Sequence[Item], found: Sequence[Prediction] | None = None) -> list[dict]:
    """One row per question kind (`kinds.KINDS`), then `all`: its questions, their share, the
    shares lost before any system answers (`LOST`, and `target unverified`: labels in the set
    but no cells found that give the gold); with predictions (one per item) also the accuracy,
    the wrong answers and each cause's count and share of them."""
    if found is not None and len(found) != len(items):
        raise ValueError(f"breakdown: {len(found)} predictions for {len(items)} questions")
    kinds = [question_kind(item.sample) for item in items]
    rows = []
    for kind in (*KINDS, "all"):
        picked = [k for k, name in enumerate(kinds) if kind in ("all", name)]
        if not picked:
            continue
        n = len(picked)
        lost = Counter(lost_cause(items[k]) for k in picked)
        unverified = sum(items[k].target.op is not None and not items[k].target.verified
                         for k in picked)  # fmt: skip
        row = {"kind": kind, "n": n, "share": n / len(items),
               **{f"{cause} share": lost[cause] / n for cause in LOST},
               "target unverified share": unverified / n}  # fmt: skip
        if found is not None:
            causes = Counter(cause_of(items[k], found[k]) for k in picked)
            wrong = n - causes[None]
            row |= {"accuracy": causes[None] / n, "wrong": wrong,
                    "causes": {c: {"n": causes[c], "share of wrong": causes[c] / wrong if wrong
                                   else 0.0} for c in CAUSES}}  # fmt: skip
        rows.append(row)
    return rows
