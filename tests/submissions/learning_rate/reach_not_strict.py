# mistake: a loss equal to the target counted as below it
# fails: steps_to_reach_finds_first_step
"""Lesson 1, "Worked example" and "Try it yourself" 1: gradient descent on a line, and what
the learning rate does to it.

Write the body of each function below, then check your work with

    pytest exercises/ -k learning_rate

Each function's docstring says what it takes and what it must return. With them you can
answer the lesson's question: how many steps does lr = 0.01 need to reach a loss of 0.06,
and what happens with lr = 1.1?
"""

import math

import torch
from torch import Tensor


def make_line_data(n: int = 100, seed: int = 42) -> tuple[Tensor, Tensor]:
    """The worked example's data: n points of the line y = 3x − 2, plus noise.

    Exactly the lesson's recipe, in this order: `torch.manual_seed(seed)`, then
    `X = torch.rand(n, 1) * 4 - 2` (points in [−2, 2)) and
    `y = 3 * X - 2 + 0.3 * torch.randn(n, 1)`.

    Args:
        n: how many points.
        seed: the seed of torch's random number generator.

    Returns:
        (X, y): two float32 tensors of shape (n, 1).
    """
    torch.manual_seed(seed)
    X = torch.rand(n, 1) * 4 - 2
    y = 3 * X - 2 + 0.3 * torch.randn(n, 1)
    return X, y


def train_line(X: Tensor, y: Tensor, lr: float, steps: int) -> tuple[list[float], float, float]:
    """Fit y ≈ w·X + b by hand-written gradient descent, as in the worked example.

    Start from w = b = 0: two leaf tensors of shape (1,) that require grad. Then, `steps`
    times: predict `X * w + b`, take the mean squared error against `y`, record the loss,
    call `backward()`, update `w` and `b` by `lr` times their gradients inside
    `torch.no_grad()`, and zero both gradients.

    Args:
        X: inputs, a float32 or float64 tensor of shape (n, 1).
        y: targets, a tensor of shape (n, 1) and the dtype of X.
        lr: the learning rate.
        steps: how many updates to make.

    Returns:
        (losses, w, b): `losses` is a list of `steps` Python floats, where `losses[k]` is the
        loss at step k *before* that step's update (so `losses[0]` is the loss at
        w = b = 0); record it with `loss.item()`. `w` and `b` are the final parameters as
        Python floats.
    """
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X * w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return losses, w.item(), b.item()


def steps_to_reach(losses: list[float], target: float) -> int | None:
    """The first step whose loss is below `target`.

    Args:
        losses: the losses of a run, one per step, as `train_line` returns them.
        target: the loss to get under (strictly: a loss equal to it does not count).

    Returns:
        The index of the first loss below `target`, or None if no loss is.
    """
    for i, l in enumerate(losses):
        if l <= target:
            return i
    return None


def diverged(losses: list[float]) -> bool:
    """Whether a run blew up instead of settling.

    Args:
        losses: the losses of a run, one per step, as `train_line` returns them.

    Returns:
        True if some loss is inf or nan, or grew past the first loss; False otherwise
        (and for an empty list).
    """
    return any(not math.isfinite(loss) or loss > losses[0] for loss in losses)


def max_stable_learning_rate(X: Tensor) -> float:
    """The largest learning rate for which `train_line` converges on inputs `X`.

    The MSE is a quadratic bowl in (w, b) whose Hessian is
    H = 2·[[mean x², mean x], [mean x, 1]]. Gradient descent multiplies the distance to the
    bottom along each eigenvector of H by (1 − lr·λ) every step, so it converges exactly
    when lr < 2 / λ_max, with λ_max the largest eigenvalue of H.

    Args:
        X: inputs, a float32 or float64 tensor of shape (n, 1).

    Returns:
        2 / λ_max as a Python float.
    """
    x = X.detach().to(torch.float64).reshape(-1)
    mean_x, mean_x2 = x.mean(), (x**2).mean()
    hessian = 2 * torch.stack([torch.stack([mean_x2, mean_x]), torch.stack([mean_x, torch.ones_like(mean_x)])])
    return (2 / torch.linalg.eigvalsh(hessian).max()).item()
