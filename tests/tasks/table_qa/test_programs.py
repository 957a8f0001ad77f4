"""Candidate programs over the tiny table (`programs.candidates`) and the reranker's parts
(`rerank`: fit, text model file round trip, isotonic calibration, ECE; `tune.choose_threshold`)."""

from __future__ import annotations

import gzip

import pytest

from fortap.tasks.table_qa.decoding import DecodeConfig, decode
from fortap.tasks.table_qa.programs import FEATURES, candidates
from fortap.tasks.table_qa.rerank import RerankConfig, Reranker, ece, fit_reranker, isotonic
from fortap.tasks.table_qa.tune import choose_threshold
from tests.tasks.table_qa.test_decoding import example, scores


def test_the_decoded_answer_comes_first_and_programs_cover_the_operations():
    ex, paths = example("difference between ontario and quebec in 2015?")
    s = scores("none", {(2, 1): 2.0, (3, 1): 1.5, (1, 1): 1.0})
    found = candidates(s, ex, paths, DecodeConfig())
    first = decode(s, ex, paths, DecodeConfig())
    assert (found[0].op, found[0].cells) == (first.op, first.cells)
    by = {(c.op, frozenset(c.cells)): c for c in found}
    diff = by[("diff", frozenset({(2, 1), (3, 1)}))]
    assert diff.run.answer == (10.0,) and diff.run.formula == "= ABS(B3 - B4)"
    assert by[("argmax", frozenset({(2, 1), (3, 1)}))].run.answer == ("ontario",)
    assert ("sum", frozenset({(2, 1), (3, 1)})) in by
    assert len(by) == len(found)  # no program twice
    assert all(len(c.features) == len(FEATURES) for c in found)
    assert {c.features[FEATURES.index("n_candidates")] for c in found} == {float(len(found))}
    f = dict(zip(FEATURES, diff.features, strict=True))
    assert f["cue_diff"] == 1.0 and f["cue_fits_op"] == 1.0 and f["cues_unmet"] == 0.0
    total = dict(zip(FEATURES, by[("sum", frozenset({(2, 1), (3, 1)}))].features, strict=True))
    assert total["cue_fits_op"] == 0.0 and total["cues_unmet"] == 1.0  # a difference was asked
    # each candidate against the question's best: a gap of 0 for the best, never below 0
    for name in ("cell_mean_gap", "overlap_gap", "op_prob_gap", "row_gap", "col_gap"):
        gaps = [c.features[FEATURES.index(name)] for c in found]
        assert min(gaps) >= 0.0 and (name in ("row_gap", "col_gap") or min(gaps) == 0.0)
    assert f["row_gap"] == 0.0  # ontario and quebec both named: their rows match best


def test_a_cell_on_another_line_is_no_pair():
    ex, paths = example("ratio")
    found = candidates(scores("none", {(2, 1): 2.0, (3, 2): 1.9}), ex, paths, DecodeConfig())
    assert not any(c.op == "diff" and set(c.cells) == {(2, 1), (3, 2)} for c in found)


def _fitted():
    groups, labels = [], []
    for q, right in (("difference between ontario and quebec in 2015?", "diff"),
                     ("how many in ontario in 2015?", "none")) * 20:  # fmt: skip
        ex, paths = example(q)
        cands = candidates(scores("none", {(2, 1): 2.0, (3, 1): 1.5}), ex, paths, DecodeConfig())
        groups.append(cands)
        labels.append([c.op == right and (2, 1) in c.cells and len(c.cells) == (2 if right == "diff" else 1)
                       for c in cands])  # fmt: skip
    return groups, labels


def test_the_reranker_learns_the_cue_and_round_trips_as_text(tmp_path):
    groups, labels = _fitted()
    reranker = fit_reranker(groups, labels, RerankConfig(rounds=30, leaves=4, min_child=1))
    assert reranker.ranked(groups[0])[0][0].op == "diff"
    assert reranker.ranked(groups[1])[0][0].op == "none"
    record = reranker.save(tmp_path)
    assert gzip.decompress((tmp_path / record["file"]).read_bytes()).startswith(b"tree")  # text
    back = Reranker.load(tmp_path, record)
    assert back.scores(groups[0]) == pytest.approx(reranker.scores(groups[0]))


