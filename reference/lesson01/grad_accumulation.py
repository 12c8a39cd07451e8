"""Lesson 1, "Forgetting zero_grad()": gradients add up in .grad until you clear them.

Reference solution. The stub in exercises/lesson01/ has the same names, signatures and
docstrings.
"""

import torch
from torch import Tensor


def repeated_backward_grads(x0: float, calls: int) -> list[float]:
    """The value of `x.grad` after each of `calls` backward passes of y = x², never zeroed.

    Make `x = torch.tensor(x0, requires_grad=True)` once, then `calls` times: compute
    `y = x ** 2`, call `y.backward()` and record `x.grad` as a Python number. The lesson
    does this with x0 = 3 and gets 6, 12, 18: the derivative 2·x0 piles up.

    Args:
        x0: the point where y = x² is differentiated.
        calls: how many backward passes to run (at least 1).

    Returns:
        A list of `calls` Python floats: x.grad after the 1st, 2nd, ... backward pass.
    """
    x = torch.tensor(x0, requires_grad=True)
    grads = []
    for _ in range(calls):
        y = x ** 2
        y.backward()
        grads.append(x.grad.item())
    return grads


def accumulated_gradient(w: Tensor, X: Tensor, y: Tensor, micro_batches: int) -> Tensor:
    """The gradient of the full-batch mean squared error, built from micro-batch backward passes.

    The loss is L(w) = mean over the N rows of (X @ w − y)². Instead of one backward pass
    on L, split the rows into `micro_batches` consecutive groups with
    `torch.tensor_split(X, micro_batches)` (and the same for `y`), and call `.backward()`
    once per group without zeroing in between, so that `.grad` adds the parts up. The
    parts must add up to L exactly, also when the groups are not all the same size
    (100 rows in 3 groups gives 34, 33 and 33): think about what each group's loss has
    to be divided by.

    Args:
        w: weights, shape (d,), float32 or float64; it may require grad, as a model's weights
            do. It must not be modified: do not call `w.requires_grad_()` on it and do not
            leave a `.grad` on it; work on a leaf copy.
        X: inputs, shape (N, d), same dtype as `w`.
        y: targets, shape (N,), same dtype as `w`.
        micro_batches: how many groups to split the N rows into (1 ≤ micro_batches ≤ N).

    Returns:
        dL/dw: a tensor of shape (d,) and the dtype of `w`, that does not require grad
        (also when `w` does). It equals the gradient of one backward pass on the full-batch
        loss.
    """
    leaf = w.detach().clone().requires_grad_(True)
    rows = X.shape[0]
    for X_part, y_part in zip(torch.tensor_split(X, micro_batches), torch.tensor_split(y, micro_batches)):
        part_loss = ((X_part @ leaf - y_part) ** 2).sum() / rows
        part_loss.backward()  # adds this group's share into leaf.grad
    return leaf.grad.detach()
