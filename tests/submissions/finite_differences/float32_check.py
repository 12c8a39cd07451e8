# mistake: gradient check not in float64
# fails: gradient_check_is_small_for_smooth_functions

import torch
from torch import Tensor


def numerical_gradient(f, x: Tensor, h: float = 1e-5) -> Tensor:
    gradient = torch.zeros_like(x)
    for i in range(len(x)):
        step = torch.zeros_like(x)
        step[i] = h
        gradient[i] = (f(x + step) - f(x - step)) / (2 * h)
    return gradient


def relative_error(a: Tensor, b: Tensor) -> float:
    ratio = (a - b).abs() / torch.clamp(a.abs() + b.abs(), min=1e-8)
    return ratio.max().item()


def gradient_check(f, x: Tensor) -> float:
    leaf = x.detach().clone().requires_grad_()
    f(leaf).backward()
    return relative_error(leaf.grad, numerical_gradient(f, x))
