"""Lesson 1, "Autograd: gradients for free": one artificial neuron, and its gradient by the chain rule.

Write the body of each function below, then check your work with

    pytest exercises/ -k neuron_chain_rule

Each function's docstring says what it takes and what it must return.
"""

import torch
from torch import Tensor


def neuron(w: Tensor, inp: Tensor) -> Tensor:
    """The output of a single neuron: σ(w · inp), the sigmoid of the weighted sum.

    Build it from torch operations on `w`, so that autograd can follow it: when `w`
    requires grad, `neuron(w, inp).backward()` must fill `w.grad`. With the lesson's
    w = [1, −2, 0.5] and inp = [3, 1, 4], z = w · inp = 3 and the output is 0.9526.

    Args:
        w: weights, shape (n,), float32 or float64; it may require grad.
        inp: inputs, shape (n,), same dtype as `w`.

    Returns:
        A 0-d tensor of the dtype of `w`; it requires grad when `w` does.
    """
    # TODO: write this function.
    raise NotImplementedError


def neuron_grad_by_hand(w: Tensor, inp: Tensor) -> Tensor:
    """d neuron(w, inp) / d w, worked out with the chain rule instead of autograd.

    With z = w · inp and out = σ(z): d out / d z = σ(z)·(1 − σ(z)), and d z / d w = inp.
    Multiply the two. Do not call `.backward()` or `torch.autograd.grad` here. The lesson's
    w and inp give [0.1355, 0.0452, 0.1807].

    Args:
        w: weights, shape (n,), float32 or float64; it may require grad, as the weights of
            a model being trained do.
        inp: inputs, shape (n,), same dtype as `w`.

    Returns:
        A tensor of shape (n,) and the dtype of `w`, that does not require grad.
    """
    # TODO: write this function.
    raise NotImplementedError
