"""`fortap pretrain`: pretraining over a built corpus or over raw tables (`run_pretrain` of a
`PretrainRequest`; `setup_pretrain` builds the model, stream and evaluation batches for both).

From a corpus (`fortap build-corpus`) the train split is trained on, and a fixed subset of the
dev split (`data.eval_samples`, drawn and given targets once with their own seed, so
evaluations are comparable) is evaluated every `training.eval_every` updates with every active
objective's metric. From tables (Table JSONL of `fortap ingest`, HiTab raw table JSON, read with
`fortap.table.io.read_tables`) a few are held out for evaluation. Which items and how they
become examples: `fortap.training.pretrain_data`. The run writes `config.json`,
`metrics.jsonl`, `checkpoints/step-N/` (resumable) and the trained encoder in `encoder/`
(config.json + model.safetensors).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from fortap.config import ConfigError
from fortap.errors import FortapError
from fortap.objectives.multitask import MultiObjectiveModel
from fortap.objectives.vocab import Vocab
from fortap.table.io import read_tables
from fortap.table.model import Table
from fortap.training.distributed import Dist, barrier, init_from_env, shutdown
from fortap.training.loader import BatchLoader, batch_source
from fortap.training.loop import TrainResult, train
from fortap.training.pretrain_data import (
    CorpusExamples,
    PretrainExamples,
    context_pool,
    corpus_split,
    sample_context_pool,
    table_split,
)
from fortap.training.run_config import RunConfig, load_config
from fortap.training.stream import ExampleStream

INITS = ("random", "minilm")


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
    stream: ExampleStream | BatchLoader  # the rank's train batches
    eval_batches: list
    init_note: str
    eval_examples: list = field(default_factory=list)  # the examples of `eval_batches`


def setup_pretrain(
    cfg: RunConfig,
    source: Sequence[Table] | str | Path,
    init: str = "random",
    dist: Dist | None = None,
) -> PretrainSetup:
    """Build the model, the train example stream and the fixed evaluation batches (their
    targets drawn once with their own seed) for a corpus folder or a list of tables.

    A corpus (`str` or `Path`): train on its train split, evaluate `data.eval_samples` dev
    samples (`dev_subset`). Tables: hold out `cfg.data.eval_tables` of them for evaluation.
    With `data.workers`, that many processes build the train batches (`batch_source`)."""
    from fortap.encoding.collate import collate, collate_arrays
    from fortap.text.tokenizer import load_tokenizer

    dist = dist or Dist()
    seed = cfg.training.seed
    tokenizer = load_tokenizer()
    vocab = Vocab.from_tokenizer(tokenizer)
    if isinstance(source, str | Path):
        train_items, eval_items = corpus_split(cfg, Path(source), dist)
        model, init_note = build_model(cfg, init)
        pool = sample_context_pool(train_items)
        builder = model.target_builder(vocab, cfg.data.max_tokens, pool)
        make, make_eval, stream_collate = CorpusExamples(builder), builder.example, collate_arrays
    else:
        train_items, eval_items = table_split(cfg, source)
        model, init_note = build_model(cfg, init)
        negatives = context_pool(train_items, cfg.objectives["table_context"].config)
        make = make_eval = PretrainExamples(cfg, tokenizer, vocab, model, negatives)
        stream_collate = collate
    collators = model.target_collators()
    batch_of = lambda examples: collate(examples, target_collators=collators)  # noqa: E731
    size = cfg.training.batch_size
    stream = batch_source(
        train_items, make, lambda xs: stream_collate(xs, target_collators=collators), size, seed,
        dist.rank, dist.world, cfg.data.workers, cfg.data.prefetch,
    )  # fmt: skip
    eval_rng = random.Random(seed + 1)
    eval_examples = [e for e in (make_eval(x, eval_rng) for x in eval_items) if e is not None]
    eval_batches = [
        batch_of(eval_examples[i : i + size]) for i in range(0, len(eval_examples), size)
    ]
    return PretrainSetup(model, stream, eval_batches, init_note, eval_examples)


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
        setup.stream.close()  # the data workers, if any
        if dist.is_main:
            setup.model.encoder.save_pretrained(out / "encoder")
        barrier(dist)
    finally:
        shutdown(dist)
    return result
