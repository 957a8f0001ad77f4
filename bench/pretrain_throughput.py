"""Pretraining throughput at the GPU pair's recipe: the data pipeline alone (the parent
commit's and today's), the model step alone, and the whole run, per core and per device.

    .venv/bin/python bench/pretrain_throughput.py --corpus CORPUS [--base OLD_SRC]
        [--batches 60] [--rounds 2] [--workers 2] [--steps 3] [--device-rows] [--json PATH]

The recipe is the ForTaP run of the GPU seeds comparison (`docs/pretraining-pair.md`): `--config
small` (MiniLM size), ForTaP's objectives (NRP and NCP weight 4, formula samples only), MLM weight
0.3, 32 samples an update.
Rows (samples a second):
* **pipeline, old / new**: batches of `setup_pretrain(...).stream`, nothing else, in a fresh
  process on one thread; the old code is `--base` (a checkout of the parent commit's `src`) on
  `PYTHONPATH`. Each process first takes one epoch of batches (shown as "first epoch": the new
  pipeline derives each sample's static facts on its first visit), then `--batches` more
  (steady). Old and new alternate for `--rounds` rounds on the same corpus; the best round of
  each counts. Per core = samples over the process's CPU seconds (what one core makes, however
  loaded the machine is); wall = over elapsed seconds. Their ratio is acceptance target 1 (≥ 5).
* **pipeline, N workers**: the new stream built by `data.workers` = 1 and `--workers`
  processes (alternated for `--rounds` rounds, the best of each), taken by the main process;
  samples over elapsed seconds, whose ratio N / 1 is target 2 (≥ 1.7 for 2 workers); beside
  it, samples over the workers' CPU seconds and how many cores the workers kept busy (from
  /proc), with the load average: a machine busy with other work gives them less than their
  cores, and the CPU rate shows whether a worker did its share of the work in what it got.
* **step alone**: `fortap.training.loop.train` on one fixed batch (built once by the pipeline,
  so the step's input has the recipe's shape), timed from the second update to the last; on one
  thread (per core) and on every core or the GPU (per device).
* **whole run**: `train` on the pipeline with `--workers` workers, the same way.

On a GPU (`torch.cuda.is_available()`) the per-device rows run there (bf16 autocast), and the
step is also timed at `--large-batch`: its FLOP/s (counted by `torch.utils.flop_counter` on one
forward and backward) over the card's dense bf16 peak, and target 3: the whole run reaches
≥ 70 % of the step alone. `--device-rows` keeps only those (on a lease, where the per-core
rows measured here would spend its minutes). `--json` writes `{"results": rows, "targets": [...]}`.
"""

from __future__ import annotations

import torch

torch.set_flush_denormal(True)  # before the first parallel op (cpu_stack note §4.6)

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from helpers.paths import REPO  # noqa: E402

BATCH = 32
FORTAP = [  # ForTaP's objectives and their settings (the tiny-1h recipe's, models/encoders)
    "objectives.use=mlm,cell_cloze,table_context,nrp,ncp,formula_mlm", "objectives.nrp.weight=4",
    "objectives.ncp.weight=4", "data.formula_samples_only=true",
]  # fmt: skip
RECIPE = [  # the GPU pair's pretraining overrides that shape the examples and the step
    "objectives.mlm.weight=0.3", f"training.batch_size={BATCH}", "training.grad_accum=1",
    "optim.freeze_word_embeddings=true", "training.progress=false",
]  # fmt: skip
PEAK_BF16 = {"H100": 989e12, "H200": 989e12, "A100": 312e12, "L4": 121e12}  # dense, FLOP/s

