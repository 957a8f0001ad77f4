"""The grammar bias: -inf exactly where the prefix grammar refuses a token."""

import pytest
import torch

from fortap.formula.tokens import FORMULA_VOCAB
from fortap.tasks.formula_prediction.grammar_bias import GrammarBias

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


@pytest.mark.parametrize("seed", range(8))
def test_greedy_sketches_of_a_random_decoder_are_all_valid_formulas(seed):
    from fortap.formula import parse_formula
    from fortap.formula.from_sketch import formula_text
    from fortap.tasks.formula_prediction.decoder import DecoderConfig, FormulaDecoder

    torch.manual_seed(seed)
    d, t, n, max_len = 16, 6, 4, 12
    dec = FormulaDecoder(d, DecoderConfig(layers=2, heads=2, dropout=0.0)).eval()
    with torch.no_grad():
        dec.sketch_out.weight.mul_(50)  # sharp, arbitrary preferences
        memory, pad = torch.randn(n, t, d), torch.zeros(n, t, dtype=torch.bool)
        state = dec.start_state(torch.randn(n, d))
        bias = GrammarBias()
        states, token = bias.start(n), torch.full((n, 1), ID["[START]"])
        seqs: list[list[str]] = [[] for _ in range(n)]
        for step in range(max_len):
            logits, _, state = dec.sketch_step(token, state, memory, pad)  # (n, 1, V)
            best = (logits[:, -1] + bias.bias(states, max_len - step)).argmax(-1)  # (n,)
            for b in range(n):
                if not seqs[b] or seqs[b][-1] != "[END]":
                    seqs[b].append(FORMULA_VOCAB[int(best[b])])
            states, token = bias.advance(states, best.tolist()), best[:, None]
    for seq in seqs:
        assert seq[-1] == "[END]"
        text = formula_text(seq, [(2, 1)] * seq.count("[RANGE]"))
        assert parse_formula(text).kept, (seq, text)
