"""Fixtures for the sheet tests; the builders themselves live in `sheet_builders.py`."""

from __future__ import annotations

import pytest

from .sheet_builders import save_book_in


@pytest.fixture
def save_book(tmp_path):
    """`save_book(fill, name="book.xlsx")`: a new workbook whose active sheet `fill(ws)` fills."""
    return save_book_in(tmp_path)
