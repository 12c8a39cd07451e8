# mistake: mean of the gaps instead of the largest
# fails: relative_error_on_fixed_cases, gradient_check_catches_a_wrong_backward

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
    return ratio.mean().item()


def gradient_check(f, x: Tensor) -> float:
    x64 = x.detach().double()
    leaf = x64.clone().requires_grad_()
    f(leaf).backward()
    return relative_error(leaf.grad, numerical_gradient(f, x64))
