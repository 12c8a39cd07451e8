"""Fresh inputs of the same kind: the second run of every public check when the reference is live.

The student bundle records what the reference gives on the public checks' published inputs
(expected.json), and the lesson prints many of those values too. A submission that
recognised its inputs and returned the recorded value would pass every public check
without computing anything. So wherever the live reference grades (the instructor's
autograde, `pytest exercises/` in this repository), each public check runs twice: first on
its published inputs, then on fresh ones of the same kind (the same shapes, dtypes, ranges
and sizes, other values, drawn from the exercise's "twins" seed), and pays only if both
pass. Recording and replaying (the student bundle) run the published inputs only.

A check's input builders ask `twin()` which inputs to build, and draw the fresh ones from
`twin_generator()` or `twin_random()`, so the fresh inputs are the same on every run.
"""

from __future__ import annotations

import contextlib
import random
from typing import Iterator

import torch

TWIN_NOTE = ("When your work is graded, each public check runs again on fresh inputs of the same kind as the "
             "published ones (other values, the same shapes and dtypes), and there it fails:")


class _Twins:
    """Whether a public check is in its second run, and the seed of that run's inputs."""

    def __init__(self) -> None:
        self.active = False
        self.seed = 0


_TWINS = _Twins()


def twin() -> bool:
    """True while a public check runs on fresh inputs (its second run)."""
    return _TWINS.active


def twin_generator(offset: int = 0) -> torch.Generator:
    """A torch generator for this twin run's fresh values (`offset` tells apart the draws of one run)."""
    return torch.Generator().manual_seed(_TWINS.seed + offset)


def twin_random(offset: int = 0) -> random.Random:
    """A Python random generator for this twin run's fresh numbers, sizes and choices."""
    return random.Random(_TWINS.seed + offset)


@contextlib.contextmanager
def twin_run(seed: int) -> Iterator[None]:
    """Build fresh inputs from `seed` inside the block."""
    saved = _TWINS.active, _TWINS.seed
    _TWINS.active, _TWINS.seed = True, seed
    try:
        yield
    finally:
        _TWINS.active, _TWINS.seed = saved
