"""`fortap finetune formula-prediction` and `fortap evaluate formula-prediction`.

`run_finetune` reads tables (Table JSONL from `fortap ingest`, or HiTab JSON), turns their kept
formulas into formula-prediction examples split by workbook (`split_examples`), fine-tunes an
encoder (`random`, `minilm`, or a pretraining run's `encoder/` folder as `tuta`/`fortap`) with a
new formula decoder on the train split, and evaluates on the test split beside the rule baseline
in the paper setting (no other formula visible) and the sheet setting (fill from neighbours).
`run_evaluate` does the evaluation alone for a saved model. Both write into `out`:
`predictions.jsonl` (one record per test formula, ranked candidates), `metrics.json` (every
system's metrics, the split, the learning curve) and `report.md` with its PNG plots.

Examples are split by workbook as `fortap.tasks.formula_split` describes; with `corpus` set,
the corpus's own `split.json` decides each workbook's side.

A pretrained encoder wants a smaller learning rate than the new decoder: `encoder_lr` sets the
encoder's, `lr` stays the decoder's (`OptimConfig.head_lr_scale` = lr / encoder_lr).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console

from fortap.encoding.example import Example
from fortap.errors import FortapError
from fortap.evaluation.report import CurvePoint, best_system, comparison_rich, write_report
from fortap.model.formula_decoder import DecoderConfig
from fortap.table.model import Table
from fortap.tasks.formula_prediction import (
    FormulaExamplesConfig,
    FormulaPredictionModel,
    low_resource,
    with_serialize,
)
from fortap.tasks.formula_split import corpus_sides, read_tables, split_for_run, spread
from fortap.training.optim import OptimConfig

TASKS = ("formula-prediction",)


@dataclass(frozen=True)
class FormulaRunConfig:
    """One formula-prediction fine-tuning run."""

    encoder: str = "random"  # random (tiny, untrained), minilm, tuta or fortap
    checkpoint: str | None = None  # encoder folder for tuta / fortap (a pretrain run's encoder/)
    steps: int = 200  # fine-tuning updates
    batch_size: int = 8  # examples per update
    lr: float = 1e-3  # peak learning rate of the decoder (and of the encoder without encoder_lr)
    encoder_lr: float | None = None  # peak learning rate of the encoder; None = lr for both
    max_seq_len: int = 128  # tokens per example
    beam: int = 5  # beam width of decoding (top-5 comes from it)
    curve: tuple[float, ...] = ()  # extra training shares for the learning curve (full is added)
    max_test: int = 0  # evaluate on N test examples spread evenly over the split (0 = all)
    seed: int = 0  # split, example order, decoder initialisation
    corpus: str | None = None  # corpus folder whose split.json puts each workbook on its side

    def __post_init__(self) -> None:
        if self.max_test < 0:
            raise ValueError(f"FormulaRunConfig.max_test must be >= 0, got {self.max_test}")
        for name in ("steps", "batch_size", "max_seq_len", "beam"):
            if getattr(self, name) < 1:
                raise ValueError(f"FormulaRunConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.lr <= 0:
            raise ValueError(f"FormulaRunConfig.lr must be > 0, got {self.lr}")
        if self.encoder_lr is not None and self.encoder_lr <= 0:
            raise ValueError(f"FormulaRunConfig.encoder_lr must be > 0, got {self.encoder_lr}")
        if any(not 0.0 < s < 1.0 for s in self.curve):
            raise ValueError(f"FormulaRunConfig.curve shares must be in (0, 1), got {self.curve}")


@dataclass
class FormulaRun:
    """What a run produced, for callers that continue (the demo)."""

    model: FormulaPredictionModel
    tables: list[Table]
    split: dict[str, list[Example]]
    systems: dict[str, dict]
    records: list[dict]
    notes: list[str] = field(default_factory=list)


def load_split(paths: Sequence[str | Path], cfg: FormulaRunConfig):
    """Tables of `paths`, the tokenizer, and the run's example split with its note."""
    from fortap.text.tokenizer import Tokenizer

    tables = read_tables(paths)
    if not tables:
        raise FortapError(f"no tables in {', '.join(map(str, paths))}")
    tokenizer = Tokenizer()
    ex_cfg = with_serialize(FormulaExamplesConfig(), max_seq_len=cfg.max_seq_len)
    sides = corpus_sides(cfg.corpus) if cfg.corpus else None
    split, note = split_for_run(tables, tokenizer, ex_cfg, cfg.seed, sides)
    if not split["train"] or not split["test"]:
        raise FortapError("formula prediction: no kept formulas on the train or test side")
    if cfg.max_test and cfg.max_test < len(split["test"]):
        n = len(split["test"])
        split["test"] = spread(split["test"], cfg.max_test)
        note += f"; evaluated on {cfg.max_test} of the {n} test examples, spread evenly"
    return tables, tokenizer, split, note


def start_encoder(cfg: FormulaRunConfig, vocab_size: int):
    """The encoder fine-tuning starts from."""
    from fortap.model.config import ModelConfig
    from fortap.tasks.formula_checkpoint import baseline_encoder

    tiny = ModelConfig.tiny(vocab_size=vocab_size, hidden_dropout=0.0)
    try:
        config = tiny if cfg.encoder == "random" else None
        return baseline_encoder(cfg.encoder, cfg.checkpoint, config)
    except ValueError as err:
        raise FortapError(str(err)) from None


