"""The Calc extension in a real headless LibreOffice (Debian's soffice and python3-uno; setup.sh
installs them): `fortap addin oxt` builds it, unopkg installs it, and `calc_driver.py` runs each
menu entry on a cell through UNO and reads the result back as LibreOffice recomputed it.

- suggest on the budget's empty March total writes `=SUM(D2:D6)`, LibreOffice computes 1720 and
  the grand total that reads it; saved as .xlsx, openpyxl finds the formula; Undo empties it;
- audit on the sales sheet's typed 310 writes its fix `=B4+C4` and a comment per finding;
- recover on the values-only orders sheet puts back exactly what `fortap recover` finds there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest

from fortap.addin.oxt import build_oxt
from fortap.recover import RecoverConfig, recover_book
from fortap.sheet.model import a1
from fortap.sheet.read import read_workbook
from tests.service.serve_books import (
    ORDER_FORMULAS,
    TOTAL_FORMULA,
    TOTAL_VALUE,
    TYPED_CELL,
    TYPED_FIX,
    budget_bytes,
    orders_bytes,
    typed_total_bytes,
)

SYSTEM_PYTHON = "/usr/bin/python3"


def _host_missing() -> str | None:
    for tool in ("soffice", "unopkg"):
        if shutil.which(tool) is None:
            return f"{tool} not found: scripts/setup.sh installs LibreOffice"
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import uno"], capture_output=True)
    if probe.returncode != 0:
        return "python3-uno not found (import uno fails): scripts/setup.sh installs it"
    return None


pytestmark = pytest.mark.skipif(_host_missing() is not None, reason=str(_host_missing()))


@pytest.fixture(scope="module")
def calc(tmp_path_factory):
    """The three commands run in one soffice: {case name: (driver's result, saved .xlsx)}."""
    tmp = tmp_path_factory.mktemp("calc")
    books = {"budget": budget_bytes(), "sales": typed_total_bytes(), "orders": orders_bytes()}
    for name, data in books.items():
        (tmp / f"{name}.xlsx").write_bytes(data)
    cases = {
        "budget": ("Budget", "D7", "suggest", ["D7", "F7"]),
        "sales": ("Sales", TYPED_CELL, "audit", [TYPED_CELL]),
        "orders": ("Orders", "D2", "recover", list(ORDER_FORMULAS)),
    }
    spec = {
        "oxt": str(build_oxt(tmp / "fortap.oxt")),
        "profile": str(tmp / "profile"),
        "cases": [{"book": str(tmp / f"{name}.xlsx"), "sheet": sheet, "cell": cell,
                   "command": command, "read": read, "out": str(tmp / f"{name}-out.xlsx")}
                  for name, (sheet, cell, command, read) in cases.items()],  # fmt: skip
    }
    (tmp / "cases.json").write_text(json.dumps(spec))
    driver = Path(__file__).with_name("calc_driver.py")
    done = subprocess.run([SYSTEM_PYTHON, str(driver), str(tmp / "cases.json")],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    return {name: (result, tmp / f"{name}-out.xlsx") for name, result in zip(cases, results, strict=True)}


def test_suggest_writes_the_total_and_calc_recomputes(calc):
    result, saved = calc["budget"]
    d7, f7 = result["cells"]["D7"], result["cells"]["F7"]
    assert (d7["formula"], d7["value"]) == (TOTAL_FORMULA, TOTAL_VALUE)
    assert f7["value"] == 1660 + 1655 + TOTAL_VALUE  # =B7+C7+D7, recomputed by LibreOffice
    assert result["undo_title"] == "fortap: suggest formula"
    assert result["after_undo"]["formula"] == ""  # one Undo takes the formula back
    assert openpyxl.load_workbook(saved)["Budget"]["D7"].value == TOTAL_FORMULA


def test_audit_applies_the_fix_at_the_selected_finding(calc):
    result, saved = calc["sales"]
    cell = result["cells"][TYPED_CELL]
    assert (cell["formula"], cell["value"]) == (TYPED_FIX, 310)
    assert result["comments"] >= 1
    assert openpyxl.load_workbook(saved)["Sales"][TYPED_CELL].value == TYPED_FIX


def test_recover_puts_back_what_fortap_recover_finds(calc, tmp_path):
    result, saved = calc["orders"]
    values_only = tmp_path / "orders.xlsx"
    values_only.write_bytes(orders_bytes())
    expected = {a1(f.row, f.col): f.formula
                for f in recover_book(read_workbook(values_only), RecoverConfig(), ["Orders"])}  # fmt: skip
    assert expected  # the sheet has formulas to find
    ws = openpyxl.load_workbook(saved)["Orders"]
    written = {c.coordinate: c.value for row in ws.iter_rows() for c in row
               if isinstance(c.value, str) and c.value.startswith("=")}  # fmt: skip
    assert written == expected
    for address in expected:  # each recomputed by LibreOffice to the value it replaced
        cell = result["cells"].get(address)
        if cell is not None:
            assert cell["value"] == openpyxl.load_workbook(values_only)["Orders"][address].value
