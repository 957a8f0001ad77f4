"""The demo's formula steps (4-7): corpus, tiny pretraining, fine-tuning + evaluation, and the
top-5 suggestions for one held-out formula cell treated as empty.

Each step prints one line (or table) with the time it took and returns what the next needs.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from fortap.demo.explain import paper_setting_verdict
from fortap.tasks.formula_prediction.config import (
    FormulaRunConfig,
    FPEncoder,
    FPEvaluation,
    FPTraining,
)
from fortap.tasks.formula_prediction.report import TERMS
from fortap.tasks.formula_prediction.run import FormulaRun, run_finetune


def step_corpus(tables: Path, out: Path, console: Console) -> Path:
    """Step 4: the pretraining corpus of the sample tables."""
    from fortap.corpus.build import run_build_corpus

    t0 = time.perf_counter()
    stats = run_build_corpus([tables], out, progress=False)
    console.print(
        f"[bold]4. corpus[/bold]: {stats.get('tables', 0)} tables, "
        f"{stats.get('formula_samples', 0)} formula samples -> {out} "
        f"in {time.perf_counter() - t0:.1f}s"
    )
    return out


def step_pretrain(corpus: Path, out: Path, steps: int, console: Console) -> Path:
    """Step 5: a tiny encoder pretrained for `steps` updates; returns its `encoder/` folder."""
    from fortap.training.pretrain import PretrainRequest, run_pretrain

    t0 = time.perf_counter()
    console.print(f"[bold]5. pretrain[/bold]: tiny encoder, {steps} updates on {corpus}")
    request = PretrainRequest(
        out, corpus=corpus, steps=steps, overrides=("training.batch_size=4",), progress=False
    )
    result = run_pretrain(request)
    loss = result.history[-1].get("loss") if result.history else None
    shown = f"{loss:.3f}" if isinstance(loss, float) else "-"
    console.print(f"   last logged loss {shown}; {time.perf_counter() - t0:.1f}s")
    return out / "encoder"


def step_finetune(
    tables: Path, encoder: Path, out: Path, steps: int, max_test: int, console: Console
) -> FormulaRun:
    """Step 6: fine-tune formula prediction from the pretrained encoder; evaluate beside the rules."""
    t0 = time.perf_counter()
    console.print(f"[bold]6. formula prediction[/bold]: fine-tune {steps} updates, evaluate")
    cfg = FormulaRunConfig(
        encoder=FPEncoder("fortap", str(encoder)),
        training=FPTraining(steps=steps, dev_checks=2, progress=False),
        evaluation=FPEvaluation(max_test=max_test),
    )
    run = run_finetune([tables], out, cfg, console)
    assert run is not None  # one process, never stopped early
    for line in TERMS:  # what `sketch` and `range acc` in the table above mean
        console.print(f"   {line}", markup=False, highlight=False)
    top1 = {name: m["formula_top1"] for name, m in run.systems.items()}
    console.print(f"   {paper_setting_verdict(top1)}", markup=False, highlight=False)
    console.print(f"   {time.perf_counter() - t0:.1f}s")
    return run


def step_suggest(run: FormulaRun, console: Console) -> tuple[str, str, str]:
    """Step 7: one held-out formula cell treated as empty: the model's top-5, the rules' top-1.
    Returns that cell's (book path, sheet, A1 cell)."""
    from fortap.tasks.formula_prediction.evaluate import evaluate_formula_prediction
    from fortap.tasks.formula_prediction.rule_baseline import suggest

    t0 = time.perf_counter()
    example = pick_example(run)
    meta = example.meta
    table = next(
        t for t in run.tables
        if (t.book, t.sheet, t.region.a1) == (meta["book"], meta["sheet"], meta["region"])
    )  # fmt: skip
    rc = (meta["target"][0] - table.region.top, meta["target"][1] - table.region.left)
    record = evaluate_formula_prediction(run.model, [example], beam=5, top_k=5)[1][0]
    # a line, not the table's title: a title folds at the table's width
    where = f"{Path(meta['book']).name} {meta['sheet']}!{record['cell']}"
    console.print(
        f"[bold]7. suggestions[/bold] for {escape(where)} (true formula {escape(meta['formula'])})"
    )
    view = RichTable()
    for name in ("rank", "model", "score", "rules (sheet)", "rules (paper)"):
        view.add_column(name)
    cells = run.formulas.get((table.book, table.sheet, table.region.a1))
    sheet = [s.text for s in suggest(table, rc, "sheet", formulas=cells)]
    paper = [s.text for s in suggest(table, rc, "paper", formulas=cells)]
    for k in range(5):
        cand = record["candidates"][k] if k < len(record["candidates"]) else None
        view.add_row(
            str(k + 1),
            cand["formula"] if cand else "-",
            f"{cand['score']:.2f}" if cand else "",
            sheet[k] if k < len(sheet) else "-",
            paper[k] if k < len(paper) else "-",
        )
    console.print(view)
    console.print(f"   {time.perf_counter() - t0:.1f}s")
    return meta["book"], meta["sheet"], record["cell"]


def step_engine(book: str, sheet: str, cell: str, console: Console) -> None:
    """Step 8: the same cell through `fortap suggest` (the shipped ranker, no training)."""
    from fortap.suggest.cli import suggestion_table
    from fortap.suggest.engine import Suggester

    t0 = time.perf_counter()
    console.print(
        f"[bold]8. fortap suggest[/bold] {escape(Path(book).name)} '{escape(sheet)}'!{cell}"
    )
    found = Suggester.open(Path(book)).suggest(sheet, cell, k=5)
    console.print(suggestion_table(found, f"{sheet}!{cell}"))
    console.print(
        f"   {time.perf_counter() - t0:.1f}s (workbook read, candidates, ranker, previews)"
    )


def pick_example(run: FormulaRun):
    """The first test example whose references are all in the model's input (else the first)."""
    test = run.split["test"]
    return next((ex for ex in test if all(p != -1 for p in _pointers(ex))), test[0])


def _pointers(example) -> list[int]:
    from fortap.tasks.formula_prediction.examples import FP_KEY

    return example.targets[FP_KEY]["pointers"]
