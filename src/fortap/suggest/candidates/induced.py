"""Induced candidates: formulas that the values next to the target already obey.

With no formula visible (the paper setting) the values that formulas computed still are. An
*anchor* is a number within `REACH` cells of the target in its row or column. A template
*explains* an anchor when, placed at the anchor, it computes the anchor's value from the visible
numbers around it:
- an aggregate (`SUM`, `AVERAGE`) of a contiguous run of numbers directly above, below, left or
  right of the anchor, of any length from 2;
- one cell of the anchor's row or column (`=B5`);
- two cells of the anchor's row, or two of its column, joined by `+`, `-`, `*` or `/` (for `+`
  and `-` both must count: see `_pairs`);
- one such cell and a constant (`=B5*0.8`, `=B5/1000`, `=A7+1`), proposed only when at least two
  anchors agree on the constant, written with at most 6 significant digits;
- one such cell and a *fixed cell*: where the anchors agree on a constant that a visible cell of
  the sheet holds (anywhere on it, at most `MAX_HOLDERS` cells, not a small integer), the
  constant is that cell's value (`=H24/$H$113`, a share of the total; `=B5*$C$2`, a rate kept in
  one cell; `=A3+$D$1` with D1 = -150.5). It is written absolute (`$H$113`), the way most
  workbooks that fix one cell of such a formula write it. The holder is found by value: it equals
  the constant within a relative 1e-9 of the constant, plus the rounding that `v - x` carries.
Templates are relative (R1C1), so one that explains several anchors along a line is a dragged
block seen through its values. Every template that explains an anchor is moved to the target
and proposed. Features: how many anchors of the target's row and of its column it explains, the
nearest one's distance, the ambiguity of its least ambiguous anchor (how many templates other
than constants explain that anchor), whether the moved formula's cells hold numbers, and the
template's kind; for a fixed cell also how many cells hold the constant, whether the one
referenced lies in the row or column of the cell it combines with, and how far from the target
it is (its `ind_landed` counts the holder among the cells read).

Hidden cells, the target included, count as empty: nothing reads the target's value. Values equal
within a relative 1e-9; anchors that are 0 explain nothing (everything computes 0 somewhere).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from fortap.sheet.model import a1
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.candidates.values import numbers_within, values_of
from fortap.suggest.context import BookContext, Place, Target

FEATURES = ("ind_row", "ind_col", "ind_support", "ind_near", "ind_log_amb", "ind_kind",
            "ind_landed", "ind_reading", "ind_log_span", "ind_log_holders", "ind_fixed_line",
            "ind_fixed_far")  # fmt: skip
REACH = 4  # anchors: numbers this close to the target in its row or column
LINE = 8  # a pair's cells: this close to the anchor in its row or column
MAX_RUN = 200  # longest aggregate run tried
KEEP = 24  # at most this many induced candidates per target (most supported first)
AGGREGATES = ("SUM", "AVERAGE")
OPS = ("+", "-", "*", "/")
STORED = 1e-14  # rounding allowed per stored value: 15 significant digits (LibreOffice), doubled
MAX_HOLDERS = 3  # a constant that more cells hold is a unit, not a reference to one of them
KINDS = {"SUM": 0, "AVERAGE": 1, "ref": 2, "+": 3, "-": 4, "*": 5, "/": 6}
KINDS |= {"+c": 7, "-c": 8, "*c": 9, "/c": 10}  # one cell and a fixed cell
KINDS |= {"+k": 11, "-k": 12, "*k": 13, "/k": 14}  # one cell and a constant
CONSTANT = ("+k", "-k", "*k", "/k", "+c", "-c", "*c", "/c")  # the anchors must agree on it
FIXED = ("+c", "-c", "*c", "/c")
SIDES = {"above": (-1, 0), "below": (1, 0), "left": (0, -1), "right": (0, 1)}

Template = tuple  # (kind, offsets...) relative to the anchor; see `_explain`


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place]):
    sc = ctx.sheets[target.sheet]
    sheet = sc.sheet
    r, c = target.row, target.col

    def value(row: int, col: int) -> float | None:
        if row < 0 or col < 0 or (row, col) == (r, c) or (target.sheet, row, col) in hidden:
            return None  # off the sheet, the target itself, or hidden
        cell = sheet.cell(row, col)
        if cell.kind != "number" or isinstance(cell.value, bool):
            return None
        v = float(cell.value)  # type: ignore[arg-type]
        return v if math.isfinite(v) else None

    held = values_of(sc)
    within = partial(numbers_within, sc)
    found: dict[Template, dict] = {}
    for axis, (dr, dc) in (("row", (0, 1)), ("col", (1, 0))):
        for d in (k for k in range(-REACH, REACH + 1) if k):
            at = (r + dr * d, c + dc * d)
            v = value(*at)
            if v is None or v == 0.0:
                continue
            explained = _explain(value, at, v, within)
            rivals = 1 + sum(tpl[0] not in CONSTANT for tpl in explained)
            for tpl in explained:
                rec = found.setdefault(tpl, {"row": 0, "col": 0, "near": 99, "amb": 1e9})
                rec[axis] += 1
                rec["near"] = min(rec["near"], abs(d))
                rec["amb"] = min(rec["amb"], rivals)
    # the strongest first (a stable sort: ties keep the order found), built only until `KEEP`
    # are kept: a target's anchors explain about 300 templates, and building each was most of
    # the source's time
    out: list[Candidate] = []
    for tpl, rec in sorted(found.items(), key=lambda item: _strength(*item)):
        if len(out) >= KEEP:
            break
        if tpl[0] in CONSTANT and rec["row"] + rec["col"] < 2:
            continue
        if tpl[0] in FIXED:
            out += _fixed(tpl, rec, target, held.get(("n", tpl[3]), ()), value)
            continue
        text, cells = _at(tpl, r, c)
        if text is None:
            continue
        landed = sum(value(*x) is not None for x in cells) / len(cells)
        out.append(Candidate(text, "induced", _why(rec), _features(tpl, rec, landed)))
    return out[:KEEP]


def _strength(tpl: Template, rec: dict) -> tuple:
    """`by_strength`'s order read from a template and its record, before it is built."""
    return (-(rec["row"] + rec["col"]), rec["near"], math.log(rec["amb"]), KINDS[tpl[0]])