def finetune_config(cfg: FormulaRunConfig):
    """The `FinetuneConfig` of a run. With `encoder_lr`, the optimizer's base lr is the
    encoder's and the decoder's groups are scaled up to `lr` (`OptimConfig.head_lr_scale`)."""
    from fortap.tasks.formula_finetune import FinetuneConfig

    base = cfg.lr if cfg.encoder_lr is None else cfg.encoder_lr
    return FinetuneConfig(
        steps=cfg.steps,
        sketch_warmup=cfg.steps // 4,
        batch_size=cfg.batch_size,
        eval_every=max(1, cfg.steps // 2),
        max_dev=64,
        optim=OptimConfig(lr=base, head_lr_scale=cfg.lr / base, warmup=0.05, weight_decay=0.01),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0),
    )


def finetune_once(train: list[Example], dev: list[Example], cfg: FormulaRunConfig, vocab: int):
    from fortap.tasks.formula_finetune import train_formula_prediction

    encoder = start_encoder(cfg, vocab)
    return train_formula_prediction(
        train, dev, encoder, finetune_config(cfg), random.Random(cfg.seed)
    )


def compare(model, tables, test: list[Example], beam: int) -> tuple[dict[str, dict], list[dict]]:
    """The model and the rule baseline (paper and sheet settings) on the same test examples."""
    from fortap.tasks.formula_finetune import evaluate_formula_prediction
    from fortap.tasks.rule_baseline import evaluate_rules

    metrics, records = evaluate_formula_prediction(model, test, beam=beam, top_k=5)
    systems = {"model": metrics}
    for setting in ("paper", "sheet"):
        systems[f"rules ({setting})"] = evaluate_rules(tables, test, setting=setting)[0]
    return systems, records


def run_finetune(
    paths: Sequence[str | Path],
    out: str | Path,
    cfg: FormulaRunConfig = FormulaRunConfig(),
    console: Console | None = None,
) -> FormulaRun:
    """Fine-tune and evaluate (see module doc); the model is saved in `out/model/`."""
    import torch

    from fortap.tasks.formula_checkpoint import save_formula_model

    torch.set_flush_denormal(True)
    console = console or Console()
    out = Path(out)
    tables, tokenizer, split, note = load_split(paths, cfg)
    sizes = {k: len(v) for k, v in split.items()}
    console.print(f"formula examples {sizes}; {note}")
    train, dev, test = split["train"], split["dev"], split["test"]
    model = finetune_once(train, dev, cfg, tokenizer.vocab_size)
    systems, records = compare(model, tables, test, cfg.beam)
    curve = [CurvePoint(1.0, len(train), systems["model"]["formula_top1"])]
    for share in sorted(cfg.curve):
        part = low_resource(train, random.Random(cfg.seed), share)
        small = finetune_once(part, dev, cfg, tokenizer.vocab_size)
        top1 = compare(small, tables, test, cfg.beam)[0]["model"]["formula_top1"]
        curve.append(CurvePoint(share, len(part), top1))
    save_formula_model(model, out / "model")
    run = FormulaRun(model, tables, split, systems, records, [note])
    write_outputs(out, run, cfg, sorted(curve, key=lambda p: p.share), console)
    return run


def run_evaluate(
    paths: Sequence[str | Path],
    model_dir: str | Path,
    out: str | Path,
    cfg: FormulaRunConfig = FormulaRunConfig(),
    console: Console | None = None,
) -> FormulaRun:
    """Evaluate the model saved in `model_dir` on the test split of `paths` (same split rule and
    seed as `run_finetune`), beside the rule baseline."""
    import torch

    from fortap.tasks.formula_checkpoint import load_formula_model

    torch.set_flush_denormal(True)
    console = console or Console()
    model = load_formula_model(model_dir)
    tables, _, split, note = load_split(paths, cfg)
    systems, records = compare(model, tables, split["test"], cfg.beam)
    run = FormulaRun(model, tables, split, systems, records, [note])
    write_outputs(Path(out), run, cfg, [], console)
    return run


def write_outputs(
    out: Path, run: FormulaRun, cfg: FormulaRunConfig, curve: list[CurvePoint], console: Console
) -> None:
    """predictions.jsonl, metrics.json, report.md + plots; prints the comparison."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "predictions.jsonl", "w", encoding="utf-8") as fh:
        for record in run.records:
            fh.write(json.dumps(record) + "\n")
    best = best_system(run.systems)
    notes = [*run.notes, f"encoder: {cfg.encoder}; {cfg.steps} updates; beam {cfg.beam}"]
    notes.append(f"best formula top-1: {best}")
    payload = {
        "systems": run.systems,
        "split": {k: len(v) for k, v in run.split.items()},
        "curve": [asdict(p) for p in curve],
        "config": asdict(cfg),
        "notes": notes,
    }
    (out / "metrics.json").write_text(json.dumps(payload, indent=1) + "\n")
    write_report(out, run.systems, curve, notes)
    console.print(comparison_rich(run.systems, "formula prediction (test split)"))
    console.print(f"best formula top-1: {best}; report in {out / 'report.md'}")
