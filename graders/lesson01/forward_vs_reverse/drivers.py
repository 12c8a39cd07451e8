"""Drivers of `forward_vs_reverse`: the student's gradient functions run on a counted f, in the worker.

The student's functions take a Python function `f`, so the driver builds `f` from plain data (a
spec: its kind and coefficients), counts its calls (one call of f is one pass) and counts the calls
of torch.func.jvp and vjp, patched for the duration of the call. The grader builds the same f
from the same spec for torch.autograd's answer. The warm-ups load torch.func's decompositions in
the zygote, once, before it forks a worker that will need them.
"""

from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any, Callable, Iterator

import torch
from torch import Tensor
from torch.autograd import forward_ad


def warm_up() -> None:
    """What every run of this exercise needs loaded: jvp's decompositions, which load on first use
    (~0.1 s with torch 2.13). A room's `warm_up` is run by the zygote of every run that grades the
    room, as soon as the zygote has loaded (pytest_plugin.py): before the first worker is asked for."""
    x = torch.zeros(1)
    torch.func.jvp(torch.sin, (x,), (x,))


def load_jvp_and_vjp() -> None:
    """Also vjp: calling its pullback the first time imports torch._dynamo (~3.5 s)."""
    warm_up()
    x = torch.zeros(1)
    _, pullback = torch.func.vjp(torch.sin, x)
    pullback(x)


def build(spec: dict[str, Any]) -> Callable[[Tensor], Tensor]:
    """The function a spec describes; coefficients follow x's dtype. Written with mv and dot
    only: under jvp, elementwise arithmetic between x and a constant (w * inp, W @ x + c)
    goes through a Python decomposition that imports torch._dynamo (~3 s) on first use."""
    kind = spec["kind"]

    def coefficient(name: str, x: Tensor) -> Tensor:
        return spec[name].to(x.dtype)

    if kind == "neuron":
        return lambda w: torch.sigmoid(torch.mv(coefficient("inp", w).unsqueeze(0), w)).sum()
    if kind == "tanh_layer":
        return lambda x: torch.tanh(torch.mv(coefficient("W", x), x)).sum()
    if kind == "quadratic":
        return lambda x: (torch.dot(x, torch.mv(coefficient("A", x), x))
                          + torch.mv(coefficient("b", x).unsqueeze(0), x).sum())
    if kind == "logsumexp":
        return lambda x: torch.logsumexp(torch.mv(coefficient("W", x), x), dim=0)
    raise ValueError(f"unknown test function {kind!r}")


class _Counted:
    """Wraps f to count its calls: one call of f is one pass through the function."""

    def __init__(self, f: Callable[[Tensor], Tensor]) -> None:
        self.f, self.calls = f, 0

    def __call__(self, x: Tensor) -> Tensor:
        self.calls += 1
        return self.f(x)


@contextlib.contextmanager
def _counting_transforms(module: ModuleType) -> Iterator[dict[str, int]]:
    """Count torch.func.jvp / vjp calls and torch.autograd.forward_ad's dual inputs (make_dual: one forward-mode
    pass each), whether the student wrote torch.func.jvp(...), fwAD.make_dual(...) or imported the function
    under any name (`from torch.func import jvp`)."""
    counts = {"jvp": 0, "vjp": 0, "make_dual": 0}
    homes = {"jvp": torch.func, "vjp": torch.func, "make_dual": forward_ad}
    originals = {name: getattr(homes[name], name) for name in counts}

    inside = [0]  # torch.func.jvp makes dual tensors itself: those are its pass, counted once as a jvp

    def counter(name: str) -> Callable:
        def counted(*args: Any, **kwargs: Any) -> Any:
            if name != "make_dual" or not inside[0]:
                counts[name] += 1
            inside[0] += name != "make_dual"
            try:
                return originals[name](*args, **kwargs)
            finally:
                inside[0] -= name != "make_dual"
        return counted

    wrappers = {name: counter(name) for name in counts}
    aliases = {key: name for key, value in vars(module).items() for name, original in originals.items()
               if value is original}
    try:
        for name, wrapper in wrappers.items():
            setattr(homes[name], name, wrapper)
        for key, name in aliases.items():
            setattr(module, key, wrappers[name])
        yield counts
    finally:
        for name, original in originals.items():
            setattr(homes[name], name, original)
        for key, name in aliases.items():
            setattr(module, key, originals[name])


def run_mode(module: ModuleType, function: str, spec: dict, x: Tensor, first: Tensor | None = None) -> dict:
    """Runs in the worker: the student's `function` of f at x, with how often f and the transforms ran. With `first`,
    the same f object is asked at `first` before, as a caller that keeps its function asks it again."""
    f = _Counted(build(spec))
    if first is not None:
        getattr(module, function)(f, first)
        f.calls = 0
    with _counting_transforms(module) as counts:
        gradient = getattr(module, function)(f, x)
    return {"gradient": gradient, "f_calls": f.calls, "x_after": x, **counts}
