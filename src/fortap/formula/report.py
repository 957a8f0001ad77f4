"""The `fortap formula` command: show one formula in the paper's representation, or run a list.

One formula: AST, prefix tokens, sketch, ranges and the filter verdict (plus the R1C1 form when
a cell is given). A file: one formula per line (the XLParser corpus format: optional leading
`=`, CSV-quoted lines with `""` escapes); the JSON report counts outcomes, parse failures per
reason (each failing line, up to 1,000 per reason), verdicts per reason, the print -> parse round trip, and per-token
frequencies over the 41-token vocabulary.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from fortap.errors import FormulaError, FortapError
from fortap.formula.degenerate import degenerate_signs
from fortap.formula.filters import reasons_of
from fortap.formula.formula import Formula, parse_formula
from fortap.formula.nodes import Array, Const, Func, Node, Op, Ref
from fortap.formula.parser import parse_ast
from fortap.formula.printer import const_text, to_text
from fortap.formula.references import parse_address, ref_a1
from fortap.formula.tokens import END, FORMULA_VOCAB, START
from fortap.sheet.model import a1

NOTHING_GIVEN = (
    'give a formula, e.g. fortap formula "=SUM(B2:B5)/B6", or a list file with --file PATH'
)


def read_formula_lines(path: Path) -> list[str]:
    """Formulas of a list file, each with a leading `=`; blank lines skipped.

    A file that cannot be read is a `FortapError` naming it, not a traceback.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise FortapError(f"formula list not found: {path}") from None
    except IsADirectoryError:
        raise FortapError(f"formula list is a folder, not a file: {path}") from None
    except UnicodeDecodeError:
        raise FortapError(f"formula list is not UTF-8 text: {path}") from None
    except OSError as err:
        raise FortapError(f"cannot read formula list {path}: {err.strerror}") from None
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith('"') and line.endswith('"') and len(line) > 1:
            line = line[1:-1].replace('""', '"')
        out.append(line if line.startswith("=") else "=" + line)
    return out


def ast_lines(node: Node, depth: int = 0) -> list[str]:
    """An indented, one-node-per-line view of an AST."""
    pad = "  " * depth
    if isinstance(node, Op):
        head = f"{pad}OP {node.op!r}"
    elif isinstance(node, Func):
        head = f"{pad}FUNC {node.name}"
    elif isinstance(node, Ref):
        label = "CELL" if node.kind == "cell" else "RANGE" if node.kind == "area" else node.kind
        head = f"{pad}{label.upper()} {ref_a1(node)}"
    elif isinstance(node, Const):
        head = f"{pad}CONST {node.kind} {const_text(node)}"
    elif isinstance(node, Array):
        head = f"{pad}ARRAY {len(node.rows)}x{len(node.rows[0]) if node.rows else 0}"
    else:
        head = f"{pad}MISSING"
    lines = [head]
    children = node.args if isinstance(node, Op | Func) else ()
    if isinstance(node, Array):
        children = tuple(c for row in node.rows for c in row)
    for child in children:
        lines.extend(ast_lines(child, depth + 1))
    return lines


def describe(f: Formula) -> str:
    """Human-readable view of one parsed formula."""
    reasons = sorted(reasons_of(f.ast, f.host_sheet, f.array))
    lines = ["AST:", *("  " + line for line in ast_lines(f.ast))]
    lines.append("prefix tokens: " + " ".join(t.text for t in f.tokens))
    lines.append("token kinds:   " + " ".join(t.kind for t in f.tokens))
    lines.append("sketch:        " + " ".join(f.sketch))
    lines.append("ranges:        " + (" ".join(a1(r, c) for r, c in f.ranges) or "-"))
    lines.append(
        "verdict:       " + f.verdict + (f" (all: {', '.join(reasons)})" if reasons else "")
    )
    signs = degenerate_signs(f.ast)
    if signs:
        lines.append("degenerate:    " + ", ".join(sorted(signs)) + " (valid, flagged)")
    if f.r1c1 is not None:
        lines.append("R1C1:          " + f.r1c1)
    return "\n".join(lines)


