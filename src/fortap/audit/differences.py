"""What part of a formula differs from its block's formula, node by node.

A cell that breaks a dragged block (`inconsistent.breaks`) may differ from the block's formula
re-anchored to it (`suggest.api.reanchor`) in its references, or in another part with the same
references: a function or an operator (`=AVERAGE(B4:B9)` among `=SUM(B·:B·)`, `-` among `+`),
a constant (`=B7*0.08` where the block reads `=B7*C7`, or `*2` among `*3`), or only in its
anchoring (`=B$7` among `=B·`: the same value where it stands, a wrong one once filled).
`compare` walks the two trees side by side and lists the nodes that differ; a tree of another
shape (a term more or less, an argument added) gives None: that is another computation, which
`inconsistent` reads on its own (a term left out) or leaves alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from fortap.formula.nodes import Const, Func, Node, Op, Ref
from fortap.formula.printer import const_text
from fortap.formula.references import ref_a1, ref_box

REFERENCE = "reference"  # a reference to other cells (`inconsistent` measures those)
ANCHORING = "anchoring"  # the same cells, other `$`s
FUNCTION = "function"  # another function or operator over the same arguments' shapes
CONSTANT = "constant"  # a constant where the block reads a cell
OTHER_CONSTANT = "other-constant"  # another constant where the block has a constant


@dataclass(frozen=True)
class Part:
    """One node of the cell's formula that differs from the block's re-anchored one."""

    kind: str  # REFERENCE, ANCHORING, FUNCTION, CONSTANT or OTHER_CONSTANT
    own: str  # the cell's text of it: `AVERAGE`, `0.08`, `B$7`
    block: str  # the block's: `SUM`, `C7`, `B7`
    ref: Ref | None = None  # CONSTANT: the block's reference, re-anchored to the cell


def compare(own: Node, block: Node, moved: tuple[Ref, ...]) -> list[Part] | None:
    """The parts of `own` (the cell's tree) that differ from `block` (the block's tree, at its
    own cell), whose references re-anchored to the cell are `moved`, in the order `walk`
    meets them (`suggest.api.reanchor`'s `Copy.refs`); None when the trees differ in shape."""
    out: list[Part] = []
    refs = iter(moved)
    try:
        same_shape = _walk(own, block, refs, out)
    except StopIteration:  # fewer re-anchored references than the block's tree holds
        return None
    return out if same_shape and next(refs, None) is None else None


def _walk(own: Node, block: Node, refs: Iterator[Ref], out: list[Part]) -> bool:
    if isinstance(block, Ref):
        at = next(refs)
        if isinstance(own, Const) and own.kind == "num":
            out.append(Part(CONSTANT, const_text(own), ref_a1(at), at))
            return True
        if not isinstance(own, Ref):
            return False
        if ref_box(own) != ref_box(at) or own.sheet != at.sheet:
            out.append(Part(REFERENCE, ref_a1(own), ref_a1(at)))
        elif ref_a1(own) != ref_a1(at):
            out.append(Part(ANCHORING, ref_a1(own), ref_a1(at)))
        return True
    if isinstance(block, Const):
        if not isinstance(own, Const):
            return False
        if own != block:
            out.append(Part(OTHER_CONSTANT, const_text(own), const_text(block)))
        return True
    if isinstance(block, Op | Func):
        if type(own) is not type(block) or len(own.args) != len(block.args):
            return False
        mine, theirs = (own.op, block.op) if isinstance(block, Op) else (own.name, block.name)
        if mine != theirs:
            out.append(Part(FUNCTION, mine, theirs))
        return all(_walk(a, b, refs, out) for a, b in zip(own.args, block.args, strict=True))
    return own == block  # arrays and missing arguments: equal or another shape
