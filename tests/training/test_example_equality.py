"""The pretraining stream makes the same examples as the per-cell target builders it replaced:
for a fixed seed, every example (inputs, targets, meta) of a corpus stream with ForTaP's and
with TUTA's objectives, of a table stream, and the evaluation examples are equal.

The golden fingerprints were written by the parent commit's code (a8be59e), whose builders
edited Python lists per cell:

    FORTAP_UPDATE_GOLDEN=1 PYTHONPATH=<that checkout>/src python -m pytest -p no:xdist \\
        tests/training/test_example_equality.py

Only what both versions have is used here (`setup_pretrain`, `ExampleStream.next_example`).
Two epochs of the corpus are drawn, so samples come back with what the array builders derived
from them on the first visit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from fortap.encoding.formula_targets import FormulaTargets
from fortap.training.run_config import load_config

GOLDEN = Path(__file__).parent / "golden" / "pretrain_examples.json"
FIELDS = ("token_ids", "numbers", "in_cell_pos", "rows", "cols", "top_coords", "left_coords",
          "formats", "cell_ids", "cell_coords", "targets", "meta")  # fmt: skip
FORTAP = ["objectives.use=mlm,cell_cloze,table_context,nrp,ncp,formula_mlm",
          "objectives.nrp.weight=4", "objectives.ncp.weight=4", "data.formula_samples_only=true"]  # fmt: skip
CORPUS = ["serialize.max_seq_len=224", "data.max_tokens=256", "data.eval_samples=24",
          "training.batch_size=4"]  # fmt: skip


def fingerprint(example) -> str:
    """sha256 of an example's every field as canonical JSON."""
    if not hasattr(example, "token_ids"):  # an `ExampleArrays`
        example = example.to_example()
    plain = lambda v: v.to_json() if isinstance(v, FormulaTargets) else v  # noqa: E731
    data = {name: getattr(example, name) for name in FIELDS}
    data["targets"] = {k: plain(v) for k, v in data["targets"].items()}
    # the book is a path on this machine; only its name is the same on every checkout
    data["meta"] = {**data["meta"], "book": Path(data["meta"]["book"]).name}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def drawn(setup, n: int) -> dict[str, list[str]]:
    return {"stream": [fingerprint(setup.stream.next_example()) for _ in range(n)],
            "eval": [fingerprint(e) for e in setup.eval_examples]}  # fmt: skip


@pytest.fixture(scope="module")
def got(tiny_corpus, hitab_files) -> dict:
    from fortap.table.io import read_tables
    from fortap.training.pretrain import setup_pretrain

    out = {}
    for name, objectives in (("corpus_fortap", FORTAP), ("corpus_tuta", [])):
        cfg = load_config("tiny", [*CORPUS, *objectives])
        out[name] = drawn(setup_pretrain(cfg, tiny_corpus, "random"), 192)
    cfg = load_config("tiny", ["data.eval_tables=2", "training.batch_size=4"])
    out["tables_tuta"] = drawn(setup_pretrain(cfg, read_tables(hitab_files)), 24)
    if os.environ.get("FORTAP_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out


@pytest.mark.parametrize("name", ["corpus_fortap", "corpus_tuta", "tables_tuta"])
def test_examples_equal_those_of_the_per_cell_builders(got, name):
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))[name]
    assert len(got[name]["stream"]) == len(want["stream"]) and want["eval"]
    for i, (a, b) in enumerate(zip(got[name]["stream"], want["stream"], strict=True)):
        assert a == b, f"{name}: stream example {i} differs"
    assert got[name]["eval"] == want["eval"]
