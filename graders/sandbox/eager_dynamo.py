"""Spare eager optimisers the import of torch._dynamo (2.5 s here, as long as torch itself).

`optimizer.step()` and `zero_grad()` reach into torch._dynamo for just two things:
`graph_break()`, which does nothing outside compilation, and `disable(fn)`, which
outside compilation behaves as `fn`; the pullback of `torch.func.vjp` for a third,
`compiled_autograd._disable()`, which does nothing while compiled autograd is off (and only
the real module can turn it on). Lesson 1 never compiles, yet its first optimiser step or
pullback would import the whole compiler in every process that grades it (and a zygote
that held it would make every worker's fork and exit slower). This stand-in answers those
names with their eager behaviour and, for any other name, imports the real torch._dynamo,
puts it in its place and answers from it: code that needs the compiler gets it, only later.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import types
from typing import Any, Callable

import torch

_NAME = "torch._dynamo"


class _EagerStandIn(types.ModuleType):
    def graph_break(self, *args: Any, **kwargs: Any) -> None:
        """Outside torch.compile a graph break is a no-op."""

    def disable(self, fn: Callable | None = None, recursive: bool = True, **kwargs: Any) -> Any:
        """Outside torch.compile, a function with compilation disabled is the function."""
        if fn is None:
            return lambda function: function
        return fn

    def __getattr__(self, name: str) -> Any:
        # inspect asks every module for __file__ and the like: no compiler for that. But
        # __path__ is what importing a submodule (torch._dynamo.x) asks: that needs the real one.
        if name.startswith("__") and name != "__path__":
            raise AttributeError(name)
        return getattr(_load_real(), name)


class _EagerCompiledAutograd:
    """torch._dynamo.compiled_autograd while the stand-in is in place, so while compiled autograd is off."""

    @staticmethod
    def _disable() -> contextlib.AbstractContextManager:
        return contextlib.nullcontext()

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module(f"{_NAME}.compiled_autograd"), name)


def _load_real() -> types.ModuleType:
    if isinstance(sys.modules.get(_NAME), _EagerStandIn):
        del sys.modules[_NAME]
    if isinstance(torch.__dict__.get("_dynamo"), _EagerStandIn):
        del torch.__dict__["_dynamo"]
    real = importlib.import_module(_NAME)
    torch._dynamo = real  # type: ignore[attr-defined]
    return real


def install() -> None:
    """Put the stand-in in place, unless the real torch._dynamo is already loaded."""
    if _NAME in sys.modules:
        return
    stand_in = _EagerStandIn(_NAME, __doc__)
    stand_in.__dict__["graph_break"] = stand_in.graph_break
    stand_in.__dict__["disable"] = stand_in.disable
    stand_in.__dict__["compiled_autograd"] = _EagerCompiledAutograd()
    sys.modules[_NAME] = stand_in
    torch._dynamo = stand_in  # type: ignore[attr-defined]


install_eager_dynamo = install  # the name the sandbox's door gives it
