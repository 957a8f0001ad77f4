"""Previews of array formulas and structured references: right and wrong per engine, and time.

One literal workbook is built (names and values in `Data`, the table `Sales` with a totals row
and `Total` computed per row by `Sales[[#This Row],[Qty]]*Sales[[#This Row],[Price]]`), and
each case's formula is previewed at a cell of its sheet by four routes; its expected value is
computed here from the literal data, as Excel's array semantics give it:

- `formualizer` (the baseline, as previews worked before): formualizer's own load of the file,
  the formula set at the cell and evaluated there;
- `formulon` alone: formulon's load of the file, `evaluate_formula_array` at the cell;
- `fortap, formualizer only`: `Previewer` with structured references resolved to A1 ranges
  (`formula.structured`) and array formulas evaluated by formualizer (no `arrays` extra);
- `fortap` (shipped): the same, array formulas evaluated by formulon (`suggest/preview_array`).

Array cases are entered as array formulas (each case's cell holds it as one in the workbook).
Printed per route and kind: cases right / wrong, mean and max ms per preview, load seconds.

With `--real BOOK...`, the same two fortap routes also preview up to `--per-book` of each
real workbook's array formulas and formulas with structured references, each at its own cell
with that cell hidden, against the value the file cached (Excel's; dates are left out).

    python bench/preview_arrays.py --json out.json
    python bench/preview_arrays.py --real ../shared/data/excel_to_code_2050models/files/*.xlsx
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
from pathlib import Path

import formualizer as fz
import openpyxl
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.worksheet.table import Table

from fortap.corpus.spread import spread
from fortap.formula.structured import parse_structured
from fortap.sheet.model import a1
from fortap.sheet.read import read_workbook
from fortap.suggest.cells import parse_cell
from fortap.suggest.preview import Previewer
from fortap.suggest.preview_array import ArrayPreviews, formulon_installed

NAMES = ["a", "b", "a", "c", "b", "a", "c", "a"]  # Data!B5:B12
VALUES = [3, 7, 2, 9, 6, 1, 8, 4]  # Data!C5:C12
SALES = [("East", 2, 3.5), ("West", 4, 1.25), ("East", 5, 2.0), ("North", 1, 10.0)]
ROWS = range(5, 13)
ARRAY_CASES = [  # (formula, expected), each entered in its own cell of Data!H
    ("=SUM(IF(C5:C12>5,1,0))", sum(v > 5 for v in VALUES)),
    ("=SUM(ROW($C$5:$C$12)*C5:C12)", sum(r * v for r, v in zip(ROWS, VALUES, strict=True))),
    (
        "=INDEX($B$5:$B$12,SMALL(IF($C$5:$C$12>5,ROW($C$5:$C$12)-4),2))",
        NAMES[[i for i, v in enumerate(VALUES) if v > 5][1]],
    ),
    ('=MAX(IF(B5:B12="a",C5:C12))', max(v for n, v in zip(NAMES, VALUES, strict=True) if n == "a")),
    ("=SUM(LEN(B5:B12))", sum(len(n) for n in NAMES)),
    (
        '=SUM(IF($B$5:$B$12="b",ROW($C$5:$C$12)*$C$5:$C$12))',
        sum(r * v for r, n, v in zip(ROWS, NAMES, VALUES, strict=True) if n == "b"),
    ),
    ('=SUMPRODUCT((B5:B12="a")*C5:C12)', sum(v for n, v in zip(NAMES, VALUES, strict=True) if n == "a")),
    ('=AVERAGE(IF(B5:B12="c",C5:C12))', 8.5),
    ("=COUNT(1/(C5:C12>5))", sum(v > 5 for v in VALUES)),
    ("=MIN(IF(C5:C12>2,C5:C12))", min(v for v in VALUES if v > 2)),
    ('=SUM(--(B5:B12<>"a"))', sum(n != "a" for n in NAMES)),
    ("=MATCH(TRUE,C5:C12>8,0)", 1 + [v > 8 for v in VALUES].index(True)),
    ('=SUM((B5:B12="a")*(C5:C12>2))', sum(n == "a" and v > 2 for n, v in zip(NAMES, VALUES, strict=True))),
    ('=SUM(IF(ISNUMBER(SEARCH("a",B5:B12)),1))', NAMES.count("a")),
    ('=SUM(ROW(INDIRECT("1:"&COUNT(C5:C12))))', sum(range(1, len(VALUES) + 1))),
    ("=SUM(IF(MOD(ROW(C5:C12),2)=0,C5:C12))", sum(v for r, v in zip(ROWS, VALUES, strict=True) if r % 2 == 0)),
    ('=TEXTJOIN(",",TRUE,IF(C5:C12>7,B5:B12,""))', ",".join(n for n, v in zip(NAMES, VALUES, strict=True) if v > 7)),
    ("=MAX(LEN(B4:B12))", len("name")),
]  # fmt: skip
QTY = [q for _, q, _ in SALES]
PRICE = [p for _, _, p in SALES]
TABLE_CASES = [  # (sheet, cell, formula, expected)
    ("Sales", "D5", "=Sales[[#This Row],[Qty]]*Sales[[#This Row],[Price]]", QTY[3] * PRICE[3]),
    ("Sales", "D5", "=[@Qty]*[@Price]", QTY[3] * PRICE[3]),
    ("Sales", "F2", "=SUM(Sales[Qty])", sum(QTY)),
    ("Sales", "F2", '=SUMIF(Sales[Region],"East",Sales[Qty])', QTY[0] + QTY[2]),
    ("Sales", "F2", "=Sales[[#Totals],[Qty]]", sum(QTY)),
    (
        "Sales",
        "F2",
        "=SUM(Sales[Total])",
        sum(q * p for q, p in zip(QTY[:3], PRICE[:3], strict=True)),
    ),
    ("Sales", "F2", "=COUNTA(Sales[[#All],[Region]])", len(SALES) + 2),
    ("Sales", "F2", '=INDEX(Sales[Price],MATCH("West",Sales[Region],0))', PRICE[1]),
    ("Sales", "F2", "=Sales[[#Headers],[Price]]", "Price"),
    ("Sales", "F2", "=AVERAGE(Sales[[Qty]:[Price]])", (sum(QTY) + sum(PRICE)) / 8),
    ("Data", "J2", "=MAX(Sales[Price])", max(PRICE)),
    ("Data", "J2", "=ROWS(Sales[])", len(SALES)),
]


def build(folder: Path) -> tuple[Path, list[tuple[str, str, str, object, str]]]:
    """The workbook, and every case as (sheet, cell, formula, expected, kind). Sales!D5, the
    last data row's Total, is left empty."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws["B4"], ws["C4"] = "name", "value"
    for i, (n, v) in enumerate(zip(NAMES, VALUES, strict=True)):
        ws.cell(5 + i, 2, n)
        ws.cell(5 + i, 3, v)
    cases = []
    for i, (formula, want) in enumerate(ARRAY_CASES):
        cell = f"H{5 + i}"
        ws[cell] = ArrayFormula(cell, formula)
        cases.append(("Data", cell, formula, want, "array"))
    sales = wb.create_sheet("Sales")
    sales.append(["Region", "Qty", "Price", "Total"])
    for i, (region, qty, price) in enumerate(SALES, start=2):
        sales.append([region, qty, price, TABLE_CASES[0][2] if i < 5 else None])
    sales.append(["Total", "=SUBTOTAL(109,Sales[Qty])", None, None])
    sales.add_table(Table(displayName="Sales", ref="A1:D6", totalsRowCount=1))
    cases += [(s, c, f, want, "structured") for s, c, f, want in TABLE_CASES]
    path = folder / "arrays.xlsx"
    wb.save(path)
    return path, cases


