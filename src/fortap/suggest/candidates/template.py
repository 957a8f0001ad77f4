"""Template candidates: formulas a user writes from scratch over the numbers next to the cell.

- aggregates (SUM, AVERAGE, MIN, MAX, COUNT) over the contiguous run of numbers directly above
  and directly left of the target (Excel's AutoSum is the SUM one; it takes the run above when
  the cell above holds a number, else the run left);
- the SUM of a block above or left that empty rows (columns) break up: from the first number
  after the nearest text, formula or other value back to the cell next to the target (`block`)
  or to the last number (`block_last`), as a section total over spaced-out rows is written (a
  formula also closes the block, unless formulas are not seen: the paper setting);
- pairs of the two nearest numbers to the left (`a`, `b` with `b` adjacent) and above:
  `b-a`, `a-b`, `a+b`, `a*b`, `b/a`, `a/b`, `(b-a)/a` and `b/a-1`.

Features: the template kind, its side, the run length, and whether the row/column labels say
the same thing (`header_agrees`: "Total" for SUM, "% change" for `(b-a)/a`, ...); the SUM of a
contiguous run carries its place in the AutoSum rule's order (`autosum_order`, from
`formula.fill_rule.autosum_runs`). Hidden cells (the target, a hidden block) count as empty, so
a run stops there. `SOURCE` is the source where formulas are seen; `UNSEEN` the same source in
the paper setting, where no formula is visible and so none closes a block.
"""

from __future__ import annotations

import math

from fortap.formula.fill_rule import autosum_runs, number_run
from fortap.sheet.model import a1
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.context import BookContext, Place, Target
from fortap.suggest.features import labels, words_of

AGGREGATES = ("SUM", "AVERAGE", "MIN", "MAX", "COUNT")
_AGG_WORD = {"SUM": "total", "AVERAGE": "average", "MIN": "extreme", "MAX": "extreme"}
_AGG_WORD["COUNT"] = "count"
# pair template -> (text with {a} and {b}, header words that agree with it)
PAIRS = {
    "diff": ("={b}-{a}", {"change", "net", "variance"}),
    "rdiff": ("={a}-{b}", {"change", "net", "variance"}),
    "add": ("={a}+{b}", {"total"}),
    "mul": ("={a}*{b}", set()),
    "ratio": ("={b}/{a}", {"ratio", "percent"}),
    "rratio": ("={a}/{b}", {"ratio", "percent"}),
    "pct": ("=({b}-{a})/{a}", {"percent", "growth", "change"}),
    "pct1": ("={b}/{a}-1", {"percent", "growth", "change"}),
}
BLOCKS = ("block", "block_last")
KINDS = {name: i for i, name in enumerate(AGGREGATES + tuple(PAIRS) + BLOCKS)}
MAX_RUN = 2000
FEATURES = ("tpl_kind", "tpl_above", "tpl_log_run", "tpl_agg", "header_agrees", "autosum_order")


def candidates(
    ctx: BookContext, target: Target, hidden: frozenset[Place], formulas_seen: bool = True
):
    sc = ctx.sheets[target.sheet]
    r, c = target.row, target.col

    def number(at: tuple[int, int]) -> bool:
        if at[0] < 0 or at[1] < 0 or (target.sheet, *at) in hidden:
            return False
        return sc.kind(*at) == "number"

    words = set().union(*map(words_of, labels(ctx, target, hidden)))
    out = []
    lines = {  # the cells above and to the left, nearest first
        "above": [(i, c) for i in range(r - 1, max(r - MAX_RUN, 0) - 1, -1)],
        "left": [(r, j) for j in range(c - 1, max(c - MAX_RUN, 0) - 1, -1)],
    }
    above, left = number_run(number, lines["above"]), number_run(number, lines["left"])
    for order, (side, run) in enumerate(autosum_runs(above, left)):
        area = a1(*run[-1]) if len(run) == 1 else f"{a1(*run[-1])}:{a1(*run[0])}"
        for name in AGGREGATES:
            feats = _features(name, side, len(run), _AGG_WORD[name] in words)
            if name == "SUM":
                feats["autosum_order"] = float(order)
            what = (
                f"{name} of the {len(run)} numbers {side}"
                if len(run) > 1
                else f"{name} of the number {side}"
            )
            out.append(Candidate(f"={name}({area})", "template", what, feats))
    for side, line in lines.items():
        numbers = _block(sc, target, hidden, line, formulas_seen)
        if len(numbers) < 2 or numbers[-1] == line[len(numbers) - 1]:
            continue  # fewer than two numbers, or no gap: the contiguous run says it already
        agrees = "total" in words
        for name, end in (("block", line[0]), ("block_last", numbers[0])):
            feats = _features(name, side, len(numbers), agrees)
            what = f"SUM of the {len(numbers)} numbers {side}, across empty cells"
            out.append(Candidate(f"=SUM({a1(*numbers[-1])}:{a1(*end)})", "template", what, feats))
    for side, (a, b) in (("left", ((r, c - 2), (r, c - 1))), ("above", ((r - 2, c), (r - 1, c)))):
        if not (number(a) and number(b)):
            continue
        for name, (text, agree) in PAIRS.items():
            feats = _features(name, side, 2, bool(agree & words))
            formula = text.format(a=a1(*a), b=a1(*b))
            out.append(Candidate(formula, "template", f"{name} of the two cells {side}", feats))
    return out


def _block(sc, target: Target, hidden, spots, formulas_seen: bool) -> list[tuple[int, int]]:
    """The number cells met walking `spots` outward, over empty cells, until a cell that is
    neither (text, a date, a formula when `formulas_seen`): nearest first."""
    found = []
    for at in spots:
        seen = (target.sheet, *at) not in hidden
        if seen and formulas_seen and at in sc.index:
            break  # a formula (a previous subtotal) closes the block
        kind = sc.kind(*at) if seen else "empty"
        if kind == "number":
            found.append(at)
        elif kind != "empty":
            break
    return found


def _features(name: str, side: str, n: int, agrees: bool) -> dict[str, float]:
    return {
        "tpl_kind": float(KINDS[name]),
        "tpl_above": float(side == "above"),
        "tpl_log_run": math.log1p(n),
        "tpl_agg": float(name in AGGREGATES),
        "header_agrees": float(agrees),
    }


def _unseen(ctx: BookContext, target: Target, hidden: frozenset[Place]):
    return candidates(ctx, target, hidden, formulas_seen=False)


SOURCE = SourceFunction("template", needs_formulas=False, FEATURES=FEATURES, candidates=candidates)
UNSEEN = SourceFunction("template", needs_formulas=False, FEATURES=FEATURES, candidates=_unseen)
