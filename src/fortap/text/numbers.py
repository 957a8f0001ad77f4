"""Numbers in cell text: how a digit span is cut into numeric words, and each word's features.

TUTA reads a number as one token plus four small features instead of a run of digit pieces.
A *digit span* is a maximal run that starts with an ASCII digit and continues with digits,
commas and dots ("3,000.50", "192.0.0.1"). Commas inside it are thousands separators and are
dropped; a span with two or more dots is not one number but dotted integers ("192 . 0 . 0 . 1");
otherwise the span is one *numeric word*, an integer ("3000") or a decimal ("58.50").

Each numeric word carries four feature ids, each in 0..11:

- magnitude: digits before the decimal point, leading zeros included ("007" -> 3);
- precision: digits after the decimal point (0 for an integer);
- first digit: the leading digit of the integer part;
- last digit: the final digit of the word.

Magnitude and precision are capped at `NUMBER_CAP` (10 = "ten or more"); `NOT_A_NUMBER`
(11) fills all four slots of a non-numeric token and of padding. No sign, no percent, no scale:
'-', '%' and '$' stay separate text tokens, as in the reference.

One departure from the reference, on purpose: dots that *end* a digit span ("in 2019.") are
sentence punctuation, so they become '.' tokens after the number instead of turning "2019." into
an out-of-vocabulary `[VAL]` with magnitude 5.
"""

from __future__ import annotations

NUMBER_CAP = 10  # feature id meaning "10 or more" (magnitude, precision)
NOT_A_NUMBER = 11  # feature id of a non-numeric token and of padding
NAN_FEATURES = (NOT_A_NUMBER, NOT_A_NUMBER, NOT_A_NUMBER, NOT_A_NUMBER)

Features = tuple[int, int, int, int]


def split_digit_span(span: str) -> list[tuple[str, bool]]:
    """Cut a digit span into `(text, is_number)` words.

    >>> split_digit_span("3,000.5")
    [('3000.5', True)]
    >>> split_digit_span("192.0.0.1")
    [('192', True), ('.', False), ('0', True), ('.', False), ('0', True), ('.', False), ('1', True)]
    """
    assert span[:1].isdigit(), f"a digit span starts with a digit: {span!r}"
    plain = span.replace(",", "")
    core = plain.rstrip(".")
    trailing = [(".", False)] * (len(plain) - len(core))
    parts = [p for p in core.split(".") if p]
    if len(parts) > 2:  # dotted integers such as an IP address or a version number
        words: list[tuple[str, bool]] = []
        for part in parts:
            words += [(part, True), (".", False)]
        return words[:-1] + trailing
    return [(".".join(parts), True), *trailing]


def number_features(word: str) -> Features:
    """Magnitude, precision, first and last digit ids of a numeric word ("58.50" -> (2, 2, 5, 0))."""
    integer, _, fraction = word.partition(".")
    assert integer.isdigit() and (not fraction or fraction.isdigit()), (
        f"not a numeric word: {word!r}"
    )
    magnitude = min(len(integer), NUMBER_CAP)
    precision = min(len(fraction), NUMBER_CAP)
    return magnitude, precision, int(integer[0]), int(word[-1])


def is_integer_word(word: str) -> bool:
    """True for a numeric word without a decimal point."""
    return "." not in word
