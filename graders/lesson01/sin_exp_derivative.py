"""Checks of `sin_exp_derivative` ("Try it yourself" 3).

Oracles: the reference `f` differentiated by `torch.autograd` in this process, and the
reference's hand-worked formula. Public checks use the lesson's grid
`torch.linspace(0, 5, 50)`; hidden ones use seeded random points, float64, 2-D inputs
and points where the derivative is zero.
"""

from __future__ import annotations

import math
from types import ModuleType

import torch

from course_config import SIN_EXP_DERIVATIVE as EXERCISE
from graders.check import checks_for
from graders.compare import describe, number_problem
from graders.expect import expect_number, expect_tensor, fail_with_mistake
from graders.feedback import fail
from graders.mistakes import Mistake, Suspect
from graders.recording import expected
from graders.student import Returned, Student
from graders.wire import origin

check = checks_for("lesson01", EXERCISE.slug)

TRY_IT = '"Try it yourself", exercise 3'
AUTOGRAD = '"Autograd: gradients for free"'
ZERO_GRAD = '"Worked example", where it explains w.grad.zero_()'

PRODUCT_RULE_MISSED = Mistake(
    "product rule missed",
    "Your derivative equals cos(x)·e^(−x): the derivative of sin(x) times e^(−x) unchanged. "
    "f is a product of two functions of x, so both factors must be differentiated.",
    "Use the product rule: (u·v)' = u'·v + u·v', with u = sin x and v = e^(−x).",
    TRY_IT,
)
SIGN_ERROR = Mistake(
    "sign error",
    "Your derivative equals e^(−x)·(cos x + sin x). The derivative of e^(−x) is −e^(−x), "
    "so the sin x term enters with a minus sign.",
    "Check the chain rule on e^(−x): the inner function −x has derivative −1.",
    TRY_IT,
)
ACCUMULATED_TWICE = Mistake(
    "gradient accumulated over two backward calls",
    "Your gradient is exactly twice the right one. backward() adds into .grad rather than "
    "overwriting it, so two backward passes without zeroing in between leave 2× the derivative.",
    "Call backward() once per fresh leaf, or zero the gradient (x.grad.zero_()) before calling it again.",
    ZERO_GRAD,
)
NON_SCALAR_BACKWARD = Mistake(
    "backward on a non-scalar output",
    "PyTorch says \"grad can be implicitly created only for scalar outputs\": backward() with no "
    "argument needs a single number to differentiate, and f(x) holds one value per point.",
    "Reduce to a scalar first: f(x).sum().backward(). Each output depends only on its own input, "
    "so the gradient of the sum is the derivative at every point.",
    TRY_IT,
    error_pattern=r"grad can be implicitly created only for scalar outputs",
)
STILL_REQUIRES_GRAD = Mistake(
    "returned a tensor that still requires grad",
    "The derivative you return is still attached to an autograd graph (requires_grad=True), so "
    "whoever uses it keeps that graph alive and may backpropagate through it by accident.",
    "Return the gradient detached: leaf.grad.detach(), or compute it without create_graph=True.",
    '"The Detach / no_grad / .data Triangle" in the companion text',
)
MODIFIED_INPUT = Mistake(
    "modified the caller's tensor",
    "After your function ran, the x the caller passed in had changed: it now requires grad or "
    "holds a .grad. A function should not change its caller's tensors as a side effect.",
    "Work on a copy: leaf = x.detach().clone().requires_grad_(True).",
    TRY_IT,
)
MISTAKES = [PRODUCT_RULE_MISSED, SIGN_ERROR, ACCUMULATED_TWICE, NON_SCALAR_BACKWARD, STILL_REQUIRES_GRAD,
            MODIFIED_INPUT]

LESSON_GRID = "x = torch.linspace(0, 5, 50)"
BACKWARD_CALLS = ("Tensor.backward", "autograd.grad", "autograd.backward")


def lesson_grid() -> torch.Tensor:
    return torch.linspace(0, 5, 50)


@expected
def autograd_truth(reference: ModuleType, x: torch.Tensor) -> torch.Tensor:
    """The derivative of the reference f by torch.autograd, in this (trusted) process."""
    leaf = x.detach().clone().requires_grad_(True)
    reference.f(leaf).sum().backward()
    return leaf.grad.detach()


