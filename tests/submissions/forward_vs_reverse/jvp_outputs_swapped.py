# mistake: jvp's outputs unpacked in the wrong order
# fails: forward_mode_matches_autograd, forward_mode_one_jvp_per_input, both_modes_on_fresh_functions

import torch
from torch import Tensor
from torch.func import jvp


def gradient_forward_mode(f, x: Tensor) -> Tensor:
    gradient = torch.zeros_like(x)
    for i in range(x.numel()):
        tangent = torch.zeros_like(x)
        tangent[i] = 1.0
        derivative, _ = jvp(f, (x,), (tangent,))  # the pair is (value, derivative)
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
