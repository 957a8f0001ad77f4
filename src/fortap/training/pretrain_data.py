"""Pretraining data: which tables or corpus samples a run trains on and evaluates, and how each
becomes an example with fresh objective targets on every visit.

Tables (`table_split`): `data.eval_tables` held out with the run's seed; on every visit a table
becomes one example (`PretrainExamples`): the whole table when it fits, else the header cells
plus one cell's row and column or a window of rows under repeated headers; one context snippet
after [CLS]; then each objective's targets.

A corpus (`corpus_split`): its train split (optionally formula samples only, capped per
workbook), decoded once into arrays (`ExampleArrays`), and a fixed dev subset (`dev_subset`);
a sample gets fresh targets from each objective on every visit (`CorpusExamples`, through
the objectives' `TargetBuilder`), the same targets as an `Example` would for the same rng.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from fortap.config import ConfigError
from fortap.corpus.snippets import (
    CONTEXT_LEAD,
    SNIPPETS,
    TableContextConfig,
    snippets,
    split_context,
)
from fortap.encoding.arrays import ExampleArrays
from fortap.encoding.example import Example
from fortap.encoding.formula_targets import FORMULA_KEY
from fortap.errors import FortapError
from fortap.objectives.builder import TargetBuilder
from fortap.objectives.multitask import MultiObjectiveModel
from fortap.objectives.vocab import Vocab
from fortap.table.model import Table
from fortap.training.distributed import Dist
from fortap.training.run_config import DataConfig, RunConfig

Item = TypeVar("Item", Example, ExampleArrays)


@dataclass
class PretrainExamples:
    """Builds one pretraining example from a table and an explicit rng (see module doc)."""

    cfg: RunConfig
    tokenizer: object
    vocab: Vocab
    model: MultiObjectiveModel
    negatives: Sequence[str] = ()

    def __call__(self, table: Table, rng: random.Random) -> Example | None:
        from fortap.encoding.serialize import serialize

        context_cfg = self._context_cfg()
        lead, rest = split_context(table.context, context_cfg, rng)
        try:
            cells = self._cells(table, lead, rng)
            example = serialize(
                table, self.tokenizer, self.cfg.serialize, context=lead, cells=cells
            )
        except ValueError:
            return None  # a table that cannot be laid out within the budget is skipped
        if len(example.cell_coords) == 0:
            return None
        example.meta[SNIPPETS] = rest
        return self.model.build_targets(
            example, self.vocab, rng, self.cfg.data.max_tokens, self.negatives
        )

    def _context_cfg(self) -> TableContextConfig:
        setting = self.cfg.objectives.get("table_context")
        return setting.config if setting is not None else TableContextConfig()

    def _cells(self, table: Table, lead: str, rng: random.Random):
        """All cells when they fit; else headers + a row and column, or a window of rows."""
        from fortap.encoding.selection import chunk_rows, select_cells

        windows = chunk_rows(table, self.tokenizer, self.cfg.serialize, context=lead)
        if len(windows) == 1:
            return None
        if rng.random() < self.cfg.data.row_col_rate:
            top, left = (
                min(table.top_header_rows, table.n_rows - 1),
                min(table.left_header_cols, table.n_cols - 1),
            )
            target = (rng.randrange(top, table.n_rows), rng.randrange(left, table.n_cols))
            return select_cells(table, target)
        return rng.choice(windows)


def context_pool(tables: Sequence[Table], cfg: TableContextConfig) -> list[str]:
    """Every context snippet of `tables`: the distractors of table-context retrieval."""
    return sorted({s for table in tables for s in snippets(table.context, cfg)})


@dataclass
class CorpusExamples:
    """Fresh objective targets for one corpus sample held as arrays (`make` of the corpus
    `ExampleStream`); its builder holds the table-context distractors (`sample_context_pool`)."""

    builder: TargetBuilder

    def __call__(self, sample: ExampleArrays, rng: random.Random) -> ExampleArrays:
        return self.builder.arrays(sample, rng)

    @property
    def negatives(self) -> Sequence[str]:
        return self.builder.negatives


def sample_context_pool(samples: Iterable[Example | ExampleArrays]) -> list[str]:
    """Every context snippet of corpus table samples (the lead and the others): the distractors
    of table-context retrieval. Formula samples carry no context."""
    found = {s for x in samples for s in (x.meta.get(CONTEXT_LEAD), *x.meta.get(SNIPPETS, ()))}
    return sorted(s for s in found if s)


def per_book(samples: Sequence[Example | ExampleArrays], cap: int, rng: random.Random) -> list[int]:
    """Indices of `samples`, at most `cap` of each workbook (`meta` `book_key`; 0 = all) drawn
    with `rng`, in corpus order."""
    if not cap:
        return list(range(len(samples)))
    books: dict[str, list[int]] = {}
    for i, sample in enumerate(samples):
        books.setdefault(sample.meta.get("book_key", ""), []).append(i)
    return sorted(
        j for ids in books.values() for j in (rng.sample(ids, cap) if len(ids) > cap else ids)
    )


def dev_subset(samples: Sequence[Item], data: DataConfig, seed: int) -> list[Item]:
    """The evaluated dev samples: at most `data.eval_per_book` of each workbook (0 = all),
    then at most `data.eval_samples` of those (0 = all), both drawn with `seed`; the corpus
    order is kept."""
    rng = random.Random(seed)
    keep = per_book(samples, data.eval_per_book, rng)
    if data.eval_samples and len(keep) > data.eval_samples:
        keep = sorted(rng.sample(keep, data.eval_samples))
    return [samples[i] for i in keep]


def table_split(cfg: RunConfig, tables: Sequence[Table]) -> tuple[list[Table], list[Table]]:
    """(train tables, the `cfg.data.eval_tables` held-out tables drawn with the run's seed)."""
    if cfg.data.max_tokens < cfg.serialize.max_seq_len:
        raise ConfigError(
            "data.max_tokens must be >= serialize.max_seq_len (appended items come after)"
        )
    if len(tables) <= cfg.data.eval_tables:
        raise FortapError(
            f"pretrain needs more than {cfg.data.eval_tables} tables (data.eval_tables), "
            f"found {len(tables)}"
        )
    order = list(range(len(tables)))
    random.Random(cfg.training.seed).shuffle(order)
    held = set(order[: cfg.data.eval_tables])
    train_tables = [t for i, t in enumerate(tables) if i not in held]
    return train_tables, [t for i, t in enumerate(tables) if i in held]


def corpus_split(
    cfg: RunConfig, corpus: Path, dist: Dist
) -> tuple[list[ExampleArrays], list[Example]]:
    """(train samples as arrays, evaluated dev samples) of a built corpus: the train split
    filtered by `data.formula_samples_only`, `data.train_per_book` and `data.max_tables`; the
    dev subset drawn with the run's seed + 1."""
    from fortap.corpus.build import read_corpus_arrays

    train_samples = read_corpus_arrays(corpus, "train")
    if cfg.data.formula_samples_only:
        train_samples = [x for x in train_samples if x.targets.get(FORMULA_KEY)]
    if cfg.data.train_per_book:
        keep = per_book(train_samples, cfg.data.train_per_book, random.Random(cfg.training.seed))
        train_samples = [train_samples[i] for i in keep]
    if cfg.data.max_tables:
        train_samples = train_samples[: cfg.data.max_tables]
    if len(train_samples) < dist.world:
        raise FortapError(f"{corpus}: the train split holds {len(train_samples)} samples")
    dev = dev_subset(read_corpus_arrays(corpus, "dev"), cfg.data, cfg.training.seed + 1)
    return train_samples, [x.to_example() for x in dev]
