"""The Excel task pane in a real browser: Debian's chromium (Playwright) opens the pane from a
real `fortap serve --addin` over HTTPS, with Excel mocked by office-addin-mock (npm ci installs
it; `office_mock.js` builds the workbook on its `OfficeMockObject`).

Selecting the budget's empty March total shows five suggestions, `=SUM(D2:D6)` with 1720 first,
and clicking it writes the formula through Excel; on the sales sheet the audit finds the typed
310 and "Apply fix" writes `=B4+C4`; a question's answer formula goes into a chosen cell. The
second selection on an unchanged sheet sends the hash alone. A screenshot of the pane is saved
(`taskpane.png` in the test's tmp folder).
"""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import openpyxl
import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

from tests.addin.served import MOCK_LIB, addin_server  # noqa: E402
from tests.service.serve_auditor import PAGE_AUDITOR  # noqa: E402
from tests.service.serve_books import (  # noqa: E402
    TOTAL_FORMULA,
    TOTAL_VALUE,
    TYPED_CELL,
    TYPED_FIX,
    budget_bytes,
    typed_total_bytes,
)

CHROMIUM = Path(os.environ.get("FORTAP_CHROMIUM", "/usr/bin/chromium"))
pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason=f"{CHROMIUM} not found: scripts/setup.sh installs chromium"),
    pytest.mark.skipif(not (MOCK_LIB / "officeMockObject.js").is_file(),
                       reason="office-addin-mock not found: scripts/setup.sh runs npm ci"),
]  # fmt: skip


def mock_sheets() -> dict:
    """The budget's and the sales' cells as the mock's workbook holds them."""
    sheets = {}
    for data, name in ((budget_bytes(), "Budget"), (typed_total_bytes(), "Sales")):
        ws = openpyxl.load_workbook(io.BytesIO(data))[name]
        cells = {}
        for row in ws.iter_rows():
            for c in row:
                if c.value is None:
                    continue
                formula = isinstance(c.value, str) and c.value.startswith("=")
                cells[c.coordinate] = {"v": 0 if formula else c.value, "fmt": c.number_format}
                if formula:
                    cells[c.coordinate]["f"] = c.value
        sheets[name] = {"cells": cells, "rows": ws.max_row, "cols": ws.max_column}
    return sheets


def mock_script() -> str:
    """office-addin-mock's CommonJS files joined for the browser (office-addin-manifest, which
    it reads only for the host names, stands in as that table), then `office_mock.js`."""
    files = {name: (MOCK_LIB / f"{name}.js").read_text() for name in
             ("possibleErrors", "host", "officeMockObject")}  # fmt: skip
    parts = ["const __mods = {}; const __apps = {OfficeApp: {Excel: 'excel', OneNote: 'onenote', "
             "Outlook: 'outlook', PowerPoint: 'powerpoint', Project: 'project', Word: 'word'}};",
             "function __req(n) { return n === 'office-addin-manifest' ? __apps : __mods[n.slice(2)]; }"]  # fmt: skip
    for name, text in files.items():
        parts.append(f"(function(exports, require){{{text}\n}})(__mods[{name!r}] = {{}}, __req);")
    parts.append("window.__officeAddinMock = __mods.officeMockObject;")
    return ("(function(){" + "\n".join(parts) + "})();\n"
            f"window.__fortapSheets = {json.dumps(mock_sheets())};\n"
            + (Path(__file__).parent / "office_mock.js").read_text())  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with addin_server(tmp_path_factory.mktemp("cert"), PAGE_AUDITOR) as served:
        yield served


@pytest.fixture
def pane(server):
    url, _ = server
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 360, "height": 760},
                                      ignore_https_errors=True)  # fmt: skip
        context.add_init_script(mock_script())
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
        # a 404 from /addin/suggest is the protocol (an unknown hash: send the sheet), which the
        # browser logs as a failed load; any other failed response is an error
        page.on("response", lambda r: r.status >= 400 and not r.url.endswith("/addin/suggest")
                and errors.append(f"{r.status} {r.url}"))  # fmt: skip
        page.set_default_timeout(20_000)
        page.goto(url + "/addin/taskpane.html")
        yield page
        browser.close()
        errors = [e for e in errors if "status of 404" not in e]  # each also logged as a response
        assert errors == [], errors  # no script error and no failed request in the pane


def _until(page, expression: str, seconds: float = 20) -> None:
    """Poll a JS expression until it is true (wait_for_function evaluates a string, which the
    pane's CSP forbids)."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"not true in {seconds} s: {expression}"
        page.wait_for_timeout(50)


def _writes(page) -> list[dict]:
    return page.evaluate("window.__writes")


def test_suggest_insert_audit_fix_and_answer(pane, server, tmp_path):
    _, app = server
    pane.evaluate(f"window.__select('Budget', '{TOTAL_CELL_}')")
    top = pane.wait_for_selector(f"#suggestions li.hi:has-text('{TOTAL_FORMULA}')")
    assert pane.inner_text("#cell") == f"Budget!{TOTAL_CELL_}"
    assert top.inner_text().splitlines()[:2] == [str(TOTAL_VALUE), TOTAL_FORMULA]
    assert len(pane.query_selector_all("#suggestions li")) == 5
    pane.screenshot(path=str(tmp_path / "taskpane.png"))
    sent = len(app.state.addin_books)
    pane.evaluate("window.__select('Budget', 'B7')")  # same sheet: the hash alone is sent
    _until(pane, "document.querySelector('#cell').textContent === 'Budget!B7'")
    pane.wait_for_selector("#suggestions li.hi")
    assert len(app.state.addin_books) == sent
    pane.evaluate(f"window.__select('Budget', '{TOTAL_CELL_}')")
    _until(pane, f"document.querySelector('#cell').textContent === 'Budget!{TOTAL_CELL_}'")
    pane.wait_for_selector(f"#suggestions li.hi:has-text('{TOTAL_FORMULA}')").click()
    _until(pane, "window.__writes.length === 1")
    assert _writes(pane) == [{"sheet": "Budget", "cell": TOTAL_CELL_, "formula": TOTAL_FORMULA}]

    pane.fill("#ask-q", "How much was rent in Feb?")
    pane.press("#ask-q", "Enter")
    pane.wait_for_selector("#ask-write:not([disabled])")
    assert pane.inner_text("#ask-formula") == "=C2"
    pane.fill("#ask-cell", "G2")
    pane.click("#ask-write")
    _until(pane, "window.__writes.length === 2")
    assert _writes(pane)[1] == {"sheet": "Budget", "cell": "G2", "formula": "=C2"}

    pane.evaluate("window.__select('Sales', 'A1')")
    _until(pane, "document.querySelector('#cell').textContent === 'Sales!A1'")
    pane.click("#audit-btn")
    finding = pane.wait_for_selector(f"#findings li[data-cell='{TYPED_CELL}']")
    finding.click()  # goes to the cell
    _until(pane, f"window.__selected() === 'Sales!{TYPED_CELL}'")
    finding.query_selector("button").click()
    _until(pane, "window.__writes.length === 3")
    assert _writes(pane)[2] == {"sheet": "Sales", "cell": TYPED_CELL, "formula": TYPED_FIX}
    pane.screenshot(path=str(tmp_path / "taskpane-audit.png"))
    print(f"screenshots: {tmp_path / 'taskpane.png'}, {tmp_path / 'taskpane-audit.png'}")


TOTAL_CELL_ = "D7"
