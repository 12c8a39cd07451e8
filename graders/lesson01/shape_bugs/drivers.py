"""Drivers of `shape_bugs`: many shape pairs in one call, and the loss probed, in the worker.

One call per pair would cost a round trip each, so the driver runs the student's function on a
list of pairs and sends back, per pair, what it returned or the error it raised. For
silently_broadcasts, torch's own broadcasting stands in for the student's broadcast_shape, so
that a slip there costs only broadcast_shape's checks. Also run in the grader on the reference.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import torch

Shape = tuple  # of ints
Pair = tuple  # of two shapes


def _missing(module: ModuleType, name: str) -> dict:
    """In place of the answers when the file has no function `name`: the functions it does define."""
    try:
        defined = sorted(str(n) for n, v in vars(module).items() if not str(n).startswith("_") and callable(v)
                         and getattr(v, "__module__", None) == module.__name__)
    except Exception:  # noqa: BLE001 - a strange module still gets its message
        defined = []
    return {"missing": name, "defined": defined}


def _attempt(function: Callable, *args: Any) -> list:
    """["returned", value] or ["raised", type name, message, the qualified names of its class and bases]; an
    untouched stub still says so."""
    try:
        return ["returned", function(*args)]
    except NotImplementedError:
        raise
    except Exception as error:  # noqa: BLE001 - any error is an answer to grade
        try:
            message = str(error)[:300]
        except Exception:  # noqa: BLE001
            message = "<unreadable message>"
        return ["raised", type(error).__name__, message, _lineage(error)]


def _lineage(error: Exception) -> list[str]:
    """As the worker's exception_lineage (not imported: a student bundle's drivers live in another package): the
    qualified names of the error's class and bases, from which the grader judges whether it is a ValueError."""
    try:
        names = [f"{cls.__module__}.{cls.__qualname__}" for cls in type(error).__mro__ if cls is not object]
    except Exception:  # noqa: BLE001 - a student's class may make these attributes raise
        return []
    return [name[:200] for name in names[:20]]


def broadcast_many(module: ModuleType, pairs: list[Pair]) -> list[list] | dict:
    function = getattr(module, "broadcast_shape", None)
    if not callable(function):
        return _missing(module, "broadcast_shape")
    return [_attempt(function, a, b) for a, b in pairs]


def torch_shape(a: Shape, b: Shape) -> Shape:
    """torch's broadcast of two shapes; raises RuntimeError where torch refuses them.

    torch.broadcast_shapes documents itself as this very expression, but its first call
    imports torch.fx (0.65 s); stride-0 views of one number cost nothing to build.
    """
    one = torch.empty(())
    return tuple(torch.broadcast_tensors(one.expand(a), one.expand(b))[0].shape)


def _torch_broadcast_shape(a: Shape, b: Shape) -> Shape:
    try:
        return torch_shape(a, b)
    except RuntimeError:
        raise ValueError(f"shapes {a} and {b} do not broadcast") from None


def silently_many(module: ModuleType, pairs: list[Pair]) -> list[list] | dict:
    """silently_broadcasts on each pair, with the student's broadcast_shape swapped for torch's
    so that a mistake there (a wrong rule, a misspelled name) costs only broadcast_shape's checks."""
    function = getattr(module, "silently_broadcasts", None)
    if not callable(function):
        return _missing(module, "silently_broadcasts")
    own = vars(module).get("broadcast_shape")
    module.broadcast_shape = _torch_broadcast_shape
    try:
        return [_attempt(function, a, b) for a, b in pairs]
    finally:
        if own is None:
            del module.broadcast_shape
        else:
            module.broadcast_shape = own


def loss_probe(module: ModuleType, pred: torch.Tensor, target: torch.Tensor, order: torch.Tensor) -> dict:
    """The loss, its gradient w.r.t. pred, and the loss once more with the targets shuffled."""
    function = getattr(module, "mse_loss", None)
    if not callable(function):
        return _missing(module, "mse_loss")
    leaf = pred.detach().clone().requires_grad_(True)
    first = _attempt(function, leaf, target)
    probe = {"first": first, "grad": None, "shuffled": None}
    if first[0] == "returned":
        loss = first[1]
        if type(loss) is torch.Tensor and loss.requires_grad and loss.numel() == 1:
            loss.backward()
            probe["grad"] = leaf.grad
        probe["shuffled"] = _attempt(function, pred.detach().clone(), target[order])
    return probe
