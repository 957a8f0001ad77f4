"""The kind of a HiTab question, as the ForTaP paper breaks table-QA accuracy down (`question_kind`).

HiTab keeps no kind field; its aggregation labels (`QASample.aggregation`) and entity links
tell it:

- `comparative`: a comparison of a pair (`pair-argmax`, `pair-argmin`, `greater_than`,
  `less_than`), alone or after another label (`sum` then `pair-argmax` compares two sums);
- `superlative`: the best of several (`argmax`, `argmin`, `max`, `min`, `topk-...`, `kth-...`);
- `arithmetic`: any other computation (`sum`, `average`, `diff`, `div`, `opposite`, `counta`,
  `range`, and labels not named here);
- cell selection (`none`), by the number of header cells the question names (its entity links
  other than the answer's own, `QASample.header_links`): 0-1, 2, 3, 4 or more. The more
  headers, the deeper the hierarchy a question indexes.
"""

from __future__ import annotations

from fortap.tasks.table_qa.samples import QASample

SELECTION = ("cell selection, 0-1 headers", "cell selection, 2 headers",
             "cell selection, 3 headers", "cell selection, 4+ headers")  # fmt: skip
KINDS = (*SELECTION, "arithmetic", "superlative", "comparative")
COMPARATIVE = frozenset({"pair-argmax", "pair-argmin", "greater_than", "less_than"})
SUPERLATIVE_PREFIXES = ("argmax", "argmin", "max", "min", "topk-", "kth-")


def question_kind(sample: QASample) -> str:
    """One of `KINDS` (see module doc)."""
    labels = [label.strip().lower() for label in sample.aggregation]
    if any(label in COMPARATIVE for label in labels):
        return "comparative"
    if any(label.startswith(SUPERLATIVE_PREFIXES) for label in labels):
        return "superlative"
    if any(label != "none" for label in labels):
        return "arithmetic"
    return SELECTION[min(max(len(sample.header_links) - 1, 0), len(SELECTION) - 1)]
