"""`fortap finetune table-qa HITAB -o OUT` and `fortap evaluate table-qa HITAB -o OUT --model M`.

`run_finetune` builds the training questions (HiTab's processed train file) and the dev
questions, fine-tunes an encoder (`model.pretrained.baseline_encoder`) with the two heads
through `training.loop.train` in `OUT/training/` (checkpoints every `training.save_every`
updates; a rerun resumes there; dev checks keep the state with the best dev execution
accuracy), saves the model in `OUT/model/` and evaluates it (`evaluate_splits`) on
`evaluation.splits` beside the two baselines. `run_evaluate` does the evaluation alone for a
saved model. Both write `OUT/metrics.json`, `OUT/predictions.jsonl` and `OUT/report.md`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import torch
from rich.console import Console

from fortap.errors import FortapError
from fortap.tasks import model_folder
from fortap.tasks.recipe import start_encoder
from fortap.tasks.run_config import config_dict, finetune_command
from fortap.tasks.table_qa.checkpoint import load_qa_model, save_qa_model
from fortap.tasks.table_qa.config import DEV_ACCURACY, QAEvaluation, QARunConfig
from fortap.tasks.table_qa.evaluate import evaluate_splits, model_rows, write_outputs
from fortap.tasks.table_qa.inputs import qa_batch
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.questions import QuestionBuilder, spread
from fortap.tasks.table_qa.samples import HitabSet
from fortap.tasks.table_qa.scoring import score
from fortap.text.tokenizer import Tokenizer
from fortap.training.loop import train
from fortap.training.shuffled import ShuffledBatches


def hitab_of(paths: Sequence[str | Path]) -> HitabSet:
    if len(paths) != 1:
        raise FortapError("table-qa takes one HiTab folder (e.g. ../shared/data/hitab)")
    return HitabSet(paths[0])


def run_finetune(paths, out, cfg: QARunConfig | None = None, console: Console | None = None,
                 stop_at: int | None = None) -> dict | None:  # fmt: skip
    """Fine-tune, save and evaluate (module doc); None when stopped before the last update."""
    torch.set_flush_denormal(True)
    cfg, console, out = cfg or QARunConfig(), console or Console(), Path(out)
    hitab, tokenizer = hitab_of(paths), Tokenizer()
    builder = QuestionBuilder(hitab, tokenizer, cfg.data.serialize())
    train_items = builder.build(spread(hitab.samples("train"), cfg.data.max_train), "train").items
    usable = [i.example for i in train_items if i.example.targets["table_qa"]["op"] >= 0]
    dev_items = builder.build(spread(hitab.samples("dev"), cfg.evaluation.max_dev), "dev").items
    console.print(f"table-qa: {len(usable)} of {len(train_items)} training questions with a "
                  f"target; {len(dev_items)} dev questions for the checks")  # fmt: skip
    rng = random.Random(cfg.training.seed)
    model = TableQAModel(start_encoder(cfg.encoder, cfg.training, tokenizer.vocab_size))
    data = ShuffledBatches(usable, qa_batch, cfg.training.batch_size, rng)

    def dev_check(net, step: int) -> dict[str, float]:
        rows = model_rows(net, dev_items, cfg.evaluation.batch_size)
        net.train()
        return {DEV_ACCURACY: score(rows)["accuracy"]}

    loop = cfg.training.loop()
    result = train(model, data, loop, cfg.optim.optimizer(), out / "training", (),
                   stop_at=stop_at, on_eval=dev_check if dev_items else None)  # fmt: skip
    if result.step < cfg.training.steps:
        console.print(f"stopped at update {result.step}; rerun the same command to resume")
        return None
    save_qa_model(model, out / "model", cfg.data.serialize())
    systems, records = evaluate_splits(model.eval(), hitab, builder, cfg, train_items)
    write_outputs(out, systems, records, config_dict(cfg), console)
    write_model_metrics(out / "model", paths[0], systems, cfg)
    return systems


def write_model_metrics(folder: Path, data, systems: dict, cfg: QARunConfig) -> None:
    """The model folder's metrics.json (the model's scores, and the data they were measured on)
    and its card."""
    name = model_folder.data_name(data)
    mine = {split: by_system["model"] for split, by_system in systems.items()}
    model_folder.write_metrics(folder, {"data": name, "systems": {"model": mine}})
    lines = [f"- {split}: execution accuracy {s['accuracy']:.3f} [{s['low']:.3f}, "
             f"{s['high']:.3f}], {s['n']} questions" for split, s in mine.items()]  # fmt: skip
    model_folder.write_card(
        folder,
        "Table QA on HiTab",
        name,
        finetune_command("table-qa", name, cfg),
        ["Metrics:", "", *lines],
    )


def check_folder(folder: Path, tables: Sequence[str | Path] = ()) -> model_folder.CheckReport:
    """`fortap check-model` for a table-QA folder: its dev accuracy re-scored (on the HiTab
    folder its metrics name, or `tables`)."""
    import tempfile

    stored = model_folder.read_metrics(folder)
    dev = stored.get("systems", {}).get("model", {}).get("dev")
    if dev is None:
        raise FortapError(f"{folder}: its metrics.json has no dev accuracy to check against")
    data = list(tables) or [model_folder.data_path(stored["data"])]
    cfg = QARunConfig(evaluation=QAEvaluation(model=str(folder), splits=("dev",)))
    with tempfile.TemporaryDirectory() as out:
        now = run_evaluate(data, out, cfg, Console(quiet=True))["dev"]["model"]
    name = "dev execution accuracy"
    return model_folder.CheckReport.of({name: dev["accuracy"]}, {name: now["accuracy"]},
                                       [name])  # fmt: skip


def run_evaluate(
    paths, out, cfg: QARunConfig | None = None, console: Console | None = None
) -> dict:
    """Evaluate the model in `evaluation.model` (module doc)."""
    torch.set_flush_denormal(True)
    cfg, console = cfg or QARunConfig(), console or Console()
    if not cfg.evaluation.model:
        raise FortapError("evaluate table-qa needs a model folder (--model OUT/model)")
    model, inputs = load_qa_model(cfg.evaluation.model)
    hitab, tokenizer = hitab_of(paths), Tokenizer()
    builder = QuestionBuilder(hitab, tokenizer, inputs)
    train_items = builder.build(hitab.samples("train"), "train").items
    systems, records = evaluate_splits(model, hitab, builder, cfg, train_items)
    write_outputs(Path(out), systems, records, config_dict(cfg), console)
    return systems
