"""`fortap check-model` on an encoder folder (`models/encoders/NAME`, `fortap release` of a
pretraining run): the encoder is rebuilt as fine-tuning loads it (MiniLM's word table from the
installed package where the folder leaves it out), and every tensor's crc32 is compared with the
list its card gives.

A released encoder keeps neither its objectives' heads nor a dev sample, so its card's dev
accuracies cannot be re-scored from the folder; the check says so, and reads the weights
exactly instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from fortap.errors import CheckpointError
from fortap.tasks.model_folder import CARD, CheckReport

SUMS = re.compile(r"^(\S+) ([0-9a-f]{8})$", flags=re.M)


def is_encoder_folder(folder: Path) -> bool:
    """An encoder folder: config.json and model.safetensors, and no model.json."""
    return (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()


def card_sums(folder: Path) -> dict[str, str]:
    """Tensor name -> crc32 (8 hex digits), as the folder's card lists them."""
    card = folder / CARD
    if not card.is_file():
        raise CheckpointError(f"{folder}: no {CARD}, so nothing to check the weights against; "
                              "`fortap release` writes one with every tensor's crc32")  # fmt: skip
    sums = dict(SUMS.findall(card.read_text(encoding="utf-8")))
    if not sums:
        raise CheckpointError(f"{card}: lists no tensor checksum (`name 0123abcd` lines)")
    return sums


def check_encoder(folder: Path) -> CheckReport:
    """Every tensor of the rebuilt encoder against its card's crc32 (module doc)."""
    from fortap.model.encoder import FortapEncoder
    from fortap.model.state_file import crc32

    sums = card_sums(folder)
    state = FortapEncoder.from_pretrained(folder).state_dict()
    same = sum(f"{crc32(t):08x}" == sums.get(name) for name, t in state.items())
    missing = sorted(set(sums) - set(state))
    target = {"name": f"tensors whose crc32 is the card's ({len(state)} loaded, "
                      f"{len(missing)} of the card's absent)",
              "value": float(same), "target": float(len(sums)),
              "met": same == len(sums) == len(state)}  # fmt: skip
    what = ("the weights, tensor by tensor, against the card's crc32; the card's dev accuracies "
            "need the objectives' heads, which a released encoder does not keep")
    return CheckReport([], extra_targets=[target], what=what)
