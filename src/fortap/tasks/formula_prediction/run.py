"""`fortap finetune formula-prediction` and `fortap evaluate formula-prediction`.

`run_finetune` reads tables (Table JSONL from `fortap ingest`, or HiTab JSON), turns their kept
formulas into formula-prediction examples split by workbook (`split_for_run`), fine-tunes an
encoder (`random`, `minilm`, or a pretraining run's `encoder/` folder as `tuta`/`fortap`) with a
new formula decoder on the train split through the shared training loop (`finetune.py`; the
run folder `OUT/training/` holds its checkpoints and `metrics.jsonl`, and a rerun resumes
there), and evaluates on the test split beside the rule baseline in the paper setting (no other
formula visible) and the sheet setting (fill from neighbours) and the sketch prior
(`compare.py`: pooled and per-workbook metrics with intervals). `run_evaluate` does the
evaluation alone for a saved model. Both write into `out`: `predictions.jsonl` (one record per
test formula, ranked candidates), `metrics.json` (every system's metrics, the split, the
learning curve, the config) and `report.md` with its PNG plots. Under torchrun every rank
trains; rank 0 alone evaluates and writes.

Examples are split by workbook as `fortap.tasks.formula_prediction.split` describes; with
`data.corpus` set, the corpus's own `split.json` decides each workbook's side. Each side may be
capped per workbook (`data.train_per_book`, `evaluation.dev_per_book`,
`evaluation.test_per_book`: spread evenly within the workbook) and in total (`data.max_train`,
`evaluation.max_test`: spread evenly over the side); `data.train=low_resource` then trains on
the paper's 20 % of the training side, drawn with the run's seed. The run config
is `FormulaRunConfig` (`config.py`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from rich.console import Console

from fortap.corpus.split import one_copy_per_book
from fortap.encoding.example import Example
from fortap.errors import FortapError
from fortap.table.model import Table
from fortap.tasks.formula_prediction.compare import compare
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.examples import (
    SETTING_OF_MODE,
    low_resource,
    parse_tables,
    train_subset,
)
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.tasks.formula_prediction.report import (
    CurvePoint,
    best_system,
    comparison_rich,
    write_report,
)
from fortap.tasks.formula_prediction.split import (
    corpus_sides,
    read_tables,
    split_for_run,
    spread,
    spread_per_book,
)
from fortap.tasks.recipe import start_encoder as start_recipe_encoder
from fortap.tasks.run_config import config_dict


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
    bottom layers given no gradient (the loop's optimiser leaves them out)."""
    encoder = start_recipe_encoder(cfg.encoder, cfg.training, vocab_size)
    layers = encoder.encoder.layer  # (the stack of transformer layers, bottom first)
    frozen = len(layers) if cfg.encoder.freeze == -1 else min(cfg.encoder.freeze, len(layers))
    for layer in layers[:frozen]:
        layer.requires_grad_(False)
    return encoder


def finetune_once(
    train: list[Example], dev: list[Example], cfg: FormulaRunConfig, loaded: Loaded,
    out_dir: Path, dist=None, stop_at: int | None = None,
):  # fmt: skip
    """One fine-tuning run in `out_dir`: (model, the loop's `TrainResult`); `loaded` gives the
    vocabulary size and, for the dev baselines, the tables and their parsed formulas."""
    from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction

    encoder = start_encoder(cfg, loaded.tokenizer.vocab_size)
    return finetune_formula_prediction(
        train, dev, encoder, cfg, out_dir, dist, stop_at,
        tables=loaded.tables, formulas=loaded.formulas, tokenizer=loaded.tokenizer,
    )  # fmt: skip


