"""The candidate sources' contract: declared features, the ranker's check of its names, and
imports (`fortap.suggest.candidates.base`)."""

import ast
import json
import shutil
from pathlib import Path

import pytest

from fortap.errors import FortapError
from fortap.suggest.candidates import SOURCES, declared, generate, source_names
from fortap.suggest.candidates.common import BookCounts, CommonSource, CommonTable
from fortap.suggest.context import BookContext, Target
from fortap.suggest.features import QUERY_FEATURES, RULE_FEATURES
from fortap.suggest.ranker import DEFAULT_DIR, Ranker, matrix
from fortap.suggest.task import TASK
from tests.suggest.sheets_ranker import book, sales, sheet

CANDIDATES = Path(__file__).resolve().parents[2] / "src" / "fortap" / "suggest" / "candidates"


def _shipped_names() -> list[str]:
    return json.loads((DEFAULT_DIR / "features.json").read_text())["features"]


def test_the_shipped_rankers_149_names_are_those_its_sources_query_and_merge_declare():
    # PROVENANCE.md: trained with every source but `common` and `model` (no table, no model)
    provenance = (DEFAULT_DIR / "PROVENANCE.md").read_text()
    assert "no common table" in provenance
    trained = {n.removeprefix("src_") for n in _shipped_names() if n.startswith("src_")}
    assert trained == {s.name for s in SOURCES} == set(source_names()) - {"common"}
    names = declared(SOURCES)
    assert len(_shipped_names()) == 149
    assert set(names) == set(_shipped_names())
    assert {n for n, by in names.items() if by == "query"} == set(QUERY_FEATURES)
    assert {n for n, by in names.items() if by == "merge"} == {
        *RULE_FEATURES,
        *(f"src_{s.name}" for s in SOURCES),
    }


def test_loading_a_ranker_with_a_renamed_feature_fails_naming_it(tmp_path):
    shutil.copytree(DEFAULT_DIR, tmp_path / "r")
    meta = json.loads((tmp_path / "r" / "features.json").read_text())
    meta["features"] = ["copy_distance" if n == "copy_dist" else n for n in meta["features"]]
    (tmp_path / "r" / "features.json").write_text(json.dumps(meta))
    with pytest.raises(FortapError, match="missing copy_dist;.*: copy_distance"):
        Ranker.load(tmp_path / "r")


def test_loading_refuses_a_flag_of_no_source_and_a_missing_feature(tmp_path):
    shutil.copytree(DEFAULT_DIR, tmp_path / "r")
    meta = json.loads((tmp_path / "r" / "features.json").read_text())
    for names, message in (
        ([*meta["features"], "src_oracle"], "src_oracle flag no candidate source"),
        ([n for n in meta["features"] if n != "echo_abs"], "missing echo_abs\\)"),
    ):
        (tmp_path / "r" / "features.json").write_text(json.dumps({**meta, "features": names}))
        with pytest.raises(FortapError, match=message):
            Ranker.load(tmp_path / "r")


def test_matrix_names_a_feature_it_does_not_know_unless_it_may_be_left_out():
    got = matrix(["a", "b"], [{"b": 2.0}])
    assert got.shape == (1, 2) and got[0, 1] == 2.0 and got[0, 0] != got[0, 0]  # NaN
    with pytest.raises(FortapError, match="does not know: c, d"):
        matrix(["a"], [{"a": 1.0, "d": 1.0}, {"c": 0.0}])
    kept = matrix(["a"], [{"a": 1.0, "model_rank": 1.0}], lambda name: name.startswith("model_"))
    assert kept.tolist() == [[1.0]]


def test_the_shipped_ranker_may_leave_out_only_the_optional_sources_features():
    ranker = Ranker.load(None)
    assert ranker.may_leave_out("model_logp") and ranker.may_leave_out("src_model")
    assert ranker.may_leave_out("cm_rank") and ranker.may_leave_out("src_common")
    assert not ranker.may_leave_out("copy_dist") and not ranker.may_leave_out("land_cells")
    assert not ranker.may_leave_out("copy_distance")


