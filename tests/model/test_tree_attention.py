"""Tree distance and the attention mask, against a literal case and a brute-force reference."""

from __future__ import annotations

import random

import torch

from fortap.encoding.example import Batch
from fortap.model.tree_attention import tree_attention_mask, tree_distance
from fortap.model.tree_ids import tree_node_ids

DEGREES = (32, 32, 64, 256)
N = [-1, -1, -1, -1]


def test_node_ids_use_level_offsets_and_one_null_id():
    coords = torch.tensor([[[-1, -1, 0, 3], [1, 31, 63, 255], [32, 0, 64, 256]]])
    assert tree_node_ids(coords, DEGREES).tolist() == [
        [[384, 384, 64, 131], [1, 63, 127, 383], [384, 32, 384, 384]]
    ]


def test_distance_of_a_literal_two_level_header():
    # [CLS]; cells A, B under top group 0 (leaves 0, 1); cell C under group 1 (leaf 0)
    top = torch.tensor([[N, [-1, -1, 0, 0], [-1, -1, 0, 1], [-1, -1, 1, 0]]])
    left = torch.tensor([[N, [-1, -1, -1, 0], [-1, -1, -1, 0], [-1, -1, -1, 1]]])
    dist = tree_distance(top, left, DEGREES)
    assert dist.dtype == torch.int8
    # A and C share sibling index 0 at the leaf level: the reference's per-level Hamming
    # distance counts that level as equal (not a tree path length).
    assert dist[0].tolist() == [[0, 3, 3, 3], [3, 0, 2, 4], [3, 2, 0, 6], [3, 4, 6, 0]]


def test_out_of_degree_index_is_null():
    top = torch.tensor([[[-1, -1, -1, 300], N]])
    assert tree_distance(top, top, DEGREES)[0].tolist() == [[0, 0], [0, 0]]


def brute_force_distance(top: list, left: list, degrees: tuple[int, ...]) -> list[list[int]]:
    """The rule written out per token pair and level, straight from the reference note §3."""

    def node(c, level):
        return c if 0 <= c < degrees[level] else None

    def level_term(a, b):
        if a is None and b is None:
            return 0
        if a is None or b is None:
            return 1
        return 0 if a == b else 2

    T = len(top)
    out = [[0] * T for _ in range(T)]
    for i in range(T):
        for j in range(T):
            for tree in (top, left):
                for level in range(len(degrees)):
                    a, b = node(tree[i][level], level), node(tree[j][level], level)
                    out[i][j] += level_term(a, b)
    return out


def random_coords(rng: random.Random, T: int, degrees: tuple[int, ...]) -> list[list[int]]:
    """Random tree coordinates: bottom-aligned paths of random depth, a few out of degree."""
    coords = []
    for _ in range(T):
        depth = rng.randint(0, len(degrees))
        c = [-1] * (len(degrees) - depth) + [rng.randrange(3) for _ in range(depth)]
        if depth and rng.random() < 0.1:
            c[-1] = degrees[-1] + rng.randrange(5)
        coords.append(c)
    return coords


def test_distance_equals_brute_force_on_random_trees():
    rng = random.Random(7)
    degrees = (2, 3, 3, 256)  # small fan-outs so out-of-degree indices occur at every level
    for _ in range(20):
        B, T = 2, rng.randint(1, 24)
        tops = [random_coords(rng, T, degrees) for _ in range(B)]
        lefts = [random_coords(rng, T, degrees) for _ in range(B)]
        got = tree_distance(torch.tensor(tops), torch.tensor(lefts), degrees)
        for b in range(B):
            assert got[b].tolist() == brute_force_distance(tops[b], lefts[b], degrees)


def _batch(top, left, token_mask) -> Batch:
    B, T = token_mask.shape
    zeros = torch.zeros(B, T, dtype=torch.long)
    return Batch(
        token_ids=zeros, numbers=zeros[..., None].expand(B, T, 4), in_cell_pos=zeros, rows=zeros,
        cols=zeros, top_coords=top, left_coords=left, formats=torch.zeros(B, T, 11),
        cell_ids=zeros, token_mask=token_mask, sep_index=zeros[:, :1], cell_mask=token_mask[:, :1],
    )  # fmt: skip


def test_mask_hides_far_tokens_and_padding_but_never_self():
    top = torch.tensor([[N, [-1, -1, 0, 0], [-1, -1, 0, 1], [-1, -1, 1, 0], N]])
    left = torch.tensor([[N, [-1, -1, -1, 0], [-1, -1, -1, 0], [-1, -1, -1, 1], N]])
    token_mask = torch.tensor([[True, True, True, True, False]])
    mask = tree_attention_mask(_batch(top, left, token_mask), threshold=3, degrees=DEGREES)
    assert mask.dtype == torch.bool
    assert mask[0].int().tolist() == [
        [1, 1, 1, 1, 0],
        [1, 1, 1, 0, 0],
        [1, 1, 1, 0, 0],
        [1, 0, 0, 1, 0],
        [0, 0, 0, 0, 1],  # a padding query sees only itself
    ]


def test_mask_equals_brute_force_with_padding():
    rng = random.Random(3)
    T = 16
    tops = [random_coords(rng, T, DEGREES) for _ in range(3)]
    lefts = [random_coords(rng, T, DEGREES) for _ in range(3)]
    lengths = [16, 9, 1]
    token_mask = torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]
    batch = _batch(torch.tensor(tops), torch.tensor(lefts), token_mask)
    for threshold in (0, 2, 8, 16):
        mask = tree_attention_mask(batch, threshold, DEGREES)
        for b, n in enumerate(lengths):
            dist = brute_force_distance(tops[b], lefts[b], DEGREES)
            want = [
                [i == j or (i < n and j < n and dist[i][j] <= threshold) for j in range(T)]
                for i in range(T)
            ]
            assert mask[b].tolist() == want
