"""The web page in a real browser: Debian's chromium driven by Playwright, the server on loopback.

Uploads a generated budget, clicks its empty March total, sees `=SUM(D2:D6)` and 1720 on top,
accepts it with Tab, checks the grid and the downloaded file; a 10,000-cell sheet draws only
the cells in view. The cell-type toggle colours the cells as the legend says, and a question's
answer is outlined and its formula put into a cell; the findings toggle outlines a typed number in
a block of formulas, and its fix is applied with one click; Recover formulas lists the formulas of
a values-only sheet, accepts one, then all. A page on another origin cannot upload (by a form
post, a fetch, or a DNS name rebound to the server), while the page itself still can. The
screenshot is saved beside the test's tmp folder (`serve.png`).
"""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import openpyxl
import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.cell_types import LEGEND  # noqa: E402
from tests.service.serve_auditor import PAGE_AUDITOR  # noqa: E402
from tests.service.serve_books import (  # noqa: E402
    ORDER_FORMULAS,
    TOTAL_FORMULA,
    TOTAL_VALUE,
    TYPED_CELL,
    TYPED_FIX,
    big_sheet_bytes,
    budget_bytes,
    orders_bytes,
    typed_total_bytes,
)
from tests.threaded_server import threaded_server  # noqa: E402

CHROMIUM = Path(os.environ.get("FORTAP_CHROMIUM", "/usr/bin/chromium"))
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} not found: scripts/setup.sh installs chromium"
)


@pytest.fixture(scope="module")
def served():
    """The app under uvicorn in a thread, on a free 127.0.0.1 port: (its URL, the app)."""

    def app_of(port: int):
        return create_app(ServeConfig(port=port, quiet=True), auditor=PAGE_AUDITOR)

    with threaded_server(app_of) as (port, app):
        yield f"http://127.0.0.1:{port}", app


@pytest.fixture(scope="module")
def server(served):
    return served[0]


@pytest.fixture(scope="module")
def browser():
    # evil.example resolves to the server, as an attacker's DNS would answer ("rebinding")
    args = ["--no-sandbox", "--host-resolver-rules=MAP evil.example 127.0.0.1"]
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=args)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1000, "height": 520}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    page.set_default_timeout(15_000)
    page.goto(server + "/")
    yield page
    context.close()
    assert errors == [], errors  # no script error and no failed request on the page


def _upload(page, path: Path) -> None:
    page.set_input_files("#file", str(path))
    page.wait_for_selector("#sheet:not([disabled])")


def test_click_total_see_suggestion_accept_with_tab_download(page, tmp_path):
    book = tmp_path / "budget.xlsx"
    book.write_bytes(budget_bytes())
    _upload(page, book)
    # the grid is drawn at once and filled when its first tile of cells arrives
    assert page.wait_for_selector('.c[data-a1="A7"]:has-text("Total")').inner_text() == "Total"
    page.wait_for_selector('.c.f[data-a1="B7"]')  # a formula cell

    page.click('.c[data-a1="D7"]')
    top = page.wait_for_selector("#sg-list li.sugg.hi")
    assert top.inner_text().splitlines()[:2] == [f"{TOTAL_VALUE}", TOTAL_FORMULA]
    assert page.inner_text("#sg-cell") == "Budget!D7"
    page.screenshot(path=str(tmp_path / "serve.png"))

    page.keyboard.press("Tab")
    accepted = page.wait_for_selector('.c.acc[data-a1="D7"]')
    assert accepted.inner_text() == f"{TOTAL_VALUE:,}"
    assert page.is_hidden("#suggest")
    assert page.inner_text("#fb-text") == TOTAL_FORMULA

    page.keyboard.press("ArrowDown")
    assert page.get_attribute(".c.sel", "data-a1") == "D8"
    page.keyboard.press("=")
    page.wait_for_selector("#suggest:not([hidden])")
    assert page.inner_text("#sg-cell") == "Budget!D8"
    page.keyboard.press("Escape")
    assert page.is_hidden("#suggest")

    with page.expect_download() as download:
        page.click("#download")
    saved = tmp_path / "downloaded.xlsx"
    download.value.save_as(saved)
    ws = openpyxl.load_workbook(saved)["Budget"]
    assert (ws["D7"].value, ws["C7"].value) == (TOTAL_FORMULA, "=SUM(C2:C6)")
    print(f"screenshot: {tmp_path / 'serve.png'}")


def test_a_10000_cell_sheet_draws_only_the_cells_in_view(page, tmp_path):
    book = tmp_path / "big.xlsx"
    book.write_bytes(big_sheet_bytes(1000, 10))
    _upload(page, book)
    page.wait_for_selector('.c[data-a1="B2"]:has-text("1")')
    drawn = page.locator("#layer .c").count()
    assert 0 < drawn < 500, drawn  # 1,000 x 10 cells in the sheet; ~25 x 12 in view
    page.eval_on_selector("#grid", "g => g.scrollTo(0, 990 * 24)")  # 24 px rows
    last = page.wait_for_selector('.c[data-a1="A1000"]:has-text("9980")')
    assert last.is_visible()
    assert page.locator('.c[data-a1="A2"]').count() == 0
    assert page.locator("#layer .c").count() < 500


