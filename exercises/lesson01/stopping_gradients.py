"""Lesson 1, companion text, "The Detach / no_grad / .data Triangle": three places where
a training script must stop autograd from recording, each done the recommended way.

Write the body of each function below, then check your work with

    pytest exercises/ -k stopping_gradients

Each function's docstring says what it takes and what it must return.
"""

import numpy as np
import torch
from torch import Tensor


def predict(weight: Tensor, bias: Tensor, X: Tensor) -> Tensor:
    """A linear layer's prediction for inference: `X @ weight.T + bias`, recorded by no graph.

    Compute it inside `with torch.no_grad():`, so that autograd records nothing even
    though the parameters require grad: at inference there is no backward pass to prepare.
    Do not use `.data`.

    Args:
        weight: shape (out_features, in_features), e.g. (1, 1), float32 or float64; usually requires grad.
        bias: shape (out_features,), e.g. (1,); usually requires grad.
        X: the inputs, shape (n, in_features), e.g. (100, 1); same dtype as `weight`.

    Returns:
        A tensor of shape (n, out_features) and the dtype of `X`, with
        `requires_grad == False` and no `grad_fn`.
    """
    # TODO: write this function.
    raise NotImplementedError


def sgd_step(params: list[Tensor], lr: float) -> None:
    """One plain gradient-descent update of every parameter, then clear its gradient.

    For each tensor `p` in `params`, after a `backward()` has filled `p.grad`: change `p`
    itself (in place) to `p - lr * p.grad`, inside `torch.no_grad()` so that the update
    is not recorded, and then zero `p.grad`. Do not use `.data`.

    Args:
        params: leaf tensors that require grad, each with a `.grad` of its own shape.
        lr: the learning rate.

    Returns:
        None. Afterwards the very same tensors hold the new values, are still leaves that
        require grad, and their `.grad` holds zeros (`p.grad.zero_()`; `p.grad = None`, what
        `optimizer.zero_grad()` does by default, is accepted too).
    """
    # TODO: write this function.
    raise NotImplementedError


def to_numpy(t: Tensor) -> np.ndarray:
    """A NumPy array of a tensor's values, also when autograd tracks the tensor. Do not use
    `.data`: `.detach()` is the way the lesson recommends.

    Args:
        t: a CPU or GPU tensor of any shape, of a dtype NumPy has (not bfloat16); it may
            require grad.

    Returns:
        A `numpy.ndarray` with the same shape, values and dtype (float32 stays float32).
        `t` itself is left unchanged. For a CPU tensor the array may share `t`'s memory,
        as `.numpy()` does (a change to one then shows in the other); a copy is fine too.
    """
    # TODO: write this function.
    raise NotImplementedError
