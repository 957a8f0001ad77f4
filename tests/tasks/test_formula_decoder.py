"""The formula decoder: shapes, masks, batch-first independence, config checks."""

from __future__ import annotations

import pytest
import torch

from fortap.tasks.formula_prediction.decoder import (
    MASKED,
    PAD,
    VOCAB,
    DecoderConfig,
    FormulaDecoder,
    previous_pointed,
)

D, T, C = 16, 7, 5


def decoder(**overrides) -> FormulaDecoder:
    torch.manual_seed(0)
    cfg = DecoderConfig(**({"layers": 2, "heads": 4, "dropout": 0.0} | overrides))
    return FormulaDecoder(D, cfg).eval()


def inputs(batch: int, steps: int = 4, seed: int = 1):
    g = torch.Generator().manual_seed(seed)
    memory = torch.randn(batch, T, D, generator=g)  # (B, T, D)
    pad = torch.zeros(batch, T, dtype=torch.bool)  # (B, T)
    formula = torch.randn(batch, D, generator=g)  # (B, D)
    cells = torch.randn(batch, C, D, generator=g)  # (B, C, D)
    candidates = torch.ones(batch, C, dtype=torch.bool)  # (B, C)
    sketch = torch.randint(0, VOCAB, (batch, steps), generator=g)  # (B, S)
    offsets = torch.randint(-20, 20, (batch, C, 2), generator=g)  # (B, C, 2)
    return memory, pad, formula, cells, candidates, sketch, offsets


@pytest.mark.parametrize("additions", [True, False])
def test_forward_shapes(additions):
    dec = decoder(relative_pointer=additions, pointer_feedback=additions)
    pointers = torch.tensor([[-100, 1, 2, -100]] * 3)
    logits, ranges = dec(*inputs(3), pointers)
    assert logits.shape == (3, 4, VOCAB)
    assert ranges.shape == (3, 4, C)
    assert dec.range_lstm.input_size == (3 if additions else 2) * D


def test_start_state_is_the_formula_state_in_every_layer():
    dec = decoder(layers=3)
    formula = torch.randn(2, D)
    h, c = dec.start_state(formula)
    assert h.shape == c.shape == (3, 2, D)
    assert torch.equal(h[2], formula) and torch.equal(h[0], formula)
    assert not c.any()


