"""Scoring systems on HiTab files: the model, the overlap rule and the majority operation.

`evaluate_splits` answers every question of each file in `evaluation.splits` with each
system (`system_rows`), scores them (`scoring.score`) and keeps one record per question and
system (with `gold_shown`: whether the question's gold cells survived the input's cut, the
ceiling, None where its target could not be verified); `write_outputs` writes `metrics.json`, `predictions.jsonl` and `report.md` and prints
the comparison.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.tasks.table_qa.baselines import MajorityOp, overlap_rule
from fortap.tasks.table_qa.matching import answers_match
from fortap.tasks.table_qa.operations import Execution
from fortap.tasks.table_qa.predict import predict
from fortap.tasks.table_qa.questions import Item, QuestionBuilder
from fortap.tasks.table_qa.scoring import Scored, score

Answerer = Callable[[Item], tuple[Execution | None, str]]  # item -> (execution, op)


def scored(item: Item, run: Execution | None, op: str = "") -> Scored:
    predicted = run.answer if run is not None else ()
    return Scored(
        id=item.sample.id, table_id=item.sample.table_id, question=item.sample.question,
        gold_op=item.target.op or "other", gold=item.sample.answer, predicted=predicted,
        right=bool(predicted) and answers_match(predicted, item.sample.answer),
        shown=item.example.meta.get("gold_shown"), how=f"{op}: {run.show()}" if run else op,
    )  # fmt: skip


def model_rows(model, items: Sequence[Item], batch_size: int = 16) -> list[Scored]:
    found = predict(model, [i.example for i in items], [i.paths for i in items], batch_size)
    return [scored(item, p.run, p.op) for item, p in zip(items, found, strict=True)]


def system_rows(items: Sequence[Item], answer: Answerer) -> list[Scored]:
    rows = []
    for item in items:
        run, op = answer(item)
        rows.append(scored(item, run, op))
    return rows


def baselines(train_items: Sequence[Item]) -> dict[str, Answerer]:
    """The two baselines; the majority operation learns its table from `train_items`."""
    majority = MajorityOp((i.sample.question, i.target.op) for i in train_items if i.target.op)

    def overlap(item: Item):
        return overlap_rule(item.paths, item.sample.question), "none"

    def by_majority(item: Item):
        op, run = majority.answer(item.paths, item.sample.question)
        return run, op

    return {"overlap rule": overlap, "majority op": by_majority}


def split_items(hitab, builder: QuestionBuilder, splits: Sequence[str]) -> dict[str, list[Item]]:
    """The questions of each HiTab file in `splits`, built for the model."""
    return {split: builder.build(hitab.samples(split), split).items for split in splits}


def predict_splits(model, items: dict[str, list[Item]], batch_size: int) -> dict[str, list]:
    """The model's answer to every question of each split (`model_rows`)."""
    return {split: model_rows(model, found, batch_size) for split, found in items.items()}


def score_splits(model: dict[str, list], items: dict[str, list[Item]],
                 train_items: Sequence[Item]) -> tuple[dict, list]:  # fmt: skip
    """{split: {system: score}} of the model's rows (`predict_splits`; {} for none) beside the
    baselines', and the per-question records of every system."""
    systems: dict[str, dict] = {}
    records: list[dict] = []
    answerers = baselines(train_items)
    for split, found_items in items.items():
        rows = {"model": model[split]} if split in model else {}
        rows |= {name: system_rows(found_items, answer) for name, answer in answerers.items()}
        systems[split] = {name: score(found) for name, found in rows.items()}
        for name, found in rows.items():
            records += [{"split": split, "system": name, "id": r.id, "right": r.right,
                         "predicted": list(r.predicted), "how": r.how, "gold_shown": r.shown}
                        for r in found]  # fmt: skip
    return systems, records


def evaluate_splits(model, hitab, builder: QuestionBuilder, cfg, train_items) -> tuple[dict, list]:
    """{split: {system: score}} and the per-question records of every system."""
    items = split_items(hitab, builder, cfg.evaluation.splits)
    rows = predict_splits(model, items, cfg.evaluation.batch_size) if model else {}
    return score_splits(rows, items, train_items)


def write_outputs(out: Path, systems: dict, records: list, config: dict, console: Console) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "predictions.jsonl", "w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record) + "\n")
    (out / "metrics.json").write_text(
        json.dumps({"systems": systems, "config": config}, indent=1) + "\n"
    )
    show_outputs(out, systems, console)


def show_outputs(out: Path, systems: dict, console: Console) -> None:
    """report.md, and the comparison printed."""
    (out / "report.md").write_text(report(systems))
    console.print(comparison(systems))


def comparison(systems: dict) -> RichTable:
    table = RichTable(title="table QA: execution accuracy (95 % interval over tables)")
    for column in ("split", "system", "accuracy", "interval", "questions", "gold cells shown"):
        table.add_column(column)
    for split, by_system in systems.items():
        for name, s in by_system.items():
            shown = f"{s['gold_shown']:.3f}" if s["gold_shown"] is not None else "-"
            table.add_row(split, name, f"{s['accuracy']:.3f}", f"[{s['low']:.3f}, {s['high']:.3f}]",
                          str(s["n"]), shown)  # fmt: skip
    return table


def report(systems: dict) -> str:
    lines = ["# Table QA on HiTab", "", "| split | system | accuracy | 95 % interval | questions |",
             "|---|---|---|---|---|"]  # fmt: skip
    for split, by_system in systems.items():
        for name, s in by_system.items():
            interval = f"[{s['low']:.3f}, {s['high']:.3f}]"
            lines.append(f"| {split} | {name} | {s['accuracy']:.3f} | {interval} | {s['n']} |")
    for split, by_system in systems.items():
        for name, s in by_system.items():
            lines += [
                "",
                f"## {split}, {name}",
                "",
                "| gold operation | accuracy | n |",
                "|---|---|---|",
            ]
            lines += [f"| {op} | {v['accuracy']:.3f} | {v['n']} |" for op, v in s["by_op"].items()]
            lines += ["", "| answer type | accuracy | n |", "|---|---|---|"]
            lines += [f"| {t} | {v['accuracy']:.3f} | {v['n']} |" for t, v in s["by_type"].items()]
            lines += ["", "Sampled errors:", ""]
            lines += [
                f"- {e['question']} gold {e['gold']}, got {e['predicted']} ({e['how']})"
                for e in s["errors"]
            ]
    return "\n".join(lines) + "\n"
