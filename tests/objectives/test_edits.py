"""Blanking and appending cells of a serialised example (the revenue table, see conftest)."""

from __future__ import annotations

import random

from fortap.encoding.example import NULL_POS
from fortap.encoding.formats import DEFAULT_FORMAT
from fortap.encoding.formula_targets import FORMULA_KEY
from fortap.objectives.edits import (
    append_item,
    blank_cell,
    cell_content,
    cell_spans,
    free_slot,
    word_positions,
)
from fortap.text.numbers import NAN_FEATURES


def test_cell_spans_cover_context_and_cells(example):
    spans = cell_spans(example)
    assert spans[0] == (0, 4)  # [CLS] revenue by region
    assert spans[1] == (4, 6)  # [SEP] region
    assert spans[12] == (26, 28)  # [SEP] [VAL] (11.25)
    assert len(spans) == 13


def test_word_positions_skip_numbers_and_specials(example, vocab):
    spans = cell_spans(example)
    assert word_positions(example, 7, spans, vocab.no_target) == [17]  # "north"
    assert word_positions(example, 5, spans, vocab.no_target) == []  # "2019" is a number
    assert word_positions(example, 3, spans, vocab.no_target) == []  # [EMP]
    assert word_positions(example, 0, spans, vocab.no_target) == [1, 2, 3]  # context words


def test_blank_cell_keeps_position_and_leaves_the_input_alone(example, vocab, tokenizer):
    north = tokenizer.id_of("north")
    out = blank_cell(example, 7, vocab.emp)
    assert out.token_ids[16:18] == [vocab.sep, vocab.emp]
    assert out.numbers[17] == NAN_FEATURES
    assert (out.rows[17], out.cols[17], out.in_cell_pos[17]) == (2, 0, 1)
    assert out.top_coords[17] == example.top_coords[16]
    assert len(out) == len(example)
    assert example.token_ids[17] == north  # the original is unchanged


def test_append_item_adds_an_out_of_table_cell(example, vocab, tokenizer):
    spans = cell_spans(example)
    content = cell_content(example, 7, spans)
    out, cell = append_item(example, content, vocab.sep, tree_slot=5)
    assert cell == 13
    assert out.token_ids[-2:] == [vocab.sep, tokenizer.id_of("north")]
    assert out.cell_ids[-2:] == [13, 13]
    assert out.in_cell_pos[-2:] == [0, 1]
    assert out.rows[-2:] == [NULL_POS, NULL_POS] and out.cols[-1] == NULL_POS
    assert out.top_coords[-1] == (5, 5, 5, 5) and out.left_coords[-1] == (5, 5, 5, 5)
    assert out.formats[-1] == DEFAULT_FORMAT
    assert out.cell_coords[-1] == (-1, -1)
    assert len(out.cell_coords) == len(example.cell_coords) + 1
    assert len(example) == 28


def test_appended_items_get_distinct_tree_slots(example, vocab):
    """Two items on one slot would see each other and get identical [SEP] states."""
    out, rng = example, random.Random(0)
    for _ in range(4):
        out, _ = append_item(
            out, [(vocab.mask, (11, 11, 11, 11))], vocab.sep, free_slot(out, rng, 4)
        )
    slots = [out.top_coords[p][0] for p in range(len(example), len(out), 2)]
    assert sorted(slots) == [0, 1, 2, 3]
    assert free_slot(out, rng, 4) in range(4)  # all used: any slot


def test_formula_related_cells_of_a_formula_sample(tokenizer):
    from fortap.objectives.edits import formula_related

    from .formula_samples import formula_example

    sample = formula_example(tokenizer, (1, 4), "tag")  # =B2+C2 on the "north" row
    facts = sample.targets[FORMULA_KEY]
    coords = {tuple(sample.cell_coords[c - 1]) for c in formula_related(sample)}
    # the formula cell, its headers (total, north), the year headers and the referenced cells
    assert coords == {(1, 4), (0, 4), (1, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2)}
    assert facts.formula_header in formula_related(sample)


def test_formula_related_is_empty_without_formula_facts(example):
    from fortap.objectives.edits import formula_related

    assert formula_related(example) == frozenset()