# Runs in a fresh process with one thread, on whichever `fortap` is on PYTHONPATH (the old code
# knows nothing of workers, so `data.workers` is only set for the new one). With `stages`, a
# last pass times each part of the work on the CPU clock: decoding the shards (once, at setup),
# each objective's target builder (`build`, or the old `targets`), collation, and the rest.
PROBE = """
import json, math, os, sys, time
import torch
torch.set_flush_denormal(True)
torch.set_num_threads(1)
from fortap.corpus import build
from fortap.training.pretrain import setup_pretrain
from fortap.training.run_config import load_config
corpus, batches, items = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
overrides, stages = json.loads(sys.argv[4]), sys.argv[5] == "stages"
spent = {}
def timed(name, fn):
    def run(*args):
        began = time.process_time()
        out = fn(*args)
        spent[name] = spent.get(name, 0.0) + time.process_time() - began
        return out
    return run
decoded = [0]
def counted(read):
    def run(*args):
        rows = list(read(*args))
        decoded[0] += len(rows)
        return rows
    return run
for reader in ("read_corpus", "read_corpus_arrays"):
    if hasattr(build, reader):
        setattr(build, reader, timed("decode", counted(getattr(build, reader))))
setup = setup_pretrain(load_config("small", overrides), corpus, "random")
decode = spent.pop("decode", 0.0) / max(1, decoded[0])
def workers_cpu():
    import multiprocessing
    ticks = 0
    for child in multiprocessing.active_children():
        with open(f"/proc/{child.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime + stime
    return ticks / os.sysconf("SC_CLK_TCK")
def take(n):
    wall, cpu, workers = time.perf_counter(), time.process_time(), workers_cpu()
    for _ in range(n):
        setup.stream.next_batch()
    return (time.perf_counter() - wall, time.process_time() - cpu, workers_cpu() - workers)
load = os.getloadavg()[0]
first = take(math.ceil(items / 32))
steady = take(batches)
out = {"first_wall": first[0], "first_samples": math.ceil(items / 32) * 32, "wall": steady[0],
       "cpu": steady[1], "workers_cpu": steady[2], "samples": batches * 32,
       "load": [load, os.getloadavg()[0]]}
if stages:
    for o in setup.model.objectives:
        field = "build" if hasattr(o, "build") else "targets"
        object.__setattr__(o, field, timed(o.name, getattr(o, field)))
    setup.stream.collate = timed("collate", setup.stream.collate)
    spent.clear()
    total = take(batches)[1]
    per = {k: v / (batches * 32) for k, v in spent.items()}
    per["rest"] = total / (batches * 32) - sum(per.values())
    out["stages"] = {"decode (once)": decode, **per}
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a built corpus")
    parser.add_argument("--base", type=Path, default=REPO.parent / "base" / "src",
                        help="the parent commit's src folder (the old pipeline)")  # fmt: skip
    parser.add_argument("--batches", type=int, default=60, help="steady batches per probe")
    parser.add_argument("--rounds", type=int, default=2, help="old/new alternations")
    parser.add_argument("--workers", type=int, default=2, help="worker processes to compare")
    parser.add_argument("--steps", type=int, default=3,
                        help="timed updates per step row (on a GPU: some hundreds)")  # fmt: skip
    parser.add_argument("--large-batch", type=int, default=128, help="GPU: the larger batch")
    parser.add_argument("--pipeline-only", action="store_true", help="no step or whole-run rows")
    parser.add_argument("--device-rows", action="store_true",
                        help="only the GPU's rows: the step alone and the whole run (a lease)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="write rows and targets here")
    args = parser.parse_args()
    recipe = [*RECIPE, *_objective_overrides()]
    items = _train_items(args.corpus, recipe)
    rows: list[dict] = []
    old, new = [], []
    for _ in range(
        0 if args.device_rows else args.rounds
    ):  # alternated, so load changes hit both alike
        old.append(_probe(args.base, args.corpus, args.batches, items, recipe, stages=True))
        new.append(_probe(REPO / "src", args.corpus, args.batches, items, recipe, stages=True))
    if not args.device_rows:
        rows += _pipeline_rows("pipeline old (parent commit)", old)
        rows += _pipeline_rows("pipeline new", new)
    counts = [] if args.device_rows else sorted({1, args.workers})
    runs: dict[int, list[dict]] = {n: [] for n in counts}
    for _ in range(args.rounds):  # alternated, as above
        for n in counts:
            wanted = [*recipe, f"data.workers={n}"]
            runs[n].append(_probe(REPO / "src", args.corpus, args.batches, items, wanted))
    by_workers = {}
    for n in counts:
        best = max(runs[n], key=lambda r: r["samples"] / r["wall"])
        by_workers[n] = best["samples"] / best["wall"]
        row = _row(f"pipeline new, {n} worker(s)", "device", by_workers[n], n, load=best["load"],
                   cpu_rate=best["samples"] / best["workers_cpu"])  # fmt: skip
        row["cores_busy"] = round(best["workers_cpu"] / best["wall"], 2)  # the workers'
        rows.append(row)
    step_rate = whole_rate = 0.0
    flops: dict = {}
    if not args.pipeline_only:
        step_rows, step_rate, whole_rate, flops = _step_rows(args, recipe)
        rows += step_rows
    targets = _targets(rows, by_workers, args.workers, step_rate, whole_rate)
    _print(rows, targets, flops)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"results": rows, "targets": targets}, indent=1) + "\n")


def _objective_overrides() -> list[str]:
    """ForTaP's objectives and their settings as `--set` overrides (`FORTAP`)."""
    return list(FORTAP)


def _train_items(corpus: Path, recipe: list[str]) -> int:
    """How many train samples the recipe reads (one epoch of batches warms a probe)."""
    from fortap.training.distributed import Dist
    from fortap.training.pretrain_data import corpus_split
    from fortap.training.run_config import load_config

    train, _ = corpus_split(load_config("small", recipe), corpus, Dist())
    return len(train)


