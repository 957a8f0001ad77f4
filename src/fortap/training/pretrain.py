"""`fortap pretrain`: pretraining over a built corpus or over raw tables (`run_pretrain` of a
`PretrainRequest`; `setup_pretrain` builds the model, stream and evaluation batches for both).

A corpus (`fortap build-corpus`) gives serialised samples with their formula facts: the train
split is trained on, and a fixed subset of the dev split (`data.eval_samples`, drawn and given
targets once with their own seed, so evaluations are comparable) is evaluated every
`training.eval_every` updates with every active objective's metric. On every visit a train
sample gets fresh targets from each objective (`CorpusExamples`).

Tables come from Table JSONL (`fortap ingest`) and from HiTab raw table JSON, read with
`fortap.table.io.read_tables`; a folder contributes every `*.jsonl` and
`*.json` inside it. A few tables are held out for evaluation. On every visit a table becomes
one example (`PretrainExamples`): the whole table when it fits, else the header cells plus
one cell's row and column or a window of rows under repeated headers; one context snippet
after [CLS]; then each objective's targets. The run writes `config.json`, `metrics.jsonl`,
`checkpoints/step-N/` (resumable) and the trained encoder in `encoder/` (config.json +
model.safetensors).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from fortap.config import ConfigError
from fortap.corpus.snippets import (
    CONTEXT_LEAD,
    SNIPPETS,
    TableContextConfig,
    snippets,
    split_context,
)
from fortap.encoding.example import Example
from fortap.encoding.formula_targets import FORMULA_KEY
from fortap.errors import FortapError
from fortap.objectives.multitask import MultiObjectiveModel
from fortap.objectives.vocab import Vocab
from fortap.table.io import read_tables
from fortap.table.model import Table
from fortap.training.distributed import Dist, barrier, init_from_env, shutdown
from fortap.training.loop import TrainResult, train
from fortap.training.run_config import DataConfig, RunConfig, load_config
from fortap.training.stream import ExampleStream

INITS = ("random", "minilm")


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


def build_model(cfg: RunConfig, init: str) -> tuple[MultiObjectiveModel, str]:
    """The encoder (random or MiniLM-initialised) with one head per objective in use."""
    from fortap.model.encoder import FortapEncoder
    from fortap.objectives.registry import resolve

    if init not in INITS:
        raise ConfigError(f"--init must be one of {', '.join(INITS)}, got {init!r}")
    torch.manual_seed(cfg.training.seed)
    if init == "minilm":
        from fortap.model.pretrained import load_minilm

        encoder, report = load_minilm(cfg.model)
        note = report.summary()
    else:
        encoder, note = FortapEncoder(cfg.model), "random initialisation"
    objectives = resolve(list(cfg.use))
    configs = {o.name: cfg.objectives[o.name].config for o in objectives}
    weights = {o.name: cfg.objectives[o.name].weight for o in objectives}
    return MultiObjectiveModel(encoder, objectives, configs, weights), note


@dataclass
class PretrainSetup:
    """Everything `train` needs for a pretraining run."""

    model: MultiObjectiveModel
    stream: ExampleStream
    eval_batches: list
    init_note: str
    eval_examples: list = field(default_factory=list)  # the examples of `eval_batches`


@dataclass
class CorpusExamples:
    """Fresh objective targets for one corpus sample (`make` of the corpus `ExampleStream`)."""

    cfg: RunConfig
    vocab: Vocab
    model: MultiObjectiveModel
    negatives: Sequence[str] = ()  # table-context distractors (`sample_context_pool`)

    def __call__(self, example: Example, rng: random.Random) -> Example | None:
        return self.model.build_targets(
            example, self.vocab, rng, self.cfg.data.max_tokens, self.negatives
        )


def sample_context_pool(samples: Iterable[Example]) -> list[str]:
    """Every context snippet of corpus table samples (the lead and the others): the distractors
    of table-context retrieval. Formula samples carry no context."""
    found = {s for x in samples for s in (x.meta.get(CONTEXT_LEAD), *x.meta.get(SNIPPETS, ()))}
    return sorted(s for s in found if s)


def per_book(samples: list[Example], cap: int, rng: random.Random) -> list[int]:
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


def dev_subset(samples: list[Example], data: DataConfig, seed: int) -> list[Example]:
    """The evaluated dev samples: at most `data.eval_per_book` of each workbook (0 = all),
    then at most `data.eval_samples` of those (0 = all), both drawn with `seed`; the corpus
    order is kept."""
    rng = random.Random(seed)
    keep = per_book(samples, data.eval_per_book, rng)
    if data.eval_samples and len(keep) > data.eval_samples:
        keep = sorted(rng.sample(keep, data.eval_samples))
    return [samples[i] for i in keep]


def setup_pretrain(
    cfg: RunConfig,
    source: Sequence[Table] | str | Path,
    init: str = "random",
    dist: Dist | None = None,
) -> PretrainSetup:
    """Build the model, the train example stream and the fixed evaluation batches (their
    targets drawn once with their own seed) for a corpus folder or a list of tables.

    A corpus (`str` or `Path`): train on its train split, evaluate `data.eval_samples` dev
    samples (`dev_subset`). Tables: hold out `cfg.data.eval_tables` of them for evaluation."""
    from fortap.encoding.collate import collate
    from fortap.text.tokenizer import load_tokenizer

    dist = dist or Dist()
    seed = cfg.training.seed
    tokenizer = load_tokenizer()
    vocab = Vocab.from_tokenizer(tokenizer)
    if isinstance(source, str | Path):
        train_items, eval_items = corpus_split(cfg, Path(source), dist)
        model, init_note = build_model(cfg, init)
        make = CorpusExamples(cfg, vocab, model, sample_context_pool(train_items))
    else:
        train_items, eval_items = table_split(cfg, source)
        model, init_note = build_model(cfg, init)
        negatives = context_pool(train_items, cfg.objectives["table_context"].config)
        make = PretrainExamples(cfg, tokenizer, vocab, model, negatives)
    collators = model.target_collators()
    batch_of = lambda examples: collate(examples, target_collators=collators)  # noqa: E731
    size = cfg.training.batch_size
    stream = ExampleStream(train_items, make, batch_of, size, seed, dist.rank, dist.world)
    eval_rng = random.Random(seed + 1)
    eval_examples = [e for e in (make(x, eval_rng) for x in eval_items) if e is not None]
    eval_batches = [
        batch_of(eval_examples[i : i + size]) for i in range(0, len(eval_examples), size)
    ]
    return PretrainSetup(model, stream, eval_batches, init_note, eval_examples)


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


def corpus_split(cfg: RunConfig, corpus: Path, dist: Dist) -> tuple[list[Example], list[Example]]:
    """(train samples, evaluated dev samples) of a built corpus: the train split filtered by
    `data.formula_samples_only`, `data.train_per_book` and `data.max_tables`; the dev subset
    drawn with the run's seed + 1."""
    from fortap.corpus.build import read_corpus

    train_samples = list(read_corpus(corpus, "train"))
    if cfg.data.formula_samples_only:
        train_samples = [x for x in train_samples if x.targets.get(FORMULA_KEY)]
    if cfg.data.train_per_book:
        keep = per_book(train_samples, cfg.data.train_per_book, random.Random(cfg.training.seed))
        train_samples = [train_samples[i] for i in keep]
    if cfg.data.max_tables:
        train_samples = train_samples[: cfg.data.max_tables]
    if len(train_samples) < dist.world:
        raise FortapError(f"{corpus}: the train split holds {len(train_samples)} samples")
    dev = dev_subset(list(read_corpus(corpus, "dev")), cfg.data, cfg.training.seed + 1)
    return train_samples, dev