def _rc(cell: str) -> tuple[int, int]:
    """`H5` -> 1-based (row, col)."""
    arg = parse_cell(cell)
    return arg.row + 1, arg.col + 1


def run_formualizer(path: Path, cases) -> tuple[float, list]:
    start = time.perf_counter()
    engine = fz.load_workbook(str(path))
    with contextlib.suppress(BaseException):  # it refuses the table's own formulas
        engine.evaluate_all()
    load, out = time.perf_counter() - start, []
    for sheet, cell, formula, _, _ in cases:
        row, col = _rc(cell)
        start = time.perf_counter()
        try:
            engine.sheet(sheet).set_formula(row, col, formula)
            got = engine.evaluate_cell(sheet, row, col)
        except BaseException as err:  # noqa: BLE001
            got = f"raised {type(err).__name__}"
        out.append((_plain(got), 1e3 * (time.perf_counter() - start)))
    return load, out


def run_formulon(path: Path, cases) -> tuple[float, list]:
    import formulon

    start = time.perf_counter()
    wb = formulon.Workbook.load(path.read_bytes())
    names = [wb.sheet_name(i) for i in range(wb.sheet_count())]
    load, out = time.perf_counter() - start, []
    for sheet, cell, formula, _, _ in cases:
        row, col = _rc(cell)
        start = time.perf_counter()
        value = wb.evaluate_formula_array(names.index(sheet), row - 1, col - 1, formula)[0][0]
        got = value.to_python()
        if not isinstance(got, float | str | bool | type(None)):
            got = formulon.error_display_name(value.error_code)
        out.append((got, 1e3 * (time.perf_counter() - start)))
    wb.close()
    return load, out


def run_fortap(path: Path, cases, engine: str, book=None, hide=False) -> tuple[float, list]:
    """`Previewer` (arrays by `engine`); `hide`: each case's own cell reads as empty."""
    start = time.perf_counter()
    book = book or read_workbook(path)
    previewer = Previewer.load(book)
    if engine != previewer.arrays.engine:
        previewer.arrays = ArrayPreviews(book, engine=engine)
    previewer.arrays.engine  # noqa: B018 - wait for formulon's load: it is load time
    load, out = time.perf_counter() - start, []
    for sheet, cell, formula, _, _ in cases:
        row, col = _rc(cell)
        start = time.perf_counter()
        hidden = frozenset({(sheet, row - 1, col - 1)}) if hide else frozenset()
        shown = previewer.preview(sheet, row, col, formula, hidden=hidden)
        got = shown.error if shown.error else shown.value
        out.append((got, 1e3 * (time.perf_counter() - start)))
    return load, out