def _probe(
    src: Path, corpus: Path, batches: int, items: int, overrides: list[str], stages: bool = False
) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "OMP_NUM_THREADS": "1"}
    argv = [str(corpus), str(batches), str(items), json.dumps(overrides), "stages" * stages]
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"probe on {src} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _row(name: str, per: str, rate: float, cores: int, load=None, cpu_rate=None) -> dict:
    return {"name": name, "per": per, "samples_per_s": round(rate, 1), "cores": cores,
            "samples_per_s_per_core": round(rate / cores, 1),
            "samples_per_cpu_s": None if cpu_rate is None else round(cpu_rate, 1),
            "load": load}  # fmt: skip


def _pipeline_rows(name: str, runs: list[dict]) -> list[dict]:
    """The best steady round (by CPU time) and its first epoch."""
    best = max(runs, key=lambda r: r["samples"] / r["cpu"])
    first = max(r["first_samples"] / r["first_wall"] for r in runs)
    row = _row(name, "core", best["samples"] / best["wall"], 1, best["load"],
               best["samples"] / best["cpu"])  # fmt: skip
    row["stages_us_per_sample"] = {k: round(v * 1e6, 1) for k, v in best["stages"].items()}
    return [row, _row(f"{name}, first epoch", "core", first, 1)]


class _Timed:
    """A BatchSource that notes when each batch is taken (the loop calls it once per update)."""

    def __init__(self, source) -> None:
        self.source, self.times = source, []

    def next_batch(self):
        self.times.append(time.perf_counter())
        return self.source.next_batch()

    def state_dict(self):
        return self.source.state_dict()

    def load_state_dict(self, state) -> None:
        self.source.load_state_dict(state)

    def rate(self, batch: int) -> float:
        """Samples a second from the second update taken to the last (the first one warms up)."""
        return batch * (len(self.times) - 2) / (self.times[-1] - self.times[1])


class _Fixed:
    """The same batch for every update."""

    def __init__(self, batch) -> None:
        self.batch = batch

    def next_batch(self):
        return self.batch

    def state_dict(self):
        return {}

    def load_state_dict(self, state) -> None:
        pass


def _step_rows(args, recipe: list[str]) -> tuple[list[dict], float, float, dict]:
    """Step alone (one thread; every core or the GPU; a larger batch on a GPU) and the whole
    run with `args.workers` workers; returns (rows, step rate, whole-run rate, FLOP facts)."""
    from fortap.training.loop import train
    from fortap.training.pretrain import setup_pretrain
    from fortap.training.run_config import load_config

    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    cores = os.cpu_count() or 1
    rows, flops = [], {}
    cfg = load_config("small", [*recipe, f"training.steps={args.steps + 3}"])
    setup = setup_pretrain(cfg, args.corpus, "random")
    batch = setup.stream.next_batch()

    def step_rate(threads: int, on: str, fixed) -> float:
        torch.set_num_threads(threads)
        run_cfg = load_config("small", [*recipe, f"training.steps={args.steps + 3}",
                                        f"training.device={on}"])  # fmt: skip
        source = _Timed(_Fixed(fixed.to(on)))  # on the device already: the step alone
        with tempfile.TemporaryDirectory() as out:
            train(setup.model, source, run_cfg.training, run_cfg.optim, out, resume=False)
        return source.rate(fixed.token_ids.shape[0])

    if not args.device_rows:  # one thread makes a few samples a second: not on a lease
        rows.append(_row("step alone, one thread", "core", step_rate(1, "cpu", batch), 1))
    step = step_rate(cores, device, batch)
    rows.append(_row(f"step alone, {'GPU' if cuda else f'{cores} threads'}", "device", step,
                     1 if cuda else cores))  # fmt: skip
    if cuda:
        flops = _flop_rows(setup, batch, step, args, recipe, rows, step_rate)
    whole_cfg = load_config("small", [*recipe, f"training.steps={args.steps + 3}",
                                      f"data.workers={args.workers}",
                                      f"training.device={device}"])  # fmt: skip
    torch.set_num_threads(cores)
    whole = setup_pretrain(whole_cfg, args.corpus, "random")
    source = _Timed(whole.stream)
    with tempfile.TemporaryDirectory() as out:
        train(whole.model, source, whole_cfg.training, whole_cfg.optim, out, resume=False)
    whole.stream.close()
    rate = source.rate(BATCH)
    rows.append(_row(f"whole run, {args.workers} workers", "device", rate,
                     1 if cuda else cores, load=[os.getloadavg()[0]]))  # fmt: skip
    return rows, step, rate, flops


