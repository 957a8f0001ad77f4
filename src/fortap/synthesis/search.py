"""The search: which templates the numbers along a target's row or column obey.

For each direction a block can be dragged in (down a column, across a row), the *anchors* are
the numbers nearest the target along it (at most `SynthConfig.anchors`, within `reach` cells),
and each anchor's *leaves* are the cells of its cross line (its row, for a block down a
column) at any distance inside the sheet, nearest first, and its one or two predecessors along
the block (a running balance). A leaf is kept when the target's own cell at that offset holds a
number: a formula placed at the target reads numbers. The families (`families.py`) are tried
cheapest first, each vectorised over the anchors; a template is found when it gives the value of
at least `min_support` anchors (0 never counts, except for the `IF(b=0,0,a/b)` guard, whose
zeros are its evidence). The deeper families (three references, four, functions) run only while
no template explains every anchor, and each family's cost (templates × anchors) is taken from a
budget counted in work, not in time, so a call's cost is bounded on any sheet.

Each found template is then checked along the whole line: `block` is the count of cells of the
run around the target whose values it reproduces ("reproduces the values of 12 cells of D4:D20").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fortap.sheet.model import a1
from fortap.synthesis import families as fam
from fortap.synthesis.grid import Grid
from fortap.synthesis.template import Template, evaluate, leaves, reach, size, text_at

DIRECTIONS = {"col": ((1, 0), (0, 1)), "row": ((0, 1), (1, 0))}  # axis -> (along, cross)
ORDER = ("ref", "fixed", "run", "pair", "const", "minmax", "triple", "pair_const", "round", "abs", "guard",
         "far", "far_const", "lone")
STORED = 1e-14  # rounding per stored value (15 significant digits), doubled
OWN = 4  # cells of the block's own line among the deep families' leaves
NEAREST = sorted((o for o in range(-200, 201) if o), key=lambda o: (abs(o), o))  # leaf offsets


@dataclass(frozen=True)
class SynthConfig:
    """How far and how hard a search looks."""

    reach: int = 6  # anchors: numbers this close to the target along the block
    anchors: int = 6  # at most this many anchors per direction, nearest first
    width: int = 40  # leaves: at most this many cells of a cross line, nearest first
    deep: int = 10  # the three- and four-reference families read the nearest this many leaves
    window: int = 30  # single cells off the target's lines: this many rows away, half as many columns
    budget: int = 2_000_000  # work per target: templates tried × anchors, over all families
    keep: int = 24  # templates returned, best first
    line: int = 60  # cells each side of the target a found template is checked on
    min_support: int = 2  # anchors a template must explain

    def __post_init__(self) -> None:
        if self.min_support < 2:
            raise ValueError("SynthConfig.min_support: at least 2 neighbours must agree")


@dataclass(frozen=True)
class Found:
    """One template that the target's neighbours obey, placed at the target."""

    template: Template
    formula: str  # A1 text at the target
    value: float  # what it computes there (NaN when a cell it reads holds no number)
    axis: str  # "col": a block down the target's column; "row": across its row
    family: str  # one of `ORDER`
    support: int  # anchors it explains
    anchors: int  # anchors tried in its direction
    near: int  # distance to the nearest anchor it explains
    block: int  # cells of the contiguous run around the target whose values it reproduces
    span: str  # that run, `D4:D20`, the target included
    run: tuple[tuple[int, int], ...]  # that run's cells (row, col), the target excluded
    size: int  # leaves and operators
    refs: int  # references and runs
    reach: int  # farthest offset it reads
    rivals: int  # templates found with the same support in its direction (by the cells they read)

    @property
    def reason(self) -> str:
        if self.family == "lone":
            return f"the total of the {self.block} numbers of {self.span}"
        return f"reproduces the values of {self.block} cell{'s' * (self.block != 1)} of {self.span}"