def real_cases(book, per_book: int) -> list[tuple[str, str, str, object, str]]:
    """Up to `per_book` array formulas and as many formulas with structured references of
    `book` (evenly spread), with the number, text or bool their cell cached."""
    found: dict[str, list] = {"array": [], "structured": []}
    for sheet in book.sheets:
        for (r, c), cell in sorted(sheet.cells.items()):
            if not cell.formula or cell.kind not in ("number", "text", "bool"):
                continue
            kind = "array" if cell.array_formula else None
            if kind is None and "[" in cell.formula:
                tokens = fz.tokenize(cell.formula).tokens()
                kind = "structured" if any(parse_structured(t.value) for t in tokens) else None
            if kind is not None:
                found[kind].append((sheet.name, a1(r, c), cell.formula, cell.value, kind))
    return [case for cases in found.values() for case in spread(cases, per_book)]


def run_real(paths: list[Path], per_book: int, engines: list[str]) -> dict[str, tuple]:
    """Each fortap route over every real workbook: total load seconds and the answers."""
    out = {}
    for engine in engines:
        load, answers, cases = 0.0, [], []
        for path in paths:
            book = read_workbook(path)
            picked = real_cases(book, per_book)
            if not picked:
                continue
            seconds, got = run_fortap(path, picked, engine, book, hide=True)
            load, answers, cases = load + seconds, answers + got, cases + picked
        out[f"real: fortap, {engine}"] = (load, answers, cases)
    return out


def _plain(raw):
    while isinstance(raw, list):
        raw = raw[0][0] if raw and raw[0] else None
    if isinstance(raw, dict):
        return f"#{raw.get('kind')}"
    return raw


def right(got, want) -> bool:
    if isinstance(want, str | bool) or isinstance(got, str | bool | type(None)):
        return got == want
    return isinstance(got, int | float) and abs(got - want) <= 1e-9 * max(1.0, abs(want))


def table(routes: dict[str, tuple], show: bool) -> list[dict]:
    """Print one row per route and kind (and each case when `show`); the rows."""
    rows = []
    head = ("route", "kind", "right", "wrong", "mean ms", "max ms", "load s")
    print("{:26} {:11} {:>5} {:>5} {:>8} {:>7} {:>7}".format(*head))
    for name, (load, answers, cases) in routes.items():
        for kind in ("array", "structured"):
            picked = [(a, c) for a, c in zip(answers, cases, strict=True) if c[4] == kind]
            if not picked:
                continue
            ok = sum(right(got, c[3]) for (got, _), c in picked)
            ms = [t for (_, t), _ in picked]
            r = {"route": name, "kind": kind, "right": ok, "wrong": len(picked) - ok,
                 "mean_ms": sum(ms) / len(ms), "max_ms": max(ms), "load_s": load}  # fmt: skip
            rows.append(r)
            print(f"{name:26} {kind:11} {ok:5d} {r['wrong']:5d} {r['mean_ms']:8.2f} "
                  f"{r['max_ms']:7.2f} {load:7.2f}")  # fmt: skip
            for (got, _), c in picked if show else ():
                mark = "ok " if right(got, c[3]) else "BAD"
                print(f"    {mark} {c[0]}!{c[1]} {c[2]}  want {c[3]!r} got {got!r}")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--show", action="store_true", help="print every case's answers")
    ap.add_argument("--real", type=Path, nargs="*", default=[], help="real workbooks")
    ap.add_argument("--per-book", type=int, default=40, help="real cases per kind and book")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path, cases = build(Path(tmp))
        routes = {"formualizer": run_formualizer(path, cases)}
        if formulon_installed():
            routes["formulon"] = run_formulon(path, cases)
        routes["fortap, formualizer only"] = run_fortap(path, cases, "formualizer")
        if formulon_installed():
            routes["fortap"] = run_fortap(path, cases, "formulon")
    routes = {name: (load, got, cases) for name, (load, got) in routes.items()}
    engines = ["formualizer"] + (["formulon"] if formulon_installed() else [])
    routes |= run_real(args.real, args.per_book, engines) if args.real else {}
    rows = table(routes, args.show)
    base = {r["kind"]: r["right"] for r in rows if r["route"] == "formualizer"}
    shipped = "fortap" if "fortap" in routes else "fortap, formualizer only"
    for r in rows:
        if r["route"] == shipped:
            print(f"{shipped} vs formualizer, {r['kind']}: {r['right']} vs {base[r['kind']]} right")
    targets = [
        {"name": f"{shipped}: {r['kind']} cases right", "value": r["right"],
         "target": r["right"] + r["wrong"], "met": r["wrong"] == 0}
        for r in rows if r["route"] == shipped
    ]  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"results": rows, "targets": targets}, indent=2))


if __name__ == "__main__":
    main()
