"""Digit spans -> numeric words -> (magnitude, precision, first digit, last digit)."""

from __future__ import annotations

import pytest

from fortap.text.numbers import NAN_FEATURES, NUMBER_CAP, number_features, split_digit_span


@pytest.mark.parametrize(
    ("word", "features"),
    [
        ("5", (1, 0, 5, 5)),
        ("58.50", (2, 2, 5, 0)),
        ("1234.5", (4, 1, 1, 5)),
        ("3000", (4, 0, 3, 0)),
        ("007", (3, 0, 0, 7)),
        ("0.25", (1, 2, 0, 5)),
        ("12345678901234", (NUMBER_CAP, 0, 1, 4)),
        ("1.12345678901", (1, NUMBER_CAP, 1, 1)),
    ],
)
def test_number_features(word, features):
    assert number_features(word) == features


def test_not_a_number_is_id_11_in_all_four_slots():
    assert NAN_FEATURES == (11, 11, 11, 11)


@pytest.mark.parametrize(
    ("span", "words"),
    [
        ("3,000", [("3000", True)]),
        ("1,234.5", [("1234.5", True)]),
        ("58.50", [("58.50", True)]),
        (
            "192.0.0.1",
            [
                ("192", True),
                (".", False),
                ("0", True),
                (".", False),
                ("0", True),
                (".", False),
                ("1", True),
            ],
        ),
        ("2019.", [("2019", True), (".", False)]),
        ("3,", [("3", True)]),
        ("1..5", [("1.5", True)]),
    ],
)
def test_split_digit_span(span, words):
    assert split_digit_span(span) == words
