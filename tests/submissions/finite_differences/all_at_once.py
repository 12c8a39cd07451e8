# mistake: every coordinate nudged at once
# fails: numerical_gradient_matches_autograd, gradient_check_is_small_for_smooth_functions, numerical_gradient_on_fresh_functions, gradient_check_catches_a_wrong_backward, numerical_gradient_calls_f_twice_per_coordinate, numerical_gradient_leaves_x_unchanged

import torch
from torch import Tensor


def numerical_gradient(f, x: Tensor, h: float = 1e-5) -> Tensor:
    # Moves the whole of x at once: every entry gets the same slope.
    slope = (f(x + h) - f(x - h)) / (2 * h)
    return torch.full_like(x, slope.item())


def relative_error(a: Tensor, b: Tensor) -> float:
    ratio = (a - b).abs() / torch.clamp(a.abs() + b.abs(), min=1e-8)
    return ratio.max().item()


def gradient_check(f, x: Tensor) -> float:
    x64 = x.detach().double()
    leaf = x64.clone().requires_grad_()
    f(leaf).backward()
    return relative_error(leaf.grad, numerical_gradient(f, x64))
