"""Lesson 1, "Try it yourself" 2: fit a quadratic by gradient descent.

Reference solution. The stub in exercises/lesson01/ has the same names, signatures and
docstrings.
"""

import torch
from torch import Tensor


def make_quadratic_data(n: int = 100, seed: int = 0, noise: float = 0.3) -> tuple[Tensor, Tensor]:
    """Noisy samples of y = 0.5x² − x + 1, made reproducibly.

    Follow this recipe exactly, in this order, so that your data equal the grader's:

        torch.manual_seed(seed)
        X = torch.rand(n, 1) * 4 - 2
        y = 0.5 * X**2 - X + 1 + noise * torch.randn(n, 1)

    Args:
        n: how many points.
        seed: the seed given to torch.manual_seed before anything is drawn.
        noise: the standard deviation of the Gaussian noise added to y.

    Returns:
        (X, y): two float32 tensors of shape (n, 1). X is uniform on [−2, 2); neither
        requires grad.
    """
    torch.manual_seed(seed)
    X = torch.rand(n, 1) * 4 - 2
    y = 0.5 * X**2 - X + 1 + noise * torch.randn(n, 1)
    return X, y


def fit_quadratic(X: Tensor, y: Tensor, lr: float = 0.1, steps: int = 500) -> tuple[float, float, float]:
    """Learn a, b, c of the prediction a * X**2 + b * X + c by gradient descent.

    Use autograd, as in the lesson's worked example: a, b and c are leaf tensors that
    start at zero and require grad; each step computes the prediction, the mean squared
    error against y, calls backward(), moves every parameter by −lr times its gradient
    without recording the update, and clears the gradients.

    Args:
        X: the inputs, a float32 or float64 tensor of shape (n, 1).
        y: the targets, a tensor of the same shape (n, 1) and dtype as X.
        lr: the learning rate (step size).
        steps: how many updates to make.

    Returns:
        The learned (a, b, c) as a tuple of three Python floats.
    """
    a = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    c = torch.zeros(1, requires_grad=True)
    for _ in range(steps):
        pred = a * X**2 + b * X + c
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for parameter in (a, b, c):
                parameter -= lr * parameter.grad
                parameter.grad.zero_()
    return a.item(), b.item(), c.item()
