"""The grammar bias: -inf exactly where the prefix grammar refuses a token."""

import torch

from fortap.formula.tokens import FORMULA_VOCAB
from fortap.model.grammar_bias import GrammarBias

ID = {t: i for i, t in enumerate(FORMULA_VOCAB)}


def test_bias_rows_follow_each_hypothesis():
    bias = GrammarBias()
    states = bias.start(2)
    states = bias.advance(states, [ID["[+]"], ID["[ROUND]"]])
    states = bias.advance(states, [ID["[RANGE]"], ID["[RANGE]"]])
    states = bias.advance(states, [ID["[RANGE]"], ID["[C-NUM]"]])
    b = bias.bias(states, budget=10)  # (K, V)
    assert b.shape == (2, len(FORMULA_VOCAB))
    # `=B1+B2` and `=ROUND(B1,0)` are complete: only [END] may follow
    assert torch.isfinite(b).nonzero().tolist() == [[0, ID["[END]"]], [1, ID["[END]"]]]
    assert b[0, ID["[END]"]] == 0.0


def test_a_masked_beam_step_never_picks_a_refused_token():
    bias = GrammarBias()
    states = bias.advance(bias.start(1), [ID["[ROUND]"]])
    logits = torch.zeros(1, len(FORMULA_VOCAB))
    logits[0, ID["[:]"]] = 10.0  # the model wants `ROUND(B7:B10...`
    picked = (logits + bias.bias(states, budget=30)).log_softmax(-1).argmax(-1)
    assert FORMULA_VOCAB[int(picked)] != "[:]"


def test_a_finished_hypothesis_gets_a_finite_row():
    bias = GrammarBias()
    states = bias.advance(bias.start(1), [ID["[RANGE]"]])
    states = bias.advance(states, [ID["[END]"]])  # past the end: no token is allowed
    row = bias.bias(states, budget=5)[0]
    assert torch.isfinite(row).nonzero().flatten().tolist() == [ID["[END]"]]
    assert not row.log_softmax(-1).isnan().any()
