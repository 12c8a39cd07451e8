"""The process-wide state a student module can change, put back before the worker loads the next one.

One worker serves all of a submission's exercises, one after another (shared.py). A module
that sets `torch.set_default_dtype(torch.float64)` or `torch.set_grad_enabled(False)` at its
top level, seeds a generator, or replaces `torch.sum` must cost its own exercise only, as it
did when every exercise had a process of its own. So the worker takes this baseline once,
after it is confined and before any student code runs, and restores it before each import.

What is restored: torch's default dtype, grad mode, anomaly detection and deterministic
setting; the random generators of torch, numpy and `random`; `sys.path`, the standard
streams, the warning filters, the environment, the working folder, the recursion limit,
trace and profile functions, signal handlers and timers; the attributes of the modules and
classes students reach for (torch, torch.nn, torch.nn.functional, torch.autograd,
torch.Tensor, torch.nn.Module, numpy, math, random, builtins) that were replaced or deleted.
What cannot be undone in place (a thread left running, a resource limit lowered) is reported
by `lost`, and the grader then loads the next module in a fresh worker. Anything deeper is the student's own code hurting only its
own later exercises, never a grade it did not earn: every value is still judged by the grader.
"""

from __future__ import annotations

import builtins
import math
import os
import random
import resource
import signal
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from graders.sandbox.outcome import Kind

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
    environment: dict[str, str]
    folder: str
    recursion_limit: int
    handlers: dict[int, Any]
    threads: int
    limits: dict[int, tuple[int, int]]

    @classmethod
    def take(cls) -> "Baseline":
        return cls(torch.get_default_dtype(), torch.is_grad_enabled(), torch.is_anomaly_enabled(),
                   torch.are_deterministic_algorithms_enabled(), torch.get_rng_state(), np.random.get_state(),
                   random.getstate(), list(sys.path), (sys.stdout, sys.stderr), list(warnings.filters),
                   [(owner, dict(vars(owner))) for owner in _WATCHED], frozenset(sys.modules), dict(os.environ),
                   os.getcwd(), sys.getrecursionlimit(), {n: signal.getsignal(n) for n in _SIGNALS}, _threads(),
                   {kind: resource.getrlimit(kind) for kind in _LIMITS})

    def lost(self) -> Kind | None:
        """What student code changed that only a fresh process undoes, if anything."""
        if _threads() > self.threads:
            return Kind.THREAD_LEFT
        if any(resource.getrlimit(kind) != value for kind, value in self.limits.items()):
            return Kind.LIMIT_CHANGED
        return None

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
        sys.settrace(None)
        sys.setprofile(None)
        sys.setrecursionlimit(self.recursion_limit)
        os.environ.clear()
        os.environ.update(self.environment)
        os.chdir(self.folder)
        for timer in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF):
            signal.setitimer(timer, 0)
        for number, handler in self.handlers.items():
            if signal.getsignal(number) is not handler and handler is not None:
                _quietly(signal.signal, number, handler)
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
    except (AttributeError, TypeError, ValueError, OSError):  # read-only: nothing a student could have changed
        pass


_MISSING = object()
_SIGNALS = tuple(n for n in signal.valid_signals() if n not in (signal.SIGKILL, signal.SIGSTOP))
_LIMITS = (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_DATA, resource.RLIMIT_FSIZE,
           resource.RLIMIT_NOFILE, resource.RLIMIT_NPROC, resource.RLIMIT_STACK)


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1

