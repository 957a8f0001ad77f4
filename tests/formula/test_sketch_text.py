"""The one printer of sketches (`formula.from_sketch`): template text by example, and both
texts on a record of many sketches.

`golden/sketch_texts.json` rows are `[sketch, template, formula]` for every sketch the decoder's
grammar lets end in up to 5 tokens (20 of the vocabulary's tokens), every sequence of up to 2
tokens and 300 of 3-8 drawn with seed 0 (valid or not), and the sketches of the EUSES formulas
(`../shared/data/xlparser-formulas`) of up to 8 tokens. `template` is the text the formula-
prediction renderer printed while it kept its own arity and precedence tables, `formula` the
text of `formula_text` (null: no reading). `[RANGE]` slots are A2, B3, C4, ... (cells (1, 0),
(2, 1), ...). `changed` gives today's template where it differs from that record: only where
the old tables disagreed with the arity table (`INDEX` takes up to 4 arguments) or with
`printer`'s precedence (a sign binds tighter than `^`: `A2^-B3`, `-(A2^B3)`; `:` is wrapped
where an operand or its operator is not a plain reference), so apart from `INDEX` only
parentheses move.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fortap.errors import FormulaError
from fortap.formula.from_sketch import formula_text, template_text
from fortap.formula.tokens import END, RANGE, START

GOLDEN = Path(__file__).parent / "golden" / "sketch_texts.json"


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
        ("[UNKOP] [RANGE] [RANGE]", ["A1", "<WR>"], "=UNKOP(A1, <WR>)"),
        ("[ABS] [RANGE] [RANGE]", ["A1", "B1"], "=ABS(A1), B1"),  # a leftover after the formula
        ("[INDEX] [RANGE] [RANGE] [RANGE] [RANGE]", ["A1", "B1", "C1", "D1"],
         "=INDEX(A1, B1, C1, D1)"),
        ("[^] [RANGE] [-] [RANGE]", ["A1", "B1"], "=A1^-B1"),  # a sign binds tighter than ^
    ],
)  # fmt: skip
def test_template_text_by_example(sketch, addresses, text):
    assert template_text([START, *sketch.split(), END], addresses) == text


def test_both_texts_on_the_record_of_many_sketches():
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    changed = golden["changed"]
    assert len(golden["rows"]) > 3000
    for key, before, formula in golden["rows"]:
        sketch = key.split()
        n = sketch.count(RANGE)
        shown = [f"{'ABCDEFGH'[k % 8]}{k + 2}" for k in range(n)]
        assert template_text(sketch, shown) == changed.get(key, before), key
        cells = [(k + 1, k % 8) for k in range(n)]
        if formula is None:
            with pytest.raises(FormulaError):
                formula_text(sketch, cells)
        else:
            assert formula_text(sketch, cells) == formula, key


def test_the_changed_templates_differ_only_where_the_old_tables_did():
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    before = {key: text for key, text, _ in golden["rows"]}
    assert 0 < len(golden["changed"]) < len(before) / 20
    for key, now in golden["changed"].items():
        if "[INDEX]" not in key.split():
            assert now.replace("(", "").replace(")", "") == before[key].replace("(", "").replace(
                ")", ""
            ), key
