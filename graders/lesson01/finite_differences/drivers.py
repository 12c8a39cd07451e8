"""Drivers of `finite_differences`: the student's numerical gradient and gradient check on a counted f, in the worker.

Both take a Python function `f`, so the driver builds it from plain data (a spec: its kind and
coefficients; one kind has a deliberately wrong backward, for gradient_check to catch) and
counts its calls and the dtypes it was given. The grader builds the same f from the same spec
for torch.autograd's answer.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import torch
from torch import Tensor


def build(spec: dict[str, Any]) -> Callable[[Tensor], Tensor]:
    """The function a spec describes; coefficients follow x's dtype so float32 stays float32."""
    kind = spec["kind"]
    if kind == "sum_sin":
        return lambda x: torch.sin(spec["a"].to(x.dtype) * x).sum()
    if kind == "quadratic":
        return lambda x: 0.5 * x @ spec["A"].to(x.dtype) @ x + spec["b"].to(x.dtype) @ x
    if kind == "logsumexp":
        return lambda x: torch.logsumexp(spec["W"].to(x.dtype) @ x + spec["c"].to(x.dtype), dim=0)
    if kind == "cube":  # at x = 0 its central difference is h² exactly: the step used, read off the estimate
        return lambda x: (x ** 3).sum()
    if kind == "wrong_backward":
        return lambda x: _SinMissingFactor.apply(x, spec["a"].to(x.dtype))
    raise ValueError(f"unknown test function {kind!r}")


class _SinMissingFactor(torch.autograd.Function):
    """sin(a·x).sum() with a deliberately wrong backward: the chain-rule factor a is dropped.

    Written in the form torch.func's transforms accept (forward without ctx, setup_context): a
    gradient_check that takes autograd's gradient with torch.func.grad meets the same wrong backward as
    one that calls .backward(), instead of a functorch error."""

    @staticmethod
    def forward(x: Tensor, a: Tensor) -> Tensor:
        return torch.sin(a * x).sum()

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Tensor, Tensor], output: Tensor) -> None:
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor, None]:
        x, a = ctx.saved_tensors
        return grad_output * torch.cos(a * x), None


class _Counted:
    """Wraps f to count its calls and the dtypes it was given: the cost the lesson talks about."""

    def __init__(self, f: Callable[[Tensor], Tensor]) -> None:
        self.f, self.calls, self.dtypes = f, 0, set()

    def __call__(self, x: Tensor) -> Tensor:
        self.calls += 1
        self.dtypes.add(str(x.dtype).removeprefix("torch.") if isinstance(x, Tensor) else type(x).__name__)
        return self.f(x)


def run_numerical_gradient(module: ModuleType, spec: dict, x: Tensor, h: float | None) -> dict:
    f = _Counted(build(spec))
    gradient = module.numerical_gradient(f, x) if h is None else module.numerical_gradient(f, x, h)
    return {"gradient": gradient, "calls": f.calls, "x_after": x}


def run_gradient_check(module: ModuleType, spec: dict, x: Tensor) -> dict:
    f = _Counted(build(spec))
    try:
        error = module.gradient_check(f, x)
    except Exception as raised:  # noqa: BLE001 - raised again below, unless x shows why
        # A gradient that reached the caller's x before the raise says why it raised (a copy left in x's graph has
        # no .grad of its own): sent back with x. Any other error is the worker's to report, with its frames.
        if x.grad is None:
            raise
        return {"raised": f"{type(raised).__name__}: {str(raised)[:200]}", "x_after": x}
    # The student's own float64 estimate, uncounted, to explain a gradient_check that is off.
    x64 = x.detach().to(torch.float64).clone()
    try:
        estimate = module.numerical_gradient(build(spec), x64)
    except Exception:  # noqa: BLE001 - the numerical_gradient checks report its errors
        estimate = None
    return {"error": error, "dtypes": sorted(f.dtypes), "x_after": x, "estimate": estimate, "x64_after": x64}
