"""Drivers of `stopping_gradients`: sgd_step called on parameters with real gradients, in the worker.

sgd_step returns nothing, so the driver builds leaves that require grad, gives each its gradient
by a real backward(), calls the student's sgd_step and returns the tensors it was given (and,
for the diagnosis, whether each was changed in place). Also run in the grader on the reference.
"""

from __future__ import annotations

from types import ModuleType

import torch


def _leaves_with_grads(values: list[torch.Tensor], grads: list[torch.Tensor]) -> list[torch.Tensor]:
    """Leaves that require grad, each given its gradient by a real backward()."""
    params = [value.detach().clone().requires_grad_(True) for value in values]
    for p, grad in zip(params, grads):
        (p * grad).sum().backward()  # d/dp of sum(p * g) is g
    return params


def apply_step(module: ModuleType, values: list[torch.Tensor], grads: list[torch.Tensor], lr: float) -> dict:
    """Runs in the worker (and here on the reference): call sgd_step on leaves with gradients;
    return the tensors it was given, and the type of what the call returned when that is not
    the None it promises (by name: the object itself may be anything)."""
    params = _leaves_with_grads(values, grads)
    given = list(params)  # sgd_step may rebind or replace the entries of its list
    answer = module.sgd_step(params, lr)
    return {"params": given, "returned": None if answer is None else str(type(answer).__name__)[:60]}


def changed_in_place(module: ModuleType, values: list[torch.Tensor], grads: list[torch.Tensor],
                     lr: float) -> list[bool]:
    """Runs in the worker: whether sgd_step changed each given tensor in place, whatever the values
    it left (every in-place operation moves a tensor's version counter; making a new tensor does not)."""
    params = _leaves_with_grads(values, grads)
    versions = [p._version for p in params]
    module.sgd_step(list(params), lr)
    return [p._version != version for p, version in zip(params, versions)]