def _flop_rows(setup, batch, step: float, args, recipe, rows, step_rate) -> dict:
    """FLOP/s of the step over the card's peak, at the recipe's batch and `args.large_batch`
    (a batch of that size from the same pipeline)."""
    from torch.utils.flop_counter import FlopCounterMode

    from fortap.training.pretrain import setup_pretrain
    from fortap.training.run_config import load_config

    name = torch.cuda.get_device_name()
    peak = next((v for k, v in PEAK_BF16.items() if k in name), None)
    out = {"device": name, "peak": peak}
    bigger = load_config("small", [*recipe, f"training.batch_size={args.large_batch}"])
    large = setup_pretrain(bigger, args.corpus, "random").stream.next_batch()
    for label, fixed in (("recipe", batch), ("large", large)):
        rate = step if label == "recipe" else step_rate(os.cpu_count() or 1, "cuda", fixed)
        model = setup.model.to("cuda")
        counter = FlopCounterMode(display=False)
        with counter, torch.autocast("cuda", dtype=torch.bfloat16):
            loss, _ = model(fixed.to("cuda"))
            loss.backward()
        model.zero_grad(set_to_none=True)
        size = fixed.token_ids.shape[0]
        achieved = counter.get_total_flops() / size * rate
        out[label] = {"batch": size, "flop_per_s": achieved,
                      "of_peak": achieved / peak if peak else None}  # fmt: skip
        if label == "large":
            rows.append(_row(f"step alone, GPU, batch {size}", "device", rate, 1))
    return out


def _targets(rows, by_workers, workers, step_rate, whole_rate) -> list[dict]:
    rate = {r["name"]: r for r in rows}
    out = []
    if "pipeline new" in rate:
        old = rate["pipeline old (parent commit)"]["samples_per_cpu_s"]
        new = rate["pipeline new"]["samples_per_cpu_s"]
        out += [
            {"name": "pipeline new / old, samples per core-second", "value": round(new / old, 2),
             "target": 5.0, "met": new / old >= 5.0},
            {"name": f"pipeline {workers} workers / 1 worker", "value":
             round(by_workers[workers] / by_workers[1], 2), "target": 1.7,
             "met": by_workers[workers] / by_workers[1] >= 1.7},
        ]  # fmt: skip
    if torch.cuda.is_available() and step_rate:
        share = whole_rate / step_rate
        out.append({"name": "whole run / step alone (GPU)", "value": round(share, 2),
                    "target": 0.7, "met": share >= 0.7})  # fmt: skip
    return out


def _print(rows, targets, flops) -> None:
    from rich.table import Table

    from fortap.console import stdout_console

    table = Table(title=f"pretraining throughput, ForTaP recipe ({BATCH} samples an update)")
    columns = ("row", "per", "samples/s", "cores", "samples/s/core", "samples/CPU-s",
               "workers' cores busy", "load")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column in ("row", "per") else "right")
    for r in rows:
        load = "" if r["load"] is None else " → ".join(f"{x:.1f}" for x in r["load"])
        cpu = "" if r["samples_per_cpu_s"] is None else f"{r['samples_per_cpu_s']:,.0f}"
        busy = f"{r['cores_busy']:.2f}" if "cores_busy" in r else ""
        table.add_row(r["name"], r["per"], f"{r['samples_per_s']:,.1f}", str(r["cores"]),
                      f"{r['samples_per_s_per_core']:,.1f}", cpu, busy, load)  # fmt: skip
    console = stdout_console()
    console.print(table)
    staged = [r for r in rows if "stages_us_per_sample" in r]
    if len(staged) == 2:
        old, new = (r["stages_us_per_sample"] for r in staged)
        parts = Table(title="where one core's time goes, CPU µs a sample (decode: once a sample)")
        for column in ("stage", "old", "new", "old / new"):
            parts.add_column(column, justify="left" if column == "stage" else "right")
        for stage in dict.fromkeys([*old, *new]):
            a, b = old.get(stage, 0.0), new.get(stage, 0.0)
            parts.add_row(stage, f"{a:,.1f}", f"{b:,.1f}", f"{a / b:.1f}" if b > 0 else "")
        console.print(parts)
    for t in targets:
        console.print(f"{t['name']}: {t['value']} (target {t['target']}, "
                      f"{'met' if t['met'] else 'NOT met'})")  # fmt: skip
    if flops:
        for label in ("recipe", "large"):
            f = flops[label]
            share = "" if f["of_peak"] is None else f", {100 * f['of_peak']:.1f} % of peak"
            console.print(f"{flops['device']} step at batch {f['batch']}: "
                          f"{f['flop_per_s'] / 1e12:.1f} TFLOP/s{share}")  # fmt: skip


if __name__ == "__main__":
    main()
