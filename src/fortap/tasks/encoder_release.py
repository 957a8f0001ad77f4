"""Releasing a pretrained encoder: `fortap release PRETRAIN_RUN -o DEST --corpus CORPUS`.

A pretraining run (`fortap pretrain --out RUN`) leaves its encoder in float32 (`RUN/encoder`), the
run's settings (`RUN/config.json`) and its logs (`RUN/metrics.jsonl`). The release folder, a
shipped `models/encoders/NAME` among them, holds:
- `config.json` + `model.safetensors`: the encoder in bfloat16. An encoder whose word table is
  still MiniLM's (pretrained with `optim.freeze_word_embeddings`) is stored without it, and
  loading rebuilds it (`ModelConfig.words_from`: `minilm`, or `minilm-bf16` when the run read
  MiniLM rounded to bf16), which halves a MiniLM-size folder;
- `pretraining_books.json`: the training-side workbooks of the corpus's split, relative to the
  repository, which the table-QA leak test reads (`tasks.table_qa.leak.encoder_books`);
- `README.md`: the card: size, start, objectives and their weights, updates and samples seen,
  each objective's dev accuracy at the end, the two commands that make the folder again, and the
  crc32 of every tensor as it loads (what `tests/model/test_shipped_encoders.py` checks).
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import torch

from fortap.errors import CheckpointError, FortapError
from fortap.model.encoder import FortapEncoder
from fortap.model.minilm_words import WORD_EMBEDDINGS, WORDS_FROM, minilm_words
from fortap.model.state_file import crc32
from fortap.tasks.model_folder import data_name, repository
from fortap.tasks.table_qa.leak import BOOKS_FILE, corpus_training_books
from fortap.training.run_config import load_config

PRESETS = ("tiny", "small")  # the card's command starts from the one needing fewest --set
SHORTHANDS = {"objectives.use": "--objectives", "training.steps": "--steps"}
UNSHOWN = ("training.progress",)  # how the run looked, not what it made
ACCURACY = {  # a last dev evaluation's metric -> the card's name for it
    "eval/acc/mlm": "MLM accuracy", "eval/acc/cell_cloze": "cell cloze accuracy",
    "eval/acc/table_context": "table context accuracy", "eval/f1/nrp": "NRP F1",
    "eval/acc/ncp": "NCP accuracy", "eval/acc/formula_mlm": "formula MLM accuracy",
}  # fmt: skip


def is_pretrain_run(run: Path) -> bool:
    """A `fortap pretrain` run folder (its encoder), not a fine-tuning run (its model)."""
    return (run / "encoder" / "config.json").is_file() and not (run / "model").is_dir()


def words_source(encoder: FortapEncoder) -> str:
    """Which MiniLM table the encoder's word table still equals (`WORDS_FROM`), or "" (stored)."""
    table = encoder.state_dict()[WORD_EMBEDDINGS].float()  # (V, D)
    for name in WORDS_FROM[1:]:
        try:
            if torch.equal(table, minilm_words(encoder.config, name)):
                return name
        except CheckpointError:  # another size than MiniLM's, or MiniLM not installed
            return ""
    return ""


def release_encoder(run: Path, dest: Path, corpus: Path) -> dict:
    """Write the release folder of the pretraining run `run` into `dest` (module doc)."""
    run, dest = Path(run), Path(dest)
    if not is_pretrain_run(run):
        raise FortapError(f"{run}: not a finished `fortap pretrain` run (no encoder/config.json)")
    info = json.loads((run / "config.json").read_text())
    encoder = FortapEncoder.from_pretrained(run / "encoder")
    words = words_source(encoder)
    encoder.save_pretrained(dest, dtype=torch.bfloat16, words_from=words)
    root = repository() or Path.cwd()
    books = sorted(
        os.path.relpath(b, root) for b in corpus_training_books(corpus / "split.json", root)
    )
    (dest / BOOKS_FILE).write_text(json.dumps(books, indent=0) + "\n")
    released = FortapEncoder.from_pretrained(dest)  # loads, or names what does not fit
    command = shlex.join(["fortap", "release", "RUN", "-o", data_name(dest), "--corpus", "CORPUS"])
    card = card_text(dest.name, info, read_log(run), released, words, len(books),
                     pretrain_command(info), command)  # fmt: skip
    (dest / "README.md").write_text(card)
    return {"words_from": words or "stored", "books": len(books), "folder": str(dest)}