def _features(tpl: Template, rec: dict, landed: float) -> dict[str, float]:
    return {
        "ind_row": float(rec["row"]),
        "ind_col": float(rec["col"]),
        "ind_support": float(rec["row"] + rec["col"]),
        "ind_near": float(rec["near"]),
        "ind_log_amb": math.log(rec["amb"]),
        "ind_kind": float(KINDS[tpl[0]]),
        "ind_landed": landed,
        "ind_reading": float(_reading_order(tpl)),
        "ind_log_span": math.log1p(_span(tpl)),
    }


def _why(rec: dict) -> str:
    n = rec["row"] + rec["col"]
    return f"computes the values of {n} neighbouring cell{'s' * (n > 1)}"


def _fixed(tpl: Template, rec: dict, target: Target, holders, value) -> list:
    """A fixed-cell template at the target: one candidate per visible cell holding its
    constant, absolute; none when more than `MAX_HOLDERS` visible cells hold it (the cell the
    formula combines it with, the target and hidden cells are not counted)."""
    r, c = target.row, target.col
    at = (r + tpl[1], c + tpl[2])
    if min(at) < 0:
        return []
    seen = [h for h in holders if h != at and value(*h) is not None]
    if not seen or len(seen) > MAX_HOLDERS:
        return []
    landed = (float(value(*at) is not None) + 1.0) / 2  # the holder is always a visible number
    out = []
    for h in seen:
        feats = _features(tpl, rec, landed) | {
            "ind_log_holders": math.log(len(seen)),
            "ind_fixed_line": float(h[0] == at[0] or h[1] == at[1]),  # the total of `at`'s line
            "ind_fixed_far": math.log1p(abs(h[0] - r) + abs(h[1] - c)),
        }
        why = f"{_why(rec)}, with {a1(*h)} as its constant"
        text = f"={a1(*at)}{tpl[0][0]}{a1(*h, absolute=True)}"
        out.append(Candidate(text, "induced", why, feats))
    return out


