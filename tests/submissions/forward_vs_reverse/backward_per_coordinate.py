# mistake: reverse mode with one pass per coordinate
# fails: reverse_mode_one_pass

import torch
from torch import Tensor
from torch.func import jvp


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
    gradient = torch.zeros_like(x)
    for i in range(len(x)):
        w = x.detach().clone().requires_grad_(True)
        f(w).backward()
        gradient[i] = w.grad[i]
    return gradient


def passes_needed(n_inputs: int, n_outputs: int, mode: str) -> int:
    if mode == "forward":
        return n_inputs
    if mode == "reverse":
        return n_outputs
    raise ValueError("unknown mode: " + mode)

