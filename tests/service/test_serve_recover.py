"""`fortap serve`'s "Recover formulas" (`service/recover_routes.py`, `service/recovered.py`): the
open sheet's typed numbers given back the formulas `fortap recover` finds, listed, then accepted
into the session as accepted suggestions are, so the download holds them."""

from __future__ import annotations

import io

import openpyxl
import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")

from fortap.recover import RecoverConfig, recover_sheet  # noqa: E402
from fortap.service import recover_routes, recovered, routes  # noqa: E402
from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.guard import TOKEN_HEADER  # noqa: E402
from fortap.sheet.model import a1  # noqa: E402
from fortap.sheet.read import read_workbook  # noqa: E402
from tests.service.serve_books import (  # noqa: E402
    ORDER_FORMULAS,
    ORDER_VALUES,
    budget_bytes,
    orders_bytes,
)
from tests.service.serve_client import page_client  # noqa: E402

DEFAULT = RecoverConfig().min_score

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CONFIG = ServeConfig(max_upload_bytes=200_000)
AMOUNTS = [f"D{i}" for i in range(2, 10)]


class Counted:
    """`recover_sheet`, counting its calls (the session caches what it finds)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, sheet, cfg):
        self.calls += 1
        return recover_sheet(sheet, cfg)


@pytest.fixture
def counted(monkeypatch) -> Counted:
    counted = Counted()
    monkeypatch.setattr(recovered, "recover_sheet", counted)
    return counted


@pytest.fixture
def client(counted):
    with page_client(create_app(CONFIG)) as c:
        yield c


def _upload(client, data: bytes, name: str = "orders.xlsx") -> str:
    r = client.post("/workbooks", files={"file": (name, data, XLSX)})
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.fixture
def orders(client) -> str:
    return _upload(client, orders_bytes())


def _recover(client, book: str, **body):
    return client.post(f"/workbooks/{book}/recover", json={"sheet": "Orders", **body})


def _accept(client, book: str, **body):
    return client.post(f"/workbooks/{book}/recover/accept", json={"sheet": "Orders", **body})


def _downloaded(client, book: str):
    r = client.get(f"/workbooks/{book}/download")
    assert r.status_code == 200, r.text
    return openpyxl.load_workbook(io.BytesIO(r.content))["Orders"]


def test_the_amounts_and_the_total_get_their_formulas_back(client, orders, tmp_path):
    r = _recover(client, orders)
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["sheet"], body["min_score"], body["typed_numbers"]) == ("Orders", DEFAULT, 25)
    found = body["recovered"]
    assert {f["cell"]: f["formula"] for f in found} == ORDER_FORMULAS
    assert {f["cell"]: f["value"] for f in found} == ORDER_VALUES
    assert [f["cell"] for f in found] == [*AMOUNTS, "D10"]  # reading order
    assert all(f["sheet"] == "Orders" and DEFAULT <= f["score"] <= 1 for f in found)
    assert found[-1]["evidence"] == "the total of the 8 numbers of D2:D9"
    assert all("D2:D9" in f["evidence"] for f in found)

    path = tmp_path / "orders.xlsx"  # as `fortap recover --json` lists them for the same file
    path.write_bytes(orders_bytes())
    cli = recover_sheet(read_workbook(path).sheets[0])
    assert [(f.sheet, a1(f.row, f.col), f.formula, f.value, f.evidence, round(f.score, 4),
             f.family) for f in cli] == [tuple(f.values()) for f in found]  # fmt: skip

    # nothing is written until accepted
    assert client.get(f"/workbooks/{orders}").json()["accepted"] == []
    assert _downloaded(client, orders)["D2"].value == 36


def test_a_higher_min_score_lists_what_recover_sheet_keeps_at_it(client, orders, tmp_path):
    path = tmp_path / "orders.xlsx"
    path.write_bytes(orders_bytes())
    sheet = read_workbook(path).sheets[0]
    for min_score in (0.0, 0.95, 1):
        r = _recover(client, orders, min_score=min_score)
        assert r.status_code == 200, r.text
        expected = [(a1(f.row, f.col), f.formula)
                    for f in recover_sheet(sheet, RecoverConfig(min_score=min_score))]  # fmt: skip
        assert [(f["cell"], f["formula"]) for f in r.json()["recovered"]] == expected
        assert all(f["score"] >= min_score for f in r.json()["recovered"])


def test_accept_all_puts_the_formulas_into_the_session_and_the_download(client, orders, counted):
    assert _recover(client, orders).status_code == 200
    r = _accept(client, orders)
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["sheet"], body["min_score"], body["left"]) == ("Orders", DEFAULT, 0)
    assert [(w["cell"], w["formula"], w["value"], w["error"]) for w in body["written"]] == [
        (cell, ORDER_FORMULAS[cell], ORDER_VALUES[cell], None) for cell in [*AMOUNTS, "D10"]
    ]  # the values the cells held: recovery never changes one
    assert counted.calls == 1  # the accept took the list the first call found

    accepted = client.get(f"/workbooks/{orders}").json()["accepted"]
    assert accepted == [
        {"sheet": "Orders", "cell": c, "formula": f} for c, f in ORDER_FORMULAS.items()
    ]
    cells = client.get(f"/workbooks/{orders}/sheets/Orders", params={"range": "D2:D10"}).json()
    assert [(c["a1"], c["formula"], c["value"], c["accepted"]) for c in cells["cells"]] == [
        (cell, ORDER_FORMULAS[cell], ORDER_VALUES[cell], True) for cell in [*AMOUNTS, "D10"]
    ]
    ws = _downloaded(client, orders)
    assert {cell: ws[cell].value for cell in ORDER_FORMULAS} == ORDER_FORMULAS
    assert (ws["B2"].value, ws["C2"].value, ws["A10"].value) == (12, 3, "Total")  # kept as typed

    again = _recover(client, orders).json()  # they are formulas now: nothing left to recover
    assert again["recovered"] == [] and again["typed_numbers"] == 16


def test_accept_chosen_cells_only(client, orders):
    r = _accept(client, orders, cells=["D3", "$d$4", "D3"])
    assert r.status_code == 200, r.text
    assert [(w["cell"], w["formula"]) for w in r.json()["written"]] == [
        ("D3", "=B3*C3"),
        ("D4", "=B4*C4"),
    ]
    assert [a["cell"] for a in client.get(f"/workbooks/{orders}").json()["accepted"]] == [
        "D3",
        "D4",
    ]
    rest = _recover(client, orders).json()["recovered"]  # the list without the accepted ones
    assert [f["cell"] for f in rest] == ["D2", *AMOUNTS[3:], "D10"]
    ws = _downloaded(client, orders)
    assert (ws["D2"].value, ws["D3"].value, ws["D4"].value) == (36, "=B3*C3", "=B4*C4")

    r = _accept(client, orders, cells=["D4", "A1", "B2"])  # accepted already, a label, an input
    assert r.status_code == 422
    assert r.json()["detail"] == (
        f"no recovered formula for A1, B2, D4 on sheet 'Orders' at min_score {DEFAULT} (already "
        "accepted, or not found): recover again to see what can be accepted"
    )
    r = _accept(client, orders, cells=["D99x"])
    assert r.status_code == 422
    assert r.json()["detail"] == "bad cell 'D99x': expected A1 text such as B7 (sheet 'Orders')"


def test_accept_all_goes_in_parts_of_at_most_max_accepted(client, orders, counted, monkeypatch):
    monkeypatch.setattr(recover_routes, "MAX_ACCEPTED", 4)
    done, lefts = [], []
    while True:
        body = _accept(client, orders).json()
        done += [w["cell"] for w in body["written"]]
        lefts.append(body["left"])
        if not body["left"]:
            break
    assert lefts == [5, 1, 0]
    assert done == [*AMOUNTS, "D10"]
    assert counted.calls == 1  # each part took the same list: the formulas changed no value
    ws = _downloaded(client, orders)
    assert {cell: ws[cell].value for cell in ORDER_FORMULAS} == ORDER_FORMULAS


def test_a_bad_min_score_is_refused_with_a_message(client, orders):
    for bad in (1.5, -0.1):
        for post in (_recover, _accept):
            r = post(client, orders, min_score=bad)
            assert r.status_code == 422, r.text
            assert r.json()["detail"] == (
                "min_score must be between 0 and 1 (the score a recovered formula must reach; "
                f"default {DEFAULT}), got {bad!r}"
            )
    r = _recover(client, orders, min_score="high")
    assert r.status_code == 422
    assert r.json()["detail"].startswith("min_score: Input should be a valid number")
    r = _recover(client, orders, min_score=0.5, extra=1)
    assert r.status_code == 422 and r.json()["detail"].startswith("extra:")
    assert client.get(f"/workbooks/{orders}").json()["accepted"] == []


def test_a_formula_written_otherwise_drops_the_cached_list(client, orders, counted):
    assert _recover(client, orders).status_code == 200
    session = client.app.state.store.get(orders)
    assert list(session.recovered) == [("Orders", DEFAULT)]
    write = {"sheet": "Orders", "cell": "E2", "formula": "=D2*2"}
    assert client.post(f"/workbooks/{orders}/cells", json=write).status_code == 200
    assert session.recovered == {}
    assert _recover(client, orders).status_code == 200
    assert counted.calls == 2


def test_a_formula_written_while_recovering_makes_the_accept_a_409(client, orders, monkeypatch):
    session = client.app.state.store.get(orders)

    def meanwhile(sheet, cfg):  # another request writes while the search runs, unlocked
        with session.lock:
            routes.accept_formula(session, "Orders", "E2", "=D2*2")
        return recover_sheet(sheet, cfg)

    monkeypatch.setattr(recovered, "recover_sheet", meanwhile)
    r = _accept(client, orders)
    assert r.status_code == 409
    assert r.json()["detail"] == (
        "sheet 'Orders' was written while its formulas were recovered; recover them again"
    )
    assert session.recovered == {}  # found on a sheet that is gone: not kept
    assert [a["cell"] for a in client.get(f"/workbooks/{orders}").json()["accepted"]] == ["E2"]


def test_two_accepts_at_once_both_go_through(client, orders, monkeypatch):
    found = recover_routes._found

    def and_another(book, sheet, min_score):  # a second click's accept lands meanwhile
        out = found(book, sheet, min_score)
        with book.lock:
            kept = dict(book.recovered)
            routes.accept_formula(book, "Orders", "D2", "=B2*C2", False)
            book.recovered.update(kept)
        return out

    assert _recover(client, orders).status_code == 200
    monkeypatch.setattr(recover_routes, "_found", and_another)
    r = _accept(client, orders, cells=["D3"])
    assert r.status_code == 200, r.text  # the list still holds: D2's formula changed no value
    assert [w["cell"] for w in r.json()["written"]] == ["D3"]
    assert [a["cell"] for a in client.get(f"/workbooks/{orders}").json()["accepted"]] == [
        "D2",
        "D3",
    ]


def test_both_routes_need_the_token_and_the_pages_origin(client, orders):
    for path in ("recover", "recover/accept"):
        url = f"/workbooks/{orders}/{path}"
        r = client.post(url, json={"sheet": "Orders"}, headers={TOKEN_HEADER: ""})
        assert r.status_code == 403, r.text
        assert r.json()["detail"].startswith("refused: the X-Fortap-Token header is missing")
        r = client.post(url, json={"sheet": "Orders"}, headers={"Origin": "http://evil.example"})
        assert r.status_code == 403
        assert r.json()["detail"].startswith("refused: a request from another site")
    assert client.get(f"/workbooks/{orders}").json()["accepted"] == []


def test_an_unknown_sheet_is_404_and_a_large_sheet_is_refused(client, orders, monkeypatch):
    r = client.post(f"/workbooks/{orders}/recover", json={"sheet": "Nope"})
    assert r.status_code == 404
    assert r.json()["detail"] == "no sheet 'Nope' in 'orders.xlsx' (its sheets: 'Orders')"
    monkeypatch.setattr(recovered, "MAX_RECOVERED_CELLS", 20)
    for post in (_recover, _accept):
        r = post(client, orders)
        assert r.status_code == 422
        assert r.json()["detail"] == (
            "sheet 'Orders' has 38 cells with content, over the 20 formula recovery reads in "
            "one request; fortap recover reads the whole sheet"
        )


def test_a_sheet_with_formulas_already_is_left_as_it_is(client):
    book = _upload(client, budget_bytes(), "budget.xlsx")
    r = client.post(f"/workbooks/{book}/recover", json={"sheet": "Budget"})
    assert r.status_code == 200, r.text
    assert all(f["cell"] not in {"B7", "C7", "F7"} for f in r.json()["recovered"])
