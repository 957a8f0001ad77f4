"""Echo candidates: a reference to the cell whose value the neighbours repeat.

Many formulas only carry a value over: `=A1` puts a label beside a table, `=$E$2` repeats a
parameter down a column. With no formula visible (the paper setting) such cells still show
themselves through their values, which `induced` does not read (it explains numbers of the
target's own row or column). An *anchor* is a non-empty cell within `induced.REACH` cells of the
target in its row or column. It is *echoed* when its value (a text of 2+ characters, or a number
that is not a small integer) stands in at most `MAX_SOURCES` other visible cells of the sheet,
its *sources*. Each source gives two templates: the offset from the anchor to it (relative, `=A1`
dragged) and the source itself (absolute, `=$E$2`); both are proposed, as different texts. A
template that several anchors share is a block of such formulas seen through its values and comes
first, but one anchor is enough. Each is moved to the target and proposed when the cell it points
at is visible, holds a value (a formula cell counts by its value) and is not the target.

Features: how many anchors of the target's row and of its column share the template, the nearest
one's distance, the ambiguity of its least ambiguous anchor (how many sources its value has),
whether it is absolute, the share of its anchors that hold text, and whether the cell it points
at holds a value worth echoing (always, for an absolute one). Hidden cells, the target included,
count as empty: nothing reads the target's value.
"""

from __future__ import annotations

import math
from itertools import islice

from fortap.sheet.model import a1
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.candidates.induced import REACH
from fortap.suggest.candidates.values import key_of, values_of
from fortap.suggest.context import BookContext, Place, Target

FEATURES = ("echo_row", "echo_col", "echo_support", "echo_near", "echo_log_amb", "echo_abs",
            "echo_text", "echo_landed")  # fmt: skip
MAX_SOURCES = 3  # a value repeated more often than this is too common to point anywhere
KEEP = 8  # at most this many echo candidates per target (most shared first)


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place]):
    sc = ctx.sheets[target.sheet]
    index = values_of(sc)
    r, c = target.row, target.col

    def visible(row: int, col: int) -> bool:
        return (row, col) != (r, c) and (target.sheet, row, col) not in hidden

    found: dict[tuple, dict] = {}
    for axis, (dr, dc) in (("row", (0, 1)), ("col", (1, 0))):
        for d in (k for k in range(-REACH, REACH + 1) if k):
            at = (r + dr * d, c + dc * d)
            if min(at) < 0 or not visible(*at):
                continue
            key = key_of(sc.sheet.cell(*at))
            if key is None:
                continue
            others = (s for s in index.get(key, ()) if s != at and visible(*s))
            sources = list(islice(others, MAX_SOURCES + 1))  # one more than allowed is enough
            if not sources or len(sources) > MAX_SOURCES:
                continue
            for s in sources:
                for tpl in (("rel", s[0] - at[0], s[1] - at[1]), ("abs", *s)):
                    rec = found.setdefault(
                        tpl, {"row": 0, "col": 0, "near": 99, "amb": 99, "text": 0}
                    )
                    rec[axis] += 1
                    rec["near"] = min(rec["near"], abs(d))
                    rec["amb"] = min(rec["amb"], len(sources))
                    rec["text"] += key[0] == "t"
    out = []
    for tpl, rec in found.items():
        to = (r + tpl[1], c + tpl[2]) if tpl[0] == "rel" else (tpl[1], tpl[2])
        if min(to) < 0 or not visible(*to) or not holds_value(sc.sheet.cell(*to)):
            continue
        ref = a1(*to)
        text = "=" + a1(*to, absolute=tpl[0] == "abs")
        n = rec["row"] + rec["col"]
        feats = {
            "echo_row": float(rec["row"]),
            "echo_col": float(rec["col"]),
            "echo_support": float(n),
            "echo_near": float(rec["near"]),
            "echo_log_amb": math.log(rec["amb"]),
            "echo_abs": float(tpl[0] == "abs"),
            "echo_text": rec["text"] / n,
            "echo_landed": float(key_of(sc.sheet.cell(*to)) is not None),
        }
        what = f"repeats {ref}, as {n} neighbouring cell{'s' * (n > 1)} repeat{'s' * (n == 1)} "
        what += "theirs" if n > 1 else "its"
        out.append((-n, rec["near"], rec["amb"], Candidate(text, "echo", what, feats)))
    out.sort(key=lambda x: x[:3])
    return [cand for *_, cand in out[:KEEP]]


def holds_value(cell) -> bool:
    """A cell that shows something: not empty, and not a formula's empty text ("")."""
    return cell.kind != "empty" and str(cell.value).strip() != ""


SOURCE = SourceFunction("echo", needs_formulas=False, FEATURES=FEATURES, candidates=candidates)
