"""Formula prediction (FP): given a table and an empty cell, which formula belongs there?

Examples: every kept formula of a table (`fortap.corpus.facts.kept_formulas`: parses, passes
the paper's filters, references only this table, at most 30 prefix tokens, first five copies
per row/column) becomes one `Example`. Input, as in the paper: the non-empty header cells and
every cell on the target's row and column (`select_cells`); the target shown as
`[SEP] [FORMULA]` with not-a-number features; other formula cells shown as their values (the
"paper setting": no other formula is visible). In the "sheet setting" (`setting`, serialise
mode `tokens`) they are shown as their formula tokens instead, the row and column are cut to
the cells near the target (`sheet_cells`), and each example lists its copy candidates
(`copies.py`). `targets["formula_prediction"]` (`FP_KEY`):

- `cell`: 1-based cell id of the target (its `[SEP]` state starts the decoder);
- `sketch`: `FORMULA_VOCAB` ids, `[START]` .. `[END]`;
- `pointers`: one per decoder step t (predicting sketch token t + 1): the 1-based cell id that
  `[RANGE]` token refers to, 0 when the token is not a `[RANGE]`, -1 when the referenced cell
  is not in the input (unreachable: no loss, and a certain miss in the metrics);
- `gold_ranges`: sheet (row, col) of every `[RANGE]` slot; `origin`: the table's top-left on its
  sheet (to map pointed cells back to addresses); `reachable`: every reference is in the input.

Splits follow the corpus: by workbook key (`fortap.corpus.split`), so no evaluation workbook is
ever seen in training. `low_resource` draws the paper's 20 % training subset.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import torch

from fortap.corpus.facts import FactsConfig, kept_formulas
from fortap.corpus.split import SPLITS, SplitConfig, book_key, split_of
from fortap.encoding.collate import collate
from fortap.encoding.example import Batch, Example
from fortap.encoding.piece import RC
from fortap.encoding.selection import select_cells
from fortap.encoding.serialize import SerializeConfig, serialize
from fortap.formula import Formula
from fortap.formula.references import to_table
from fortap.formula.table_formulas import parse_table_formulas
from fortap.formula.tokens import FORMULA_VOCAB_INDEX, RANGE
from fortap.table.model import Table
from fortap.tasks.formula_prediction.copies import (
    collate_copies,
    copy_targets,
    distance,
    r1c1_counts,
)
from fortap.tasks.formula_prediction.decoder import PAD
from fortap.tasks.formula_prediction.metrics import Guess
from fortap.text.tokenizer import Tokenizer

FP_KEY = "formula_prediction"
IGNORE = -100  # label of steps without a loss
Place = tuple[str, str, str]  # one table: (book, sheet, region A1)
TRAIN_SETTINGS = {"full": 1.0, "low_resource": 0.2}  # training-set share of each named setting
SETTING_OF_MODE = {"value": "paper", "tokens": "sheet"}  # input mode of other formulas -> setting
MODE_OF_SETTING = {setting: mode for mode, setting in SETTING_OF_MODE.items()}
SHEET_REACH = 10  # sheet setting: row and column cells within this distance of the target
SHEET_KEEP = 2  # sheet setting: nearest formula cells never dropped from the input


@dataclass(frozen=True)
class FormulaExamplesConfig:
    """How formula cells become formula-prediction examples."""

    serialize: SerializeConfig = field(
        default_factory=lambda: SerializeConfig(max_seq_len=256, formula_mode="value")
    )
    facts: FactsConfig = field(default_factory=FactsConfig)  # which formulas are kept

    def __post_init__(self) -> None:
        if self.serialize.formula_mode not in SETTING_OF_MODE:
            raise ValueError(
                "FormulaExamplesConfig.serialize.formula_mode must be 'value' (the paper "
                "setting: other formulas shown as their values) or 'tokens' (the sheet setting: "
                f"shown as their formulas), got {self.serialize.formula_mode!r}"
            )

    @property
    def setting(self) -> str:
        """`paper` (no other formula visible) or `sheet` (the others shown, copy targets built)."""
        return SETTING_OF_MODE[self.serialize.formula_mode]


def place_of(table: Table) -> Place:
    return table.book, table.sheet, table.region.a1


def parse_tables(tables: Iterable[Table]) -> dict[Place, dict[RC, Formula | None]]:
    """Every formula cell of every table parsed once (`parse_table_formulas`), by table place: what
    example building and the rule baseline of one run share."""
    return {place_of(t): parse_table_formulas(t) for t in tables}


def formula_examples(
    table: Table,
    tokenizer: Tokenizer,
    cfg: FormulaExamplesConfig | None = None,
    parsed: dict[RC, Formula | None] | None = None,
) -> list[Example]:
    """One example per kept formula of `table`, in row-major order of the formula cells;
    `parsed`: the table's formula cells parsed already (`parse_table_formulas`)."""
    cfg = cfg or FormulaExamplesConfig()
    cells = parse_table_formulas(table) if parsed is None else parsed
    kept, _ = kept_formulas(table, cfg.facts, cells)
    shared = r1c1_counts(cells) if cfg.setting == "sheet" else None
    out = []
    for rc in sorted(kept):
        example = prediction_example(table, rc, kept[rc], tokenizer, cfg, cells, shared)
        if example is not None:
            out.append(example)
    return out


