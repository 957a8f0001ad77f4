"""Prefix sketch + pointed addresses -> Excel text."""

from __future__ import annotations

import pytest

from fortap.evaluation.render import render_formula


@pytest.mark.parametrize(
    ("sketch", "addresses", "text"),
    [
        ("[SUM] [:] [RANGE] [RANGE]", ["C4", "D4"], "=SUM(C4:D4)"),
        ("[/] [SUM] [:] [RANGE] [RANGE] [RANGE]", ["B2", "B5", "B6"], "=SUM(B2:B5)/B6"),
        ("[*] [+] [RANGE] [RANGE] [RANGE]", ["A1", "B1", "C1"], "=(A1+B1)*C1"),
        ("[-] [RANGE] [-] [RANGE] [RANGE]", ["A1", "B1", "C1"], "=A1-(B1-C1)"),
        ("[-] [-] [RANGE] [RANGE] [RANGE]", ["A1", "B1", "C1"], "=A1-B1-C1"),
        ("[ROUND] [*] [RANGE] [C-NUM] [C-NUM]", ["D3"], "=ROUND(D3*<num>, <num>)"),
        ("[IF] [>] [RANGE] [C-NUM] [RANGE] [C-STR]", ["A1", "B1"], '=IF(A1><num>, B1, "<text>")'),
        ("[SUM] [RANGE] [RANGE] [RANGE]", ["A1", "B1", "C1"], "=SUM(A1, B1, C1)"),
        ("[%] [RANGE]", ["A1"], "=A1%"),
        ("[-] [RANGE]", ["A1"], "=-A1"),
        ("[+] [SUM] [:] [RANGE] [RANGE] [RANGE]", ["A1", "A3", "B1"], "=SUM(A1:A3)+B1"),
        ("[SUM] [:] [RANGE]", ["A1"], "=SUM(A1:?)"),
    ],
)
def test_render(sketch, addresses, text):
    tokens = ["[START]", *sketch.split(), "[END]"]
    assert render_formula(tokens, addresses) == text
