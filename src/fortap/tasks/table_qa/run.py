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

import json
import random
from collections.abc import Sequence
from pathlib import Path

import torch
from rich.console import Console

from fortap.errors import FortapError
from fortap.model.config import ModelConfig
from fortap.model.pretrained import baseline_encoder
from fortap.tasks.run_config import config_dict
from fortap.tasks.table_qa.checkpoint import load_qa_model, save_qa_model
from fortap.tasks.table_qa.config import DEV_ACCURACY, QARunConfig
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


def start_encoder(cfg: QARunConfig, vocab_size: int):
    torch.manual_seed(cfg.training.seed)
    tiny = ModelConfig.tiny(vocab_size=vocab_size, hidden_dropout=0.0)
    try:
        config = tiny if cfg.encoder.name == "random" else None
        return baseline_encoder(cfg.encoder.name, cfg.encoder.checkpoint or None, config)
    except ValueError as err:
        raise FortapError(str(err)) from None


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
    model = TableQAModel(start_encoder(cfg, tokenizer.vocab_size))
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
    return systems


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


def read_metrics(out: str | Path) -> dict:
    return json.loads((Path(out) / "metrics.json").read_text())