def prediction_example(
    table: Table,
    rc: RC,
    formula: Formula,
    tokenizer: Tokenizer,
    cfg: FormulaExamplesConfig,
    cells: dict[RC, Formula | None] | None = None,
    shared: Counter | None = None,
) -> Example | None:
    """The example of `formula` in table cell `rc`; None when the target alone does not fit.
    `cells`: the table's parsed formula cells (the sheet setting shows them and builds its copy
    targets from them; parsed here when not given); `shared`: their `r1c1_counts`."""
    if cfg.setting == "sheet" and cells is None:
        cells = parse_table_formulas(table)
    example = prediction_input(table, rc, tokenizer, cfg, cells)
    if example is None:
        return None
    ids = {tuple(at): k for k, at in enumerate(example.cell_coords, start=1)}
    top, left = table.region.top, table.region.left
    refs = []
    for token in formula.tokens:
        if token.vocab == RANGE:
            at = None
            if token.cell is not None:
                at = to_table(token.cell, top, left, table.n_rows, table.n_cols)
            refs.append((token.cell, -1 if at is None or at == rc else ids.get(at, -1)))
    slots = iter(refs)
    pointers = [next(slots)[1] if tok == RANGE else 0 for tok in formula.sketch[1:]]
    example.targets[FP_KEY] = {
        "cell": ids[rc],
        "sketch": [FORMULA_VOCAB_INDEX[t] for t in formula.sketch],
        "pointers": pointers,
        "gold_ranges": [list(cell) if cell is not None else None for cell, _ in refs],
        "origin": [top, left],
        "reachable": all(p != -1 for p in pointers),
    }
    if cfg.setting == "sheet" and cells is not None:
        gold = Guess(formula.sketch, tuple(cell for cell, _ in refs))
        example.targets[FP_KEY]["copies"] = copy_targets(table, rc, example, cells, gold, shared)
    example.meta["formula"] = table.cell(*rc).formula
    example.meta["target"] = [top + rc[0], left + rc[1]]
    return example


def prediction_input(
    table: Table,
    rc: RC,
    tokenizer: Tokenizer,
    cfg: FormulaExamplesConfig,
    cells: Mapping[RC, Formula | None] | None = None,
) -> Example | None:
    """The input of target `rc`, without anything of its gold: the header cells and the
    target's row and column (cut by `sheet_cells` in the sheet setting, which shows the parsed
    formula `cells`), the target as `[SEP] [FORMULA]`; None when the target alone does not fit."""
    selected, keep = select_cells(table, rc), []
    if cfg.setting == "sheet":
        selected, keep = sheet_cells(selected, rc, cells or {})
    try:
        return serialize(
            table,
            tokenizer,
            cfg.serialize,
            cells=selected,
            formula_inputs={rc: "tag"},
            keep=keep,
            formulas=cells,
        )
    except ValueError:
        return None


def sheet_cells(
    selected: Sequence[RC], rc: RC, cells: Mapping[RC, Formula | None]
) -> tuple[list[RC], list[RC]]:
    """The sheet setting's input cells and the ones never dropped. Of the target's row and
    column only the cells within `SHEET_REACH` of it stay (the fill rule's reach: a long column
    would otherwise fill the input with its top rows, dropping the neighbours from the end); the
    `SHEET_KEEP` nearest formula cells are kept whatever the budget."""

    def near(at: RC) -> bool:
        return (at[0] != rc[0] and at[1] != rc[1]) or distance(at, rc) <= SHEET_REACH

    kept = [at for at in selected if near(at)]
    shown = sorted(
        (at for at in kept if at != rc and at in cells), key=lambda at: (distance(at, rc), at)
    )
    return kept, shown[:SHEET_KEEP]