@expected
def wrong_derivatives(x: torch.Tensor) -> list[torch.Tensor]:
    """What the product-rule and sign mistakes give on x."""
    e = torch.exp(-x)
    return [torch.cos(x) * e, e * (torch.cos(x) + torch.sin(x))]


def suspects(x: torch.Tensor) -> list[Suspect]:
    missed, sign = wrong_derivatives(x)
    return [Suspect(PRODUCT_RULE_MISSED, missed), Suspect(SIGN_ERROR, sign)]


def tolerance(x: torch.Tensor) -> dict[str, float]:
    value = EXERCISE.tolerance("float64" if x.dtype == torch.float64 else "float32")
    return {"rtol": value, "atol": value}


def expect_derivative(returned: Returned, reference: ModuleType, x: torch.Tensor) -> None:
    __tracebackhide__ = True
    expect_tensor(returned, autograd_truth(reference, x), **tolerance(x), requires_grad=None,
                  suspects=suspects(x), scaled={2.0: ACCUMULATED_TWICE}, section=TRY_IT,
                  hint="Compare your result with e^(−x)·(cos x − sin x) at x = 0, where it is 1.")


def uses_autograd(returned: Returned) -> bool:
    return bool(returned.calls_to(*BACKWARD_CALLS))


# ---------------------------------------------------------------- public checks

@check
def test_f_on_lesson_grid(student: Student, reference: ModuleType) -> None:
    x = lesson_grid()
    returned = student.call("f", x, shown_as=f"f(x) with {LESSON_GRID}")
    expect_tensor(returned, reference.f(x), **tolerance(x), requires_grad=None, section=TRY_IT,
                  hint="f(x) = torch.sin(x) * torch.exp(-x), elementwise.")


@check
def test_autograd_derivative_on_lesson_grid(student: Student, reference: ModuleType) -> None:
    x = lesson_grid()
    returned = student.call("autograd_derivative", x, shown_as=f"autograd_derivative(x) with {LESSON_GRID}")
    expect_derivative(returned, reference, x)


@check
def test_autograd_derivative_uses_autograd(student: Student) -> None:
    returned = student.call("autograd_derivative", lesson_grid(), trace=True,
                            shown_as=f"autograd_derivative(x) with {LESSON_GRID}")
    if not uses_autograd(returned):
        fail("autograd_derivative never calls backward() or torch.autograd.grad.", call=returned.call,
             meaning="This function is about letting autograd do the work; the formula belongs in "
                     "analytic_derivative.",
             hint="Make a leaf that requires grad, compute f(leaf).sum(), call .backward(), read leaf.grad.",
             section=AUTOGRAD)


@check
def test_autograd_derivative_is_clean(student: Student) -> None:
    x = lesson_grid()
    returned = student.call("autograd_derivative", x, return_args=True,
                            shown_as=f"autograd_derivative(x) with {LESSON_GRID}")
    after = returned.args[0] if returned.args else None
    info = origin(after) if type(after) is torch.Tensor else None
    if info is not None and (info.requires_grad or info.grad is not None or not torch.equal(after.detach(), x)):
        fail_with_mistake(returned, "autograd_derivative changed the tensor it was given.", MODIFIED_INPUT, after)
    value = returned.value
    if type(value) is not torch.Tensor:
        fail("autograd_derivative must return a torch.Tensor.", call=returned.call, got=describe(value),
             section=TRY_IT)
    result_info = origin(value)
    if result_info is not None and result_info.requires_grad:
        fail_with_mistake(returned, "autograd_derivative returned a tensor that requires grad.",
                          STILL_REQUIRES_GRAD, value)
    if value.shape != x.shape or value.dtype != x.dtype:
        fail("autograd_derivative must return a tensor of x's shape and dtype.", call=returned.call,
             got=f"shape {tuple(value.shape)}, {value.dtype}", expected=f"shape {tuple(x.shape)}, {x.dtype}",
             hint="Return leaf.grad: it always has the leaf's shape and dtype.", section=TRY_IT)


@check
def test_analytic_derivative_on_lesson_grid(student: Student, reference: ModuleType) -> None:
    x = lesson_grid()
    returned = student.call("analytic_derivative", x, shown_as=f"analytic_derivative(x) with {LESSON_GRID}")
    expect_tensor(returned, reference.analytic_derivative(x), **tolerance(x), requires_grad=None,
                  suspects=suspects(x), section=TRY_IT,
                  hint="Differentiate sin(x)·e^(−x) with the product rule; at x = 0 the result is 1.")