def test_isotonic_calibration_is_monotone_and_ece_measures_the_gap():
    raw = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    right = [False, False, True, False, True, True, True, True]
    xs, ys = isotonic(raw, right)
    assert list(ys) == sorted(ys) and ys[0] == 0.0 and ys[-1] == 1.0
    assert ece([0.9] * 10, [True] * 9 + [False]) == pytest.approx(0.0)
    assert ece([1.0] * 4, [True, True, False, False]) == pytest.approx(0.5)


def test_threshold_is_the_lowest_keeping_the_wanted_accuracy():
    conf = [0.2, 0.4, 0.6, 0.8]
    assert choose_threshold(conf, [False, True, True, True], 0.75) == 0.2
    assert choose_threshold(conf, [False, False, True, True], 0.9) == 0.6
    assert choose_threshold(conf, [False] * 4, 0.5) == 1.0


def test_ask_with_a_reranker_gives_its_confidence_and_the_next_best(tmp_path):
    import json
    import shutil

    from typer.testing import CliRunner

    from fortap.cli import app
    from fortap.tasks.table_qa.answerer import TableAnswerer, write_rerank
    from fortap.tasks.table_qa.ask import SHIPPED
    from tests.tasks.table_qa.tiny import RAW

    folder = tmp_path / "model"
    shutil.copytree(SHIPPED, folder)
    groups, labels = _fitted()
    reranker = fit_reranker(groups, labels, RerankConfig(rounds=10, leaves=4, min_child=1))
    reranker.threshold = 1.01  # every answer uncertain
    write_rerank(folder, reranker)
    loaded = TableAnswerer.load(folder).reranker
    assert loaded.record() == json.loads((folder / "model.json").read_text())["head"]["rerank"]
    table = tmp_path / "tiny.json"
    table.write_text(json.dumps(RAW))
    found = CliRunner().invoke(app, ["ask", str(table), "difference between ontario and quebec "
                                     "in 2015?", "--model", str(folder), "--json"])  # fmt: skip
    assert found.exit_code == 0, found.output
    record = json.loads(found.output)
    assert 0.0 <= record["confidence"] <= 1.0 and record["uncertain"] is True
    assert record["next_best"]["formula"] and record["next_best"]["confidence"] is not None
    shown = CliRunner().invoke(app, ["ask", str(table), "how many in quebec in 2015?",
                                     "--model", str(folder)])  # fmt: skip
    assert "(uncertain: below the model's threshold)" in shown.output
    assert "next best (" in shown.output


def test_tune_writes_the_record_it_chose_into_the_folder(tmp_path):
    import json
    import shutil

    from typer.testing import CliRunner

    from fortap.cli import app
    from fortap.tasks.table_qa.answerer import TableAnswerer
    from fortap.tasks.table_qa.ask import SHIPPED
    from tests.tasks.table_qa.tiny import write_hitab

    folder, hitab = tmp_path / "model", write_hitab(tmp_path / "hitab", copies=4)
    shutil.copytree(SHIPPED, folder)
    found = CliRunner().invoke(app, ["tune-qa", str(folder), str(hitab), "--scores",
                                     str(tmp_path / "scores"), "--train-most", "24"])  # fmt: skip
    assert found.exit_code == 0, found.output
    record = json.loads((folder / "model.json").read_text())["head"]
    assert record["decoding"] == json.loads((SHIPPED / "model.json").read_text())["head"]["decoding"]
    assert TableAnswerer.load(folder).reranker.record() == record["rerank"]
    assert (folder / "reranker.txt.gz").is_file()
    assert sorted(p.name for p in (tmp_path / "scores").iterdir()) == [
        "scores-dev-model.pt", "scores-train-24-model.pt"]


def test_intended_programs_follow_hitabs_operation_family():
    from fortap.tasks.table_qa.rerank import intended

    assert intended("none", "none") and intended("ratio_up", "ratio_down")
    assert intended("argmax", "pair_max") and intended("pair_min", "argmin")  # which is larger
    assert not intended("max", "none")  # a group's max that equals a looked-up gold
    assert not intended("sum", "diff") and intended("sum", None)  # no label: any
