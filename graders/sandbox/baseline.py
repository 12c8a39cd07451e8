"""The process-wide state a student module can change, put back before the worker loads the next one.

One worker serves all of a submission's exercises, one after another (shared.py). A module
that sets `torch.set_default_dtype(torch.float64)` or `torch.set_grad_enabled(False)` at its
top level, seeds a generator, or replaces `torch.sum` must cost its own exercise only, as it
did when every exercise had a process of its own. So the worker takes this baseline once,
after it is confined and before any student code runs, and restores it before each import.

What is restored: torch's default dtype, grad mode, anomaly detection and deterministic
setting; the random generators of torch, numpy and `random`; `sys.path`, the standard
streams and the warning filters; the attributes of the modules and classes students reach
for (torch, torch.nn, torch.nn.functional, torch.autograd, torch.Tensor, torch.nn.Module,
numpy, math, random, builtins) that were replaced or deleted. Anything deeper is the student's own code hurting only its
own later exercises, never a grade it did not earn: every value is still judged by the grader.
"""

from __future__ import annotations

import builtins
import math
import random
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

_WATCHED: tuple[Any, ...] = (torch, torch.nn, torch.nn.functional, torch.autograd, torch.Tensor, torch.nn.Module,
                             torch.nn.Parameter, np, math, random, builtins)


@dataclass
class Baseline:
    default_dtype: torch.dtype
    grad_enabled: bool
    anomaly: bool
    deterministic: bool
    torch_rng: torch.Tensor
    numpy_rng: Any
    python_rng: Any
    path: list[str]
    streams: tuple[Any, Any]
    warning_filters: list
    attributes: list[tuple[Any, dict[str, Any]]]
    modules: frozenset[str]

    @classmethod
    def take(cls) -> "Baseline":
        return cls(torch.get_default_dtype(), torch.is_grad_enabled(), torch.is_anomaly_enabled(),
                   torch.are_deterministic_algorithms_enabled(), torch.get_rng_state(), np.random.get_state(),
                   random.getstate(), list(sys.path), (sys.stdout, sys.stderr), list(warnings.filters),
                   [(owner, dict(vars(owner))) for owner in _WATCHED], frozenset(sys.modules))

    def restore(self, student_folder: str) -> None:
        """Back to the baseline, and the modules imported from `student_folder` forgotten (their memory goes)."""
        for name, module in list(sys.modules.items()):
            if name not in self.modules and str(getattr(module, "__file__", "") or "").startswith(student_folder):
                del sys.modules[name]
        torch.set_default_dtype(self.default_dtype)
        torch.set_grad_enabled(self.grad_enabled)
        torch.set_anomaly_enabled(self.anomaly)
        if torch.are_deterministic_algorithms_enabled() != self.deterministic:  # the call costs 1.5 s: only on change
            torch.use_deterministic_algorithms(self.deterministic)
        torch.set_rng_state(self.torch_rng)
        np.random.set_state(self.numpy_rng)
        random.setstate(self.python_rng)
        sys.path[:] = self.path
        sys.stdout, sys.stderr = self.streams
        warnings.filters[:] = self.warning_filters
        for owner, kept in self.attributes:
            _put_back(owner, kept)


def _put_back(owner: Any, kept: dict[str, Any]) -> None:
    """Put back every attribute replaced or deleted since the baseline. New names stay: torch
    adds its submodules (torch.func, ...) as attributes when they are first imported."""
    now = vars(owner)
    for name, value in kept.items():
        if now.get(name, _MISSING) is not value:
            _quietly(setattr, owner, name, value)


def _quietly(action: Any, *args: Any) -> None:
    try:
        action(*args)
    except (AttributeError, TypeError):  # a slot or a read-only attribute: nothing a student could have changed
        pass


_MISSING = object()

