"""`fortap finetune table-qa HITAB -o OUT` and `fortap evaluate table-qa HITAB -o OUT --model M`.

`run_finetune` is the one fine-tuning run (`fortap.tasks.run.run`) with table QA's part
(`finetune.TableQAFinetune`): the training and dev questions, an encoder (MiniLM by default)
with the two heads trained through the shared loop in `OUT/training/` (checkpoints every
`training.save_every` updates; a rerun resumes there; dev checks keep the state with the best
dev execution accuracy), the model saved in `OUT/model/` and evaluated on `evaluation.splits`
beside the two baselines. `run_evaluate` does the evaluation alone for a saved model. Both
write `OUT/metrics.json`, `OUT/predictions.jsonl` and `OUT/report.md`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
from rich.console import Console

from fortap.errors import FortapError
from fortap.tasks import model_folder
from fortap.tasks.run import run
from fortap.tasks.run_config import config_dict
from fortap.tasks.table_qa.answerer import TableAnswerer
from fortap.tasks.table_qa.checkpoint import TASK, load_qa_model
from fortap.tasks.table_qa.config import QAEvaluation, QARunConfig
from fortap.tasks.table_qa.evaluate import evaluate_splits, model_rows, write_outputs
from fortap.tasks.table_qa.finetune import TableQAFinetune, hitab_of
from fortap.tasks.table_qa.operations import OPS
from fortap.tasks.table_qa.questions import QuestionBuilder, spread
from fortap.text.tokenizer import Tokenizer


def run_finetune(paths, out, cfg: QARunConfig | None = None, console: Console | None = None,
                 stop_at: int | None = None) -> dict | None:  # fmt: skip
    """Fine-tune, save and evaluate (module doc); None when stopped before the last update."""
    return run(TableQAFinetune(cfg or QARunConfig()), paths, out, console, stop_at)


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
    was, found = {DECODED: dev["accuracy"]}, {DECODED: now["accuracy"]}
    if "rerank" in stored:  # the answers `fortap ask` gives: the reranked programs
        was[RERANKED] = stored["rerank"]["dev"]
        found[RERANKED] = reranked_accuracy(TableAnswerer.load(folder), dev_items(folder, data))
    return model_folder.CheckReport.of(was, found, list(was))


DECODED, RERANKED = "dev execution accuracy", "dev execution accuracy, reranked"


def dev_items(folder: Path, data, most: int = 0) -> list:
    """The dev questions (`most` of them spread over the file; 0: all) as the folder reads them."""
    inputs = model_folder.read_meta(folder, TASK, tuple(OPS)).inputs
    hitab = hitab_of(data)
    return QuestionBuilder(hitab, Tokenizer(), inputs).build(spread(hitab.samples("dev"), most),
                                                             "dev").items  # fmt: skip


def reranked_accuracy(answerer, items) -> float:
    """The execution accuracy of a `TableAnswerer`'s reranked answers on `items`."""
    from fortap.tasks.table_qa.rerank import collect
    from fortap.tasks.table_qa.tune import cache_scores, chosen

    scores = cache_scores(answerer.model, items, None)
    right, _ = chosen(answerer.reranker, *collect(items, scores, answerer.model.decoding))
    return sum(right) / max(len(right), 1)


CHECK_SAMPLE = 400  # dev questions the quick check re-scores, spread over the file (`spread`)


def check_sample(folder: Path, tables: Sequence[str | Path] = ()) -> tuple[str, dict[str, float]]:
    """`fortap check-model`'s quick check: the execution accuracy on `CHECK_SAMPLE` dev
    questions spread over the file (no baselines, no other split)."""
    torch.set_flush_denormal(True)
    stored = model_folder.read_metrics(folder)
    data = list(tables) or [model_folder.data_path(stored["data"])]
    answerer = TableAnswerer.load(folder)  # the model once, its reranker where it has one
    items = dev_items(folder, data, CHECK_SAMPLE)
    rows = model_rows(answerer.model, items)
    what = f"{len(items)} dev questions spread over the file"
    found = {DECODED: sum(r.right for r in rows) / max(len(rows), 1)}
    if answerer.reranker is not None:
        found[RERANKED] = reranked_accuracy(answerer, items)
    return what, found


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
