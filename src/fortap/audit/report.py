"""The audit report written by `fortap audit -o OUT`: per sheet, a PNG of the cells coloured by
finding and a table of the findings, as `report.md` and `report.html` (the same content).

In the PNG, formulas are light grey, typed numbers white-grey, text lighter still, and each
finding paints its cell: orange for a missing formula, red for an inconsistent one, darker when
surer. Only occupied rows and columns are drawn (`sheet.occupied`); sheets larger than `MAX_PLOT`
of those per side are drawn over their first ones.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from fortap.audit.findings import INCONSISTENT, MISSING, Finding
from fortap.outputs import atomic_path, file_part
from fortap.sheet.model import Sheet
from fortap.sheet.occupied import squeeze

MAX_PLOT = 400  # rows/columns drawn at most
COLOURS = {"empty": "#ffffff", "text": "#eef2f7", "number": "#dddddd", "formula": "#b9c6d6",
           MISSING: "#f28e2b", INCONSISTENT: "#d62728"}  # fmt: skip
BASE = ("empty", "text", "number", "formula")


def write_png(sheet: Sheet, findings: list[Finding], path: Path) -> None:
    """The sheet's cells coloured by what they hold, the findings painted over them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    squeezed = squeeze(sheet)  # occupied rows and columns: one far cell draws no million rows
    row_at = {r: i for i, r in enumerate(squeezed.rows[:MAX_PLOT])}
    col_at = {c: i for i, c in enumerate(squeezed.cols[:MAX_PLOT])}
    rows, cols = max(1, len(row_at)), max(1, len(col_at))
    codes = np.zeros((rows, cols), np.int64)  # (rows, cols) index into BASE + kinds
    for (r, c), cell in sheet.cells.items():
        if r in row_at and c in col_at:
            kind = "formula" if cell.formula is not None else cell.kind
            codes[row_at[r], col_at[c]] = BASE.index(kind) if kind in BASE else BASE.index("text")
    names = (*BASE, MISSING, INCONSISTENT)
    shown = [f for f in findings if f.row in row_at and f.col in col_at]
    for f in shown:
        codes[row_at[f.row], col_at[f.col]] = names.index(f.kind)
    fig, ax = plt.subplots(figsize=(min(16, 2 + cols * 0.35), min(20, 2 + rows * 0.18)))
    ax.imshow(codes, cmap=ListedColormap([COLOURS[n] for n in names]), vmin=-0.5,
              vmax=len(names) - 0.5, aspect="auto", interpolation="nearest")  # fmt: skip
    for f in shown:
        ax.text(col_at[f.col], row_at[f.row], f"{f.score:.2f}", ha="center", va="center",
                fontsize=6)  # fmt: skip
    ax.set_xticks(range(len(col_at)), [_letters(c) for c in col_at], fontsize=6)
    ax.set_yticks(range(len(row_at)), [str(r + 1) for r in row_at], fontsize=6)
    ax.set_title(f"{sheet.name}: {len(findings)} finding{'s' * (len(findings) != 1)}")
    handles = [Patch(color=COLOURS[n], label=n) for n in names if n != "empty"]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _letters(col: int) -> str:
    from fortap.sheet.model import column_letter

    return column_letter(col)


def write_report(book: Path, sheets: list[Sheet], findings: list[Finding], out: Path) -> Path:
    """`out/report.md`, `out/report.html` and one PNG per sheet; returns the markdown path."""
    out.mkdir(parents=True, exist_ok=True)
    md = [f"# Audit of {book.name}", "", f"{len(findings)} findings.", ""]
    body = [f"<h1>Audit of {html.escape(book.name)}</h1>", f"<p>{len(findings)} findings.</p>"]
    for i, sheet in enumerate(sheets):
        mine = [f for f in findings if f.sheet == sheet.name]
        png = f"sheet{i + 1}-{file_part(sheet.name)}.png"
        with atomic_path(out / png) as tmp:
            write_png(sheet, mine, tmp)
        md += [f"## {sheet.name}", "", f"![{sheet.name}]({png})", ""]
        md += ["| cell | kind | score | fix | evidence |", "|---|---|---|---|---|"]
        md += [f"| {f.a1} | {f.kind} | {f.score:.2f} | {_cell(f.fix)} | {_cell(f.evidence)} |"
               for f in mine]  # fmt: skip
        md.append("")
        body += [
            f"<h2>{html.escape(sheet.name)}</h2>",
            f'<img src="{png}" alt="">',
            "<table>",
            "<tr><th>cell</th><th>kind</th><th>score</th><th>fix</th><th>evidence</th></tr>",
        ]
        body += [f"<tr><td>{f.a1}</td><td>{f.kind}</td><td>{f.score:.2f}</td>"
                 f"<td>{html.escape(f.fix or '')}</td><td>{html.escape(f.evidence)}</td></tr>"
                 for f in mine]  # fmt: skip
        body.append("</table>")
    page = "<!doctype html><meta charset='utf-8'><title>audit</title>" + "\n".join(body)
    for name, text in (("report.md", "\n".join(md)), ("report.html", page)):
        with atomic_path(out / name) as tmp:
            tmp.write_text(text + "\n", encoding="utf-8")
    return out / "report.md"


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")