def synthesise(grid: Grid, row: int, col: int, hidden: frozenset = frozenset(),
           cfg: SynthConfig = SynthConfig()) -> list[Found]:  # fmt: skip
    """The templates the numbers around (row, col) obey, best first: most anchors explained,
    then the simplest, the nearest. `hidden` cells (row, col) and the target read as empty."""
    values = grid.view(hidden | {(row, col)})
    out: dict[str, Found] = {}
    for axis in DIRECTIONS:
        for found in _direction(grid, values, row, col, axis, cfg):
            old = out.get(found.formula)
            if old is None or _rank(found) < _rank(old):
                out[found.formula] = found
    ranked = sorted(out.values(), key=_rank)[: cfg.keep]
    return ranked + [f for f in _lone(values, row, col) if f.formula not in out]


def _lone(values, row: int, col: int) -> list[Found]:
    """`SUM` of the numbers running from the target up, left, down or right (Excel's AutoSum,
    and a subtotal over the items below it), with no neighbour to agree: a total alone in its
    line, or a block of zeros (a blank template). Two runs each way: the contiguous numbers
    (one empty cell between the target and them allowed), and the numbers through single empty
    cells up to a text cell. Support 0; the run is the evidence."""
    out = []
    for axis, (dr, dc) in (("col", (-1, 0)), ("row", (0, -1)), ("col", (1, 0)), ("row", (0, 1))):
        steps = np.arange(1, fam.MAX_RUN + 1)
        line = values(row + dr * steps, col + dc * steps)  # (W,)
        first = 0 if np.isfinite(line[0]) else 1
        for end in sorted({_run_end(line, first, gaps=False), _run_end(line, first, gaps=True)}):
            if np.isfinite(line[first:end]).sum() < 2:
                continue
            near, far = first + 1, end
            lo, hi = sorted((near, far), key=lambda k: (dr * k, dc * k))
            tpl = ("run", "SUM", dr * lo, dc * lo, dr * hi, dc * hi)
            text = text_at(tpl, row, col)
            if text is None:
                continue
            span = f"{a1(row + dr * lo, col + dc * lo)}:{a1(row + dr * hi, col + dc * hi)}"
            count = int(np.isfinite(line[first:end]).sum())
            out.append(Found(tpl, text, float(np.nansum(line[first:end])), axis, "lone", 0, 0, 0,
                             count, span, (), 2, 1, end, 1))  # fmt: skip
    return out


def _run_end(line: np.ndarray, first: int, gaps: bool) -> int:
    """Where a run of numbers starting at `first` ends (exclusive): at the first cell that is
    no number, or with `gaps` at two empty cells in a row (`line` marks text as NaN too, so a
    run through gaps also stops where the numbers stop for good)."""
    end, k = first, first
    while k < len(line):
        if np.isfinite(line[k]):
            end = k = k + 1
        elif gaps and k + 1 < len(line) and np.isfinite(line[k + 1]):
            k += 1
        else:
            break
    return end


def _rank(f: Found) -> tuple:
    return (-f.support, -min(f.block, 50), f.size, f.reach, ORDER.index(f.family),
            not _reading_order(f.template))


def _reading_order(tpl: Template) -> bool:
    """Whether its references come in reading order (`=B6*C6`, not `=C6*B6`)."""
    spots = [leaf[1:3] for leaf in leaves(tpl) if leaf[0] == "ref"]
    return spots == sorted(spots)


