"""The Calc extension's three commands, run inside soffice on the document in front of the user.

`run(ctx, command)` is called by the extension's UNO Job (`calc/fortap_calc.py`) with the
component context and "suggest", "audit" or "recover". fortap reads files, so the document is
first stored as an .xlsx copy (`storeToURL`: the document itself, its name and its modified flag
stay as they are); fortap's public doors then work on the copy in this process:

- **suggest**: the selected cell's best formula (`suggest.api`'s `Suggester`), written there;
- **audit**: the active sheet audited as `fortap audit --sheet` audits it; every finding gets a
  comment with its kind, score and fix, and the fix is written when the selected cell is one;
- **recover**: the formulas `fortap recover` finds for the active sheet, written where they go.

Formulas are written through UNO as Excel writes them: parsed with Calc's `FormulaParser` in the
Excel A1 convention and English function names, then set as tokens, so Calc recomputes them.
Each command's writes are one undo step ("fortap: ..."), so Edit > Undo takes them back.
What happened is shown in the status bar, and a failure as one line there, never a traceback.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from fortap.errors import FortapError

XLSX_FILTER = "Calc MS Excel 2007 XML"
XL_A1 = 1  # com.sun.star.sheet.AddressConvention.XL_A1
TITLES = {"suggest": "fortap: suggest formula", "audit": "fortap: audit sheet",
          "recover": "fortap: recover formulas"}  # fmt: skip


@dataclass(frozen=True)
class Place:
    """The active sheet and the selected cell (0-based) of the document."""

    sheet: str
    row: int
    col: int

    @property
    def a1(self) -> str:
        from fortap.sheet.model import a1

        return a1(self.row, self.col)


def run(ctx, command: str) -> str:
    """Run `command` on the current spreadsheet; returns the line shown in the status bar."""
    doc = current_spreadsheet(ctx)
    if doc is None:
        return "fortap: no spreadsheet is open"
    try:
        line = COMMANDS[command](doc, selected(doc))
    except KeyError:
        line = f"fortap: unknown command {command!r}"
    except FortapError as err:
        line = f"fortap: {err}"
    show(doc, line)
    return line


def current_spreadsheet(ctx):
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    doc = desktop.getCurrentComponent()
    if doc is not None and doc.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
        return doc
    for comp in desktop.getComponents():
        if comp.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
            return comp
    return None


def selected(doc) -> Place:
    controller = doc.getCurrentController()
    sheet = controller.getActiveSheet()
    selection = doc.getCurrentSelection()
    if selection is not None and hasattr(selection, "getRangeAddress"):
        addr = selection.getRangeAddress()
        return Place(sheet.getName(), addr.StartRow, addr.StartColumn)
    return Place(sheet.getName(), 0, 0)


def show(doc, line: str) -> None:
    try:
        bar = doc.getCurrentController().getFrame().createStatusIndicator()
        bar.start(line, 0)
    except Exception:  # no frame (a document loaded invisibly): the return value says it
        pass


def stored_copy(doc, folder: Path) -> Path:
    """The document as an .xlsx in `folder` (the document is left as it is)."""
    import uno
    from com.sun.star.beans import PropertyValue

    path = folder / "document.xlsx"
    doc.storeToURL(uno.systemPathToFileUrl(str(path)),
                   (PropertyValue(Name="FilterName", Value=XLSX_FILTER),))  # fmt: skip
    return path


class Writer:
    """Formulas in Excel's A1 text written through UNO, all in one undo step."""

    def __init__(self, doc, sheet: str, title: str) -> None:
        from com.sun.star.sheet.FormulaLanguage import XL_ENGLISH
        from com.sun.star.sheet.FormulaMapGroup import ALL_EXCEPT_SPECIAL

        self.doc = doc
        self.sheet = doc.getSheets().getByName(sheet)
        self.index = self.sheet.getRangeAddress().Sheet
        self.parser = doc.createInstance("com.sun.star.sheet.FormulaParser")
        mapper = doc.createInstance("com.sun.star.sheet.FormulaOpCodeMapper")
        self.parser.OpCodeMap = mapper.getAvailableMappings(XL_ENGLISH, ALL_EXCEPT_SPECIAL)
        self.parser.FormulaConvention = XL_A1
        self.title = title
        self.written = 0

    def __enter__(self) -> Writer:
        self.doc.getUndoManager().enterUndoContext(self.title)
        return self

    def __exit__(self, *exc) -> None:
        self.doc.getUndoManager().leaveUndoContext()

    def formula(self, row: int, col: int, text: str) -> None:
        from com.sun.star.table import CellAddress

        tokens = self.parser.parseFormula(text, CellAddress(self.index, col, row))
        self.sheet.getCellByPosition(col, row).setTokens(tokens)
        self.written += 1

    def comment(self, row: int, col: int, text: str) -> None:
        from com.sun.star.table import CellAddress

        self.sheet.getAnnotations().insertNew(CellAddress(self.index, col, row), text)


def suggest(doc, at: Place) -> str:
    from fortap.suggest.api import Suggester

    with tempfile.TemporaryDirectory(prefix="fortap-calc-") as tmp:
        sg = Suggester.open(stored_copy(doc, Path(tmp)))
        found = sg.suggest(at.sheet, at.a1, 5)
    if not found:
        return f"fortap: no suggestion for {at.sheet}!{at.a1}"
    best = found[0]
    with Writer(doc, at.sheet, TITLES["suggest"]) as out:
        out.formula(at.row, at.col, best.formula)
    others = "; ".join(s.formula for s in found[1:])
    return f"fortap: {at.sheet}!{at.a1} {best.formula} ({best.reason}); also: {others or 'none'}"


def audit(doc, at: Place) -> str:
    from openpyxl.utils.cell import coordinate_to_tuple

    from fortap.audit.auditor import AuditConfig
    from fortap.audit.auditor import audit as audit_sheets
    from fortap.suggest.api import Suggester

    with tempfile.TemporaryDirectory(prefix="fortap-calc-") as tmp:
        sg = Suggester.open(stored_copy(doc, Path(tmp)))
        found = audit_sheets(sg, [at.sheet], AuditConfig()).to_json()["findings"]
    fixed = None
    with Writer(doc, at.sheet, TITLES["audit"]) as out:
        for f in found:
            row, col = (n - 1 for n in coordinate_to_tuple(f["cell"].split("!")[-1]))
            fix = f["fix"] or "no fix known"
            out.comment(row, col, f"fortap: {f['kind']} ({f['score']:.2f}); fix: {fix}")
            if (row, col) == (at.row, at.col) and f["fix"]:
                out.formula(row, col, f["fix"])
                fixed = f["fix"]
    done = f"; {at.sheet}!{at.a1} fixed with {fixed}" if fixed else ""
    return f"fortap: {len(found)} finding{'s' * (len(found) != 1)} on {at.sheet}{done}"


def recover(doc, at: Place) -> str:
    from fortap.recover import RecoverConfig, recover_book
    from fortap.sheet.read import read_workbook

    with tempfile.TemporaryDirectory(prefix="fortap-calc-") as tmp:
        wb = read_workbook(stored_copy(doc, Path(tmp)))
        found = recover_book(wb, RecoverConfig(), [at.sheet])
    with Writer(doc, at.sheet, TITLES["recover"]) as out:
        for f in found:
            out.formula(f.row, f.col, f.formula)
    return f"fortap: {len(found)} formula{'s' * (len(found) != 1)} put back on {at.sheet}"


COMMANDS = {"suggest": suggest, "audit": audit, "recover": recover}
