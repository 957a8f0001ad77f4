import pytest
import torch

from fortap.model.copy_head import FEATURES, LEGACY_FEATURES, CopyHead
from fortap.model.formula_decoder import DecoderConfig


def inputs(b: int = 2, c: int = 5, d: int = 8):
    torch.manual_seed(0)
    offsets = torch.randint(-3, 4, (b, c, 2))
    mask = torch.ones(b, c, dtype=torch.bool)
    return torch.randn(b, d), torch.randn(b, c, d), offsets, torch.ones(b, c), mask


def test_a_head_reads_only_its_first_features():
    head = CopyHead(8, 4, 0.02, features=LEGACY_FEATURES)
    state, cells, offsets, agree, mask = inputs()
    features = torch.rand(2, 5, FEATURES)  # (B, C, FEATURES) as collate gives them
    changed = features.clone()
    changed[..., LEGACY_FEATURES:] = 7.0  # the numbers a legacy head was trained without
    scores = head(state, cells, offsets, agree, features, mask)  # (B, C + 1)
    assert scores.shape == (2, 6)
    assert torch.equal(scores, head(state, cells, offsets, agree, changed, mask))
    full = CopyHead(8, 4, 0.02)  # reads every number
    assert not torch.equal(
        full(state, cells, offsets, agree, features, mask),
        full(state, cells, offsets, agree, changed, mask),
    )


def test_the_feature_count_is_checked():
    assert DecoderConfig().copy_features == LEGACY_FEATURES  # configs saved before it load as 9
    with pytest.raises(ValueError, match="copy_features"):
        DecoderConfig(copy_features=FEATURES + 1)
    with pytest.raises(ValueError, match="features"):
        CopyHead(8, 4, 0.02, features=0)
