# mistake: a coordinate skipped (loop off by one)
# fails: forward_mode_matches_autograd, forward_mode_one_jvp_per_input, both_modes_on_fresh_functions

import torch
from torch import Tensor


def gradient_forward_mode(f, x: Tensor) -> Tensor:
    gradient = torch.zeros_like(x)
    basis = torch.eye(x.numel(), dtype=x.dtype)
    for i in range(1, x.numel()):  # starts at 1: coordinate 0 is never computed
        _, derivative = torch.func.jvp(f, (x,), (basis[i],))
        gradient[i] = derivative
    return gradient


def gradient_reverse_mode(f, x: Tensor) -> Tensor:
    leaf = x.detach().clone().requires_grad_(True)
    f(leaf).backward()
    return leaf.grad


def passes_needed(n_inputs: int, n_outputs: int, mode: str) -> int:
    if mode == "forward":
        return n_inputs
    if mode == "reverse":
        return n_outputs
    raise ValueError("unknown mode: " + mode)