def _direction(grid: Grid, values, row: int, col: int, axis: str,
               cfg: SynthConfig) -> list[Found]:  # fmt: skip
    (ur, uc), (wr, wc) = DIRECTIONS[axis]
    ks = sorted((k for k in range(-cfg.reach, cfg.reach + 1) if k), key=lambda k: (abs(k), k))
    ks_a = np.array(ks)
    got = values(row + ur * ks_a, col + uc * ks_a)  # (K,)
    take = np.flatnonzero(np.isfinite(got))[: cfg.anchors]
    if np.count_nonzero(got[take]) < cfg.min_support:
        return []
    ka, y = ks_a[take], got[take]  # (A,), (A,)
    ar, ac = row + ur * ka, col + uc * ka  # (A,)
    tol = 1e-9 * np.abs(y) + STORED * np.abs(y) + 1e-12  # (A,)
    (on_cross, on_line), X = _leaves(values, row, col, ar, ac, (ur, uc), (wr, wc), cfg)
    pool = on_cross + on_line
    if not pool:
        return []
    found = _Collector(y, np.abs(ka), tol, cfg)
    budget = cfg.budget
    # cheapest first; the deep families only while some anchor is left unexplained
    cheap = [*fam.refs(pool, X), *_runs(values, ar, ac, (wr, wc), row, col),
             *fam.pairs(pool, X)]  # fmt: skip
    for name, build, E in cheap:
        budget -= E.size
        found.add(name, build, E)
    # the deep families: the nearest of the cross line and the nearest few of the block's own
    nearest = [*range(min(cfg.deep, len(on_cross))), *range(len(on_cross), len(pool))[: OWN]]
    near = sorted(nearest, key=lambda i: pool[i][1:])  # reading order: `=B6*C6/Q6`
    deep, X_deep = [pool[i] for i in near], X[:, near]  # (A, D)
    for x, k, op, hits in fam.constants(deep.__getitem__, X_deep, y, tol, found.least("const")):
        found.add_constant(x, k, op, hits, grid)
    _fixed(found, grid, y, tol, (row, col), (ur, uc))
    if np.any(y == 0.0):
        _guard(found, deep, X_deep)
    if not found.complete() and budget > 0:
        for name, build, E in fam.triples(deep, X_deep):
            if budget < E.size:
                break
            budget -= E.size
            found.add(name, build, E)
    if not found.complete() and budget > 0:
        build, P = fam.pair_values(deep, X_deep)  # (A, 4*D*D)
        for x, k, op, hits in fam.constants(build, P, y, tol, 3):
            found.add_constant(x, k, op, hits, grid, family="pair_const")
        _functions(found, deep, X_deep)
    if not found.complete() and budget > 0:
        far, X_far = _window(values, row, col, ar, ac, cfg)  # (A, F)
        found.add("far", far.__getitem__, X_far.T)
        for x, k, op, hits in fam.constants(far.__getitem__, X_far, y, tol, 3):
            found.add_constant(x, k, op, hits, grid, family="far_const")
    return found.placed(row, col, axis, values, (ur, uc))


def _leaves(values, row, col, ar, ac, along, cross, cfg: SynthConfig):
    """The leaves (relative refs) and their values at the anchors X (A, L): cells of the
    target's cross line (its row, for a block down a column), then of its own line, each
    nearest first, kept where the target's own cell at the offset holds a number; at most
    `cfg.width` of the cross line and half as many of its own."""
    picked, blocks = [], []
    for (ur, uc), cap in ((cross, cfg.width), (along, OWN)):
        offs = [(o * ur, o * uc) for o in NEAREST]
        dr = np.array([o[0] for o in offs])
        dc = np.array([o[1] for o in offs])
        at_target = values(row + dr, col + dc)  # (O,)
        X = values(ar[:, None] + dr[None, :], ac[:, None] + dc[None, :])  # (A, O)
        ok = np.flatnonzero(np.isfinite(at_target) & (np.isfinite(X).sum(0) >= cfg.min_support))
        picked.append([("ref", *offs[i]) for i in ok[:cap]])
        blocks.append(X[:, ok[:cap]])
    return picked, np.concatenate(blocks, 1)


