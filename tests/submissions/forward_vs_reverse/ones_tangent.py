# mistake: forward mode with one all-ones tangent
# fails: forward_mode_matches_autograd, forward_mode_one_jvp_per_input, both_modes_on_fresh_functions

import torch
from torch import Tensor
from torch.func import jvp, vjp


def gradient_forward_mode(f, x: Tensor) -> Tensor:
    _, derivative = jvp(f, (x,), (torch.ones_like(x),))
    return derivative


def gradient_reverse_mode(f, x: Tensor) -> Tensor:
    out, pullback = vjp(f, x)
    return pullback(torch.ones_like(out))[0]


def passes_needed(n_inputs: int, n_outputs: int, mode: str) -> int:
    if mode == "forward":
        return n_inputs
    if mode == "reverse":
        return n_outputs
    raise ValueError("unknown mode: " + mode)

