"""How each shown data cell's header paths meet the question, for decoding (`path_match`).

The cell head reads word overlaps (`match.FEATURES`), which count what a path shares with the
question; two things they miss are measured here, per data cell (header cells get zeros):

- `unmatched`: the leaves of its row's left path and its column's top path (the headers that
  tell the cell from its siblings) that share no word with the question, a leaf naming a total
  (`TOTAL_WORDS`) excepted: asked "the percentage of incidents by a stranger", the `total`
  column answers, not the `women` one beside it;
- `prefixed`: path words the question writes longer or shorter (`rec` for receptions), which the overlap's exact words miss (`headers.words`, prefix of at least 3).

`decoding.decode` subtracts `unmatched` and adds `prefixed`, each times a weight chosen on dev.
"""

from __future__ import annotations

from collections.abc import Sequence

from fortap.encoding.piece import RC
from fortap.tasks.table_qa.headers import HeaderPaths, words

TOTAL_WORDS = frozenset({"total", "all", "overall", "both"})
MIN_PREFIX = 3  # shortest word matched by prefix


def meets(word: str, question: frozenset[str]) -> bool:
    """`word` is a question word, or a prefix of one or has one as prefix (both >= 3 long)."""
    if word in question:
        return True
    if len(word) < MIN_PREFIX:
        return False
    return any(
        len(q) >= MIN_PREFIX and (q.startswith(word) or word.startswith(q)) for q in question
    )


def path_match(paths: HeaderPaths, question: str, cells: Sequence[RC]) -> list[tuple[float, float]]:
    """(`unmatched`, `prefixed`) per cell (see module doc)."""
    asked = words(question)
    found = []
    for r, c in cells:
        if paths.is_header((r, c)):
            found.append((0.0, 0.0))
            continue
        unmatched = prefixed = 0
        for path in (paths.left.get(r, ()), paths.top.get(c, ())):
            if not path:
                continue
            leaf = words(paths.table.cell(*path[-1]).text)
            if leaf and not leaf & TOTAL_WORDS and not any(meets(w, asked) for w in leaf):
                unmatched += 1
            prefixed += sum(w not in asked and meets(w, asked) for w in paths.path_words(path))
        found.append((float(unmatched), float(prefixed)))
    return found