def by_strength(cands) -> list:
    """The induced among `cands`, the hand order without learning: most anchors explained first,
    then the nearest, the least ambiguous and the simplest kind (`KINDS` order)."""

    def strength(cand) -> tuple:
        f = cand.features
        return (-f["ind_support"], f["ind_near"], f["ind_log_amb"], f["ind_kind"])

    return sorted((c for c in cands if "ind_support" in c.features), key=strength)


def _explain(value, at: tuple[int, int], v: float, within) -> list[Template]:
    """The templates (offsets relative to `at`) that compute `v` at `at` from visible numbers;
    `within` (`values.numbers_within` of the sheet) finds the fixed cells' constants."""
    out: list[Template] = []
    ar, ac = at
    for dr, dc in SIDES.values():
        run = []
        for k in range(1, MAX_RUN + 1):
            x = value(ar + dr * k, ac + dc * k)
            if x is None:
                break
            run.append(x)
        if len(run) < 2:
            continue
        sums = np.cumsum(run)  # (n,)
        n = np.arange(1, len(run) + 1)
        for fn, agg in (("SUM", sums), ("AVERAGE", sums / n)):
            for k in np.flatnonzero(_close(agg, v))[:4]:
                if k >= 1:
                    far = int(k) + 1
                    out.append((fn, dr, dc, dr * far, dc * far))
    for dr, dc in ((0, 1), (1, 0)):  # the anchor's row, then its column
        spots = [(k * dr, k * dc) for k in range(-LINE, LINE + 1) if k]
        xs = [(o, value(ar + o[0], ac + o[1])) for o in spots]
        xs = [(o, x) for o, x in xs if x is not None]
        offs = [o for o, _ in xs]
        vals = np.array([x for _, x in xs])  # (m,)
        for i in np.flatnonzero(_close(vals, v)):
            out.append(("ref", *offs[i]))
        some = np.flatnonzero(vals != 0.0)
        out += _constants([offs[i] for i in some], vals[some], v, within)
        out += _pairs(offs, vals, v)
    return out


def _pairs(offs: list[tuple[int, int]], vals: np.ndarray, v: float) -> list[Template]:
    """`a op b` = v for two different cells of one line (offsets `offs`, values `vals` (m,)).
    For `+` and `-` both operands must count: the pair holds within a relative 1e-9 of the
    smaller operand too, plus the rounding that the stored a, b and v carry (`STORED`; beside a
    large `a`, any tiny `b` would pass the 1e-9 of v)."""
    if not offs:
        return []
    a, b = vals[:, None], vals[None, :]  # (m, 1), (1, m)
    with np.errstate(all="ignore"):
        results = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}  # each (m, m)
        small = 1e-9 * np.minimum(abs(a), abs(b)) + STORED * (abs(a) + abs(b) + abs(v))  # (m, m)
    out = []
    for op, res in results.items():
        hit = _close(res, v)
        if op in "+-":
            hit &= np.abs(res - v) <= small
        np.fill_diagonal(hit, False)
        for i, j in zip(*np.nonzero(hit), strict=True):
            out.append((op, *offs[i], *offs[j]))
    return out


