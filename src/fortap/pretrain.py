"""`fortap pretrain`: pretraining over a built corpus or over raw tables (`run_pretrain`).

A corpus (`fortap build-corpus`) gives serialised samples with their formula facts: the train
split is trained on, and a fixed subset of the dev split (`data.eval_samples`, drawn and given
targets once with their own seed, so evaluations are comparable) is evaluated every
`training.eval_every` updates with every active objective's metric. On every visit a train
sample gets fresh targets from each objective (`CorpusExamples`).

Tables come from Table JSONL (`fortap ingest`, read with `fortap.table.io.read_jsonl`) and
from HiTab raw table JSON (`fortap.table.hitab`); a folder contributes every `*.jsonl` and
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

from fortap.config import ConfigError, DataConfig, RunConfig, load_config
from fortap.corpus.samples import FORMULA_KEY
from fortap.corpus.snippets import (
    CONTEXT_LEAD,
    SNIPPETS,
    TableContextConfig,
    snippets,
    split_context,
)
from fortap.encoding.example import Example
from fortap.errors import FortapError
from fortap.objectives.multitask import MultiObjectiveModel
from fortap.objectives.vocab import Vocab
from fortap.table.model import Table
from fortap.training.distributed import Dist, barrier, init_from_env, shutdown
from fortap.training.loop import TrainResult, train
from fortap.training.stream import ExampleStream

INITS = ("random", "minilm")


def load_tables(paths: Iterable[str | Path], limit: int = 0) -> list[Table]:
    """Tables of Table JSONL files, then HiTab JSON files (see `fortap.table.inputs`); at most
    `limit` (0 = all). An ingest folder's `report.json` is not taken for a HiTab table."""
    from fortap.table.hitab import read_hitab
    from fortap.table.inputs import table_inputs

    jsonl, hitab = table_inputs(paths)
    tables: list[Table] = []
    for path in jsonl + hitab:
        if limit and len(tables) >= limit:
            break
        if path.suffix == ".jsonl":
            from fortap.table.io import read_jsonl

            tables += list(read_jsonl(path))
        else:
            tables.append(read_hitab(path))
    return tables[:limit] if limit else tables


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


def setup_pretrain(
    cfg: RunConfig, tables: Sequence[Table], init: str = "random", dist: Dist | None = None
) -> PretrainSetup:
    """Hold out `cfg.data.eval_tables` tables, build the model, the example stream and the
    fixed evaluation batches (drawn once with their own seed)."""
    from fortap.encoding.collate import collate
    from fortap.text.tokenizer import load_tokenizer

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
    eval_tables = [t for i, t in enumerate(tables) if i in held]

    tokenizer = load_tokenizer()
    vocab = Vocab.from_tokenizer(tokenizer)
    model, init_note = build_model(cfg, init)
    negatives = context_pool(train_tables, cfg.objectives["table_context"].config)
    make = PretrainExamples(cfg, tokenizer, vocab, model, negatives)
    collators = model.target_collators()
    batch_of = lambda examples: collate(examples, target_collators=collators)  # noqa: E731
    size = cfg.training.batch_size
    dist = dist or Dist()
    seed = cfg.training.seed
    stream = ExampleStream(train_tables, make, batch_of, size, seed, dist.rank, dist.world)
    eval_rng = random.Random(cfg.training.seed + 1)
    eval_examples = [e for e in (make(t, eval_rng) for t in eval_tables) if e is not None]
    eval_batches = [
        batch_of(eval_examples[i : i + size]) for i in range(0, len(eval_examples), size)
    ]
    return PretrainSetup(model, stream, eval_batches, init_note, eval_examples)


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


def setup_corpus(
    cfg: RunConfig, corpus: str | Path, init: str = "random", dist: Dist | None = None
) -> PretrainSetup:
    """Train on the corpus's train split; evaluate on `data.eval_samples` dev samples (or
    the test split when the corpus has no dev samples), their targets drawn once."""
    from fortap.corpus.build import read_corpus
    from fortap.encoding.collate import collate
    from fortap.text.tokenizer import load_tokenizer

    dist = dist or Dist()
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
    seed = cfg.training.seed
    dev = dev_subset(list(read_corpus(corpus, "dev")), cfg.data, seed + 1)
    vocab = Vocab.from_tokenizer(load_tokenizer())
    model, init_note = build_model(cfg, init)
    make = CorpusExamples(cfg, vocab, model, sample_context_pool(train_samples))
    collators = model.target_collators()
    batch_of = lambda examples: collate(examples, target_collators=collators)  # noqa: E731
    size = cfg.training.batch_size
    stream = ExampleStream(train_samples, make, batch_of, size, seed, dist.rank, dist.world)
    eval_rng = random.Random(seed + 1)
    eval_examples = [e for e in (make(x, eval_rng) for x in dev) if e is not None]
    eval_batches = [
        batch_of(eval_examples[i : i + size]) for i in range(0, len(eval_examples), size)
    ]
    return PretrainSetup(model, stream, eval_batches, init_note, eval_examples)


def run_pretrain(
    tables: Sequence[str | Path],
    out: str | Path,
    config: str = "tiny",
    objectives: Sequence[str] | None = None,
    steps: int | None = None,
    init: str = "random",
    overrides: Sequence[str] = (),
    progress: bool = True,
    stop_at: int | None = None,
    corpus: str | Path | None = None,
) -> TrainResult:
    """Pretrain on a corpus (`corpus`) or on `tables` into `out` (resuming from its
    checkpoints); `stop_at` ends the run early at that update, as a kill would, leaving a
    checkpoint to resume from. Under torchrun every rank calls this; rank 0 writes."""
    if (corpus is None) == (not tables):
        raise FortapError("pretrain needs either --corpus or --tables (not both)")
    extra = list(overrides)
    if objectives:
        extra.append("objectives.use=" + ",".join(objectives))
    if steps is not None:
        extra.append(f"training.steps={steps}")
    if not progress:
        extra.append("training.progress=false")
    cfg = load_config(config, extra)
    dist = init_from_env()
    try:
        if corpus is not None:
            setup, source = setup_corpus(cfg, corpus, init, dist), {"corpus": str(corpus)}
        else:
            all_tables = load_tables(tables, cfg.data.max_tables)
            setup, source = setup_pretrain(cfg, all_tables, init, dist), {"tables": len(all_tables)}
        out = Path(out)
        run_info = {"config": cfg.to_dict(), "init": init, "init_report": setup.init_note}
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
            stop_at=stop_at,
            dist=dist,
        )
        if dist.is_main:
            setup.model.encoder.save_pretrained(out / "encoder")
        barrier(dist)
    finally:
        shutdown(dist)
    return result