def _window(values, row, col, ar, ac, cfg: SynthConfig):
    """Single cells off the target's lines (`=H140` at P152): every offset in a box of
    `cfg.window` rows and half as many columns, kept where the target's own cell there holds
    a number."""
    h, w = cfg.window, cfg.window // 2
    dr, dc = np.mgrid[-h : h + 1, -w : w + 1]
    off = (dr != 0) & (dc != 0)  # the target's own row and column are the pool's
    dr, dc = dr[off], dc[off]  # (F,)
    ok = np.isfinite(values(row + dr, col + dc))
    dr, dc = dr[ok], dc[ok]
    X = values(ar[:, None] + dr[None, :], ac[:, None] + dc[None, :])  # (A, F)
    return [("ref", int(i), int(j)) for i, j in zip(dr, dc, strict=True)], X


def _runs(values, ar, ac, cross, row, col):
    """Aggregate runs on both sides of each anchor's cross line, up to the sheet's edge or
    `MAX_RUN` cells; a run is a candidate when the target's own run has 2+ numbers too."""
    wr, wc = cross
    for s in (-1, 1):
        steps = np.arange(1, fam.MAX_RUN + 1)
        side = values(ar[:, None] + s * wr * steps, ac[:, None] + s * wc * steps)  # (A, W)
        mine = values(row + s * wr * steps, col + s * wc * steps)  # (W,)
        ends = np.flatnonzero(np.isfinite(mine) | np.isfinite(side).any(0))
        if len(ends) < 2:
            continue
        w = int(ends[-1]) + 1
        yield from fam.runs(side[:, :w], (s * wr, s * wc))


def _functions(found: _Collector, pool, X) -> None:
    """`ROUND` and `ABS` over references and pairs of `pool`, whose values are X (A, D)."""
    n = X.shape[1]
    a, b = X[:, :, None], X[:, None, :]  # (A, L, 1), (A, 1, L)
    for op in fam.OPS:
        E = fam.apply(op, a, b).reshape(len(X), -1).T  # (L*L, A)
        build = fam.pair_builder(op, pool, n)
        for digits, R, hits in fam.rounded(E, found.y, found.tol):
            found.add_hits("round", lambda i, bld=build, k=digits: ("fn", "ROUND", bld(i),
                                                                     ("num", str(k))), hits, R)
        if op == "-":
            found.add("abs", lambda i, bld=build: ("fn", "ABS", bld(i)), np.abs(E))



def _fixed(found: _Collector, grid: Grid, y: np.ndarray, tol: np.ndarray, target, along) -> None:
    """Where the anchors all hold one value: the fixed cells off the block's line that hold it
    (`=$B$1` down a column), at most 3 of them."""
    ys = y[found.counting]
    if len(ys) < 2 or np.any(np.abs(ys - ys[0]) > tol[found.counting]):
        return
    (r, c), (ur, _) = target, along
    on_line = (lambda h: h[1] == c) if ur else (lambda h: h[0] == r)
    holders = [h for h in grid.holders(float(ys[0]), float(tol.max())) if not on_line(h)]
    if 0 < len(holders) <= 3:
        for h in holders:
            found._keep(("abs", *h), "fixed", int(found.counting.sum()), found.counting.copy())


