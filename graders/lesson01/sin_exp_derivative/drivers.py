"""Drivers of `sin_exp_derivative`: autograd_derivative and max_abs_difference, tried apart from f, in the worker.

To judge autograd_derivative on its own, the driver puts a known function in the place of the
student's f (t³; or the lesson's printed f, sin(t)·e^(−t), when the student's own f is wrong, as
the feedback then says); to judge max_abs_difference, it puts in two derivatives with a known
gap. Each is put back after the call.
"""

from __future__ import annotations

from types import ModuleType

import torch


def substitute_f(t: torch.Tensor) -> torch.Tensor:
    """What the student's f is replaced by, to see that autograd_derivative differentiates f."""
    return t ** 3


def lesson_f(t: torch.Tensor) -> torch.Tensor:
    """The lesson's f, e^(−t)·sin(t): what stands in for a student's f that is wrong."""
    return torch.exp(-t) * torch.sin(t)


def differentiate_substitute(module: ModuleType, x: torch.Tensor, with_x: bool = False, lesson: bool = False) -> object:
    """Runs in the worker: autograd_derivative(x) with the module's f replaced by substitute_f (by
    lesson_f with `lesson`); with `with_x`, the pair [result, x as it is after the call]."""
    had_f, original = "f" in vars(module), vars(module).get("f")
    module.f = lesson_f if lesson else substitute_f
    try:
        value = module.autograd_derivative(x)
        return [value, x] if with_x else value
    finally:
        if had_f:
            module.f = original
        else:
            del module.f


def f_on_leaf(module: ModuleType, x: torch.Tensor) -> object:
    """Runs in the worker: f on a leaf copy of x that requires grad, as autograd_derivative calls it."""
    out = module.f(x.detach().clone().requires_grad_(True))
    return out.detach() if type(out) is torch.Tensor else out


def derivative_of_tracked_x(module: ModuleType, x: torch.Tensor) -> dict:
    """Runs in the worker: autograd_derivative on an x that requires grad; what it returned, or the error it
    raised (a copy left in x's graph has no .grad of its own), and x afterwards."""
    tracked = x.clone().requires_grad_(True)
    try:
        return {"value": module.autograd_derivative(tracked), "x_after": tracked, "raised": None}
    except Exception as error:  # noqa: BLE001 - reported with x's state, which tells why it was raised
        return {"value": None, "x_after": tracked, "raised": f"{type(error).__name__}: {str(error)[:200]}"}


def _sin_3x(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(3 * x)


def _zeros(x: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(x)


def replace_derivatives(module: ModuleType, *grid: float) -> dict:
    """Runs in the worker: swap in derivatives with a known gap, call max_abs_difference with `grid` (n, start,
    end; none of them: its defaults), swap back. Returns its value and the distinct points the first derivative
    was given (None if not tensors): the grid that was built, which a known gap alone may not show."""
    saved = {name: vars(module).get(name) for name in ("autograd_derivative", "analytic_derivative")}
    given: list = []

    def sin_3x(x: torch.Tensor) -> torch.Tensor:
        given.append(x.detach().flatten().clone() if type(x) is torch.Tensor else None)
        return _sin_3x(x)

    module.autograd_derivative, module.analytic_derivative = sin_3x, _zeros
    try:
        value = module.max_abs_difference(*grid)
    finally:
        for name, function in saved.items():
            setattr(module, name, function)
    # Distinct points, so that calling the derivative point by point, or twice on the grid, shows the same grid.
    points = torch.unique(torch.cat(given)) if given and None not in given else None
    return {"value": value, "points": points}