def read_log(run: Path) -> list[dict]:
    log = run / "metrics.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []


def pretrain_command(info: dict) -> str:
    """The `fortap pretrain` command that makes the run's config again: the preset among
    `PRESETS` that needs the fewest overrides, then a `--set` for each key that differs."""
    found = {p: _differences(info["config"], load_config(p).to_dict(), "") for p in PRESETS}
    preset = min(PRESETS, key=lambda p: len(found[p]))
    words = ["fortap", "pretrain", "--corpus", "CORPUS", "--out", "RUN", "--config", preset,
             "--init", info.get("init", "random")]  # fmt: skip
    for key, value in found[preset]:
        if key in SHORTHANDS:
            words += [SHORTHANDS[key], ",".join(value) if isinstance(value, list) else str(value)]
        elif key not in UNSHOWN:
            text = value if isinstance(value, str) else json.dumps(value)
            words += ["--set", f"{key}={text}"]
    return shlex.join(words)


def _differences(have: dict, default: dict, prefix: str) -> list[tuple[str, object]]:
    """(dotted key, value) of every leaf of `have` that differs from `default`."""
    out = []
    for key, value in have.items():
        if isinstance(value, dict) and isinstance(default.get(key), dict):
            out += _differences(value, default[key], f"{prefix}{key}.")
        elif value != default.get(key):
            out.append((f"{prefix}{key}", value))
    return out


def card_text(name: str, info: dict, log: list[dict], encoder: FortapEncoder, words: str,
              books: int, pretrain: str, release: str) -> str:  # fmt: skip
    """The folder's README.md (module doc)."""
    config, c = info["config"], encoder.config
    objectives = config["objectives"]
    weights = ", ".join(f"{k} (weight {objectives[k]['weight']:g})" for k in objectives["use"])
    evals = [r for r in log if any(k.startswith("eval/") for k in r)]
    last = evals[-1] if evals else {}
    rates = [r["samples_per_s"] for r in log if "samples_per_s" in r]
    params = sum(t.numel() for t in encoder.state_dict().values())
    start = "MiniLM" if info.get("init") == "minilm" else "a random start"
    store = (f"the word table stayed MiniLM's, so it is not stored: `config.json` says "
             f'`"words_from": "{words}"` and loading rebuilds it from the installed MiniLM'
             if words else "every tensor is stored")  # fmt: skip
    seen = (f"{last['step']:,} updates × {config['training']['batch_size']} = "
            f"{last.get('examples', 0):,} samples" if last else "no dev evaluation logged")  # fmt: skip
    if rates:
        seen += f" (last logged rate {rates[-1]:.0f} samples a second)"
    dev = [f"- {label}: {last[key]:.3f}" for key, label in ACCURACY.items() if key in last]
    sums = [f"{n} {crc32(t):08x}" for n, t in encoder.state_dict().items()]
    return "\n".join([
        f"# {name}", "",
        f"A table encoder ({c.layers} layers, hidden {c.hidden}; {params / 1e6:.1f} M parameters) "
        f"pretrained from {start} with the objectives {weights}.", "",
        f"- **Samples seen**: {seen}.",
        f"- **Data**: the training split of the corpus; its {books} workbooks are listed in "
        f"`{BOOKS_FILE}` (read by the table-QA leak test).",
        f"- **Storage**: bfloat16; {store}.", "",
        "Dev accuracy of each objective at the end:", "", *(dev or ["- none logged"]), "",
        "Made by:", "", f"    {pretrain}", f"    {release}", "",
        "The crc32 of every tensor as it loads (float32):", "", "```", *sums, "```", "",
    ])  # fmt: skip
