"""Which run a number aggregates along its line (`sums.aggregate_cues`), and the layout's columns."""

from __future__ import annotations

import numpy as np

from fortap.sheet.model import Cell, Sheet
from fortap.tasks.cell_types.features import sheet_features
from fortap.tasks.cell_types.sums import AGGREGATE_NAMES, aggregate_cues

SUM, AVERAGE, DIFFERENCE, SHARE, REPRODUCED = range(len(AGGREGATE_NAMES))


def test_each_aggregate_names_its_run():
    v = np.array([1.0, 2.0, 3.0, 6.0, 3.0, 2.0, 50.0])  # one line, read in order
    cues = aggregate_cues(np.zeros(7, int), np.arange(7), v)
    assert cues[2, SUM] == -2 and cues[3, SUM] == -3  # 1+2 and 1+2+3, before them
    assert cues[4, AVERAGE] == -4  # (1+2+3+6)/4
    assert cues[4, DIFFERENCE] == 1  # 6-3
    assert cues[5, SHARE] == 1  # 6/3
    assert not cues[6, :4].any() and not cues[0, :4].any()
    assert np.allclose(cues[:, REPRODUCED], 4 / 7)


def test_a_total_above_its_parts_and_lines_kept_apart():
    lines = np.array([0, 0, 0, 1, 1, 1])
    v = np.array([10.0, 4.0, 6.0, 10.0, 4.0, 5.0])
    cues = aggregate_cues(lines, np.array([0, 1, 2, 0, 1, 2]), v)
    assert cues[0, SUM] == 2 and cues[3, SUM] == 0
    assert cues[2, DIFFERENCE] == 1  # 6 = 10 - 4 as well
    assert cues[0, REPRODUCED] == 2 / 3 and cues[3, REPRODUCED] == 0


def test_a_totals_row_gets_the_row_and_column_cues():
    cells = {(r, 0): Cell(float(r + 1), "number") for r in range(3)}
    cells |= {(r, 1): Cell(float(2 * r + 2), "number") for r in range(3)}
    cells |= {(3, 0): Cell(6.0, "number"), (3, 1): Cell(12.0, "number")}
    f = sheet_features(Sheet("S", "s.xlsx", 4, 2, cells), [(3, 0), (0, 0)])
    col_sum = f.select(["col_sum_run", "col_line_reproduced"])
    assert col_sum[0, 0] == -3 and col_sum[1, 0] == 0
    assert col_sum[0, 1] == col_sum[1, 1] == 0.5  # 6 = 1+2+3, and 3 = 1+2
