"""Per-target hits read back from a run's predictions, or scored on formula texts, with the one
gold match of the metrics (`metrics.example_hits`).

- A prediction record (`evaluate.prediction_record`, a line of `predictions.jsonl`) keeps the
  gold and each ranked candidate as formula keys (`metrics.formula_key` joined by spaces);
  `record_hits` turns them back into a `Gold` and `Guess`es (`guess_of_key`: vocabulary tokens
  stay, an A1 address is a `[RANGE]` at that cell, `<WR>` one pointing nowhere) and scores
  them, so a target counts as the run counted it.
- Another system's ranked formula texts for a target (the suggestion engine's) are parsed
  where the target is (`text_guess`) and scored against a gold the same way (`text_hits`); a
  text that does not parse is a wrong guess in its place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.references import parse_address
from fortap.formula.tokens import FORMULA_VOCAB_INDEX, RANGE
from fortap.tasks.formula_prediction.metrics import NOT_A_CELL, Gold, Guess, example_hits

PREDICTIONS = "predictions.jsonl"
NO_GUESS = Guess((), ())  # a text that does not parse: no gold has an empty sketch


def read_predictions(folder: str | Path) -> list[dict]:
    """The prediction records of a run or evaluation folder (its `predictions.jsonl`)."""
    path = Path(folder) / PREDICTIONS
    return [json.loads(line) for line in path.read_text().splitlines()]


def guess_of_key(key: str) -> Guess:
    """The guess whose `formula_key`, joined by spaces, is `key`."""
    sketch, ranges = [], []
    for token in key.split():
        if token in FORMULA_VOCAB_INDEX:
            sketch.append(token)
            continue
        sketch.append(RANGE)
        if token == NOT_A_CELL:
            ranges.append(None)
            continue
        parsed = parse_address(token)
        if parsed is None or parsed[1] is not None or parsed[0].row is None:
            raise ValueError(f"guess_of_key: {token!r} in {key!r} is no token and no cell")
        ranges.append((parsed[0].row, parsed[0].col))
    return Guess(tuple(sketch), tuple(ranges))


def record_gold(record: dict) -> Gold:
    """The gold of a prediction record."""
    guess = guess_of_key(record["gold"])
    return Gold(guess.sketch, guess.ranges, bool(record["reachable"]))


def record_guesses(record: dict) -> list[Guess]:
    """The ranked candidates of a prediction record."""
    return [guess_of_key(c["prefix"]) for c in record["candidates"]]


def record_hits(record: dict, k: int = 5) -> dict[str, int]:
    """`example_hits` of a prediction record: formula and sketch top-1 and top-k as 0 / 1."""
    return example_hits(record_gold(record), record_guesses(record), k)


def text_guess(text: str, sheet: str, at: tuple[int, int]) -> Guess | None:
    """Formula `text` entered at sheet cell `at` of `sheet` as a guess (its sketch and the
    cell of each reference); None when it does not parse."""
    try:
        parsed = parse_formula(text, sheet, at)
    except FortapError:
        return None
    return Guess(parsed.sketch, parsed.ranges)


def text_hits(
    gold: Guess, texts: Sequence[str], sheet: str, at: tuple[int, int], k: int = 5
) -> dict[str, int]:
    """`example_hits` of ranked formula texts entered at `at` of `sheet` against `gold`."""
    guesses = [text_guess(t, sheet, at) or NO_GUESS for t in texts[:k]]
    return example_hits(Gold(gold.sketch, gold.ranges), guesses, k)
