"""Lesson 1, companion "Forward Mode vs. Reverse Mode": the same gradient, two costs.

Reference solution. The stub in exercises/lesson01/ has the same names, signatures and
docstrings.
"""

from typing import Callable

import torch
from torch import Tensor


def gradient_forward_mode(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """The gradient of a scalar function `f` at `x`, by forward-mode differentiation.

    Forward mode pushes one direction of change through `f` per pass:
    `torch.func.jvp(f, (x,), (v,))` returns `(f(x), d)` where d is the derivative of f
    along v. With v = e_i (1 at position i, 0 elsewhere), d is df/dx_i. So the full
    gradient costs one `jvp` call, one pass through `f`, per input coordinate: n in all.
    (`torch.autograd.forward_ad`'s dual tensors do the same: one dual input per pass.)

    Args:
        f: a function that takes a tensor shaped like `x` and returns a 0-d tensor.
        x: a 1-D floating-point tensor of shape (n,); it may require grad. It must not be
            modified.

    Returns:
        A tensor of shape (n,) and the dtype of `x`, not requiring grad (also when `x`
        requires grad): df/dx_i at every i.
    """
    x = x.detach()  # a result that autograd does not track, whether x requires grad or not
    gradient = torch.empty_like(x)
    for i, direction in enumerate(torch.eye(x.numel(), dtype=x.dtype)):
        _, derivative = torch.func.jvp(f, (x,), (direction,))
        gradient[i] = derivative
    return gradient


def gradient_reverse_mode(f: Callable[[Tensor], Tensor], x: Tensor) -> Tensor:
    """The gradient of a scalar function `f` at `x`, by reverse-mode differentiation.

    Reverse mode runs `f` once, then walks the recorded graph backwards from the single
    output: one pass gives the derivative with respect to every input at once. Use
    autograd, as in the lesson (`.backward()` on f of a leaf copy of `x` that requires
    grad, then read the leaf's `.grad`), or `torch.func.vjp(f, x)` and call the function
    it returns with a cotangent of 1. Call `f` exactly once.

    Args:
        f: a function that takes a tensor shaped like `x` and returns a 0-d tensor.
        x: a 1-D floating-point tensor of shape (n,); it may require grad. It must not be
            modified.

    Returns:
        A tensor of shape (n,) and the dtype of `x`, not requiring grad (also when `x`
        requires grad): df/dx_i at every i.
    """
    leaf = x.detach().clone().requires_grad_(True)
    f(leaf).backward()
    return leaf.grad


def passes_needed(n_inputs: int, n_outputs: int, mode: str) -> int:
    """How many passes a mode needs for the full matrix of derivatives of a function.

    Forward mode gives one input's derivatives per pass, so it needs one pass per input;
    reverse mode gives one output's derivatives per pass, so it needs one per output.
    A loss (one output) of a million parameters: a million passes forward, one in reverse.

    Args:
        n_inputs: how many numbers the function takes (at least 1).
        n_outputs: how many numbers it returns (at least 1).
        mode: "forward" or "reverse", exactly.

    Returns:
        The number of passes, an int.

    Raises:
        ValueError: if `mode` is anything else.
    """
    if mode == "forward":
        return n_inputs
    if mode == "reverse":
        return n_outputs
    raise ValueError(f"mode must be 'forward' or 'reverse', not {mode!r}")
