# mistake: left x modified
# fails: numerical_gradient_matches_autograd, numerical_gradient_leaves_x_unchanged, gradient_check_is_small_for_smooth_functions, numerical_gradient_on_fresh_functions, numerical_gradient_calls_f_twice_per_coordinate, gradient_check_catches_a_wrong_backward

import torch
from torch import Tensor


def numerical_gradient(f, x: Tensor, h: float = 1e-5) -> Tensor:
    gradient = torch.zeros_like(x)
    with torch.no_grad():
        for i in range(len(x)):
            x[i] += h
            up = f(x)
            x[i] -= 2 * h
            down = f(x)
            gradient[i] = (up - down) / (2 * h)
    return gradient


def relative_error(a: Tensor, b: Tensor) -> float:
    ratio = (a - b).abs() / torch.clamp(a.abs() + b.abs(), min=1e-8)
    return ratio.max().item()


def gradient_check(f, x: Tensor) -> float:
    x64 = x.detach().double()
    leaf = x64.clone().requires_grad_()
    f(leaf).backward()
    return relative_error(leaf.grad, numerical_gradient(f, x64))

