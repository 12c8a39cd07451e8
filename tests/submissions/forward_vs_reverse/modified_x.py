# mistake: modified the caller's x
# fails: reverse_mode_matches_autograd, reverse_mode_one_pass, both_modes_on_fresh_functions

import torch
from torch import Tensor
from torch.func import jvp


def gradient_forward_mode(f, x: Tensor) -> Tensor:
    columns = []
    for tangent in torch.eye(x.numel(), dtype=x.dtype):
        _, derivative = jvp(f, (x,), (tangent,))
        columns.append(derivative)
    return torch.stack(columns)


def gradient_reverse_mode(f, x: Tensor) -> Tensor:
    x.requires_grad_(True)  # the caller's own tensor now tracks gradients
    f(x).backward()
    return x.grad.detach().clone()


def passes_needed(n_inputs: int, n_outputs: int, mode: str) -> int:
    if mode == "forward":
        return n_inputs
    if mode == "reverse":
        return n_outputs
    raise ValueError("unknown mode: " + mode)