class _Tally:
    """Running counts over a list of formulas."""

    def __init__(self) -> None:
        self.failures: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}
        self.verdicts: Counter[str] = Counter()
        self.tokens_all: Counter[str] = Counter()
        self.tokens_kept: Counter[str] = Counter()
        self.containing: Counter[str] = Counter()
        self.functions: Counter[str] = Counter()
        self.round_trip_ok = 0
        self.round_trip_bad: list[list[str]] = []

    def failure(self, text: str, err: FormulaError) -> None:
        key = err.reason.split(":", 1)[0]
        self.failures[key] += 1
        listed = self.examples.setdefault(key, [])
        if len(listed) < 1000:
            listed.append(text)

    def formula(self, text: str, f: Formula) -> None:
        self.verdicts[f.verdict] += 1
        vocab = f.sketch[1:-1]
        self.tokens_all.update(vocab)
        self.containing.update(set(vocab))
        if f.kept:
            self.tokens_kept.update(vocab)
        self.functions.update(t.text for t in f.tokens if t.kind == "FUNC")
        printed = to_text(f.ast)
        if parse_ast(printed) == f.ast:
            self.round_trip_ok += 1
        elif len(self.round_trip_bad) < 10:
            self.round_trip_bad.append([text, printed])

    def vocab_rows(self) -> dict[str, dict[str, float]]:
        parsed = sum(self.verdicts.values())
        n_all, n_kept = sum(self.tokens_all.values()), sum(self.tokens_kept.values())
        return {
            tok: {
                "count": self.tokens_all[tok],
                "share_of_tokens": self.tokens_all[tok] / max(n_all, 1),
                "share_of_formulas": self.containing[tok] / max(parsed, 1),
                "share_of_kept_tokens": self.tokens_kept[tok] / max(n_kept, 1),
            }
            for tok in FORMULA_VOCAB
            if tok not in (START, END)
        }


def summarise(formulas: list[str], host_sheet: str | None = None) -> dict:
    """Counts per outcome, failure reason, verdict, round trip and vocabulary token."""
    tally = _Tally()
    for text in formulas:
        try:
            f = parse_formula(text, host_sheet)
        except FormulaError as err:
            tally.failure(text, err)
            continue
        tally.formula(text, f)
    parsed = sum(tally.verdicts.values())
    return {
        "lines": len(formulas),
        "parsed": parsed,
        "parse_rate": parsed / max(len(formulas), 1),
        "failures": dict(tally.failures.most_common()),
        "failure_examples": tally.examples,
        "verdicts": dict(tally.verdicts.most_common()),
        "kept_rate": tally.verdicts["keep"] / max(parsed, 1),
        "round_trip": {
            "checked": parsed,
            "identical": tally.round_trip_ok,
            "examples": tally.round_trip_bad,
        },
        "token_frequency": tally.vocab_rows(),
        "top_functions": dict(tally.functions.most_common(40)),
    }


def _cell(cell: str | None) -> tuple[int, int] | None:
    if cell is None:
        return None
    addr = parse_address(cell.replace("$", ""))
    if addr is None or addr[1] is not None or addr[0].row is None or addr[0].col is None:
        raise FormulaError(cell, "not a cell address (expected e.g. D7)")
    return addr[0].row, addr[0].col


def run_formula(
    text: str | None = None,
    file: Path | None = None,
    report: Path | None = None,
    sheet: str | None = None,
    cell: str | None = None,
) -> dict | Formula:
    """Print one formula's representation, or summarise a list file (and write `report`)."""
    from fortap.console import stdout_console

    console = stdout_console(highlight=False)
    if file is None:
        if text is None:
            raise FortapError(NOTHING_GIVEN)
        f = parse_formula(text, sheet, _cell(cell))
        console.print(describe(f), markup=False, soft_wrap=True)
        return f
    summary = summarise(read_formula_lines(file), sheet)
    rt = summary["round_trip"]
    console.print(
        f"{summary['lines']} lines, {summary['parsed']} parsed ({summary['parse_rate']:.2%}); "
        f"failures {summary['failures']}; round trip {rt['identical']}/{rt['checked']}",
        markup=False,
    )
    console.print(f"verdicts {summary['verdicts']}", markup=False)
    if report is not None:
        from fortap.outputs import atomic_path

        with atomic_path(report) as tmp:
            tmp.write_text(json.dumps(summary, indent=2))
        console.print(f"report written to {report}", markup=False)
    return summary
