"""Blanking, inserting and appending cells of a serialised example held as arrays (the revenue
table, see conftest): the edits every objective's targets are built with."""

from __future__ import annotations

import random

import numpy as np

from fortap.encoding.arrays import ExampleArrays
from fortap.encoding.example import NULL_POS
from fortap.encoding.formats import DEFAULT_FORMAT
from fortap.encoding.formula_targets import FORMULA_KEY
from fortap.objectives.draft import Draft, formula_related, pieces, word_tokens
from fortap.text.numbers import NAN_FEATURES

from .objective_kit import cell_spans


def draft_of(example) -> Draft:
    return Draft(ExampleArrays.from_example(example))


def test_cell_spans_cover_context_and_cells(example):
    draft = draft_of(example)
    assert draft.span(0) == (0, 4)  # [CLS] revenue by region
    assert draft.span(1) == (4, 6)  # [SEP] region
    assert draft.span(12) == (26, 28)  # [SEP] [VAL] (11.25)
    assert len(draft.starts) == 13 and cell_spans(example)[12] == (26, 28)


def test_word_tokens_skip_numbers_and_specials(example, vocab):
    words = np.flatnonzero(word_tokens(ExampleArrays.from_example(example).ints, vocab))
    spans = cell_spans(example)
    in_cell = lambda cell: [p for p in words if spans[cell][0] <= p < spans[cell][1]]  # noqa: E731
    assert in_cell(7) == [17]  # "north"
    assert in_cell(5) == []  # "2019" is a number
    assert in_cell(3) == []  # [EMP]
    assert in_cell(0) == [1, 2, 3]  # context words


def test_blank_keeps_position_and_leaves_the_sample_alone(example, vocab, tokenizer):
    north = tokenizer.id_of("north")
    sample = ExampleArrays.from_example(example)
    draft = Draft(sample)
    draft.blank([7, 1], vocab.emp)
    out = draft.finish().to_example()
    assert out.token_ids[4:6] == [vocab.sep, vocab.emp]  # "region" (one piece) blanked too
    assert out.token_ids[16:18] == [vocab.sep, vocab.emp]
    assert out.numbers[17] == NAN_FEATURES
    assert (out.rows[17], out.cols[17], out.in_cell_pos[17]) == (2, 0, 1)
    assert out.top_coords[17] == example.top_coords[16] and out.formats[17] == example.formats[16]
    assert len(out) == len(example)
    assert sample.ints[17, 0] == north and example.token_ids[17] == north  # unchanged


def test_blank_shifts_the_cells_after_a_longer_cell(tokenizer, vocab):
    from dataclasses import replace

    from fortap.encoding.serialize import serialize

    from .objective_kit import revenue_table, text

    table = revenue_table()
    rows = [list(row) for row in table.cells]
    rows[2][0] = text("north east coast")  # cell 7: [SEP] + 3 pieces
    example = serialize(replace(table, cells=tuple(map(tuple, rows))), tokenizer, context="x")
    spans = cell_spans(example)
    assert spans[7][1] - spans[7][0] == 4
    draft = draft_of(example)
    draft.blank([10, 7], vocab.emp)
    out = draft.finish().to_example()
    assert len(out) == len(example) - 2
    after = cell_spans(out)
    assert after[7] == (spans[7][0], spans[7][0] + 2) and after[8][0] == spans[8][0] - 2
    assert after[12] == (spans[12][0] - 2, spans[12][1] - 2)
    assert out.token_ids[after[10][0] : after[10][1]] == [vocab.sep, vocab.emp]


def test_insert_context_goes_after_the_context_and_renumbers_nothing(example, vocab):
    draft = draft_of(example)
    draft.insert_context(pieces([vocab.mask, vocab.mask]))
    out = draft.finish().to_example()
    assert out.token_ids[:6] == [*example.token_ids[:4], vocab.mask, vocab.mask]
    assert out.cell_ids[4:6] == [0, 0] and out.rows[4] == NULL_POS
    assert out.top_coords[4] == (-1, -1, -1, -1) and out.formats[4] == DEFAULT_FORMAT
    assert out.token_ids[6:] == example.token_ids[4:] and cell_spans(out)[1] == (6, 8)


def test_append_adds_an_out_of_table_cell(example, vocab, tokenizer):
    draft = draft_of(example)
    cell = draft.append(draft.content(7), vocab.sep, tree_slot=5)
    assert cell == 13 and len(draft) == len(example) + 2
    out = draft.finish().to_example()
    assert out.token_ids[-2:] == [vocab.sep, tokenizer.id_of("north")]
    assert out.cell_ids[-2:] == [13, 13]
    assert out.in_cell_pos[-2:] == [0, 1]
    assert out.rows[-2:] == [NULL_POS, NULL_POS] and out.cols[-1] == NULL_POS
    assert out.top_coords[-1] == (5, 5, 5, 5) and out.left_coords[-1] == (5, 5, 5, 5)
    assert out.formats[-1] == DEFAULT_FORMAT
    assert out.cell_coords[-1] == (-1, -1)
    assert len(out.cell_coords) == len(example.cell_coords) + 1


def test_appended_items_get_distinct_tree_slots(example, vocab):
    """Two items on one slot would see each other and get identical [SEP] states."""
    draft, rng = draft_of(example), random.Random(0)
    for _ in range(4):
        draft.append(pieces([vocab.mask]), vocab.sep, draft.free_slot(rng, 4))
    out = draft.finish().to_example()
    slots = [out.top_coords[p][0] for p in range(len(example), len(out), 2)]
    assert sorted(slots) == [0, 1, 2, 3]
    again = draft_of(out)  # the slots of items already in a sample count as used
    assert again.free_slot(rng, 5) == 4


def test_formula_related_cells_of_a_formula_sample(tokenizer):
    from .formula_samples import formula_example

    sample = formula_example(tokenizer, (1, 4), "tag")  # =B2+C2 on the "north" row
    facts = sample.targets[FORMULA_KEY]
    coords = {tuple(sample.cell_coords[c - 1]) for c in formula_related(sample)}
    # the formula cell, its headers (total, north), the year headers and the referenced cells
    assert coords == {(1, 4), (0, 4), (1, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2)}
    assert facts.formula_header in formula_related(sample)


def test_formula_related_is_empty_without_formula_facts(example):
    assert formula_related(example) == frozenset()
