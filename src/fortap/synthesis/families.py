"""The template families a search enumerates, each vectorised over a line's anchors.

Letters: A anchors (the numbers along the block, nearest the target first), L leaves (cells of
each anchor's cross line, and its one or two predecessors along the block), D the nearest
leaves kept for the deeper families, W cells on one side of a cross line.

Every family takes the leaf matrix `X` (A, L) (NaN where a leaf is no number) and the anchors'
values `y` (A,), and yields `(templates, E)`: a function from a row index to a template, and the
values (N, A) that its N templates give at the anchors. The search matches E against y; only the
few rows that explain at least two anchors are ever built as templates.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator

import numpy as np

from fortap.synthesis.template import Template, apply, excel_round

OPS = ("+", "-", "*", "/")
MAX_RUN = 100  # longest aggregate run tried
KEEP_CONSTANTS = 6  # constants yielded per operator and pivot, the best supported first
Family = tuple[str, Callable[[int], Template], np.ndarray]  # (name, build row i, E (N, A))


def refs(leaves: list[Template], X: np.ndarray) -> Iterator[Family]:
    yield "ref", lambda i: leaves[i], X.T  # (L, A)


def pairs(leaves: list[Template], X: np.ndarray) -> Iterator[Family]:
    """`a op b` for two different leaves, op among `OPS` and `MAX`/`MIN`."""
    n = X.shape[1]
    a, b = X[:, :, None], X[:, None, :]  # (A, L, 1), (A, 1, L)
    with np.errstate(all="ignore"):
        both = ~np.all(np.abs(b) <= 1e-9 * np.abs(a), 0) & ~np.all(np.abs(a) <= 1e-9 * np.abs(b), 0)
        unit = ~np.all(b == 1.0, 0)  # (L, L): a*1 and a/1 are a
        mixed = np.any(a > b, 0) & np.any(b > a, 0)  # (L, L): MAX(a, b) is neither a nor b
    unit = np.broadcast_to(unit, (n, n))
    useful = {"+": both, "-": both, "*": unit, "/": unit, "MAX": mixed, "MIN": mixed}
    for op in (*OPS, "MAX", "MIN"):
        E = apply(op, a, b)  # (A, L, L)
        E[:, ~useful[op]] = np.nan
        E[:, np.arange(n), np.arange(n)] = np.nan  # a op a
        build = pair_builder(op, leaves, n)
        yield ("pair" if op in OPS else "minmax"), build, E.reshape(len(X), -1).T


def pair_builder(op: str, leaves: list[Template], n: int) -> Callable[[int], Template]:
    def build(i: int) -> Template:
        a, b = leaves[i // n], leaves[i % n]
        return ("op", op, a, b) if op in OPS else ("fn", op, a, b)

    return build


def triples(leaves: list[Template], X: np.ndarray) -> Iterator[Family]:
    """`(a op b) op c` for every two operators, and `a op (b op c)` where the brackets change
    the value (`a-(b-c)`, `a/(b+c)`, `a*(b-c)`, `a/(b*c)`), over the D leaves of `X` (A, D)."""
    d = X.shape[1]
    a = X[:, :, None, None]  # (A, D, 1, 1)
    b = X[:, None, :, None]  # (A, 1, D, 1)
    c = X[:, None, None, :]  # (A, 1, 1, D)
    same = np.eye(d, dtype=bool)[:, :, None]  # (D, D, 1): a and b the same leaf
    for op1 in OPS:
        inner = apply(op1, a, b)  # (A, D, D, 1)
        for op2 in OPS:
            E = np.broadcast_to(apply(op2, inner, c), (len(X), d, d, d)).copy()  # (A, D, D, D)
            E[:, np.broadcast_to(same, (d, d, d))] = np.nan
            yield "triple", _triple_builder(leaves, d, op1, op2, left=True), E.reshape(len(X), -1).T
    for op1, op2 in (("-", "-"), ("/", "+"), ("/", "-"), ("*", "+"), ("*", "-"), ("/", "*")):
        inner = apply(op2, b, c)  # (A, 1, D, D)
        E = np.broadcast_to(apply(op1, a, inner), (len(X), d, d, d)).copy()  # (A, D, D, D)
        E[:, np.broadcast_to(np.eye(d, dtype=bool)[None], (d, d, d))] = np.nan  # b and c the same
        yield "triple", _triple_builder(leaves, d, op1, op2, left=False), E.reshape(len(X), -1).T


def _triple_builder(leaves, d: int, op1: str, op2: str, left: bool) -> Callable[[int], Template]:
    def build(i: int) -> Template:
        a, b, c = leaves[i // (d * d)], leaves[(i // d) % d], leaves[i % d]
        if left:
            return ("op", op2, ("op", op1, a, b), c)
        return ("op", op1, a, ("op", op2, b, c))

    return build


def runs(side: np.ndarray, step: tuple[int, int], fns=("SUM", "AVERAGE")) -> Iterator[Family]:
    """`SUM`/`AVERAGE` over every run of 2+ cells on one side of the anchors' cross lines:
    `side` (A, W) holds the cells at 1..W steps of `step` (dr, dc) from each anchor. Cells that
    hold no number inside a run count as Excel counts them (nothing), but a run's two ends must
    be numbers."""
    n_a, w = side.shape
    if w < 2:
        return
    full = np.isfinite(side)
    sums = np.concatenate([np.zeros((n_a, 1)), np.cumsum(np.nan_to_num(side), 1)], 1)  # (A, W+1)
    counts = np.concatenate([np.zeros((n_a, 1)), np.cumsum(full, 1)], 1)  # (A, W+1)
    i, j = np.triu_indices(w, 1)  # runs from cell i to cell j, 0-based
    total = sums[:, j + 1] - sums[:, i]  # (A, R)
    count = counts[:, j + 1] - counts[:, i]  # (A, R)
    ends = full[:, i] & full[:, j]  # (A, R)
    dr, dc = step

    def builder(fn: str) -> Callable[[int], Template]:
        def build(k: int) -> Template:
            near, far = int(i[k]) + 1, int(j[k]) + 1
            lo, hi = sorted((near, far), key=lambda s: (s * dr, s * dc))
            return ("run", fn, lo * dr, lo * dc, hi * dr, hi * dc)

        return build

    with np.errstate(all="ignore"):
        for fn in fns:
            E = total if fn == "SUM" else total / count
            E = np.where(ends & (count >= 2), E, np.nan)
            yield "run", builder(fn), E.T


def constants(build: Callable[[int], Template], X: np.ndarray, y: np.ndarray, tol: np.ndarray,
              min_support: int) -> Iterator[tuple[Template, float, str, np.ndarray]]:  # fmt: skip
    """`x op k` for each template x = `build(i)` whose values are the column i of X (A, N), with
    one k that at least `min_support` anchors agree on: yields (x, k, op, hits (A,)) for the
    caller to write k (a short number, or a cell holding it)."""
    if np.all(y == y[0]):  # a leaf constant along the block is no evidence where y is too
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a leaf of no numbers: dropped
            varies = np.nanmax(X, 0) != np.nanmin(X, 0)  # (L,)
        X = np.where(varies[None, :], X, np.nan)
    with np.errstate(all="ignore"):
        ks = {"+": y[:, None] - X, "-": X - y[:, None], "*": y[:, None] / X, "/": X / y[:, None],
              "k-": y[:, None] + X, "k/": y[:, None] * X}  # k-: `=1-C30`; k/: `=100/B5`
    for op, K in ks.items():  # K (A, L)
        for pivot in range(min(2, len(y))):
            k = K[pivot]  # (L,)
            slack = tol[:, None] if op in ("+", "-", "k-") else 0.0  # k = y - x carries y's rounding
            with np.errstate(all="ignore"):
                agree = np.abs(K - k[None, :]) <= 1e-9 * np.abs(k)[None, :] + slack  # (A, L)
            support = agree.sum(0)
            rows = np.flatnonzero((support >= min_support) & np.isfinite(k) & (k != 0.0))
            for i in rows[np.argsort(-support[rows], kind="stable")][:KEEP_CONSTANTS]:
                yield build(int(i)), float(k[i]), op, agree[:, i]


def pair_values(pool: list[Template], X: np.ndarray) -> tuple[Callable[[int], Template], np.ndarray]:
    """Every `a op b` of two different leaves as one matrix (A, 4*D*D) and its builder."""
    d = X.shape[1]
    a, b = X[:, :, None], X[:, None, :]  # (A, D, 1), (A, 1, D)
    parts = []
    for op in OPS:
        E = apply(op, a, b)  # (A, D, D)
        E[:, np.arange(d), np.arange(d)] = np.nan
        parts.append(E.reshape(len(X), -1))
    builders = [pair_builder(op, pool, d) for op in OPS]
    return (lambda i: builders[i // (d * d)](i % (d * d))), np.concatenate(parts, 1)


def rounded(E: np.ndarray, y: np.ndarray, tol: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """`ROUND(e, n)` for the digits n that the anchors' values show: yields (n, R, hits),
    the rounded values R (N, A) of the rows of E (N, A) and where they give the anchors'."""
    for n in _digits(y):
        R = excel_round(E, n)  # (N, A)
        yield n, R, np.abs(R - y[None, :]) <= tol[None, :]


def _digits(y: np.ndarray) -> list[int]:
    """The ROUND digits a set of values allows: the fewest decimals that write them all
    (`2` for 1.25 and 3.1), or the trailing zeros of whole numbers (`-2` for 1200, 300)."""
    ys = [v for v in y.tolist() if v != 0.0]
    if not ys:
        return []
    decimals = [len(f"{abs(v):.10f}".rstrip("0").split(".")[1]) for v in ys]
    n = max(decimals)
    if n > 4:
        return []
    if n > 0:
        return [n]
    zeros = min(len(str(int(abs(v)))) - len(str(int(abs(v))).rstrip("0")) for v in ys)
    return [0] + ([-zeros] if zeros else [])
