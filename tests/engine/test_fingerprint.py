"""The digest that names an expected value (graders/engine/fingerprint.py): two arguments share a digest exactly
when the wire would carry them as the same message; it never confuses values that cross differently."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from graders.engine.fingerprint import digest
from graders.sandbox import pack

# Values that cross the wire as different messages, each of them: no two may share a digest.
DIFFERENT = [
    1, 1.0, True, "1", None, [1], (1,), [1, 2], [[1], 2], ((1, 2),), {"a": 1}, {"a": 1.0}, {1: "a"},
    torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([1, 2]),
    torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([[1.0, 2.0]]), torch.nn.Parameter(torch.ones(2)),
    torch.ones(2), np.float64(1.0), np.arange(2), torch.float32, torch.Size([2]), [torch.ones(2), 1],
]


def test_values_that_cross_the_wire_differently_never_share_a_digest() -> None:
    digests = [digest(value) for value in DIFFERENT]
    clashes = [(a, b) for (a, da), (b, db) in itertools.combinations(zip(DIFFERENT, digests), 2) if da == db]
    assert not clashes, clashes


@pytest.mark.parametrize("one, other", [
    (torch.arange(6.0).reshape(2, 3).t(), torch.arange(6.0).reshape(2, 3).t().contiguous()),  # a view: same values
    ([0.1, [2, (3, "x")]], [0.1, [2, (3, "x")]]),
    ({"w": torch.zeros(3)}, {"w": torch.zeros(3)}),
], ids=["a view and its copy", "nested plain data", "a dict of tensors"])
def test_values_the_wire_carries_alike_share_a_digest(one: object, other: object) -> None:
    assert pack(one) == pack(other)
    assert digest(one) == digest(other)


def test_a_leafs_gradient_is_part_of_its_digest() -> None:
    bare, with_grad = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    (with_grad * 3).sum().backward()
    assert digest(bare) != digest(with_grad)


def test_a_digest_is_32_hex_digits() -> None:
    value = digest([torch.ones(2), {"k": (1, 2.5)}])
    assert len(value) == 32 and int(value, 16) >= 0
