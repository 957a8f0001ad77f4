"""Fine-tune every encoder on every fold of SAUS cell types, one run at a time, resumably.

    nice -n 10 .venv/bin/python bench/cell_types_runs.py [--out runs/cell_types]
        [--encoders minilm,fortap-tiny,tuta-tiny,random] [--folds 0,1,2,3,4] [--json PATH]

Each run is `fortap finetune cell-types ../shared/data/saus_ctc -o OUT/ENCODER/fold-K` at one
torch thread with the task's default budget (`CTTraining.steps`), or with `--steps N` another
budget in `OUT/ENCODER-sN/fold-K` (`--encoder-lr R`: another encoder rate, in
`OUT/ENCODER-elrR`). A run whose folder holds `metrics.json` is finished and skipped; any other is started again and resumes from its last
checkpoint (`OUT/ENCODER/fold-K/training/checkpoints`), so killing this script and starting it
again loses at most `training.save_every` updates. A finished run's training checkpoints are
deleted (its `model/` stays). `bench/cell_types.py` collects the finished runs; `--json` writes
each planned run's state (finished before, ran now, failed) and the count of finished runs.

The tiny random encoder trains all its weights at the head's rate (--encoder-lr 1e-3), since it
has nothing pretrained to keep; every other encoder keeps the task's default rates.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "saus_ctc"
ENCODERS = {  # the runs' names -> fortap finetune's encoder flags
    "minilm": ["--encoder", "minilm"],
    "fortap-tiny": [
        "--encoder",
        "fortap",
        "--checkpoint",
        str(REPO / "models/encoders/fortap-tiny-1h"),
    ],
    "tuta-tiny": ["--encoder", "tuta", "--checkpoint", str(REPO / "models/encoders/tuta-tiny-1h")],
    "random": ["--encoder", "random", "--encoder-lr", "1e-3"],
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "runs" / "cell_types")  # git-ignored
    ap.add_argument("--encoders", default=",".join(ENCODERS))
    ap.add_argument("--folds", default="0,1,2,3,4")
    ap.add_argument("--after", type=Path, help="first wait until this file exists (a run going)")
    ap.add_argument("--steps", type=int, help="another budget: runs go to OUT/ENCODER-sSTEPS")
    ap.add_argument("--encoder-lr", help="another encoder rate: runs go to OUT/ENCODER-elrRATE")
    ap.add_argument("--json", type=Path, help="write {results, targets} here")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    code = run_all(args, rows)
    if args.json is not None:
        done = sum(r["state"] != "failed" for r in rows)
        planned = len(args.encoders.split(",")) * len(args.folds.split(","))
        goal = {"name": "runs finished", "value": done, "target": planned, "met": done == planned}
        args.json.write_text(json.dumps({"results": rows, "targets": [goal]}, indent=1) + "\n")
    return code


def run_all(args: argparse.Namespace, rows: list[dict]) -> int:
    """Each planned run in turn (module doc), appending its state to `rows`; the first failing
    run's exit code stops it."""
    while args.after is not None and not args.after.is_file():
        time.sleep(30)
    for name in args.encoders.split(","):
        for fold in (int(k) for k in args.folds.split(",")):
            tag = name + (f"-s{args.steps}" if args.steps else "")
            tag += f"-elr{args.encoder_lr}" if args.encoder_lr else ""
            run = args.out / tag / f"fold-{fold}"
            budget = ["--steps", str(args.steps)] if args.steps else []
            budget += ["--encoder-lr", args.encoder_lr] if args.encoder_lr else []
            if (run / "metrics.json").is_file():
                shutil.rmtree(run / "training" / "checkpoints", ignore_errors=True)
                rows.append({"run": tag, "fold": fold, "state": "finished before", "seconds": 0})
                continue
            command = [str(REPO / ".venv/bin/fortap"), "finetune", "cell-types", str(DATA),
                       "-o", str(run), *ENCODERS[name], *budget, "--set", f"data.fold={fold}",
                       "--threads", "1", "--no-progress"]  # fmt: skip
            print(
                f"[{time.strftime('%H:%M:%S')}] {name} fold {fold}: {' '.join(command)}", flush=True
            )
            started = time.perf_counter()
            done = subprocess.run(command, cwd=REPO)
            print(f"[{time.strftime('%H:%M:%S')}] {tag} fold {fold}: exit {done.returncode} "
                  f"after {time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
            seconds = round(time.perf_counter() - started)
            state = "failed" if done.returncode else "ran now"
            rows.append({"run": tag, "fold": fold, "state": state, "seconds": seconds})
            if done.returncode:
                return done.returncode
            shutil.rmtree(run / "training" / "checkpoints", ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
