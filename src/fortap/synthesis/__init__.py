"""Formulas from values: the templates that the numbers of a dragged block obey.

Many cells that a formula computed show only their value: a workbook exported or pasted as
values, a model whose formulas were replaced, or the paper's formula-prediction setting, where
no formula is visible. A dragged block still shows itself through its values: every cell of
`D4:D20` is `B*C` of its own row. `synthesise` finds such templates for a target cell from the
numbers along its row and column (at any distance inside the sheet), vectorised over the
block's cells with a budget counted in work:

- references, up to four (`=B5`, `=B5-C5`, `=(B5-C5)/C5`, `=B5*C5/D5`);
- partial `SUM` / `AVERAGE` runs (`=SUM(B5:E5)`, `=SUM(C3:C9)` across a row of totals);
- a constant the block agrees on, written short or as the fixed cell that holds it
  (`=B5*0.08`, `=B5/$H$24`);
- `ROUND`, `ABS`, `MAX` / `MIN` and the zero guard `IF(C5=0,0,B5/C5)`.

Modules: `grid` (a sheet's numbers, dense), `template` (relative templates: text at a cell,
values over many cells), `families` (the enumeration, one vectorised family each), `search`
(`synthesise`: anchors, leaves, budget, checking a template along the whole block). This package reads only
`fortap.sheet`; the suggestion engine, `fortap recover`, the audit and cell types use it.
"""

from fortap.synthesis.grid import Grid
from fortap.synthesis.search import Found, SynthConfig, synthesise
from fortap.synthesis.template import Template, evaluate, text_at

__all__ = ["Found", "Grid", "SynthConfig", "Template", "evaluate", "synthesise", "text_at"]
