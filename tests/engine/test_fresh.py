"""A public check's second run on fresh inputs (graders/engine/fresh.py): inside `twin_run` the check knows it is the
twin and draws from that run's seed, the same draws for the same seed and offset; outside, and after, it is not."""

from __future__ import annotations

import pytest
import torch

from graders.engine.fresh import twin, twin_generator, twin_random, twin_run


def test_a_twin_run_draws_from_its_seed_and_the_same_seed_draws_the_same() -> None:
    assert not twin()
    with twin_run(7):
        assert twin()
        first = (torch.rand(3, generator=twin_generator()), twin_random().random(), twin_random(1).random())
    with twin_run(7):
        again = (torch.rand(3, generator=twin_generator()), twin_random().random(), twin_random(1).random())
    with twin_run(8):
        other = torch.rand(3, generator=twin_generator())
    assert torch.equal(first[0], again[0]) and first[1:] == again[1:]
    assert first[1] != first[2]  # an offset tells apart two draws of one run
    assert not torch.equal(first[0], other)


def test_the_twin_run_ends_with_its_block_even_when_the_check_fails() -> None:
    with pytest.raises(ValueError), twin_run(3):
        raise ValueError("the check failed")
    assert not twin()
    with twin_run(1), twin_run(2):  # nested: the inner run's end gives back the outer one
        pass
    assert not twin()
