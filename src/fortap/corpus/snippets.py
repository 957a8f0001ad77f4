"""A table's context cut into snippets: one shown after [CLS], the others the choices that
table-context retrieval (`fortap.objectives.table_context`) asks the model to find.

It lives in the corpus stage, below the objectives: the corpus builder cuts table samples'
context with it and the objective reads the same meta keys and config, so neither stage has to
import the other's later code.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

SNIPPETS = "context_snippets"  # meta key of the true snippets not shown after [CLS]
CONTEXT_LEAD = "context_lead"  # meta key of the snippet shown after [CLS] (corpus samples)


@dataclass(frozen=True)
class TableContextConfig:
    fields: int = 2  # context texts used (title first, then notes)
    snippet_words: int = 10  # words per snippet
    snippet_tokens: int = 12  # tokens per appended choice, its [SEP] included
    max_pairs: int = 2  # at most this many (true, distractor) pairs per example
    tree_slots: int = 32  # choices get the tree coordinate (r, r, r, r), r < this
    lone_snippet_choice: float = 0.5  # a one-snippet context is a choice, not the lead, this often

    def __post_init__(self) -> None:
        for name in ("fields", "snippet_words", "max_pairs"):
            if getattr(self, name) < 1:
                raise ValueError(f"TableContextConfig.{name} must be >= 1")
        if self.snippet_tokens < 2:
            raise ValueError("TableContextConfig.snippet_tokens must be >= 2 ([SEP] + a word)")
        if not 1 <= self.tree_slots <= 32:
            raise ValueError("TableContextConfig.tree_slots must be in 1..32")
        if not 0.0 <= self.lone_snippet_choice <= 1.0:
            raise ValueError("TableContextConfig.lone_snippet_choice must be in [0, 1]")


def snippets(context: Sequence[str], cfg: TableContextConfig) -> list[str]:
    """The first `cfg.fields` context texts cut into snippets of `cfg.snippet_words` words."""
    out = []
    for text in list(context)[: cfg.fields]:
        words = text.split()
        for start in range(0, len(words), cfg.snippet_words):
            out.append(" ".join(words[start : start + cfg.snippet_words]))
    return out


def split_context(
    context: Sequence[str], cfg: TableContextConfig, rng: random.Random
) -> tuple[str, list[str]]:
    """(snippet to serialise after [CLS], the other snippets); both empty without context."""
    parts = snippets(context, cfg)
    rng.shuffle(parts)
    if not parts:
        return "", []
    if len(parts) == 1 and rng.random() < cfg.lone_snippet_choice:
        return "", parts  # a short title: sometimes the choice to find rather than the lead
    return parts[0], parts[1:]