REGIONS = {
    "A1": "Region", "B1": "Sales", "E1": "Region", "F1": "Sales",
    "E2": "North", "F2": 10, "E3": "South", "F3": 20, "E4": "North", "F4": 5,
    "A2": "North", "B2": '=SUMIF($E$2:$E$4,"North",$F$2:$F$4)', "A3": "South",
}  # fmt: skip


def _contexts() -> list[BookContext]:
    cells = sales()
    other = {**cells, "E1": "Share", "E2": "=D2/$D$5", "E3": "=D3/$D$5", "D5": "=SUM(D2:D4)"}
    return [
        BookContext.from_workbook(book(sheet("S", cells))),
        BookContext.from_workbook(book(sheet("S", cells), sheet("T", other))),
        BookContext.from_workbook(book(sheet("S", REGIONS))),
    ]


def test_each_source_writes_only_the_features_it_declares():
    table = CommonTable.learn([BookCounts.of(ctx) for ctx in _contexts()] * 3)
    sources = [*SOURCES, CommonSource(table)]
    written = {s.name: set() for s in sources}
    for ctx in _contexts():
        for name in ctx.sheet_names():
            sc = ctx.sheets[name]
            for r in range(sc.sheet.n_rows + 1):
                for c in range(sc.sheet.n_cols + 1):
                    hidden = frozenset({(name, r, c)})
                    for s in sources:
                        for cand in s.candidates(ctx, Target(name, r, c), hidden):
                            assert cand.source == s.name
                            written[s.name] |= set(cand.features)
    for s in sources:
        assert written[s.name], s.name  # each source proposes on these sheets
        assert written[s.name] <= set(s.FEATURES), (s.name, written[s.name] - set(s.FEATURES))


def test_generate_writes_only_declared_features_in_every_setting():
    ctx = _contexts()[1]
    table = CommonTable.learn([BookCounts.of(c) for c in _contexts()] * 3)
    allowed = set(declared([*SOURCES, CommonSource(table)]))
    for setting in ("sheet", "new-formula", "paper"):
        for target in (Target("S", 4, 3), Target("T", 3, 4), Target("T", 4, 4)):
            for cand in generate(ctx, target, setting=setting, common=table):
                assert set(cand.features) <= allowed


def test_the_task_summary_names_every_source():
    for name in source_names():
        assert name in TASK.summary
    assert "model" in TASK.summary


def test_no_candidate_module_imports_a_sibling_inside_a_function():
    offenders = []
    for path in sorted(CANDIDATES.glob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    names = [node.module or ""] if not node.level else ["."]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                else:
                    continue
                if any(n == "." or n.startswith("fortap.suggest.candidates") for n in names):
                    offenders.append(f"{path.name}:{node.lineno} in {fn.name}")
    assert not offenders, offenders


def test_a_ranker_has_every_declared_column_even_of_a_source_that_never_proposed(tmp_path):
    from fortap.suggest.ranker import RankerConfig, train_ranker
    from fortap.suggest.train import examples

    ctx = BookContext.from_workbook(book(sheet("S", sales())))  # one sheet: no book, no sibling
    groups, labels, _, _ = examples(ctx, [Target("S", r, 3) for r in (1, 2, 3)], "sheet")
    assert not any(row.get("src_book") or row.get("src_sibling") for g in groups for row in g)
    ranker = train_ranker(groups, labels, RankerConfig(rounds=2, min_data_in_leaf=1))
    assert ranker.feature_names == sorted(declared(SOURCES))
    ranker.save(tmp_path)
    assert Ranker.load(tmp_path).feature_names == ranker.feature_names


def test_train_ranker_refuses_a_feature_no_source_declares():
    from fortap.suggest.ranker import train_ranker

    with pytest.raises(FortapError, match="no source declares: copy_distance"):
        train_ranker([[{"copy_distance": 1.0}, {"copy_dist": 2.0}]], [[1, 0]])
