# mistake: forward and reverse swapped
# fails: passes_needed_on_fixed_cases, passes_needed_on_generated_cases

import torch
from torch import Tensor
from torch.func import jvp, vjp


def gradient_forward_mode(f, x: Tensor) -> Tensor:
    x = x.detach()
    n = x.shape[0]
    grads = []
    for i in range(n):
        e = torch.zeros(n, dtype=x.dtype)
        e[i] = 1
        _, d = jvp(f, (x,), (e,))
        grads.append(d)
    return torch.stack(grads)


def gradient_reverse_mode(f, x: Tensor) -> Tensor:
    out, pullback = vjp(f, x.detach())
    return pullback(torch.ones_like(out))[0]


def passes_needed(n_inputs: int, n_outputs: int, mode: str) -> int:
    if mode == "forward":
        return n_outputs
    elif mode == "reverse":
        return n_inputs
    raise ValueError(f"bad mode {mode}")
