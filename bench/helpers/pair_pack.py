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

from helpers.pair_common import PRETRAIN, WORDS
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