def split_examples(
    tables: Iterable[Table],
    tokenizer: Tokenizer,
    cfg: FormulaExamplesConfig | None = None,
    split: SplitConfig | None = None,
    formulas: Mapping[Place, dict[RC, Formula | None]] | None = None,
) -> dict[str, list[Example]]:
    """Examples of every table, grouped into train/dev/test by workbook key (`split_of`, the
    corpus's rule: the same `SplitConfig` puts a book on the same side as in the corpus). Copies
    of one book share a key, so they land together; dropping them is the corpus builder's job.
    `formulas`: the tables' parsed formula cells (`parse_tables`), else each is parsed here."""
    split = split or SplitConfig()
    out: dict[str, list[Example]] = {name: [] for name in SPLITS}
    for table in tables:
        parsed = formulas.get(place_of(table)) if formulas else None
        side = split_of(book_key(table.book), split)
        out[side] += formula_examples(table, tokenizer, cfg, parsed)
    return out


def low_resource(
    examples: Sequence[Example], rng: random.Random, share: float = TRAIN_SETTINGS["low_resource"]
) -> list[Example]:
    """A `share` of the training examples (at least one), drawn with `rng`, order kept."""
    if not 0.0 < share <= 1.0:
        raise ValueError(f"low_resource: share must be in (0, 1], got {share}")
    n = max(1, round(share * len(examples))) if examples else 0
    chosen = set(rng.sample(range(len(examples)), n))
    return [ex for i, ex in enumerate(examples) if i in chosen]


def train_subset(examples: Sequence[Example], setting: str, rng: random.Random) -> list[Example]:
    """The training examples of a named setting (`TRAIN_SETTINGS`: `full` or `low_resource`)."""
    if setting not in TRAIN_SETTINGS:
        raise ValueError(
            f"train_subset: setting must be one of {tuple(TRAIN_SETTINGS)}, got {setting!r}"
        )
    if TRAIN_SETTINGS[setting] == 1.0:
        return list(examples)
    return low_resource(examples, rng, TRAIN_SETTINGS[setting])


def collate_targets(values: list[dict | None], batch: Batch) -> dict[str, torch.Tensor]:
    """Pad the FP targets: `cell` (B,), `sketch_in`/`sketch_out`/`pointers` (B, S) with S the
    longest sketch minus one; padding is `PAD` in inputs and `IGNORE` in labels."""
    if any(v is None for v in values):
        raise ValueError("collate: every formula-prediction example needs its targets")
    steps = max(len(v["sketch"]) for v in values) - 1  # type: ignore[index]
    n = len(values)
    cell = torch.zeros(n, dtype=torch.long)  # (B,)
    sketch_in = torch.full((n, steps), PAD, dtype=torch.long)  # (B, S)
    sketch_out = torch.full((n, steps), IGNORE, dtype=torch.long)  # (B, S)
    pointers = torch.full((n, steps), IGNORE, dtype=torch.long)  # (B, S)
    for b, v in enumerate(values):
        assert v is not None
        s = len(v["sketch"]) - 1
        cell[b] = v["cell"] - 1
        sketch_in[b, :s] = torch.tensor(v["sketch"][:-1])
        sketch_out[b, :s] = torch.tensor(v["sketch"][1:])
        pointers[b, :s] = torch.tensor([p - 1 if p > 0 else IGNORE for p in v["pointers"]])
    out = {"cell": cell, "sketch_in": sketch_in, "sketch_out": sketch_out, "pointers": pointers}
    if any("copies" in v for v in values):  # type: ignore[operator]
        out |= collate_copies(values, batch)  # type: ignore[arg-type]
    return out


def fp_batch(examples: Sequence[Example]) -> Batch:
    return collate(examples, target_collators={FP_KEY: collate_targets})


def with_serialize(cfg: FormulaExamplesConfig, **changes) -> FormulaExamplesConfig:
    """`cfg` with some `SerializeConfig` fields changed (e.g. a shorter `max_seq_len`)."""
    return replace(cfg, serialize=replace(cfg.serialize, **changes))