def test_each_example_decodes_alone_as_in_a_batch():
    """Batch-first all the way: the reference's layout bug mixed examples of a batch."""
    dec = decoder()
    both = inputs(2)
    logits, ranges = dec(*both)
    for b in range(2):
        one = [x[b : b + 1] for x in both]
        logits_b, ranges_b = dec(*one)
        torch.testing.assert_close(logits_b[0], logits[b], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(ranges_b[0], ranges[b], atol=1e-5, rtol=1e-5)


def test_memory_padding_does_not_change_the_answer():
    dec = decoder()
    memory, pad, formula, cells, candidates, sketch, offsets = inputs(1)
    longer = torch.cat([memory, torch.randn(1, 3, D)], dim=1)  # (1, T + 3, D)
    longer_pad = torch.cat([pad, torch.ones(1, 3, dtype=torch.bool)], dim=1)
    a = dec(memory, pad, formula, cells, candidates, sketch, offsets)
    b = dec(longer, longer_pad, formula, cells, candidates, sketch, offsets)
    torch.testing.assert_close(a[0], b[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(a[1], b[1], atol=1e-5, rtol=1e-5)


def test_cells_that_cannot_be_referenced_are_masked():
    memory, pad, formula, cells, candidates, sketch, offsets = inputs(2)
    candidates[0, 1] = False
    candidates[1, 4] = False
    _, ranges = decoder()(memory, pad, formula, cells, candidates, sketch, offsets)
    assert (ranges[0, :, 1] == MASKED).all() and (ranges[1, :, 4] == MASKED).all()
    assert (ranges[0, :, 0] > MASKED).all()


def test_sketch_step_continues_where_it_left_off():
    """Step-by-step decoding with the carried state equals one teacher-forced pass."""
    dec = decoder()
    memory, pad, formula, _, _, sketch, _ = inputs(2, steps=5)
    whole, _, _ = dec.sketch_step(sketch, dec.start_state(formula), memory, pad)
    state = dec.start_state(formula)
    for t in range(5):
        step, _, state = dec.sketch_step(sketch[:, t : t + 1], state, memory, pad)
        torch.testing.assert_close(step[:, 0], whole[:, t], atol=1e-5, rtol=1e-5)


def test_relative_pointer_keys_depend_on_the_offset_from_the_target():
    memory, pad, formula, cells, candidates, sketch, offsets = inputs(1)
    cells = cells[:, :1].expand(1, C, D)  # every cell has the same state
    _, ranges = decoder()(memory, pad, formula, cells, candidates, sketch, offsets)
    assert len(set(ranges[0, 0].tolist())) > 1  # only the offsets tell the cells apart
    plain = decoder(relative_pointer=False)
    _, ranges = plain(memory, pad, formula, cells, candidates, sketch)
    torch.testing.assert_close(ranges[0, 0], ranges[0, 0, :1].expand(C))
    with pytest.raises(ValueError, match="needs the cells' offsets"):
        decoder()(memory, pad, formula, cells, candidates, sketch)


def test_far_offsets_share_the_outermost_embedding():
    memory, pad, formula, cells, candidates, sketch, offsets = inputs(1)
    dec = decoder(max_offset=4)
    far = torch.tensor([[[40, -9]] * C])
    edge = torch.tensor([[[4, -4]] * C])
    a = dec(memory, pad, formula, cells, candidates, sketch, far)[1]
    b = dec(memory, pad, formula, cells, candidates, sketch, edge)[1]
    torch.testing.assert_close(a, b)


def test_previous_pointed_carries_the_last_pointed_cell():
    cells = torch.arange(1.0, 4.0)[None, :, None].expand(1, 3, 2)  # cell j has state j + 1
    pointers = torch.tensor([[-100, 2, -100, 0, -100]])
    got = previous_pointed(cells, pointers)[0, :, 0].tolist()
    assert got == [0.0, 0.0, 3.0, 3.0, 1.0]


def test_range_scores_step_by_step_equal_the_teacher_forced_pass():
    """Decoding feeds one step at a time with the chosen cell; training feeds the gold ones."""
    dec = decoder()
    memory, pad, formula, cells, candidates, sketch, offsets = inputs(2, steps=5)
    pointers = torch.tensor([[-100, 1, 3, -100, -100], [2, -100, 0, 4, -100]])
    _, features, _ = dec.sketch_step(sketch, dec.start_state(formula), memory, pad)
    keys = dec.pointer_keys(cells, offsets)
    previous = previous_pointed(cells, pointers)
    whole, _ = dec.range_scores(features, formula, keys, candidates, previous)
    state = None
    for t in range(5):
        step, state = dec.range_scores(
            features[:, t : t + 1], formula, keys, candidates, previous[:, t : t + 1], state
        )
        torch.testing.assert_close(step[:, 0], whole[:, t], atol=1e-5, rtol=1e-5)


def test_padding_steps_use_a_zero_embedding():
    assert not decoder().embed.weight[PAD].any()


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"layers": 0}, "layers"),
        ({"heads": 0}, "heads"),
        ({"dropout": 1.0}, "dropout"),
        ({"max_offset": 0}, "max_offset"),
    ],
)
def test_config_rejects_nonsense_naming_the_field(overrides, field):
    with pytest.raises(ValueError, match=f"DecoderConfig.{field}"):
        DecoderConfig(**overrides)


def test_heads_must_divide_the_width():
    with pytest.raises(ValueError, match="must divide the encoder width"):
        FormulaDecoder(18, DecoderConfig(heads=4))