def test_colour_cells_by_type_and_put_an_answers_formula_into_a_cell(page, tmp_path):
    book = tmp_path / "budget.xlsx"
    book.write_bytes(budget_bytes())
    _upload(page, book)
    page.wait_for_selector('.c[data-a1="A7"]:has-text("Total")')
    assert page.locator(".c[data-type]").count() == 0 and page.is_hidden("#legend")

    page.check("#types")
    typed = page.wait_for_selector('.c[data-type][data-a1="B2"]')
    assert page.locator("#legend .swatch").count() == 6
    colour = {t["type"]: t["colour"] for t in LEGEND}[typed.get_attribute("data-type")]
    assert typed.evaluate("el => getComputedStyle(el).backgroundColor") == _rgb(colour)
    page.screenshot(path=str(tmp_path / "serve-types.png"))
    page.uncheck("#types")
    assert page.locator(".c[data-type]").count() == 0 and page.is_hidden("#legend")

    page.fill("#ask-q", "How much was rent in Feb?")
    page.press("#ask-q", "Enter")
    page.wait_for_selector('.c.qa[data-a1="C2"]', timeout=60_000)  # the first loads the model
    assert page.inner_text("#ask-formula") == "=C2"
    assert page.inner_text("#ask-answer").startswith("1200")
    page.fill("#ask-cell", "G2")
    page.click("#ask-put-btn")
    assert page.wait_for_selector('.c.acc[data-a1="G2"]').inner_text() == "1200"
    assert "Budget!G2 =C2 accepted" in page.inner_text("#status")
    page.screenshot(path=str(tmp_path / "serve-ask.png"))
    print(f"screenshots: {tmp_path / 'serve-types.png'}, {tmp_path / 'serve-ask.png'}")


def _rgb(colour: str) -> str:
    return "rgb(" + ", ".join(str(int(colour[i : i + 2], 16)) for i in (1, 3, 5)) + ")"


def test_findings_outline_a_typed_number_and_one_click_applies_its_fix(page, tmp_path):
    book = tmp_path / "sales.xlsx"
    book.write_bytes(typed_total_bytes())
    _upload(page, book)
    page.wait_for_selector('.c[data-a1="A7"]:has-text("Total")')
    assert page.locator(".c.flag").count() == 0 and page.is_hidden("#flag-legend")

    page.check("#flags")
    flagged = page.wait_for_selector(f'.c.flag[data-a1="{TYPED_CELL}"]')
    assert page.locator(".c.flag").count() == 1
    assert flagged.get_attribute("data-finding") == "missing-formula"
    colour = dict(PAGE_AUDITOR.legend)["missing-formula"]
    shadow = flagged.evaluate("el => getComputedStyle(el).boxShadow")
    assert shadow.startswith(_rgb(colour)) and "inset" in shadow, shadow
    assert flagged.get_attribute("title").startswith("Missing formula (score ")
    assert page.locator("#flag-legend .swatch").count() == 2
    assert "1 finding by fortap audit" in page.inner_text("#flag-legend")

    flagged.click()  # a typed number: its finding opens, not the suggestions
    page.wait_for_selector("#finding:not([hidden])")
    assert page.is_hidden("#suggest")
    assert page.inner_text("#fd-cell") == f"Sales!{TYPED_CELL}"
    assert page.inner_text("#fd-kind") == "Missing formula"
    assert page.inner_text("#fd-fix") == TYPED_FIX
    assert page.inner_text("#fd-evidence").startswith("D4 holds 310 typed by hand")
    page.screenshot(path=str(tmp_path / "serve-findings.png"))
    page.keyboard.press("=")  # the suggestions take the finding's place
    page.wait_for_selector("#suggest:not([hidden])")
    assert page.is_hidden("#finding")
    page.keyboard.press("Escape")
    page.click("#flag-next")  # the one finding again, from the legend
    page.wait_for_selector("#finding:not([hidden])")

    page.click("#fd-apply")
    fixed = page.wait_for_selector(f'.c.acc[data-a1="{TYPED_CELL}"]')
    assert fixed.inner_text() == "310" and page.is_hidden("#finding")
    assert f"Sales!{TYPED_CELL} {TYPED_FIX} accepted" in page.inner_text("#status")
    page.wait_for_selector('#flag-legend:has-text("0 findings by fortap audit")')  # audited again
    assert page.locator(".c.flag").count() == 0
    page.uncheck("#flags")
    assert page.is_hidden("#flag-legend")
    print(f"screenshot: {tmp_path / 'serve-findings.png'}")


