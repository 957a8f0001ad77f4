"""Structured references: their parts, and the A1 ranges they read against literal tables."""

from __future__ import annotations

import pytest

from fortap.formula import parse_formula
from fortap.formula.printer import to_text
from fortap.formula.structured import StructuredRef, TableIndex, parse_structured
from fortap.formula.structured import resolve_structured as resolve
from fortap.sheet.model import Region, TableDef

# Sales on sheet S: A1:D6, header row 1, data rows 2-5, totals row 6
SALES = TableDef("Sales", Region(0, 0, 5, 3), ("Region", "Qty", "Unit Price", "#Items"), 1, 1)
PLAIN = TableDef("Plain", Region(9, 0, 12, 1), ("K", "V"), 1, 0)  # A10:B13, no totals row
INDEX = TableIndex({"sales": ("S", SALES), "plain": ("S", PLAIN)})


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("Sales[Qty]", StructuredRef("Sales", frozenset({"#data"}), "Qty", "Qty")),
        ("Sales[]", StructuredRef("Sales", frozenset({"#data"}))),
        ("Sales[#All]", StructuredRef("Sales", frozenset({"#all"}))),
        ("Sales[@Qty]", StructuredRef("Sales", frozenset({"#this row"}), "Qty", "Qty")),
        (
            "[@[Unit Price]]",
            StructuredRef(None, frozenset({"#this row"}), "Unit Price", "Unit Price"),
        ),
        (
            "Sales[[#This Row],[Qty]]",
            StructuredRef("Sales", frozenset({"#this row"}), "Qty", "Qty"),
        ),
        (
            "Sales[[#Headers],[#Data],[Qty]:[Unit Price]]",
            StructuredRef("Sales", frozenset({"#headers", "#data"}), "Qty", "Unit Price"),
        ),
        ("Sales['#Items]", StructuredRef("Sales", frozenset({"#data"}), "#Items", "#Items")),
        ("Sales[[#Bogus],[Qty]]", None),
        ("[1]Sheet1!A1", None),
        ("Sales", None),
    ],
)
def test_parts_of_a_structured_reference(text, parts):
    assert parse_structured(text) == parts


@pytest.mark.parametrize(
    ("formula", "cell", "a1"),
    [
        ("=SUM(Sales[Qty])", (3, 7), "=SUM($B$2:$B$5)"),
        ("=SUM(Sales[[#All],[Qty]])", (3, 7), "=SUM($B$1:$B$6)"),
        ("=Sales[[#Totals],[Qty]]", (3, 7), "=$B$6"),
        ("=Sales[[#Headers],[Qty]:[Unit Price]]", (3, 7), "=$B$1:$C$1"),
        ("=Sales[[#Data],[#Totals],[Qty]]", (3, 7), "=$B$2:$B$6"),
        ("=MAX(Sales[])", (3, 7), "=MAX($A$2:$D$5)"),
        ("=Sales[[#This Row],[Qty]]*Sales[[#This Row],[Unit Price]]", (2, 3), "=$B$3*$C$3"),
        ("=[@Qty]*[@[Unit Price]]", (4, 3), "=$B$5*$C$5"),
        ("=COUNTA(sales['#Items])", (3, 7), "=COUNTA($D$2:$D$5)"),
        ('="[@Qty]"&Sales[@Qty]', (1, 3), '="[@Qty]"&$B$2'),
        ("=VLOOKUP(A1,Plain[#All],2,FALSE)", (3, 7), "=VLOOKUP(A1,$A$10:$B$13,2,FALSE)"),
    ],
)
def test_a_reference_becomes_the_range_it_reads(formula, cell, a1):
    assert resolve(formula, INDEX, "S", *cell) == a1


def test_another_sheet_reads_it_qualified():
    assert resolve("=SUM(Sales[Qty])", INDEX, "My sheet", 0, 0) == "=SUM(S!$B$2:$B$5)"
    assert resolve("=SUM(Sales[Qty])", INDEX, "S 2", 0, 0) == "=SUM(S!$B$2:$B$5)"


@pytest.mark.parametrize(
    ("formula", "cell"),
    [
        ("=[@Qty]", (3, 7)),  # outside every table: no table of its own
        ("=Sales[@Qty]", (5, 7)),  # the totals row is no data row
        ("=Sales[@Qty]", (7, 7)),  # below the table
        ("=Plain[#Totals]", (0, 7)),  # no totals row
        ("=Sales[Nope]", (0, 7)),  # no such column
        ("=Other[Qty]", (0, 7)),  # no such table
        ("=Sales[[#Headers],[#Totals]]", (0, 7)),  # not one rectangle
    ],
)
def test_what_does_not_resolve_is_left_as_written(formula, cell):
    assert resolve(formula, INDEX, "S", *cell) == formula


def test_the_parser_keeps_structured_references_as_written():
    f = parse_formula("=Sales[[#This Row],[Qty]]*[@Qty]", "S", (2, 3))
    assert to_text(f.ast) == "=Sales[[#This Row],[Qty]]*[@Qty]"
    assert f.verdict == "structured_reference"
