"""A formula-prediction run's examples (`load_split`) and its starting encoder (`start_encoder`).

`load_split` reads tables (Table JSONL from `fortap ingest`, or HiTab JSON), parses their
formula cells once, and turns the kept formulas into examples split by workbook
(`split.split_for_run`; with `data.corpus` set, the corpus's own `split.json` decides each
workbook's side). Each side may be capped per workbook (`data.train_per_book`,
`evaluation.dev_per_book`, `evaluation.test_per_book`: spread evenly within the workbook) and
in total (`data.max_train`, `evaluation.max_test`: spread evenly over the side);
`data.train=low_resource` then trains on the paper's 20 % of the training side, drawn with the
run's seed. `FormulaRun` is what a run produced, for callers that continue (the demo).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fortap.corpus.split import one_copy_per_book
from fortap.encoding.example import Example
from fortap.errors import FortapError
from fortap.table.model import Table
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.examples import parse_tables, train_subset
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.tasks.formula_prediction.split import (
    corpus_sides,
    read_tables,
    split_for_run,
    spread,
    spread_per_book,
)
from fortap.tasks.recipe import start_encoder as start_recipe_encoder


@dataclass
class FormulaRun:
    """What a run produced, for callers that continue (the demo)."""

    model: FormulaPredictionModel
    tables: list[Table]
    split: dict[str, list[Example]]
    systems: dict[str, dict]
    records: list[dict]
    notes: list[str] = field(default_factory=list)
    formulas: dict = field(default_factory=dict)  # parsed formula cells (`load_split`)


@dataclass
class Loaded:
    """A run's tables, tokenizer, example split (with its note) and parsed formula cells."""

    tables: list[Table]
    tokenizer: object
    split: dict[str, list[Example]]
    note: str
    formulas: dict  # table place -> cell -> Formula | None (`examples.parse_tables`)


def load_split(paths: Sequence[str | Path], cfg: FormulaRunConfig) -> Loaded:
    """Tables of `paths`, the tokenizer, the run's example split with its note, and the tables'
    formula cells parsed once (for example building and the rule baseline)."""
    from fortap.text.tokenizer import Tokenizer

    read = read_tables(paths)
    if not read:
        raise FortapError(f"no tables in {', '.join(map(str, paths))}")
    tables = one_copy_per_book(read)  # a workbook given as .xls and .xlsx counts once
    tokenizer = Tokenizer()
    ex_cfg = cfg.examples()
    sides = corpus_sides(cfg.data.corpus) if cfg.data.corpus else None
    formulas = parse_tables(tables)  # the run's one parse of every formula cell
    split, note = split_for_run(tables, tokenizer, ex_cfg, cfg.training.seed, sides, formulas)
    if len(tables) < len(read):
        copies = len({t.book for t in read}) - len({t.book for t in tables})
        note += f"; {copies} copies of workbooks given twice (.xls and .xlsx) left out"
    if not split["train"] or not split["test"]:
        raise FortapError("formula prediction: no kept formulas on the train or test side")
    ev = cfg.evaluation
    caps = {"train": (cfg.data.train_per_book, cfg.data.max_train, "trained on"),
            "dev": (ev.dev_per_book, 0, "dev checks draw from"),
            "test": (ev.test_per_book, ev.max_test, "evaluated on")}  # fmt: skip
    for side, (per_book, most, verb) in caps.items():
        split[side], capped = cap_side(split[side], per_book, most)
        if capped:
            note += f"; {verb} {capped}"
    if cfg.data.train != "full":
        n = len(split["train"])
        split["train"] = train_subset(
            split["train"], cfg.data.train, random.Random(cfg.training.seed)
        )
        note += f"; {cfg.data.train}: trained on {len(split['train'])} of the {n} examples"
    return Loaded(tables, tokenizer, split, note, formulas)


def cap_side(examples: list[Example], per_book: int, most: int) -> tuple[list[Example], str]:
    """The examples of one side kept by a per-workbook cap (spread evenly within each workbook,
    `spread_per_book`) and then a total cap (spread evenly over the side), both 0 = all; with
    a note saying what was kept when they drop any ("" otherwise)."""
    n = len(examples)
    kept = spread_per_book(examples, per_book)
    kept = spread(kept, most) if most else kept
    if len(kept) == n:
        return kept, ""
    books = f", at most {per_book} per workbook" if per_book else ""
    return kept, f"{len(kept)} of the {n} examples{books}, spread evenly"


def start_encoder(cfg: FormulaRunConfig, vocab_size: int):
    """The shared recipe's start (`fortap.tasks.recipe.start_encoder`) with `encoder.freeze`
    bottom layers given no gradient (`freeze_layers`)."""
    return freeze_layers(start_recipe_encoder(cfg.encoder, cfg.training, vocab_size), cfg)


def freeze_layers(encoder, cfg: FormulaRunConfig):
    """`encoder` with its bottom `encoder.freeze` transformer layers (-1: all) given no
    gradient, so the loop's optimiser leaves them out; the embeddings always train."""
    layers = encoder.encoder.layer  # (the stack of transformer layers, bottom first)
    frozen = len(layers) if cfg.encoder.freeze == -1 else min(cfg.encoder.freeze, len(layers))
    for layer in layers[:frozen]:
        layer.requires_grad_(False)
    return encoder
