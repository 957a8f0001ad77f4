"""Greedy and beam search over sketches, greedy range filling."""

from __future__ import annotations

import pytest
import torch

from fortap.tasks.formula_prediction.decoder import DecoderConfig, FormulaDecoder
from fortap.tasks.formula_prediction.decoding import (
    END_ID,
    RANGE_ID,
    START_ID,
    DecodeConfig,
    beam_sketches,
    fill_ranges,
    greedy,
)
from fortap.tasks.formula_prediction.model import Encoded

D, T, C = 16, 6, 4


def setup(seed: int):
    torch.manual_seed(seed)
    dec = FormulaDecoder(D, DecoderConfig(layers=2, heads=2, dropout=0.0)).eval()
    with torch.no_grad():  # sharper logits than the N(0, 0.02) init, so searches differ
        dec.sketch_out.weight.mul_(50)
    enc = Encoded(
        memory=torch.randn(1, T, D),
        memory_pad=torch.zeros(1, T, dtype=torch.bool),
        formula_state=torch.randn(1, D),
        cell_states=torch.randn(1, C, D),
        candidates=torch.tensor([[True, True, False, True]]),
        offsets=torch.tensor([[[-1, 0], [0, -2], [0, 0], [0, -1]]]),
    )
    return dec, enc


@pytest.mark.parametrize("seed", range(6))
def test_beam_of_one_is_greedy(seed):
    dec, enc = setup(seed)
    with torch.no_grad():
        [(seq, logp)] = greedy(dec, enc, max_len=12)
        beam = beam_sketches(dec, enc, DecodeConfig(beam=1, max_len=12))
    assert len(beam) == 1
    assert beam[0][0] == seq
    assert beam[0][1] == pytest.approx(logp, abs=1e-5)


@pytest.mark.parametrize("seed", range(4))
def test_beam_returns_finished_sketches_by_raw_probability(seed):
    dec, enc = setup(seed)
    with torch.no_grad():
        found = beam_sketches(dec, enc, DecodeConfig(beam=5, max_len=12))
    assert 1 <= len(found) <= 5 + 4  # at most beam finished, plus live ones at max_len
    scores = [logp for _, logp in found]
    assert scores == sorted(scores, reverse=True)
    for seq, _ in found:
        assert seq[0] == START_ID
        assert seq[-1] == END_ID or len(seq) == 13
    assert len({seq for seq, _ in found}) == len(found)


def test_beam_scores_are_the_sequence_log_probabilities():
    dec, enc = setup(3)
    with torch.no_grad():
        found = beam_sketches(dec, enc, DecodeConfig(beam=3, max_len=8))
        for seq, logp in found:
            ids = torch.tensor([seq])
            logits, _, _ = dec.sketch_step(
                ids[:, :-1], dec.start_state(enc.formula_state), enc.memory, enc.memory_pad
            )
            exact = logits.log_softmax(-1)[0].gather(1, ids[0, 1:, None]).sum()
            assert logp == pytest.approx(float(exact), abs=1e-4)


def test_fill_ranges_points_once_per_range_slot_and_never_at_masked_cells():
    dec, enc = setup(0)
    colon = 2
    sketches = [
        ((START_ID, colon, RANGE_ID, RANGE_ID, END_ID), -1.0),
        ((START_ID, RANGE_ID, END_ID), -2.0),
        ((START_ID, END_ID), -3.0),
    ]
    with torch.no_grad():
        found = fill_ranges(dec, enc, sketches)
    assert [len(c.pointers) for c in found] == [2, 1, 0]
    assert all(p != 2 for c in found for p in c.pointers)  # cell 2 is masked
    assert [c.score for c in found] == [-1.0, -2.0, -3.0]
    assert found[2].range_score == 0.0 and found[0].range_score < 0
    assert found[0].sketch == ("[START]", "[:]", "[RANGE]", "[RANGE]", "[END]")


def test_decode_config_rejects_nonsense():
    with pytest.raises(ValueError, match="DecodeConfig.beam"):
        DecodeConfig(beam=0)


def test_normalised_ranking_orders_by_the_pruning_score():
    dec, enc = setup(2)
    with torch.no_grad():
        found = beam_sketches(dec, enc, DecodeConfig(beam=4, max_len=10, rank_raw=False))
    normalised = [logp / len(seq) for seq, logp in found]
    assert normalised == sorted(normalised, reverse=True)
