"""HiTab's answer matching: execution accuracy compares a predicted answer with the gold one.

As HiTab's scorer (`hmt_score`): a value that reads as a number ("1,234", "12%", "(3)", "$5")
is a float, other text is normalised as the WikiTableQuestions evaluator does (accents, quotes
and dashes unified, trailing citations, parentheses and a final period removed, lower case,
spaces collapsed). Two numbers match within 1e-5, or, for a gold number showing
decimals, when the prediction rounded to those decimals equals the gold (the gold answers of
computed questions are rounded: a ratio 3.5556 matches a gold 3.56; a gold integer is never
widened to +-0.5). Lists match as sets: the same number of values, each gold value met by its own
prediction.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

Value = float | str

_NUMBER = re.compile(r"-?\d+(\.\d+)?|-?\.\d+")


def normalize_text(text: str) -> str:
    """The WikiTableQuestions normalisation of a string answer."""
    text = "".join(
        ch for ch in unicodedata.normalize("NFKD", text) if unicodedata.category(ch) != "Mn"
    )
    text = re.sub("[‘’´`]", "'", text)
    text = re.sub("[“”]", '"', text)
    text = re.sub("[‐‑‒–—−]", "-", text)
    while True:
        before = text
        text = re.sub(r"((?<!^)\[[^\]]*\]|\[\d+\]|[•♦†‡*#+])*$", "", text.strip())
        text = re.sub(r"(?<!^)( \([^)]*\))*$", "", text.strip())
        text = re.sub(r'^"([^"]*)"$', r"\1", text.strip())
        if text == before:
            break
    text = text[:-1] if text.endswith(".") else text
    return re.sub(r"\s+", " ", text).lower().strip()


def to_value(answer) -> Value:
    """A float for anything that reads as a number, else the normalised text."""
    if isinstance(answer, bool):
        return str(answer).lower()
    if isinstance(answer, int | float):
        return float(answer)
    text = str(answer).strip()
    bare = text.replace(",", "").replace("$", "").rstrip("%").strip()
    if bare.startswith("(") and bare.endswith(")"):
        bare = bare[1:-1]
    if _NUMBER.fullmatch(bare):
        return float(bare)
    return normalize_text(text)


def decimals(gold) -> int:
    """Decimals shown by a gold number (`3.56` -> 2, `27` and `27.0` -> 0)."""
    text = repr(float(gold)) if isinstance(gold, int | float) else str(gold)
    if "e" in text.lower() or "." not in text:
        return 0
    shown = text.split(".")[1].rstrip("%").rstrip("0")
    return len(shown)


def values_match(predicted, gold) -> bool:
    p, g = to_value(predicted), to_value(gold)
    if isinstance(p, float) and isinstance(g, float):
        shown = decimals(gold)
        return abs(p - g) < 1e-5 or (shown > 0 and abs(round(p, shown) - g) < 1e-9)
    return p == g


def answers_match(predicted: Sequence, gold: Sequence) -> bool:
    """Execution-accuracy match of two answer lists, compared as sets (see module doc)."""
    if not gold or len(predicted) != len(gold):
        return False
    free = list(predicted)
    for g in gold:
        hit = next((i for i, p in enumerate(free) if values_match(p, g)), None)
        if hit is None:
            return False
        free.pop(hit)
    return True
