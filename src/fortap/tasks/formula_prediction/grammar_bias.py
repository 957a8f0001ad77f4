"""The prefix-grammar constraint as an additive bias on the sketch decoder's logits.

`fortap.formula.prefix_grammar.PrefixGrammar` says which of the V = 41 vocabulary tokens may
come next; a beam step needs that as a (K, V) tensor for its K hypotheses. Building a tensor from
Python flags costs more than the step's own softmax, so each distinct mask becomes a row of 0 and
-inf once and is reused (`bench/formula_grammar.py` measures a step).

Use in a beam loop (letters: K hypotheses, V vocabulary):

    bias = GrammarBias()
    states = bias.start(1)
    for step in range(max_len):
        logits = logits + bias.bias(states, max_len - step)  # (K, V) -inf where refused
        ... pick tokens, keep hypotheses `parents` ...
        states = bias.advance([states[h] for h in parents], tokens)
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from fortap.formula.prefix_grammar import GrammarState, PrefixGrammar


class GrammarBias:
    """Grammar states of a beam's hypotheses and the logit bias they imply."""

    def __init__(self, grammar: PrefixGrammar | None = None) -> None:
        self.grammar = grammar or PrefixGrammar()
        self._rows: dict[tuple[bool, ...], torch.Tensor] = {}

    def start(self, k: int = 1) -> list[GrammarState]:
        """The state after `[START]` for each of `k` hypotheses."""
        return [self.grammar.start()] * k

    def advance(self, states: Sequence[GrammarState], tokens: Sequence[int]) -> list[GrammarState]:
        """Each hypothesis's state after its next token."""
        return [self.grammar.advance(s, int(t)) for s, t in zip(states, tokens, strict=True)]

    def bias(self, states: Sequence[GrammarState], budget: int) -> torch.Tensor:
        """(K, V) float: 0 where a token may come next with `budget` tokens left (`[END]`
        included), -inf where it may not."""
        return torch.stack([self._row(self.grammar.allowed(s, budget)) for s in states])

    def _row(self, mask: tuple[bool, ...]) -> torch.Tensor:
        row = self._rows.get(mask)
        if row is None:
            flags = list(mask)
            if not any(flags):
                # a hypothesis past `[END]` (greedy keeps stepping finished rows): a row of
                # -inf alone would turn its softmax into NaN
                flags[self.grammar.end_id] = True
            row = self._rows[mask] = torch.tensor([0.0 if ok else float("-inf") for ok in flags])
        return row
