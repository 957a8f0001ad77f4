"""The seeds comparison on the CPU at the tiny size: TUTA and ForTaP pretrained from a random
start, three seeds each, at one budget of updates, then each fine-tuned on cell types (5 SAUS
folds) and table QA beside the random tiny encoder; resumably, in the background.

    nice -n 10 .venv/bin/python bench/cpu_seeds.py [--corpus C] [--work runs/cpu-seeds]
        [--steps 16000] [--seeds 3] [--parallel 2] [--json PATH]

The recipe is the tiny-1h one (`models/encoders/README.md`): `--config tiny`, 16 samples an
update, ≤ 128 tokens, MLM weight 0.3, ForTaP's NRP and NCP at weight 4 on samples built around a
formula. The budget is a count of updates, the same for every run (16,000 × 16 samples, about
30 minutes of one idle core for a ForTaP run), not minutes: on shared cores a clock budget
would give each run what its neighbours left it, and a stopped run would not resume on the
same schedule. Each run uses one torch thread; the two recipes of a seed pretrain side by side.
A fine-tune starts when its encoder lands, at each task's default budget and `--encoder-lr
1e-3` for every encoder (the tiny encoders, pretrained or random, learn at the head's rate).

The layout is what `bench/pretrain_seeds.py WORK` reads: `pretrain/ENCODER`,
`cell_types/ENCODER/fold-K`, `table_qa/ENCODER`, ENCODER being `random` or `RECIPE-sSEED`. A
job whose output is complete is skipped; any other is started again and resumes from its own
checkpoints (pretraining saves every 500 updates, the fine-tunes as their tasks do), so
killing this script and starting it again loses little. `--json` writes each job's state.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from helpers.pair_common import PRETRAIN
from helpers.paths import DATA, REPO, RUNS

FOLDS = (0, 1, 2, 3, 4)
TUNE = ["--encoder-lr", "1e-3", "--threads", "1", "--no-progress"]


def pretrain_job(work: Path, corpus: Path, recipe: str, seed: int, steps: int) -> tuple:
    name = f"{recipe}-s{seed}"
    out = work / "pretrain" / name
    argv = ["pretrain", "--config", "tiny", "--corpus", str(corpus), "--out", str(out),
            *PRETRAIN[recipe], "--steps", str(steps), "--threads", "1", "--no-progress",
            "--set", "objectives.mlm.weight=0.3", "--set", "serialize.max_seq_len=128",
            "--set", "data.max_tokens=128", "--set", "training.batch_size=16",
            "--set", f"training.seed={seed}", "--set", "training.save_every=500",
            "--set", "training.eval_every=4000", "--set", "training.log_every=200"]  # fmt: skip
    return f"pretrain/{name}", argv, out / "encoder" / "config.json"


def tune_jobs(work: Path, encoder: str) -> list[tuple]:
    """(name, argv, done-marker) of an encoder's fine-tunes: 5 cell-type folds, then QA."""
    if encoder == "random":
        start = ["--encoder", "random"]
    else:
        start = ["--encoder", encoder.split("-s")[0], "--checkpoint",
                 str(work / "pretrain" / encoder / "encoder")]  # fmt: skip
    jobs = []
    for k in FOLDS:
        out = work / "cell_types" / encoder / f"fold-{k}"
        jobs.append((f"cell_types/{encoder}/fold-{k}", ["finetune", "cell-types",
                     str(DATA / "saus_ctc"), "-o", str(out), *start, "--set", f"data.fold={k}",
                     *TUNE], out / "metrics.json"))  # fmt: skip
    out = work / "table_qa" / encoder
    jobs.append((f"table_qa/{encoder}", ["finetune", "table-qa", str(DATA / "hitab"), "-o",
                 str(out), *start, *TUNE], out / "metrics.json"))  # fmt: skip
    return jobs


def plan(work: Path, corpus: Path, steps: int, seeds: int) -> list[tuple]:
    """Every job, seed-major: a seed's two pretraining runs, then their fine-tunes (and the
    random encoder's after seed 0's), so the first complete pair of seeds comes early."""
    jobs: list[tuple] = []
    for seed in range(seeds):
        jobs += [pretrain_job(work, corpus, recipe, seed, steps) for recipe in PRETRAIN]
        for recipe in PRETRAIN:
            jobs += tune_jobs(work, f"{recipe}-s{seed}")
        if seed == 0:
            jobs += tune_jobs(work, "random")
    return jobs


def needs(name: str) -> str | None:
    """The pretraining job a fine-tune waits for."""
    encoder = name.split("/")[1]
    return None if encoder == "random" else f"pretrain/{encoder}"


def run(
    work: Path, jobs: list[tuple], parallel: int, command: list[str] | None = None, poll: float = 5
) -> dict:
    """Run the jobs (`command` + each job's argv; default the checkout's `fortap`), at most
    `parallel` at a time, each in plan order once what it needs has finished; {job: state}. A
    failed job's dependants are not started."""
    command = command or [str(REPO / ".venv/bin/fortap")]
    state = {name: "finished before" for name, _, marker in jobs if marker.is_file()}
    queue = [job for job in jobs if job[0] not in state]
    going: dict[str, tuple[subprocess.Popen, float]] = {}
    logs = work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    while queue or going:
        for job in list(queue):
            if len(going) >= parallel:
                break
            need = needs(job[0]) if not job[0].startswith("pretrain/") else None
            if need is not None and state.get(need) not in ("finished before", "ran now"):
                if state.get(need) == "failed":
                    queue.remove(job)
                    state[job[0]] = "skipped: its encoder failed"
                continue
            queue.remove(job)
            with open(logs / f"{job[0].replace('/', '__')}.txt", "a") as log:
                proc = subprocess.Popen([*command, *job[1]], cwd=REPO,
                                        stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
            going[job[0]] = (proc, time.monotonic())
            print(f"[{time.strftime('%H:%M:%S')}] start {job[0]}", flush=True)
        time.sleep(poll)
        for name, (proc, since) in list(going.items()):
            if proc.poll() is None:
                continue
            del going[name]
            state[name] = "failed" if proc.returncode else "ran now"
            print(f"[{time.strftime('%H:%M:%S')}] end {name}: exit {proc.returncode} after "
                  f"{time.monotonic() - since:.0f} s", flush=True)  # fmt: skip
    return state


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=RUNS / "table_qa" / "clean" / "corpus")
    ap.add_argument("--work", type=Path, default=RUNS / "cpu-seeds")
    ap.add_argument("--steps", type=int, default=16000, help="pretraining updates per run")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--parallel", type=int, default=2, help="jobs at a time (one thread each)")
    ap.add_argument("--json", type=Path, help="write each job's state and the count finished")
    args = ap.parse_args(argv)
    jobs = plan(args.work, args.corpus, args.steps, args.seeds)
    state = run(args.work, jobs, args.parallel)
    if args.json is not None:
        done = sum(s in ("finished before", "ran now") for s in state.values())
        rows = [{"job": name, "state": state.get(name, "not run")} for name, _, _ in jobs]
        goal = {"name": "jobs finished", "value": done, "target": len(jobs),
                "met": done == len(jobs)}  # fmt: skip
        args.json.write_text(json.dumps({"results": rows, "targets": [goal]}, indent=1) + "\n")
    return int(any(s == "failed" for s in state.values()))


if __name__ == "__main__":
    sys.exit(main())
