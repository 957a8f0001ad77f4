"""The fault injector of `bench/audit.py --faults`: blocks, the two kinds of fault, and copies
that differ from the original in the faulted cells only, the same for the same seed."""

from __future__ import annotations

import re
import zipfile

import numpy as np
import openpyxl
import pytest

from fortap.audit.fault_files import FaultWriteError, heads, write_copy
from fortap.audit.faults import SHIFTED, TYPED, Fault, blocks, plan, shifted
from fortap.formula import parse_formula
from fortap.sheet import read_workbook
from fortap.suggest.context import BookContext


def literal_book(path):
    """S!A1:A6 = 1..6, C1:C6 = 10..60, B1:B6 = A*C (a block down B), E1:E6 = C+1 (another);
    each formula caches its value, as a file Excel saved does (openpyxl writes none)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    values = {}
    for r in range(1, 7):
        ws[f"A{r}"], ws[f"C{r}"] = r, 10 * r
        ws[f"B{r}"], ws[f"E{r}"] = f"=A{r}*C{r}", f"=C{r}+1"
        values[f"B{r}"], values[f"E{r}"] = float(r * 10 * r), float(10 * r + 1)
    ws["A8"] = "note"
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    xml = parts["xl/worksheets/sheet1.xml"].decode()
    for ref, v in values.items():
        xml = re.sub(rf'(<c r="{ref}"[^>]*><f>[^<]*</f>)<v\s*/>', rf"\g<1><v>{v!r}</v>", xml)
    parts["xl/worksheets/sheet1.xml"] = xml.encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return path


def contexts(path):
    return BookContext.from_workbook(read_workbook(path)).sheets


def test_blocks_are_the_dragged_runs(tmp_path):
    sc = contexts(literal_book(tmp_path / "a.xlsx"))["S"]
    got = sorted((b.axis, b.cells[0], b.cells[-1], b.r1c1) for b in blocks("S", sc))
    assert got == [(0, (0, 1), (5, 1), "=RC[-1]*RC[1]"), (0, (0, 4), (5, 4), "=RC[-2]+1")]


def test_a_shifted_reference_moves_one_reference_by_one():
    text, cell = "=B7*C7", (6, 3)  # in D7
    got = {shifted(text, parse_formula(text, "S", cell).ast, "S", cell, np.random.default_rng(s))
           for s in range(40)}  # fmt: skip
    assert got == {"=B8*C7", "=B6*C7", "=C7*C7", "=A7*C7",
                   "=B7*C8", "=B7*C6", "=B7*D7", "=B7*B7"} - {"=B7*D7"}  # fmt: skip
    # =C7 in D7 cannot move right (onto itself); "C7" quoted as well as referred to: no shift
    one = {shifted("=C7", parse_formula("=C7", "S", cell).ast, "S", cell, np.random.default_rng(s))
           for s in range(20)}  # fmt: skip
    assert one == {"=C8", "=C6", "=B7"}
    quoted = '=IF(C7>0,"C7",0)'
    assert shifted(quoted, parse_formula(quoted, "S", cell).ast, "S", cell,
                   np.random.default_rng(0)) is None  # fmt: skip


def test_each_fault_changes_exactly_its_cell(tmp_path):
    src = literal_book(tmp_path / "a.xlsx")
    faults = plan(contexts(src), 2, np.random.default_rng(0), gap=2)
    assert sorted(f.kind for f in faults) == [SHIFTED, TYPED]
    assert all(f.row in range(1, 5) and f.col in (1, 4) for f in faults)  # never a block's end
    write_copy(src, tmp_path / "b.xlsx", faults)
    before = read_workbook(src).sheets[0].cells
    after = read_workbook(tmp_path / "b.xlsx").sheets[0].cells
    changed = {rc for rc in before.keys() | after.keys() if before.get(rc) != after.get(rc)}
    assert changed == {(f.row, f.col) for f in faults}
    for f in faults:
        old, new = before[(f.row, f.col)], after[(f.row, f.col)]
        assert old.formula == f.before and new.style == old.style
        if f.kind == TYPED:
            assert (new.formula, new.kind, new.value) == (None, "number", old.value)
        else:
            assert new.formula == f.after and new.value is None  # no value cached (value=None)
            a = parse_formula(f.before, "S", (f.row, f.col))
            b = parse_formula(f.after, "S", (f.row, f.col))
            assert a.sketch == b.sketch and a.r1c1 != b.r1c1


def test_the_same_seed_gives_the_same_faults_and_files(tmp_path):
    src = literal_book(tmp_path / "a.xlsx")
    runs = [plan(contexts(src), 2, np.random.default_rng(7), gap=2) for _ in range(2)]
    assert runs[0] == runs[1]
    for name in ("b", "c"):
        write_copy(src, tmp_path / f"{name}.xlsx", runs[0])
    sheet = "xl/worksheets/sheet1.xml"
    b, c = (zipfile.ZipFile(tmp_path / f"{n}.xlsx").read(sheet) for n in "bc")
    assert b == c


def test_a_shifted_value_is_cached_and_heads_are_refused(tmp_path):
    src = literal_book(tmp_path / "a.xlsx")
    fault = Fault("S", 2, 1, SHIFTED, "=A3*C3", "=A4*C3", value=120.0)
    write_copy(src, tmp_path / "b.xlsx", [fault])
    cell = read_workbook(tmp_path / "b.xlsx").sheets[0].cells[(2, 1)]
    assert (cell.formula, cell.value) == ("=A4*C3", 120.0)
    assert heads(src) == frozenset()  # openpyxl writes no shared formulas
    with pytest.raises(FaultWriteError, match=r"S!A3 of a\.xlsx: no formula cell"):
        write_copy(src, tmp_path / "c.xlsx", [Fault("S", 2, 0, TYPED, "=1")])


def test_a_follower_of_a_shared_formula_is_faulted_alone(tmp_path):
    src = literal_book(tmp_path / "a.xlsx")  # B1:B6 made one shared formula, as Excel saves it
    with zipfile.ZipFile(src) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    xml = parts["xl/worksheets/sheet1.xml"].decode()
    xml = xml.replace("<f>A1*C1</f>", '<f t="shared" ref="B1:B6" si="0">A1*C1</f>')
    for r in range(2, 7):
        xml = xml.replace(f"<f>A{r}*C{r}</f>", '<f t="shared" si="0"/>')
    parts["xl/worksheets/sheet1.xml"] = xml.encode()
    with zipfile.ZipFile(src, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    assert heads(src) == {("S", 0, 1)}
    before = read_workbook(src).sheets[0].cells
    assert before[(2, 1)].formula == "=A3*C3"
    faults = [Fault("S", 2, 1, TYPED, "=A3*C3"), Fault("S", 3, 1, SHIFTED, "=A4*C4", "=A4*C5")]
    write_copy(src, tmp_path / "b.xlsx", faults)
    after = read_workbook(tmp_path / "b.xlsx").sheets[0].cells
    changed = {rc for rc in before if before[rc] != after.get(rc)}
    assert changed == {(2, 1), (3, 1)}
    assert (after[(2, 1)].formula, after[(2, 1)].value) == (None, 90.0)
    assert after[(3, 1)].formula == "=A4*C5" and after[(5, 1)].formula == "=A6*C6"
    with pytest.raises(FaultWriteError, match="the head of a shared"):
        write_copy(src, tmp_path / "c.xlsx", [Fault("S", 0, 1, TYPED, "=A1*C1")])


def test_the_edits_beyond_a_shifted_reference():
    from fortap.audit.fault_edits import anchored, constant_for, swapped

    from .grids import sheet_context

    def every(edit):
        return {edit(np.random.default_rng(s)) for s in range(30)}

    text, cell = "=B7*C7", (6, 3)  # in D7
    ast = parse_formula(text, "S", cell).ast
    sc = sheet_context([[None] * 3] * 6 + [["x", 4, -0.5]])  # B7 = 4, C7 = -0.5
    got = every(lambda rng: constant_for(text, ast, sc, "S", cell, rng))
    assert got == {"=4*C7", "=B7*(-0.5)"}
    assert every(lambda rng: anchored(text, ast, "S", cell, 0, rng)) == {"=B$7*C7", "=B7*C$7"}
    assert every(lambda rng: anchored(text, ast, "S", cell, 1, rng)) == {"=$B7*C7", "=B7*$C7"}
    mixed = "=SUM(B2:B5)/MAX(C1,C2)"
    assert every(lambda rng: swapped(mixed, "S", cell, rng)) == {
        "=AVERAGE(B2:B5)/MAX(C1,C2)", "=SUM(B2:B5)/MIN(C1,C2)"}  # fmt: skip
    assert swapped("=SUMIF(A1:A3,1)", "S", cell, np.random.default_rng(0)) is None


def test_a_plan_spreads_its_faults_over_the_kinds(tmp_path):
    from fortap.audit.faults import FAULT_KINDS

    src = literal_book(tmp_path / "a.xlsx")
    faults = plan(contexts(src), 5, np.random.default_rng(0), gap=1)
    assert len({f.kind for f in faults}) == len(faults) and {f.kind for f in faults} <= set(
        FAULT_KINDS)  # fmt: skip
