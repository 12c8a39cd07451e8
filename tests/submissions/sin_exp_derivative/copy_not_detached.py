# mistake: copy of x not detached
# fails: autograd_derivative_is_clean

"""Lesson 1, "Try it yourself" 3: the derivative of sin(x)·e^(−x), by autograd and by hand.

Reference solution. The stub in exercises/lesson01/ has the same names, signatures and
docstrings.
"""

import torch
from torch import Tensor


def f(x: Tensor) -> Tensor:
    """sin(x)·e^(−x), elementwise.

    Args:
        x: a floating-point tensor of any shape; it may require grad (autograd_derivative
            calls f on such a tensor).

    Returns:
        A tensor of the same shape and dtype as `x`.
    """
    return torch.sin(x) * torch.exp(-x)


def autograd_derivative(x: Tensor) -> Tensor:
    """df/dx at every point of `x`, computed by autograd from `f`.

    Differentiate the function `f` above by calling it: do not write its derivative
    here. Follow the lesson's recipe: make a leaf copy of `x` that requires grad,
    evaluate `f` on it, reduce the output to a scalar with `.sum()` (each output depends
    on its own input only, so the gradient of the sum is the elementwise derivative),
    call `.backward()` and read the leaf's `.grad`. This must work for any `f`: the
    checks also replace `f` by another function and expect that function's derivative.

    Args:
        x: a floating-point tensor of any shape; it may require grad. It must not be
            modified: do not call `x.requires_grad_()` on it and do not leave a `.grad` on it.

    Returns:
        A tensor of the same shape and dtype as `x` that does not require grad (also when
        `x` does).
    """
    leaf = x.clone().requires_grad_(True)
    f(leaf).sum().backward()
    return leaf.grad.detach()


def analytic_derivative(x: Tensor) -> Tensor:
    """df/dx worked out by hand, computed without autograd.

    Differentiate f(x) = sin(x)·e^(−x) on paper: it is a product, so use the product
    rule (u·v)' = u'·v + u·v'; the derivative of e^(−x) needs the chain rule (the inner
    function −x has derivative −1). "Try it yourself" 3 gives the result to compare
    with: cos(x)·e^(−x) − sin(x)·e^(−x). Write it with `torch.sin`, `torch.cos` and
    `torch.exp`; no `.backward()` or `torch.autograd` here.

    Args:
        x: a floating-point tensor of any shape.

    Returns:
        A tensor of the same shape and dtype as `x`.
    """
    return torch.exp(-x) * (torch.cos(x) - torch.sin(x))


def max_abs_difference(n: int = 50, start: float = 0.0, end: float = 5.0) -> float:
    """The largest absolute gap between the two derivatives on `torch.linspace(start, end, n)`.

    Args:
        n: how many points.
        start, end: the first and last point.

    Returns:
        The largest |autograd_derivative(x) − analytic_derivative(x)| as a Python float.
    """
    x = torch.linspace(start, end, n)
    return (autograd_derivative(x) - analytic_derivative(x)).abs().max().item()