def _guard(found: _Collector, pool, X) -> None:
    """`IF(b=0,0,a/b)`, where some anchor is 0 and its `b` is 0 (the guard's own evidence)."""
    n = X.shape[1]
    a, b = X[:, :, None], X[:, None, :]  # (A, D, 1), (A, 1, D)
    G = fam.apply("IFZERO", a, b).reshape(len(X), -1).T  # (D*D, A)
    zero = np.broadcast_to(b == 0.0, (len(X), n, n)).reshape(len(X), -1).T  # (D*D, A)
    zero = zero & (found.y == 0.0)[None, :]
    hits = (np.abs(G - found.y) <= found.tol) & (found.y != 0.0)
    keep = zero.any(1)
    found.add_hits("guard", lambda i: ("fn", "IFZERO", pool[i // n], pool[i % n]),
                   (hits | zero) & keep[:, None], G)


class _Collector:
    """The templates found in one direction, with the anchors each explains."""

    def __init__(self, y: np.ndarray, dist: np.ndarray, tol: np.ndarray,
                 cfg: SynthConfig) -> None:  # fmt: skip
        self.y, self.dist, self.tol, self.cfg = y, dist, tol, cfg
        self.counting = y != 0.0  # (A,): zeros explain nothing (everything computes 0 somewhere)
        self.need = int(self.counting.sum())
        self.found: dict[Template, tuple[str, int, np.ndarray]] = {}  # tpl -> (family, support, hits)
        self.seen: set[bytes] = set()  # value vectors of the found templates (`_values_keys`)
        self.order: dict[Template, tuple] = {}  # tpl -> its place among the found, best first

    def complete(self) -> bool:
        return any(s >= self.need for _, s, _ in self.found.values())

    def add(self, family: str, build, E: np.ndarray) -> None:
        """Templates `build(i)` whose values E (N, A) explain enough anchors."""
        hits = (np.abs(E - self.y[None, :]) <= self.tol[None, :]) & self.counting[None, :]
        self.add_hits(family, build, hits, E)

    def add_hits(self, family: str, build, hits: np.ndarray, E: np.ndarray) -> None:
        support = hits.sum(1)  # (N,)
        deep = family not in ("ref", "run", "pair")
        least = self.least(family)
        rows = np.flatnonzero(support >= least)
        if len(rows) > self.cfg.keep:  # the best supported of a family's templates are enough
            rows = rows[np.argsort(-support[rows], kind="stable")[: self.cfg.keep]]
            rows.sort()
        if deep or family in ("ref", "pair"):
            keys = _values_keys(E[rows])
        for n, i in enumerate(rows):
            if deep:  # a deeper template that says what a simpler one says is dropped
                if keys[n] in self.seen:
                    continue
                self.seen.add(keys[n])
            elif family in ("ref", "pair"):
                self.seen.add(keys[n])
            self._keep(build(int(i)), family, int(support[i]), hits[i])

    def least(self, family: str) -> int:
        """Anchors a template of `family` must explain: two for a reference, a pair or a run;
        more for the families that coincidences fill (a constant, `MAX`/`MIN`: half the
        anchors) and for three parts or more (three)."""
        if family in ("ref", "run", "pair", "fixed"):
            return self.cfg.min_support
        if family in ("const", "minmax"):
            return max(self.cfg.min_support, (self.need + 1) // 2)
        return max(3, self.cfg.min_support)

    def add_constant(self, leaf: Template, k: float, op: str, hits: np.ndarray, grid,
                     family: str = "const") -> None:  # fmt: skip
        """`leaf op k`: k written short when it is (at most 6 significant digits), and as each
        of at most 3 cells that hold it (a rate or a total kept in one cell)."""
        hits = hits & self.counting
        if hits.sum() < self.least(family):
            return
        if op.startswith("k"):  # the constant first: `=1-C30`, `=100/B5`
            text = _nice(k)
            if text is not None and k > 0:
                self._keep(("op", op[1], ("num", text), leaf), family, int(hits.sum()), hits)
            return
        if op in "+-" and k < 0:
            op, k = ("-" if op == "+" else "+"), -k
        if op in "*/" and abs(k - 1.0) <= 1e-12:
            return
        holders = [] if grid is None else grid.holders(
            k, 1e-9 * abs(k) + STORED * float(np.abs(self.y).max()))  # fmt: skip
        holders = holders if len(holders) <= 3 else []
        # `=H94/73300`, not `=H94*0.0000136425648`: the other operator writes it shorter; and
        # `=H94/$H$113` alone where a cell holds a number of 3 digits or more (a total, a rate)
        text = None if op in "*/" and _shorter(1.0 / k, k) else _nice(k)
        if text is not None and not (holders and _digits(k) >= 3):
            self._keep(("op", op, leaf, ("num", text)), family, int(hits.sum()), hits)
        for h in holders:
            self._keep(("op", op, leaf, ("abs", *h)), family, int(hits.sum()), hits)

    def _keep(self, tpl: Template, family: str, support: int, hits: np.ndarray) -> None:
        old = self.found.get(tpl)
        if old is None or old[1] < support:
            self.found[tpl] = (family, support, hits)
            self.order[tpl] = (-support, size(tpl), reach(tpl), ORDER.index(family),
                               not _reading_order(tpl))  # fmt: skip

    def placed(self, row: int, col: int, axis: str, values, along) -> list[Found]:
        """The found templates at the target, checked along the whole line, best first."""
        items = sorted(self.found.items(), key=lambda it: self.order[it[0]])
        kinds: dict[int, set] = {}  # support -> the templates' cell sets (`B*C` and `C*B` are one)
        for tpl, (_, s, _) in items:
            kinds.setdefault(s, set()).add(frozenset(x for x in leaves(tpl) if x[0] != "num"))
        rivals = {s: len(k) for s, k in kinds.items()}
        out = []
        for tpl, (family, support, hits) in items[: self.cfg.keep]:
            text = text_at(tpl, row, col)
            if text is None:
                continue
            value = float(evaluate(tpl, np.array([row]), np.array([col]), values)[0])
            if not np.isfinite(value):
                continue
            run, span = _block(tpl, row, col, values, along, self.cfg.line)
            out.append(Found(tpl, text, value, axis, family, support, len(self.y),
                             int(self.dist[hits].min()), len(run), span, run,
                             size(tpl), _refs(tpl), reach(tpl), rivals[support]))  # fmt: skip
        return out


def _values_keys(E: np.ndarray) -> list[bytes]:
    """Each row of E (N, A), a template's values at the anchors, as a key (9 decimals; NaN,
    which equals nothing, as one value)."""
    R = np.where(np.isfinite(E), np.round(E, 9), np.inf) + 0.0  # (N, A); + 0.0: no -0.0
    return [row.tobytes() for row in R]


def _refs(tpl: Template) -> int:
    return sum(leaf[0] in ("ref", "abs", "run") for leaf in leaves(tpl))


def _block(tpl: Template, row: int, col: int, values, along, line: int) -> tuple[tuple, str]:
    """The cells of the run around the target (along the block) whose values `tpl` reproduces,
    and that run's A1 range, the target included."""
    ur, uc = along
    ks = np.arange(-line, line + 1)
    rows, cols = row + ur * ks, col + uc * ks
    got = values(rows, cols)
    want = evaluate(tpl, rows, cols, values)
    with np.errstate(all="ignore"):
        hit = np.isfinite(got) & (np.abs(want - got) <= 1e-9 * np.abs(got) + 1e-12)
    hit[line] = True  # the target itself
    lo = hi = line
    while lo > 0 and hit[lo - 1]:
        lo -= 1
    while hi < 2 * line and hit[hi + 1]:
        hi += 1
    run = tuple((int(rows[i]), int(cols[i])) for i in range(lo, hi + 1) if i != line)
    first, last = (int(rows[lo]), int(cols[lo])), (int(rows[hi]), int(cols[hi]))
    return run, f"{a1(*first)}:{a1(*last)}"


def _shorter(a: float, b: float) -> bool:
    """Whether `a` is written in fewer significant digits than `b`."""
    return _digits(a) < _digits(b)


def _digits(k: float) -> int:
    """The significant digits `_nice` writes `k` in (13 for a number it cannot write)."""
    text = _nice(k)
    return 13 if text is None else len(text.replace(".", "").replace("-", "").strip("0"))


def _nice(k: float) -> str | None:
    """`k` in the fewest significant digits (at most 12) that give it within 1e-9, written
    plain (`0.08`, `1000000`, `1701051571`); None for a number that needs more."""
    if not np.isfinite(k) or k == 0.0:
        return None
    for digits in range(1, 13):
        near = float(f"{k:.{digits}g}")
        if abs(near - k) <= 1e-9 * abs(k):
            text = np.format_float_positional(near, trim="-")
            return text if len(text) <= 16 else None
    return None
