"""Drivers of `views`: the student's view functions on inputs built from recipes, in the worker.

Whether a result is a view shows only where the input lives: the driver builds the input from
a recipe sent with the request (steps from torch.arange or a seeded permutation: transpose,
slice, view, reshape, permute, clone, detach, a copy of the values), calls the student's
function and sends back its result and whether it shares the input's storage. The recipes
arrive at call time, so nothing here knows which inputs any check uses. Also run in the
grader on the reference.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import torch

MISSING = "<function missing>"  # in place of an answer when the student's file has no such function
Steps = list  # of [name, *arguments], applied in order (see `apply`)
# For the step "as_dtype": another dtype whose elements take as many bytes, so that the view keeps x's shape.
_SAME_SIZE = {torch.float64: torch.int64, torch.int64: torch.float64, torch.float32: torch.int32,
              torch.int32: torch.float32}


def apply(x: torch.Tensor, steps: Steps) -> torch.Tensor:
    """x transformed by each step in turn; ["slice", dim, start, stop, step] is x[..., start:stop:step]."""
    for name, *arguments in steps:
        if name == "T":
            x = x.T
        elif name == "slice":
            dim, start, stop, stride = arguments
            x = x[(slice(None),) * dim + (slice(start, stop, stride),)]
        elif name in ("view", "reshape", "permute"):
            x = getattr(x, name)(*arguments[0])
        elif name in ("clone", "detach"):
            x = getattr(x, name)()
        elif name == "values":  # the same values in new memory, as torch.tensor(x.tolist()) makes them
            x = torch.tensor(x.tolist())
        elif name == "arange":  # the values of torch.arange, whatever x holds
            x = torch.arange(x.numel()).to(x.dtype)
        elif name == "as_dtype":  # the same memory read as another dtype of the same element size
            x = x.view(_SAME_SIZE[x.dtype])
        else:
            raise ValueError(f"unknown step {name!r}")
    return x


def make_input(recipe: list) -> torch.Tensor:
    """The input a recipe names: [steps, shape, dtype name, seed or None for torch.arange]."""
    steps, shape, dtype, seed = recipe
    n = math.prod(shape)
    values = torch.arange(n) if seed is None else torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    values = values.to(getattr(torch, dtype))
    # A flat x is not reshaped: reshape(12) would make it a view with a ._base, which the messages'
    # "x = torch.arange(12)" is not, and shares_memory's ._base mistake would answer False everywhere.
    return apply(values.reshape(shape) if len(shape) != 1 else values, steps)  # shape () is a 0-d x


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


def observe(module: Any, function: str, recipe: list, *args: Any) -> Any:
    """function(input, *args), and whether the result shares the input's storage."""
    target = getattr(module, function, None)
    if not callable(target):
        return MISSING
    x = make_input(recipe)
    result = target(x, *args)
    seen = {"value": result}
    if type(result) is torch.Tensor:
        seen["shares"] = _storage(result) == _storage(x)
    return seen


def pair_answers(module: ModuleType | Any, recipe: list, pairs: list[tuple[Steps, Steps]]) -> Any:
    """shares_memory on each pair, both of whose tensors are made from one input by their steps."""
    target = getattr(module, "shares_memory", None)
    if not callable(target):
        return MISSING
    x = make_input(recipe)
    return [target(apply(x, first), apply(x, second)) for first, second in pairs]