@check
def test_analytic_derivative_without_autograd(student: Student) -> None:
    returned = student.call("analytic_derivative", lesson_grid(), trace=True,
                            shown_as=f"analytic_derivative(x) with {LESSON_GRID}")
    used = returned.calls_to(*BACKWARD_CALLS)
    info = origin(returned.value) if type(returned.value) is torch.Tensor else None
    if used or (info is not None and info.requires_grad):
        where = f" (line {used[0].line})" if used and used[0].line else ""
        fail(f"analytic_derivative uses autograd{where}; it must be the formula worked out by hand.",
             call=returned.call, hint="Return torch.exp(-x) * (torch.cos(x) - torch.sin(x)) with no backward().",
             section=TRY_IT)


@check
def test_max_abs_difference_is_small(student: Student) -> None:
    returned = student.call("max_abs_difference", shown_as="max_abs_difference()")
    limit = EXERCISE.tolerance("max_difference")
    value = returned.value
    problem = number_problem(value, 0.0, rtol=0, atol=math.inf, what="the largest difference")
    if problem is not None:
        fail(f"max_abs_difference: {problem}.", call=returned.call, got=describe(value),
             hint="Return a Python float: call .item() on the 0-d tensor that .max() gives.", section=TRY_IT)
    if not 0 <= value < limit:
        fail(f"max_abs_difference: the largest difference is {value:.3g}; it should be in [0, {limit:g}).",
             call=returned.call, got=describe(value), expected=f"a float in [0, {limit:g})",
             meaning="Your two derivatives disagree by more than float32 rounding, so at least one of "
                     "them is wrong (the other checks say which), or the difference is not taken in absolute value.",
             hint="Compare autograd_derivative(x) and analytic_derivative(x) at x = 0: both should give 1.",
             section=TRY_IT)


# ---------------------------------------------------------------- hidden checks

@check
def test_derivatives_on_fresh_points(student: Student, reference: ModuleType) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_points"))
    inputs = {
        "x = 200 random float32 points in [-4, 8]": torch.rand(200, generator=generator) * 12 - 4,
        "x = 37 random float64 points in [-2, 6]": torch.rand(37, generator=generator, dtype=torch.float64) * 8 - 2,
        "x of shape (4, 5), float32": torch.randn(4, 5, generator=generator) * 2,
    }
    for text, x in inputs.items():
        for name in ("autograd_derivative", "analytic_derivative"):
            expect_derivative(student.call(name, x, shown_as=f"{name}(x) with {text}"), reference, x)


@check
def test_derivatives_near_stationary_points(student: Student, reference: ModuleType) -> None:
    offsets = torch.tensor([-1e-3, -1e-5, 0.0, 1e-5, 1e-3], dtype=torch.float64)
    x = torch.cat([math.pi / 4 + offsets, 5 * math.pi / 4 + offsets])
    for name in ("autograd_derivative", "analytic_derivative"):
        returned = student.call(name, x, shown_as=f"{name}(x) with x near π/4 and 5π/4 (float64)")
        # Near a zero of the derivative, relative error means nothing: compare absolutely.
        expect_tensor(returned, autograd_truth(reference, x), rtol=0, atol=EXERCISE.tolerance("float64"),
                      requires_grad=None, suspects=suspects(x), scaled={2.0: ACCUMULATED_TWICE}, section=TRY_IT,
                      hint="The derivative is zero where cos x = sin x: at π/4 and 5π/4.")


def replace_derivatives(module: ModuleType, n: int, start: float, end: float) -> object:
    """Runs in the worker: swap in derivatives with a known gap, then call max_abs_difference."""
    module.autograd_derivative = lambda x: torch.zeros_like(x)
    module.analytic_derivative = lambda x: x.clone()
    return module.max_abs_difference(n, start, end)


@check
def test_max_abs_difference_on_other_grids(student: Student) -> None:
    for n, start, end in ((7, -3.0, 2.0), (101, 1.5, 4.5)):
        returned = student.run(replace_derivatives, n, start, end,
                               shown_as=f"max_abs_difference({n}, {start}, {end}) with autograd_derivative "
                                        "returning 0 and analytic_derivative returning x")
        expect_number(returned, max(abs(start), abs(end)), rtol=1e-6, atol=1e-6, section=TRY_IT,
                      what="the largest difference",
                      hint="Build the grid from n, start and end, call your two derivative functions on it, "
                           "and return the largest absolute difference.")
