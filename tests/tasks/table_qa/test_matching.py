from __future__ import annotations

from fortap.tasks.table_qa.matching import answers_match, decimals, to_value


def test_numbers_after_rounding_to_the_gold():
    assert answers_match([3.5555], [3.56])
    assert not answers_match([3.5455], [3.56])
    assert answers_match([50 / 120], [0.416667])
    assert answers_match([27.0], [27])
    assert not answers_match([27.3], [27])  # a gold integer is not widened
    assert decimals(3.56) == 2 and decimals(27.0) == 0


def test_text_is_normalised_and_numbers_read():
    assert to_value("1,910,361") == 1910361.0
    assert to_value("12%") == 12.0
    assert answers_match(["Ontario "], ["ontario"])
    assert answers_match(["19 to 49 years (2)"], ["19 to 49 years"])
    assert not answers_match(["quebec"], ["ontario"])


def test_lists_match_as_sets():
    assert answers_match(["b", "a"], ["a", "b"])
    assert not answers_match(["a"], ["a", "b"])
    assert not answers_match(["a", "a"], ["a", "b"])
    assert not answers_match([], [])
