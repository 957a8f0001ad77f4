"""The paper's formula-prediction protocol, measured on the suggester's ranked candidates.

ForTaP scores a predicted formula by its *formula key* (`metrics.formula_key`: the sketch
tokens with each `[RANGE]` replaced by the A1 address, without `$`, of the cell it refers to;
constants by type only), and evaluates only the formulas its corpus keeps
(`corpus.facts.kept_formulas`). Here each candidate's text is parsed at the target cell and its
key compared with the gold's (`KeyMatcher`); a formula naming another sheet also carries the
sheet names of its references, so `Sheet2!A1` and `A1` never share a key, and a reference
without a cell (a defined name) its text (the paper's keys never meet either case: its filters
drop such formulas).

Per target, what decides its place in the paper's subsets (`gold_facts`):

- `tokens`: the gold's prefix tokens (`Formula.tokens`: operators, functions, `[:]`, each range
  end and each constant one token; `[START]`/`[END]` not counted), the count the corpus holds
  to `FactsConfig.max_formula_tokens` (the paper's 30);
- `in_table`: every reference of the gold lies in the table region holding the target (the
  project's detector, `table.regions.find_regions` with the corpus's `DEFAULT_TABLES`, as the
  corpus cuts tables: a reference without a cell or on another sheet, or a target in no
  region, is not in it);
- `window10`: every referenced cell (both ends of each range, so the whole range) lies within
  `WINDOW` rows and `WINDOW` columns of the target (the paper's input neighbourhood).

The subsets (`SUBSETS`): `kept` = the paper's filters pass (`Formula.kept`: no cross-sheet,
3-D, external, array, user-defined function, named or structured reference, a cell reference
present) and `tokens <= MAX_TOKENS` and `in_table`; `window10` = `kept` and `window10`. The
targets are already the first five per row/column per R1C1 (`books.targets_of`); the corpus
counts those five among its kept formulas only, so a sheet whose first copies are dropped by a
filter may keep a later copy there and not here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fortap.corpus.facts import FactsConfig
from fortap.errors import FortapError
from fortap.formula import Formula, parse_formula
from fortap.formula.references import to_table
from fortap.formula.tokens import RANGE
from fortap.sheet.model import Region
from fortap.suggest.context import BookContext, Target
from fortap.table.detect import DEFAULT_TABLES
from fortap.table.regions import find_regions
from fortap.tasks.formula_prediction.metrics import Guess, formula_key

MAX_TOKENS = FactsConfig().max_formula_tokens  # the paper's "at most 30 tokens"
WINDOW = 10  # rows and columns either side of the target (`window10`)
Key = tuple[tuple[str, ...], tuple[str, ...]]  # (formula key, other-sheet qualifiers)


def paper_key(formula: Formula) -> Key:
    """The formula's key (`metrics.formula_key` of its sketch and the cell of each `[RANGE]`
    slot, None for slots without one) and, per slot, what the key cannot tell apart: the other
    sheet it names ("" for none), or the text of a reference without a cell (a name)."""
    slots = [t for t in formula.tokens if t.vocab == RANGE]
    guess = Guess(formula.sketch, tuple(t.cell for t in slots))
    host = formula.host_sheet
    extra = tuple(t.text.casefold() if t.cell is None else _other_sheet(t.text, host)
                  for t in slots)  # fmt: skip
    return formula_key(guess), extra


def _other_sheet(text: str, host: str | None) -> str:
    """The sheet a reference token's text names when it is not the host ("" otherwise)."""
    qualifier = text.rpartition("!")[0].replace("'", "").casefold()
    return "" if host is not None and qualifier == host.casefold() else qualifier


class KeyMatcher:
    """The gold's key and the key of each candidate text at one target, each text parsed once
    (shared by the settings of a target: most candidates recur)."""

    def __init__(self, target: Target, gold: Formula | None) -> None:
        self.target = target
        self.gold = None if gold is None else paper_key(gold)
        self._keys: dict[str, Key | None] = {}

    def key(self, text: str) -> Key | None:
        """The key of formula `text` entered at the target; None when it does not parse."""
        if text not in self._keys:
            t = self.target
            try:
                self._keys[text] = paper_key(parse_formula(text, t.sheet, (t.row, t.col)))
            except FortapError:
                self._keys[text] = None
        return self._keys[text]

    def rank(self, texts: Sequence[str]) -> int | None:
        """0-based place of the first of `texts` whose key is the gold's (None: none is);
        texts after it are never parsed."""
        if self.gold is None:
            return None
        return next((i for i, text in enumerate(texts) if self.key(text) == self.gold), None)


def gold_facts(ctx: BookContext, target: Target, gold: Formula | None) -> dict:
    """{"tokens", "in_table", "window10"} of the target's formula (module doc); None / False
    when it has none."""
    if gold is None:
        return {"tokens": None, "in_table": False, "window10": False}
    region = region_of(ctx, target)
    return {
        "tokens": len(gold.tokens),
        "in_table": region is not None and inside_region(gold, region),
        "window10": inside_window(gold, target.row, target.col),
    }


def region_of(ctx: BookContext, target: Target) -> Region | None:
    """The table region holding the target (None: it lies in none), the sheet's regions found
    once per context (`BookContext.regions`, shared with the model source, which finds them the
    same way)."""
    found = ctx.regions.get(target.sheet)
    if found is None:
        found = find_regions(ctx.sheet(target.sheet).sheet, DEFAULT_TABLES.regions).tables
        ctx.regions[target.sheet] = found
    return next((t.region for t in found if t.region.contains(target.row, target.col)), None)


def _cells(formula: Formula) -> list[tuple[int, int] | None]:
    """The cell of each reference end of `formula` on its own sheet; None for an end without
    a cell or on another sheet (so never inside the target's table or window)."""
    host = formula.host_sheet
    return [None if _other_sheet(t.text, host) else t.cell
            for t in formula.tokens if t.kind == "CELL"]  # fmt: skip


def inside_region(formula: Formula, region: Region) -> bool:
    """Whether every reference end of `formula` is a cell of `region` (the corpus's test,
    `to_table`)."""
    top, left, rows, cols = region.top, region.left, region.n_rows, region.n_cols
    return all(c is not None and to_table(c, top, left, rows, cols) is not None
               for c in _cells(formula))  # fmt: skip


def inside_window(formula: Formula, row: int, col: int, reach: int = WINDOW) -> bool:
    """Whether every reference end of `formula` lies within `reach` rows and columns of
    (row, col) (a range whose ends do lies wholly inside); False without references."""
    cells = _cells(formula)
    return bool(cells) and all(
        c is not None and abs(c[0] - row) <= reach and abs(c[1] - col) <= reach for c in cells
    )


def in_kept(record: dict) -> bool:
    """The paper's kept subset: filters passed, at most `MAX_TOKENS` tokens, inside its table."""
    tokens = record.get("tokens")
    return bool(record["kept"] and tokens is not None and tokens <= MAX_TOKENS
                and record.get("in_table"))  # fmt: skip


def in_window10(record: dict) -> bool:
    """The kept subset with every reference within `WINDOW` rows and columns of the target."""
    return in_kept(record) and bool(record.get("window10"))


SUBSETS: dict[str, Callable[[dict], bool]] = {"kept": in_kept, "window10": in_window10}