@dataclass(frozen=True)
class PretrainRequest:
    """One `fortap pretrain` run: where the data comes from, where the run goes, and how the
    run config is composed (preset, then the shorthands below, then `overrides`)."""

    out: Path  # run folder (resumed when it holds checkpoints)
    tables: tuple[Path, ...] = ()  # Table JSONL / HiTab JSON files or folders ...
    corpus: Path | None = None  # ... or a built corpus (exactly one of the two)
    config: str = "tiny"  # preset name or YAML path
    objectives: tuple[str, ...] = ()  # objectives.use shorthand (empty = the preset's)
    steps: int | None = None  # training.steps shorthand
    init: str = "random"  # random or minilm
    overrides: tuple[str, ...] = ()  # dotted KEY=VALUE overrides
    progress: bool = True  # progress bar
    stop_at: int | None = None  # end at this update, as a kill would (checkpoint left)

    def __post_init__(self) -> None:
        if (self.corpus is None) == (not self.tables):
            raise FortapError("pretrain needs either --corpus or --tables (not both)")

    def run_config(self) -> RunConfig:
        extra = list(self.overrides)
        if self.objectives:
            extra.append("objectives.use=" + ",".join(self.objectives))
        if self.steps is not None:
            extra.append(f"training.steps={self.steps}")
        if not self.progress:
            extra.append("training.progress=false")
        return load_config(self.config, extra)


def run_pretrain(request: PretrainRequest) -> TrainResult:
    """Pretrain as `request` says into `request.out` (resuming from its checkpoints); writes
    `config.json`, `metrics.jsonl`, checkpoints and `encoder/`. Under torchrun every rank
    calls this; rank 0 writes."""
    cfg = request.run_config()
    dist = init_from_env()
    try:
        if request.corpus is not None:
            setup = setup_pretrain(cfg, request.corpus, request.init, dist)
            source: dict = {"corpus": str(request.corpus)}
        else:
            all_tables = read_tables(request.tables, cfg.data.max_tables)
            setup = setup_pretrain(cfg, all_tables, request.init, dist)
            source = {"tables": len(all_tables)}
        out = Path(request.out)
        run_info = {"config": cfg.to_dict(), "init": request.init, "init_report": setup.init_note}
        run_info.update(source, world=dist.world, eval_batches=len(setup.eval_batches))
        if dist.is_main:
            out.mkdir(parents=True, exist_ok=True)
            (out / "config.json").write_text(json.dumps(run_info, indent=1) + "\n")
        barrier(dist)
        result = train(
            setup.model,
            setup.stream,
            cfg.training,
            cfg.optim,
            out,
            eval_batches=setup.eval_batches,
            stop_at=request.stop_at,
            dist=dist,
        )
        if dist.is_main:
            setup.model.encoder.save_pretrained(out / "encoder")
        barrier(dist)
    finally:
        shutdown(dist)
    return result
