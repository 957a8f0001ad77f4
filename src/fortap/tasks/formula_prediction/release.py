"""Releasing a fine-tuned formula-prediction model, and checking a released one.

A release folder holds the model (`FormulaPredictor.save` with its weights in bfloat16:
`encoder/`, `head.safetensors`, `model.json`: the layout of `tasks.model_folder`), the corpus
split it was tested on (`split.json`, so the folder alone says which workbooks are test), the run's
evaluation settings (`release.json`: `settings_of`, the split caps, beam and seed that decide
its test metrics) and the metrics of its stored weights (`metrics.json`, as `fortap evaluate
formula-prediction` writes it).

`release(run, dest, corpus, tables)` writes such a folder from a finished run
(`RUN_OUT/model`) and evaluates it from the stored weights, so the numbers a release reports
are the stored weights' own; its reference is the run's float32 model (`RUN_OUT/metrics.json`).
`check(dest, tables)` evaluates a release again (e.g. in a fresh clone) against its own
`metrics.json`. Both return a `ReleaseReport`: per metric the reference, the stored weights'
value and their difference (`rows`), and the share of the top-5 candidates on the test split
that parse and print back (`printable`). A release reproduces when every metric is within
`TOLERANCE` of its reference and every candidate parses and prints.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from rich.console import Console

from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.printer import to_text
from fortap.tasks.formula_prediction.checkpoint import TASK
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPData, FPEvaluation
from fortap.tasks.formula_prediction.decoding import DecodeConfig
from fortap.tasks.formula_prediction.predictor import FormulaPredictor
from fortap.tasks.formula_prediction.run import run_evaluate
from fortap.tasks.model_folder import ENCODER_KIND, CheckReport, data_path, metrics_record

METRICS = ("formula_top1", "formula_top5", "sketch_top1", "sketch_top5", "range_acc")
COMPARED = (*METRICS, "formula_top1_per_workbook")  # what a check compares with its reference
TOLERANCE = 0.005  # 0.5 points
RELEASE, METRICS_FILE, SPLIT = "release.json", "metrics.json", "split.json"


@dataclass
class ReleaseReport:
    """A release's stored weights evaluated, beside the metrics they are compared with."""

    reference: dict  # metrics.json of the run (release) or of the release itself (check)
    stored: dict  # metrics.json of the stored weights, evaluated now
    records: list[dict]  # their prediction records on the test split

    def rows(self) -> list[dict]:
        """{"metric", "reference", "stored", "diff"} of each `COMPARED` metric of the model."""
        out = []
        for name in COMPARED:
            a = self.reference["systems"]["model"][name]
            b = self.stored["systems"]["model"][name]
            out.append({"metric": name, "reference": a, "stored": b, "diff": b - a})
        return out

    def printable(self, k: int = 5) -> dict:
        """How many of the top-k candidates parse (`parse_formula`) and print back (`to_text`),
        with up to five that do not."""
        total = ok = 0
        failed = []
        for record in self.records:
            for cand in record["candidates"][:k]:
                total += 1
                try:
                    to_text(parse_formula(cand["formula"]).ast)
                    ok += 1
                except (FortapError, ValueError) as err:
                    failed.append(f"{cand['formula']}: {err}")
        return {"candidates": total, "parse_and_print": ok, "share": ok / max(1, total),
                "examples": failed[:5]}  # fmt: skip


def settings_of(run_config: dict) -> dict:
    """The parts of a run's config that decide its test metrics (split caps, prior, beam)."""
    data, ev, dec = run_config["data"], run_config["evaluation"], run_config["decoding"]
    return {
        "data": {"train_per_book": data["train_per_book"], "max_train": data["max_train"]},
        "evaluation": {"test_per_book": ev["test_per_book"], "max_test": ev["max_test"]},
        "decoding": {"beam": dec["beam"], "top_k": dec["top_k"]},
        "seed": run_config["training"]["seed"],
    }


