"""Per-target hits read back from prediction records, and formula texts scored at a target: the
same answers as `metrics.example_hits` on the guesses themselves."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from fortap.tasks.formula_prediction.evaluate import prediction_record
from fortap.tasks.formula_prediction.hits import (
    guess_of_key,
    read_predictions,
    record_hits,
    text_guess,
    text_hits,
)
from fortap.tasks.formula_prediction.metrics import Gold, Guess, example_hits, formula_key

SUM = ("[START]", "[SUM]", "[:]", "[RANGE]", "[RANGE]", "[END]")
PLUS = ("[START]", "[+]", "[RANGE]", "[RANGE]", "[END]")
GOLD = Gold(SUM, ((1, 1), (4, 1)), reachable=True)  # =SUM(B2:B5)
RIGHT = Guess(SUM, ((1, 1), (4, 1)))
SKETCH_ONLY = Guess(SUM, ((1, 1), (3, 1)))  # =SUM(B2:B4)
NOWHERE = Guess(SUM, ((1, 1), None))  # a pointer outside the input: `<WR>`
OTHER = Guess(PLUS, ((1, 27), (1, 2)))  # =AB2+C2
CONSTANT = Guess(("[START]", "[*]", "[RANGE]", "[C-NUM]", "[END]"), ((0, 0),))


def record(gold: Gold, ranked: list[Guess]) -> dict:
    """The `predictions.jsonl` line of one target, through JSON as the file holds it."""
    example = SimpleNamespace(meta={"book": "a.xlsx", "sheet": "S", "target": [5, 1]})
    made = prediction_record(example, gold, [(g, {"score": -1.0}) for g in ranked])
    return json.loads(json.dumps(made))


@pytest.mark.parametrize(
    "ranked",
    [
        [RIGHT, OTHER],
        [SKETCH_ONLY, NOWHERE, CONSTANT, OTHER, OTHER, RIGHT],  # right, but sixth
        [OTHER, CONSTANT, SKETCH_ONLY, RIGHT],
        [NOWHERE],
        [],
    ],
)
def test_a_record_scores_as_its_guesses_did(ranked):
    got = record_hits(record(GOLD, ranked))
    assert got == example_hits(GOLD, ranked, 5)


def test_a_formula_key_reads_back_to_its_guess():
    for guess in (RIGHT, NOWHERE, OTHER, CONSTANT, Guess((), ())):
        key = " ".join(formula_key(guess))
        back = guess_of_key(key)
        assert formula_key(back) == formula_key(guess)
    assert guess_of_key("[+] AB2 C2") == Guess(("[+]", "[RANGE]", "[RANGE]"), ((1, 27), (1, 2)))
    with pytest.raises(ValueError, match="no token and no cell"):
        guess_of_key("[+] total C2")


def test_records_are_read_from_the_run_folder(tmp_path):
    lines = [record(GOLD, [RIGHT]), record(GOLD, [OTHER])]
    (tmp_path / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert read_predictions(tmp_path) == lines


def test_texts_are_parsed_where_the_target_is():
    gold = text_guess("=SUM(B2:B5)", "Sales", (5, 1))
    assert formula_key(gold) == formula_key(GOLD)
    assert text_guess("=SUM(", "Sales", (5, 1)) is None
    at = ("Sales", (5, 1))
    both = {"formula_top1": 1, "formula_top5": 1, "sketch_top1": 1, "sketch_top5": 1}
    assert text_hits(gold, ["=SUM($B$2:B5)", "=B2"], *at) == both  # `$` ignored
    # a text that does not parse is a wrong guess in its place
    later = {"formula_top1": 0, "formula_top5": 1, "sketch_top1": 0, "sketch_top5": 1}
    assert text_hits(gold, ["=SUM(", "=SUM(B2:B4)", "=SUM(B2:B5)"], *at) == later
    six = ["=B2", "=B3", "=B4", "=B5", "=B2+B3", "=SUM(B2:B5)"]
    assert text_hits(gold, six, *at)["formula_top5"] == 0
