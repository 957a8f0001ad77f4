"""Encode every labelled SAUS sheet with a frozen encoder once, and cache the cell states.

    path = encode(ENCODER, FOLDER, SAUS)     # FOLDER/ENCODER.npz, made when missing or stale

ENCODER is a starting encoder of `fortap finetune cell-types --encoder` (`random`, `minilm`, or
a shipped folder of `models/encoders`, e.g. `fortap-small`), built as that command builds it
(`tasks.recipe.start_encoder`, seed 0, one thread). The states of each sheet's labelled cells
(`tasks.cell_types.states`) go to `FOLDER/ENCODER.npz` (`bench/cell_types.py --hybrid`:
`runs/cell_types/states/`), with the seconds the encoding took and the encoder's fingerprint
beside it (`ENCODER.json`); an encoder already cached with the same fingerprint is skipped (a
shipped folder whose weights changed is encoded again).
"""

from __future__ import annotations

import json
import time
from pathlib import Path


def states_path(encoder: str, folder: Path) -> Path:
    return folder / f"{encoder}.npz"


def fingerprint(encoder_name: str) -> str:
    """The sha256 of a shipped encoder folder's weights; the name itself for `random` and
    `minilm` (built the same way every time)."""
    from fortap.sheet.convert import content_key
    from fortap.tasks.recipe import SHIPPED_ENCODERS

    weights = SHIPPED_ENCODERS / encoder_name / "model.safetensors"
    return content_key(weights) if weights.is_file() else encoder_name


def cached(encoder_name: str, folder: Path) -> bool:
    """Whether the cached states were made from the encoder as it is now."""
    note = states_path(encoder_name, folder).with_suffix(".json")
    if not states_path(encoder_name, folder).is_file() or not note.is_file():
        return False
    return json.loads(note.read_text()).get("fingerprint") == fingerprint(encoder_name)


def encode(encoder_name: str, folder: Path, saus: Path, batch_size: int = 8) -> Path:
    """Cache `encoder_name`'s states of every labelled SAUS sheet of `saus` (module doc)."""
    import torch

    from fortap.tasks.cell_types.config import CTData, CTTraining
    from fortap.tasks.cell_types.saus import read_saus
    from fortap.tasks.cell_types.states import save_states, sheet_states
    from fortap.tasks.recipe import EncoderStart, start_encoder
    from fortap.text.tokenizer import Tokenizer

    path = states_path(encoder_name, folder)
    if cached(encoder_name, folder):
        return path
    torch.set_num_threads(1)
    torch.set_flush_denormal(True)
    tokenizer, cfg = Tokenizer(), CTData().serialize()
    encoder = start_encoder(EncoderStart(encoder_name), CTTraining(threads=1), tokenizer.vocab_size)
    sheets = read_saus(saus)
    started, states = time.perf_counter(), {}
    for i, sheet in enumerate(sheets):
        states[sheet.key] = sheet_states(encoder, sheet, tokenizer, cfg, batch_size)
        if i % 20 == 0:
            print(f"{encoder_name}: {i + 1}/{len(sheets)} sheets, "
                  f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
    seconds = time.perf_counter() - started
    save_states(path, states, encoder_name)
    cells = sum(len(s) for s in states.values())
    note = {"encoder": encoder_name, "seconds": seconds, "sheets": len(sheets), "cells": cells,
            "hidden": int(encoder.config.hidden), "threads": 1,
            "fingerprint": fingerprint(encoder_name)}  # fmt: skip
    path.with_suffix(".json").write_text(json.dumps(note, indent=1) + "\n")
    print(f"{encoder_name}: {len(sheets)} sheets, {cells} cells in {seconds:.0f} s -> {path}")
    return path