def release(run: Path, dest: Path, corpus: Path, tables: str | Path | None) -> ReleaseReport:
    """Write the release folder `dest` of the finished run `run` (module doc), evaluate it from
    its stored weights (on `tables`, or the split's data folders ingested) and write their
    metrics; the run's float32 metrics are the reference."""
    for needed in (run / METRICS_FILE, run / "model", corpus / SPLIT):
        if not needed.exists():
            raise FortapError(f"release: {needed} is missing (give a finished fine-tuning run "
                              "and the corpus it used)")  # fmt: skip
    reference = json.loads((run / METRICS_FILE).read_text())
    dest.mkdir(parents=True, exist_ok=True)
    FormulaPredictor.load(run / "model").save(dest, dtype=torch.bfloat16)
    shutil.copyfile(corpus / SPLIT, dest / SPLIT)
    (dest / RELEASE).write_text(json.dumps(settings_of(reference["config"]), indent=1) + "\n")
    with tempfile.TemporaryDirectory() as tmp:
        found = str(tables) if tables else str(ingest_split_books(dest, Path(tmp)))
        stored, records = evaluate_release(dest, found)
    (dest / METRICS_FILE).write_text(json.dumps(folder_metrics(dest, stored), indent=1) + "\n")
    return ReleaseReport(reference, stored, records)


HEADLINE = ("formula_top1", "formula_top5", "sketch_top1")  # a release's headline numbers


def folder_metrics(dest: Path, stored: dict) -> dict:
    """The release's metrics.json in the one schema (`model_folder.metrics_record`): the data
    folder its split.json's workbooks share (a split without their paths names none), the test
    side scored, the model's headline numbers,
    then the evaluation's own record (its example counts as `examples`)."""
    import os

    books = json.loads((dest / SPLIT).read_text()).get("canonical", {}).values()
    roots = [str(Path(*Path(p).parts[:3])) for p in books]
    data = os.path.commonpath(roots) if roots else "the tables it was evaluated on"
    model = stored["systems"]["model"]
    detail = {("examples" if k == "split" else k): v for k, v in stored.items()}
    return metrics_record(TASK, ENCODER_KIND, data, f"the test workbooks of {SPLIT} "
                          f"({model['n']} targets)", {k: model[k] for k in HEADLINE}, detail)  # fmt: skip


def check(dest: Path, tables: str) -> ReleaseReport:
    """The release `dest` evaluated again, against its own metrics.json."""
    reference = json.loads((dest / METRICS_FILE).read_text())
    stored, records = evaluate_release(dest, tables)
    return ReleaseReport(reference, stored, records)


def evaluate_release(dest: Path, tables: str) -> tuple[dict, list[dict]]:
    """metrics.json and the prediction records of `dest` evaluated from its stored weights, as
    `fortap evaluate formula-prediction` does (setting and sequence length from model.json)."""
    s = json.loads((dest / RELEASE).read_text())
    cfg = FormulaRunConfig(
        data=FPData(corpus=str(dest), **s["data"]),
        evaluation=FPEvaluation(model=str(dest), **s["evaluation"]),
        decoding=DecodeConfig(**s["decoding"]),
    )
    with tempfile.TemporaryDirectory() as out:
        run = run_evaluate([tables], out, cfg, Console(quiet=True))
        return json.loads((Path(out) / METRICS_FILE).read_text()), run.records


def check_folder(dest: Path, tables: Sequence[str | Path] = ()) -> CheckReport:
    """`fortap check-model` for a released folder: `check` on `tables`, or on the data folders
    its split.json names (ingested into a temporary folder: minutes on 2 cores)."""
    dest = Path(dest)
    if not (dest / RELEASE).is_file():
        raise FortapError(f"{dest}: not a released formula-prediction folder (no {RELEASE}); "
                          "`fortap release RUN -o DEST` makes one from a fine-tuning run")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        found = str(tables[0]) if tables else str(ingest_split_books(dest, Path(tmp)))
        report = check(dest, found)
    rows = [{"metric": r["metric"], "stored": r["reference"], "now": r["stored"],
             "diff": r["diff"]} for r in report.rows()]  # fmt: skip
    parsed = report.printable()
    printable = {"name": "top-5 candidates that parse and print", "value": parsed["share"],
                 "target": 1.0, "met": parsed["share"] == 1.0}  # fmt: skip
    return CheckReport(rows, [printable])


def ingest_split_books(dest: Path, tmp: Path) -> Path:
    """The data folders `dest`'s split.json names (found from the repository), ingested whole:
    the test side is read beside the workbooks it must not share tables with, as at release."""
    import os

    from fortap.ingest import run_ingest

    split = json.loads((dest / SPLIT).read_text())
    roots = sorted({data_path(str(Path(*Path(p).parts[:4]))) for p in split["canonical"].values()})
    missing = [str(r) for r in roots if not r.is_dir()]
    if missing:
        raise FortapError(f"{dest}: its data folder {missing[0]} is missing; give --tables "
                          "(the tables of `fortap ingest ../shared/data`)")  # fmt: skip
    run_ingest(roots, tmp / "tables", workers=min(2, os.cpu_count() or 1), progress=False)
    return tmp / "tables"
