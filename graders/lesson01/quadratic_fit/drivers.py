"""Drivers of `quadratic_fit`: what the student's fit_quadratic signature says, read in the worker.

The defaults of a signature are part of its contract; reading them costs nothing, where a call
with the defaults would cost a 500-step run.
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any


def fit_defaults(module: ModuleType) -> dict[str, Any]:
    """Runs in the worker: the defaults of lr and steps in fit_quadratic's signature (None where there is none)."""
    parameters = inspect.signature(module.fit_quadratic).parameters
    return {name: (parameters[name].default if name in parameters
                   and parameters[name].default is not inspect.Parameter.empty else None) for name in ("lr", "steps")}
