"""Lesson 1, companion "Why Do We Need Automatic Differentiation?", option 2: finite differences.

Reference solution. The stub in exercises/lesson01/ has the same names, signatures and
docstrings.
"""

from typing import Callable

import torch
from torch import Tensor


def numerical_gradient(f: Callable[[Tensor], Tensor], x: Tensor, h: float = 1e-5) -> Tensor:
    """The gradient of a scalar function `f` at `x`, estimated by central differences.

    For every coordinate i, nudge x up and down by h along that coordinate only and
    measure the slope: (f(x + h·e_i) − f(x − h·e_i)) / (2h), where e_i is the vector with
    a 1 at position i and 0 elsewhere. That is exactly two calls of `f` per coordinate,
    2n calls in all for a vector of n numbers, and no other call of `f`.

    Args:
        f: a function that takes a tensor shaped like `x` and returns a 0-d tensor.
        x: a 1-D floating-point tensor of shape (n,), float32 or float64. It must be
            unchanged when the function returns: nudge copies of it, never `x` itself.
        h: the step. The default suits float64; float32 needs a much larger one.

    Returns:
        A tensor of shape (n,) and the dtype of `x`: the estimated df/dx_i at every i.
    """
    x = x.detach()
    gradient = torch.empty_like(x)
    for i in range(x.numel()):
        step = torch.zeros_like(x)
        step[i] = h
        gradient[i] = (f(x + step) - f(x - step)) / (2 * h)
    return gradient


def relative_error(a: Tensor, b: Tensor) -> float:
    """The largest elementwise relative gap between two tensors of the same shape.

    For every element, |a − b| / max(1e-8, |a| + |b|); the result is the largest of these.
    The floor of 1e-8 keeps the ratio finite where both are zero (the gap is then 0).

    Args:
        a, b: floating-point tensors of the same shape, neither requiring grad.

    Returns:
        The largest ratio, as a Python float (0.0 when the tensors are equal).
    """
    gap = (a - b).abs()
    scale = (a.abs() + b.abs()).clamp(min=1e-8)
    return (gap / scale).max().item()


def gradient_check(f: Callable[[Tensor], Tensor], x: Tensor) -> float:
    """How far autograd's gradient of `f` at `x` is from the finite-difference estimate.

    Work in float64 (in float32 the finite differences themselves are too noisy to tell
    a right gradient from a wrong one): make a float64 leaf copy of `x` that requires
    grad, call `f` on it and `.backward()` on the result, read the leaf's `.grad`; then
    compare it with `numerical_gradient(f, x64)` (default h) using `relative_error`.

    Args:
        f: a function that takes a 1-D tensor and returns a 0-d tensor; it must accept
            float64 input.
        x: a 1-D floating-point tensor of shape (n,), any floating dtype; it may require
            grad, as a model's parameter does. It must be unchanged when the function
            returns: no `.grad` left on it either.

    Returns:
        The relative error as a Python float: below 1e-7 when autograd and the
        estimate agree on a smooth function, of order 0.1 or more when the gradient is wrong.
    """
    x64 = x.detach().to(torch.float64)
    leaf = x64.clone().requires_grad_(True)
    f(leaf).backward()
    return relative_error(leaf.grad, numerical_gradient(f, x64))
