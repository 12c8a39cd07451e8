"""Drivers of `stopping_gradients`: sgd_step called on parameters with real gradients, in the worker.

sgd_step returns nothing, so the driver builds leaves that require grad, gives each its gradient
by a real backward(), calls the student's sgd_step and returns the tensors it was given (and,
for the diagnosis, whether each was changed in place). Also run in the grader on the reference.
to_numpy meets a GPU tensor here too, as a stand-in (OnAnotherDevice): the grader has no GPU.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

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


def predict_around_a_step(module: ModuleType, weight: torch.Tensor, bias: torch.Tensor, X: torch.Tensor,
                          step: torch.Tensor) -> dict:
    """Runs in the worker: predict with weights that require grad, then with the same weight tensor after an
    in-place update under no_grad (weight += step), as a training loop asks it; the second answer, which the check
    judges (the first is the one other checks judge)."""
    weight, bias = weight.detach().clone().requires_grad_(True), bias.detach().clone().requires_grad_(True)
    module.predict(weight, bias, X)
    with torch.no_grad():
        weight.add_(step)
    return {"second": module.predict(weight, bias, X)}


def changed_in_place(module: ModuleType, values: list[torch.Tensor], grads: list[torch.Tensor],
                     lr: float) -> list[bool]:
    """Runs in the worker: whether sgd_step changed each given tensor in place, whatever the values
    it left (every in-place operation moves a tensor's version counter; making a new tensor does not)."""
    params = _leaves_with_grads(values, grads)
    versions = [p._version for p in params]
    module.sgd_step(list(params), lr)
    return [p._version != version for p, version in zip(params, versions)]


class OnAnotherDevice(torch.Tensor):
    """A stand-in for a tensor on a GPU, on a machine that has none: NumPy cannot read it until it is copied to
    the CPU (`.cpu()`, `.to("cpu")`, `.numpy(force=True)`), and it says it lives on cuda:0; everything else works
    as on the CPU. So a to_numpy that forgets the copy fails here as it would on a student's GPU."""

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        forced = kwargs.get("force", args[1] if len(args) > 1 else False)
        if (func is torch.Tensor.numpy and not forced) or func is torch.Tensor.__array__:
            raise TypeError(NOT_ON_THE_CPU)
        getter = getattr(func, "__self__", None)  # a property read: Tensor.device.__get__ and the like
        if getter is torch.Tensor.device:
            return torch.device("cuda", 0)
        if getter is torch.Tensor.is_cuda:
            return True
        moving = func is torch.Tensor.cpu or (func is torch.Tensor.to and _to_cpu(args, kwargs))
        if moving or func is torch.Tensor.numpy:  # numpy here only with force=True, which copies
            with torch._C.DisableTorchFunctionSubclass():
                moved = func(*args, **kwargs)
            # A plain CPU tensor from here on, as a real copy gives (on the CPU, .cpu() returns the tensor itself).
            return moved.as_subclass(torch.Tensor) if isinstance(moved, torch.Tensor) else moved
        return super().__torch_function__(func, types, args, kwargs)


NOT_ON_THE_CPU = ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
                  "memory first.")


def _to_cpu(args: tuple, kwargs: dict) -> bool:
    """Whether a .to(...) call moves to the CPU: by a device (a string or torch.device) given in any position."""
    wanted = [kwargs.get("device"), *args[1:]]
    return any(isinstance(a, (str, torch.device)) and torch.device(a).type == "cpu" for a in wanted)


def to_numpy_on_a_gpu(module: ModuleType, t: torch.Tensor) -> Any:
    """Runs in the worker: to_numpy of `t` as a GPU tensor (OnAnotherDevice), that requires grad as `t` does."""
    on_gpu = t.detach().clone().as_subclass(OnAnotherDevice).requires_grad_(t.requires_grad)
    return module.to_numpy(on_gpu)