def _constants(offs: list[tuple[int, int]], xs: np.ndarray, v: float,
               within) -> list[Template]:  # fmt: skip
    """`v` as each cell's value x (offsets `offs`, nonzero values `xs` (m,)) and a short
    constant: x+k, x-k, x*k, x/k; and, for each number h of the sheet that is k (`within`: the
    sheet's sorted number keys and the span near each k, `values.numbers_within`), as x and the
    fixed cell that holds h (a negative h too: `=A3+$D$1` with D1 = -150.5). h is k within a
    relative 1e-9 of k, as for the module's equality; for `+` and `-` also within the rounding
    that `k = v - x` carries from the stored v and x (`STORED`), which grows with v and x, not
    with k. The line's constants are looked up together (one search per kind, not one per
    cell)."""
    with np.errstate(all="ignore"):  # an overflowing v / x is no constant (`held` drops it)
        ks = np.stack([v - xs, xs - v, v / xs, xs / v])  # (4, m): +k, -k, *k, /k
        tol = 1e-9 * np.abs(ks)  # (4, m)
        tol[:2] += STORED * (abs(v) + np.abs(xs))
    keys, lo, hi = within(ks, tol)  # lo, hi (4, m)
    held = np.isfinite(ks) & (ks != 0.0) & (hi > lo)  # (4, m)
    out: list[Template] = []
    for i, off in enumerate(offs):
        for j, kind in enumerate(("+k", "-k", "*k", "/k")):
            k = float(ks[j, i])
            if held[j, i]:
                out += [(kind[0] + "c", *off, float(h)) for h in keys[lo[j, i] : hi[j, i]]]
            scaling = kind in ("*k", "/k")
            if (scaling and k == 1.0) or (not scaling and k <= 0.0):
                continue  # x*1 is x itself; x-(-k) is written x+k
            text = _nice(k)
            if text is not None:
                out.append((kind, *off, text))
    return out


def _nice(k: float) -> str | None:
    """`k` written in plain digits with at most 6 significant ones, when that is `k` (1e-9
    relative): `0.8`, `1000000`, `0.00001`; None for any other number."""
    if not math.isfinite(k) or k == 0.0:
        return None
    text = f"{k:.6g}"
    if "e" in text:
        text = f"{float(text):.12f}".rstrip("0").rstrip(".")
    if abs(float(text) - k) > 1e-9 * abs(k):
        return None
    return text


def _close(x: np.ndarray, v: float) -> np.ndarray:
    return np.isfinite(x) & (np.abs(x - v) <= 1e-9 * max(abs(v), 1e-300))


def _at(tpl: Template, r: int, c: int) -> tuple[str | None, list[tuple[int, int]]]:
    """The template's formula text at (r, c) and the cells it reads; None when off the sheet."""
    kind = tpl[0]
    if kind in AGGREGATES:
        _, dr0, dc0, dr1, dc1 = tpl
        ends = sorted([(r + dr0, c + dc0), (r + dr1, c + dc1)])
        if min(ends[0]) < 0:
            return None, []
        (r0, c0), (r1, c1) = ends
        cells = [(i, j) for i in range(r0, r1 + 1) for j in range(c0, c1 + 1)]
        return f"={kind}({a1(r0, c0)}:{a1(r1, c1)})", cells
    if kind in CONSTANT:
        at = (r + tpl[1], c + tpl[2])
        return (None, []) if min(at) < 0 else (f"={a1(*at)}{kind[0]}{tpl[3]}", [at])
    offs = [(r + tpl[i], c + tpl[i + 1]) for i in range(1, len(tpl), 2)]
    if min(min(x) for x in offs) < 0:
        return None, []
    if kind == "ref":
        return f"={a1(*offs[0])}", offs
    return f"={a1(*offs[0])}{kind}{a1(*offs[1])}", offs


def _reading_order(tpl: Template) -> bool:
    """A pair whose first cell comes first in reading order (top to bottom, left to right)."""
    if tpl[0] not in OPS:
        return True  # one cell, or a run
    return (tpl[1], tpl[2]) < (tpl[3], tpl[4])


def _span(tpl: Template) -> int:
    return max(abs(x) for x in tpl[1:] if isinstance(x, int))


SOURCE = SourceFunction("induced", needs_formulas=False, FEATURES=FEATURES, candidates=candidates)
