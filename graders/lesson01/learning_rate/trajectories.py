"""Comparing training runs: the losses of every step, and the final parameters.

A run comes back from the worker as plain data: `(losses, w, b)`. Its losses may be
Python floats or one-element tensors (whether they are floats is a check of its own);
here only the values count. Steps where both runs have blown up (inf, nan or beyond
1e30) agree, since where exactly float32 overflows depends on the order of summation.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import torch

from graders.kit import Mistake, Scalar, describe

Parsed = tuple[list[float], float, float]  # (losses, w, b) as Python floats
BLOWN_UP = 1e30


def number(value: Any) -> float | None:
    """A Python float for a number or a one-element tensor; None for anything else (bools included)."""
    if type(value) in (int, float):
        return float(value)
    if isinstance(value, Scalar) and type(value.value) in (int, float):
        return float(value.value)
    if type(value) is torch.Tensor and value.numel() == 1 and not value.is_complex():
        return float(value.detach().reshape(()).item())
    return None


def parsed(value: Any) -> tuple[Parsed | None, str]:
    """The run's values, or None and what is wrong with its shape."""
    if type(value) not in (tuple, list) or len(value) != 3:
        return None, f"it returned {describe(value)} instead of a tuple (losses, w, b)"
    losses, w, b = value
    if type(losses) is torch.Tensor and losses.dim() == 1:
        losses = list(losses)
    if type(losses) not in (list, tuple):
        return None, f"its losses are {describe(losses)}, not a list of numbers"
    numbers = [number(loss) for loss in losses]
    if None in numbers:
        return None, f"its losses hold {describe(losses[numbers.index(None)])}, not a number"
    for name, parameter in (("w", w), ("b", b)):
        if number(parameter) is None:
            return None, f"its {name} is {describe(parameter)}, not a number"
    return (numbers, number(w), number(b)), ""  # type: ignore[return-value]


def _blown_up(value: float) -> bool:
    return not abs(value) < BLOWN_UP  # nan is not < anything


def _agree(got: float, expected: float, rtol: float, atol: float) -> bool:
    if _blown_up(got) or _blown_up(expected):
        return _blown_up(got) and _blown_up(expected)
    return abs(got - expected) <= atol + rtol * abs(expected)


def trajectory_gap(got: list[float], expected: list[float], *, rtol: float, atol: float) -> int | None:
    """The first step where two loss curves differ, or None when they agree."""
    return next((step for step, (g, e) in enumerate(zip(got, expected)) if not _agree(g, e, rtol, atol)), None)


def run_problem(got: Parsed, expected: Parsed, *, rtol: float, atol: float) -> str | None:
    """How a run differs from the expected one, in words; None when it matches."""
    losses, want = got[0], expected[0]
    if len(losses) != len(want):
        return (f"it returned {len(losses)} losses for {len(want)} steps; expected one loss per step, "
                f"recorded before that step's update")
    step = trajectory_gap(losses, want, rtol=rtol, atol=atol)
    if step is not None:
        last = len(want) - 1
        text = f"the loss at step {step} is {_shown(losses[step])}; expected {_shown(want[step])}"
        if step < last and not _agree(losses[last], want[last], rtol, atol):
            text += f", and after {last} steps it is {_shown(losses[last])} instead of {_shown(want[last])}"
        return text
    for name, g, e in (("w", got[1], expected[1]), ("b", got[2], expected[2])):
        if not _agree(g, e, rtol, atol):
            return f"the final {name} is {_shown(g)}; expected {_shown(e)}"
    return None


def matching_mistake(got: Parsed, suspects: Iterable[tuple[Mistake, Parsed]], *, rtol: float,
                     atol: float) -> Mistake | None:
    """The first mistake whose run the student's run follows."""
    return next((mistake for mistake, run in suspects if run_problem(got, run, rtol=rtol, atol=atol) is None), None)


def _shown(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else repr(value)
