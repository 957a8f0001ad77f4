"""Put formulas back into a values-only sheet: `recover_sheet`, `recover_book`.

Every typed number of a sheet is a question: does a formula of its block give exactly this
value? `synthesis.synthesise` answers from the numbers around it, the cell's own value hidden;
the best template whose value at the cell equals the typed one (within a relative 1e-9) and
that at least two neighbours obey is taken when its `score` reaches `min_score`. The template
is then written over its whole block at once (every cell of the run it reproduces), so a sheet
costs one search per block, not per cell. A value is never changed: a formula is written only
where it gives the value the cell holds. A formula that would read, directly or through other
recovered formulas, the cell it is written in is left out (no circular references).

`score` is a plain rule, measured on the dev side of the visible workbooks
(`bench/recover.py`): the share of the anchors the template explains, discounted when its block
is short for its size (a four-part formula needs more cells than `=B5`), when other templates
explain as much, and for a constant factor; a total alone in its row (Excel's AutoSum, no neighbour to agree) scores
by the length of its run. Copies are never written (`NEVER`): a typed table repeated elsewhere
reads exactly like `=A2` dragged, and on the dev side nearly every such match was typed.
Nor are shapes that people rarely write but typed tables obey by chance (`unlikely`): a
constant added or taken away (`=B7+2`, `=12-D15`, `=C4+D4-3`: numbering, years, codes), one
cell read twice by `+ -` alone or `*` alone (`=B27-B26+B27` along any straight line), and the
zero guard `IF(b=0,0,a/b)`; on the dev side these were 1,240 of 3,270 matches, 12 of them right.
A fixed cell (`$H$113`) may sit anywhere: only relative references decide whether a formula
reads forward.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from fortap.sheet.model import Sheet, Workbook
from fortap.synthesis import Found, Grid, SynthConfig, synthesise
from fortap.synthesis.template import cells_read, leaves, text_at

# families whose matches values alone cannot tell from typed numbers: a copy of another cell
# (`=A2`, `=$B$1`: a typed table repeated elsewhere reads the same), `MAX`/`MIN`, single cells
# off the target's lines, and the deep searches over thousands of combinations (a pair and a
# constant, `ROUND` of a pair: 174 matches on the dev side, none right); never written
NEVER = frozenset({"ref", "fixed", "far", "far_const", "minmax", "pair_const", "round"})
WEAK = {"const": 0.8}
BACKWARD = 0.6  # a formula reading a cell below or right of it: a total left of its parts


@dataclass(frozen=True)
class RecoverConfig:
    """What `recover` writes."""

    min_score: float = 0.4  # formulas scored below this are not written
    max_numbers: int = 100_000  # typed numbers searched per sheet (the rest are left as they are)
    synth: SynthConfig = field(default_factory=SynthConfig)

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_score <= 1.0:
            raise ValueError(f"RecoverConfig.min_score must be in [0, 1], got {self.min_score}")


@dataclass(frozen=True)
class Recovered:
    """One formula put back."""

    sheet: str
    row: int
    col: int
    formula: str
    value: float  # the cell's value, which the formula gives
    evidence: str  # "reproduces the values of 12 cells of D4:D20"
    score: float
    family: str


def score(found: Found) -> float:
    """How sure a recovered formula is, in [0, 1] (module doc)."""
    if found.family in NEVER or unlikely(found.template):
        return 0.0
    if found.family == "lone":  # a total alone in its row: the longer its run, the surer
        return max(0.0, 1.0 - 0.5 ** (found.block - 2))  # two parts: any a + b = c
    share = found.support / max(found.anchors, 1)
    length = 1.0 - math.exp(-found.block / found.size)  # a longer formula needs a longer block
    return share * length * WEAK.get(found.family, 1.0) / math.sqrt(found.rivals)


def unlikely(tpl) -> bool:
    """A shape typed tables obey by chance far more often than people write it (module doc)."""
    if tpl[0] == "fn" and tpl[1] == "IFZERO":
        return True
    if tpl[0] == "op" and tpl[1] in "+-" and {"num", "abs"} & {tpl[2][0], tpl[3][0]}:
        return True  # `=B7+2`, `=12-D15`, `=C4+D4-3`, `=B7+$C$1`
    if tpl[0] == "op" and tpl[1] == "/" and tpl[2][0] == "num":
        return True  # `=3924361/N2`
    if any(leaf[0] == "num" and _repeating(leaf[1]) for leaf in leaves(tpl)):
        return True  # `=F19*4.93333333`
    cells = [x for x in leaves(tpl) if x[0] in ("ref", "abs")]
    if len(set(cells)) < len(cells):  # one cell read twice
        ops = _ops(tpl)
        return ops <= {"+", "-"} or ops == {"*"}
    return False


def _repeating(text: str) -> bool:
    """A constant of 7 significant digits or more with a fraction: a quotient, not typed."""
    return "." in text and len(text.replace(".", "").replace("-", "").strip("0")) >= 7


def _ops(tpl) -> set[str]:
    if tpl[0] == "op":
        return {tpl[1]} | _ops(tpl[2]) | _ops(tpl[3])
    if tpl[0] == "fn":
        return {tpl[1]}.union(*(_ops(a) for a in tpl[2:] if isinstance(a, tuple)))
    return set()


def recover_sheet(sheet: Sheet, cfg: RecoverConfig = RecoverConfig()) -> list[Recovered]:
    """The formulas that can be put back on `sheet`, in reading order (module doc).

    Values alone do not say which way a block computes (`D=B*C` and `B=D/C` both hold), so
    every typed number is first given its best template, then formulas are written forward
    ones first (reading only cells above or left of them, as most formulas do), best score
    first; a later one that would close a circle is left out."""
    grid = Grid.of(sheet)
    if grid is None:
        return []
    numbers = sorted(rc for rc, cell in sheet.cells.items()
                     if cell.formula is None and cell.kind == "number"
                     and not isinstance(cell.value, bool))[: cfg.max_numbers]  # fmt: skip
    typed = set(numbers)
    options: dict[tuple[int, int], dict] = {}  # cell -> {template: Found}
    for r, c in numbers:
        if any(_forward(f.template, (r, c)) for f in options.get((r, c), {}).values()):
            continue  # a block searched before already gives it a forward formula
        for found in _fits(grid, r, c, cfg):
            for at in ((r, c), *found.run):  # the block shares it: one search per block
                if at in typed:
                    options.setdefault(at, {}).setdefault(found.template, found)
    plans = []
    for at, founds in options.items():
        for found in founds.values():
            forward = _forward(found.template, at)
            s = score(found) * (1.0 if forward else BACKWARD)
            if s >= cfg.min_score:
                plans.append((not forward, -s, at, found, s))
    written: dict[tuple[int, int], Recovered] = {}
    reads: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for _, _, at, found, s in sorted(plans, key=lambda p: p[:3]):
        if at in written:
            continue
        text = text_at(found.template, *at)
        read = set(cells_read(found.template, *at))
        if text is None or _circular(at, read, reads):
            continue
        reads[at] = read
        written[at] = Recovered(sheet.name, at[0], at[1], text, float(grid.values[at]),
                                found.reason, round(s, 4), found.family)  # fmt: skip
    return [written[k] for k in sorted(written)]


def recover_book(book: Workbook, cfg: RecoverConfig = RecoverConfig(),
                 sheets: list[str] | None = None) -> list[Recovered]:  # fmt: skip
    """`recover_sheet` over the workbook's sheets (or the named ones)."""
    out: list[Recovered] = []
    for sheet in book.sheets:
        if sheets is None or sheet.name in sheets:
            out += recover_sheet(sheet, cfg)
    return out


def _fits(grid: Grid, r: int, c: int, cfg: RecoverConfig) -> list[Found]:
    """The templates that give the cell's own value and could reach `min_score`."""
    v = float(grid.values[r, c])
    if v == 0.0 or not np.isfinite(v):
        return []  # a 0 is what everything computes somewhere
    return [f for f in synthesise(grid, r, c, cfg=cfg.synth)
            if abs(f.value - v) <= 1e-9 * abs(v) + 1e-12 and score(f) >= cfg.min_score]


def _forward(tpl, at: tuple[int, int]) -> bool:
    """Whether every cell it reads by a relative reference at `at` is above it, or left of it
    in its row (a fixed cell, `$H$113`, may be anywhere: a total below its shares)."""
    fixed = {leaf[1:] for leaf in leaves(tpl) if leaf[0] == "abs"}
    return all(x < at or x in fixed for x in cells_read(tpl, *at))


def _circular(at: tuple[int, int], read: set, reads: dict) -> bool:
    """Whether a formula at `at` reading `read` would read itself through recovered ones."""
    todo, seen = list(read), set()
    while todo:
        cell = todo.pop()
        if cell == at:
            return True
        if cell in seen:
            continue
        seen.add(cell)
        todo += reads.get(cell, ())
    return False