def run_finetune(
    paths: Sequence[str | Path],
    out: str | Path,
    cfg: FormulaRunConfig | None = None,
    console: Console | None = None,
    stop_at: int | None = None,
) -> FormulaRun | None:
    """Fine-tune and evaluate (see module doc); the model is saved in `out/model/`. `stop_at`
    ends the training at that update as a kill would (checkpoint kept, nothing evaluated);
    returns None then, and on the ranks other than 0 under torchrun."""
    import torch

    from fortap.tasks.formula_prediction.checkpoint import save_formula_model
    from fortap.training.distributed import init_from_env, shutdown

    torch.set_flush_denormal(True)
    cfg, console, out = cfg or FormulaRunConfig(), console or Console(), Path(out)
    dist = init_from_env()
    try:
        loaded = load_split(paths, cfg)
        tables, split, note = loaded.tables, loaded.split, loaded.note
        if dist.is_main:
            console.print(f"formula examples { {k: len(v) for k, v in split.items()} }; {note}")
        train, dev, test = split["train"], split["dev"], split["test"]
        model, result = finetune_once(train, dev, cfg, loaded, out / "training", dist, stop_at)
        if result.step < cfg.training.steps:
            return None  # stopped early: the checkpoint is there to resume from
        formulas = loaded.formulas
        systems, records = (
            compare(model, test, cfg, tables, formulas, train) if dist.is_main else ({}, [])
        )
        curve = [CurvePoint(1.0, len(train), systems.get("model", {}).get("formula_top1", 0))]
        for share in sorted(cfg.evaluation.curve):
            part = low_resource(train, random.Random(cfg.training.seed), share)
            small, _ = finetune_once(part, dev, cfg, loaded, out / f"training-{share:g}", dist)
            if dist.is_main:
                top1 = compare(small, test, cfg, tables, formulas)[0]["model"]["formula_top1"]
                curve.append(CurvePoint(share, len(part), top1))
        if not dist.is_main:
            return None
        save_formula_model(model, out / "model", cfg.examples().serialize)
        run = FormulaRun(model, tables, split, systems, records, [note], formulas)
        write_outputs(out, run, cfg, sorted(curve, key=lambda p: p.share), console)
        return run
    finally:
        shutdown(dist)


def run_evaluate(
    paths: Sequence[str | Path],
    out: str | Path,
    cfg: FormulaRunConfig | None = None,
    console: Console | None = None,
) -> FormulaRun:
    """Evaluate the model saved in `cfg.evaluation.model` on the test split of `paths` (same
    split rule and seed as `run_finetune`), beside the rule baseline."""
    import torch

    from fortap.tasks.formula_prediction.checkpoint import load_formula_model, load_inputs

    cfg = cfg or FormulaRunConfig()
    if not cfg.evaluation.model:
        raise FortapError("evaluate formula-prediction needs a model folder (--model OUT/model)")
    torch.set_flush_denormal(True)
    console = console or Console()
    model = load_formula_model(cfg.evaluation.model)
    cfg = with_model_inputs(cfg, load_inputs(cfg.evaluation.model))
    loaded = load_split(paths, cfg)
    tables, split = loaded.tables, loaded.split
    systems, records = compare(model, split["test"], cfg, tables, loaded.formulas, split["train"])
    run = FormulaRun(model, tables, split, systems, records, [loaded.note], loaded.formulas)
    write_outputs(Path(out), run, cfg, [], console)
    return run


def with_model_inputs(cfg: FormulaRunConfig, inputs) -> FormulaRunConfig:
    """`cfg` with the examples a saved model was trained on (its model.json inputs: sequence length
    and the setting, paper or sheet), so that it is evaluated on the inputs it knows; `cfg`
    as it is for a folder saved without them."""
    if inputs is None:
        return cfg
    setting = SETTING_OF_MODE.get(inputs.formula_mode, "paper")
    data = replace(cfg.data, setting=setting, max_seq_len=inputs.max_seq_len)
    return replace(cfg, data=data)


def write_outputs(
    out: Path, run: FormulaRun, cfg: FormulaRunConfig, curve: list[CurvePoint], console: Console
) -> None:
    """predictions.jsonl, metrics.json, report.md + plots; prints the comparison."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "predictions.jsonl", "w", encoding="utf-8") as fh:
        for record in run.records:
            fh.write(json.dumps(record) + "\n")
    best = best_system(run.systems)
    steps, beam = cfg.training.steps, cfg.decoding.beam
    notes = [*run.notes, f"encoder: {cfg.encoder.name}; {steps} updates; beam {beam}"]
    notes.append(f"best formula top-1: {best}")
    for name, by_metric in run.systems.get("model", {}).get("gaps", {}).items():
        for metric, modes in by_metric.items():
            for mode, gap in modes.items():
                how = "pooled" if mode == "pooled" else "per-workbook mean"
                notes.append(
                    f"{metric.replace('_top', ' top-')}, model - {name} ({how}): "
                    f"{gap['gap']:+.3f} (95 % interval over {gap['books']:.0f} workbooks: "
                    f"[{gap['low']:+.3f}, {gap['high']:+.3f}])"
                )
    payload = {
        "systems": run.systems,
        "split": {k: len(v) for k, v in run.split.items()},
        "curve": [asdict(p) for p in curve],
        "config": config_dict(cfg),
        "notes": notes,
    }
    (out / "metrics.json").write_text(json.dumps(payload, indent=1) + "\n")
    write_report(out, run.systems, curve, notes)
    console.print(comparison_rich(run.systems, "formula prediction (test split)"))
    console.print(f"best formula top-1: {best}; report in {out / 'report.md'}")
    for note in notes:
        if ", model - " in note:
            console.print(f"   {note}", markup=False, highlight=False)
