"""Formula text -> our AST (`fortap.formula.nodes`), with formualizer 0.13 as the parser.

formualizer gives Excel's precedence and typed references; we take its `to_dict()` tree (one
call into Rust, far cheaper than walking node objects) and map it onto our node kinds. Two of its
gotchas are handled here: text and error literals look alike in the dict (we check the source
token when a text literal spells an error), and references arrive as text, which
`references.parse_reference` reads (whole columns/rows, sheet qualifiers, `$` flags).
A formula that does not parse raises `FormulaError` with the text, position and reason:
`external_workbook` (formualizer rejects some `[1]...` forms) or `invalid_text` (also a union
outside parentheses, which formualizer reads but Excel rejects: `validity.bare_union_position`).
"""

from __future__ import annotations

import re

import formualizer

from fortap.errors import FormulaError
from fortap.formula.nodes import MISSING, Array, Const, Func, Node, Op
from fortap.formula.references import parse_reference
from fortap.formula.validity import bare_union_position

ERROR_LITERALS = frozenset(
    ["#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA",
     "#SPILL!", "#CALC!", "#FIELD!", "#BLOCKED!", "#CONNECT!", "#BUSY!", "#UNKNOWN!"]
)  # fmt: skip
_FUNC_PREFIXES = ("_XLFN._XLWS.", "_XLFN.", "_XLWS.")
_POSITION = re.compile(r"at position (\d+)")
_TOKEN_SPAN = re.compile(r"( at position \d+)?: TokenSpan \{.*?\}")
_STRINGS = re.compile(r'"(?:[^"]|"")*"')
_BRACKETS = re.compile(r"\[[^\]]*\]")
# Excel's rule for a defined name: a letter, `_` or `\` first, then letters, digits, `_`, `.`,
# `\` and `?` (formualizer reads any other run of characters, such as `?`, as a name too)
_NAME = re.compile(r"(?:[^\W\d]|\\)[\w.\\?]*")


def _function_name(name: str) -> str:
    name = name.upper()
    for prefix in _FUNC_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


class _Converter:
    """Maps one formualizer dict tree onto our nodes; `text` settles text-vs-error literals."""

    __slots__ = ("text", "pending", "union")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pending: list[tuple[str, bool]] | None = None
        self.union = False  # a union was read: check that the text parenthesises it

    def literal(self, value) -> Const:
        if value is True or value is False:
            return Const("bool", value)
        if isinstance(value, int | float):
            return Const("num", float(value))
        if value in ERROR_LITERALS and self.is_error(value):
            return Const("err", value)
        return Const("str", value)

    def is_error(self, value: str) -> bool:
        if f'"{value}"' not in self.text:
            return True
        if self.pending is None:
            # Rare: the spelling occurs as quoted text, so ask the tokenizer. Literals are
            # converted in text order (left operand first, arguments in order), so the i-th
            # literal with this spelling is the i-th such token.
            self.pending = []
            for t in formualizer.tokenize(self.text):
                sub = str(t.subtype)
                if sub == "Error":
                    self.pending.append((t.value, True))
                elif sub == "Text":
                    self.pending.append((t.value[1:-1].replace('""', '"'), False))
        for i, (spelling, is_error) in enumerate(self.pending):
            if spelling == value:
                del self.pending[i]
                return is_error
        return True

    def node(self, d: dict) -> Node:
        kind = d["node_type"]
        if kind == "Reference":
            ref = parse_reference(d["reference"])
            if ref.kind == "name" and not _NAME.fullmatch(ref.name or ""):
                raise FormulaError(self.text, f"invalid_text: {ref.name!r} is not a name")
            return ref
        if kind == "Literal":
            return self.literal(d["value"])
        if kind == "BinaryOp":
            self.union = self.union or d["operator"] == ","
            return Op(d["operator"], (self.node(d["left"]), self.node(d["right"])))
        if kind == "Function":
            return Func(_function_name(d["name"]), tuple(self.node(a) for a in d["args"]))
        if kind == "UnaryOp":
            op = d["operator"]
            return Op(op if op in ("%", "#") else "u" + op, (self.node(d["operand"]),))
        if kind == "Omitted":
            return MISSING
        if kind == "Array":
            return Array(tuple(tuple(self.node(c) for c in row) for row in d["rows"]))
        raise FormulaError(self.text, f"unsupported formula construct {kind}")


def failure_reason(text: str) -> str:
    """Why formualizer rejected a formula: `external_workbook` or `invalid_text`."""
    # Structured references parse, so brackets left in a rejected formula (outside its string
    # literals) name another workbook: `[1]Sheet!A1`, `'C:\\[book.xls]Sheet'!A1`.
    return "external_workbook" if _BRACKETS.search(_STRINGS.sub('""', text)) else "invalid_text"


def parse_ast(text: str) -> Node:
    """Formula text (with or without the leading `=`) -> our AST; `FormulaError` if invalid."""
    body = text[1:] if text.startswith("=") else text
    if not body.strip():
        raise FormulaError(text, "empty formula")
    source = "=" + body
    try:
        tree = formualizer.parse(source).to_dict()
    except formualizer.ParserError as err:
        msg = str(err)
        m = _POSITION.search(msg)
        detail = _TOKEN_SPAN.sub("", msg.split(": ", 1)[-1].split(", got", 1)[0])
        raise FormulaError(
            text,
            f"{failure_reason(source)}: {detail}",
            position=int(m[1]) if m else None,
        ) from None
    except formualizer.TokenizerError as err:
        raise FormulaError(text, f"{failure_reason(source)}: {err}") from None
    converter = _Converter(source)
    ast = converter.node(tree)
    if converter.union and (at := bare_union_position(source)) is not None:
        # formualizer reads `=C10+C10, C10` as `C10+(C10,C10)`; Excel rejects the text
        raise FormulaError(text, "invalid_text: a union outside parentheses", position=at)
    return ast