def test_recover_formulas_lists_them_and_accepts_one_then_all(page, tmp_path):
    book = tmp_path / "orders.xlsx"
    book.write_bytes(orders_bytes())
    _upload(page, book)
    page.wait_for_selector('.c[data-a1="A10"]:has-text("Total")')
    assert page.locator(".c.f, .c.acc").count() == 0  # values only

    page.click("#recover-btn")
    page.wait_for_selector("#rc-list li")
    assert page.inner_text("#rc-sheet") == "Orders"
    listed = page.eval_on_selector_all(
        "#rc-list li",
        "lis => lis.map(li => [li.dataset.cell, li.querySelector('.formula').textContent])",
    )
    assert dict(listed) == ORDER_FORMULAS
    assert page.inner_text("#rc-summary").startswith("9 formulas give exactly the value typed")
    assert page.locator(".c.rec").count() == 9  # outlined in the grid
    page.click('#rc-list li[data-cell="D5"]')  # a row shows its cell
    assert page.get_attribute(".c.sel", "data-a1") == "D5"
    page.screenshot(path=str(tmp_path / "serve-recover.png"))

    page.click('#rc-list li[data-cell="D2"] .rc-accept')
    assert page.wait_for_selector('.c.acc[data-a1="D2"]').inner_text() == "36"
    assert "Orders!D2 =B2*C2 accepted" in page.inner_text("#status")
    assert page.get_attribute('#rc-list li[data-cell="D2"]', "class") == "done"
    assert page.inner_text("#rc-all") == "Accept all (8)"

    page.click("#rc-all")
    page.wait_for_selector('.c.acc[data-a1="D10"]')
    assert page.locator(".c.acc").count() == 9 and page.locator(".c.rec").count() == 0
    assert "8 recovered formulas accepted on Orders" in page.inner_text("#status")
    assert page.is_disabled("#rc-all")
    page.click('.c[data-a1="D3"]')  # clicking the grid closes the panel
    assert page.is_hidden("#recover")
    assert page.inner_text("#fb-text") == "=B3*C3"

    with page.expect_download() as download:
        page.click("#download")
    saved = tmp_path / "recovered.xlsx"
    download.value.save_as(saved)
    ws = openpyxl.load_workbook(saved)["Orders"]
    assert {cell: ws[cell].value for cell in ORDER_FORMULAS} == ORDER_FORMULAS
    print(f"screenshot: {tmp_path / 'serve-recover.png'}")


ATTACK = """<!doctype html><title>another site</title>
<form id="f" method="post" enctype="multipart/form-data" action="TARGET/workbooks">
<input id="file" type="file" name="file"></form>
<script>
async function attack(bytes) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)]), "budget.xlsx");
  const tries = [
    { method: "POST", body: form, mode: "no-cors" },  // a simple request: sent, answer unread
    { method: "POST", body: form, headers: { "X-Fortap-Token": "guessed" } },  // preflighted
  ];
  for (const init of tries) {
    try { await fetch("TARGET/workbooks", init); } catch (err) { /* refused by the browser */ }
  }
  return "done";
}
</script>"""


@pytest.fixture
def other_site(server):
    """A page on another origin (another port of 127.0.0.1) that posts to the server."""
    html = ATTACK.replace("TARGET", server).encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the handler's name is http.server's)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(html)

        def log_message(self, *args):
            pass

    site = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{site.server_address[1]}/"
    site.shutdown()


def _stored(server) -> int:
    with urllib.request.urlopen(server + "/health", timeout=10) as r:
        return json.load(r)["workbooks"]


def test_a_page_on_another_origin_cannot_upload_and_the_page_itself_can(
    browser, served, other_site, tmp_path
):
    server, app = served
    book = tmp_path / "budget.xlsx"
    book.write_bytes(budget_bytes())
    before, refused = _stored(server), app.state.guard.refused
    context = browser.new_context()
    evil = context.new_page()
    evil.set_default_timeout(15_000)
    evil.goto(other_site)
    assert evil.evaluate("bytes => attack(bytes)", list(book.read_bytes())) == "done"
    evil.set_input_files("#file", str(book))
    with evil.expect_navigation():
        evil.eval_on_selector("#f", "f => f.submit()")  # a plain form post
    assert "refused: a request from another site" in evil.content()
    rebound = evil.goto(server.replace("127.0.0.1", "evil.example") + "/")
    assert rebound.status == 403  # the rebound name gets not even the page, nor its token
    assert _stored(server) == before  # nothing was uploaded
    assert app.state.guard.refused >= refused + 3  # the fetch, the form and the rebound page
    context.close()

    context = browser.new_context()
    own = context.new_page()
    own.set_default_timeout(15_000)
    own.goto(server + "/")
    _upload(own, book)
    assert own.wait_for_selector('.c[data-a1="A7"]:has-text("Total")')
    assert _stored(server) == before + 1
    context.close()
