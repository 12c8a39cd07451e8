"""Checks of `finite_differences` (companion: "Why Do We Need Automatic Differentiation?", option 2).

The student's functions take a Python function `f`, which cannot cross into the worker;
so drivers of this module build `f` there from plain data (a kind and its seeded
coefficients), count its calls and hand back the result, the count and `x` as it was
after the call. Oracle: torch.autograd on the same `f`, in this process. Public checks
use three fixed functions (sum of sines, quadratic form, log-sum-exp) at one fixed
point; hidden ones use fresh coefficients, sizes and float32 with a larger step.
"""

from __future__ import annotations

import dataclasses
import math
from types import ModuleType
from typing import Any

import torch
from torch import Tensor

from graders.kit import (Mistake, Returned, Student, Suspect, argument_changed, checks_for, describe, exercise,
                         expect_code_shows, expect_float_not_tensor, expect_number, expect_tensor, expected, fail,
                         fail_with_mistake, first_matching_variant, gradient_signature, is_scaled, number_problem,
                         origin, tensor_problem, needs_value)
from graders.lesson01.finite_differences.mistakes import (ABS_OF_SUM, ALL_AT_ONCE, DETACH_SHARES_MEMORY,
                                                          FLOOR_ONLY_AT_ZERO, NUDGES_KEPT,
                                                          DIVIDED_BY_H, ERROR_AS_TENSOR, FLOAT32_CHECK, FLOAT32_RESULT,
                                                          FORWARD_DIFFERENCES, LEAF_NOT_DETACHED, MEAN_OF_GAPS,
                                                          MODIFIED_X, ONE_SIDED_SCALE, RATIOS_NOT_REDUCED,
                                                          TIMES_H_SQUARED, WHOLE_TENSOR_RATIO, WHY, X_MADE_A_LEAF)
from graders.lesson01.finite_differences.drivers import build, run_gradient_check, run_numerical_gradient

EXERCISE = exercise("lesson01", "finite_differences")
check = checks_for("lesson01", EXERCISE.slug)


FORMULAS = {
    "sum_sin": "f(x) = torch.sin(a * x).sum()",
    "quadratic": "f(x) = 0.5 * x @ A @ x + b @ x",
    "logsumexp": "f(x) = torch.logsumexp(W @ x + c, dim=0)",
}


# ---------------------------------------------------------------- test functions (both processes)

def make_spec(kind: str, n: int, generator: torch.Generator) -> dict[str, Any]:
    """A test function as plain data: its kind and seeded float64 coefficients."""
    def randn(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    if kind == "sum_sin":
        return {"kind": kind, "a": torch.rand(n, generator=generator, dtype=torch.float64) + 0.5}
    if kind == "quadratic":
        return {"kind": kind, "A": randn(n, n), "b": randn(n)}
    return {"kind": kind, "W": randn(4, n), "c": randn(4)}


# ---------------------------------------------------------------- expected values (grader side)

@expected
def autograd_gradient(spec: dict, x: Tensor) -> Tensor:
    """The true gradient: torch.autograd on f at x, computed in float64, returned in x's dtype."""
    leaf = x.detach().to(torch.float64).clone().requires_grad_(True)
    build(spec)(leaf).backward()
    return leaf.grad.to(x.dtype)


@expected
def forward_differences(spec: dict, x: Tensor, h: float) -> Tensor:
    """What the forward-difference mistake gives: (f(x + h·e_i) − f(x)) / h, in float64."""
    f, x64 = build(spec), x.detach().to(torch.float64)
    centre, steps = f(x64), torch.eye(x.numel(), dtype=torch.float64) * h
    return torch.stack([(f(x64 + step) - centre) / h for step in steps]).to(x.dtype)


@expected
def nudged_in_place(spec: dict, x: Tensor, h: float) -> Tensor:
    """What nudging x itself through x.detach() gives: the minus nudge only undoes the plus one,
    so each entry is (f(x + h·e_i) − f(x)) / (2h), in float64."""
    f, x64 = build(spec), x.detach().to(torch.float64)
    centre, steps = f(x64), torch.eye(x.numel(), dtype=torch.float64) * h
    return torch.stack([(f(x64 + step) - centre) / (2 * h) for step in steps]).to(x.dtype)


@expected
def nudges_kept(spec: dict, x: Tensor, h: float) -> Tensor:
    """What two nudged copies made once and never put back give: coordinate i is measured with the nudges of every
    coordinate before it still in place (+h in one point, −h in the other), in x's dtype as such code computes."""
    f, start = build(spec), x.detach()
    plus, minus, estimate = start.clone(), start.clone(), []
    for i in range(start.numel()):
        plus[i] += h
        minus[i] -= h
        estimate.append((f(plus) - f(minus)) / (2 * h))
    return torch.stack(estimate).to(x.dtype)


@expected
def all_coordinates_at_once(spec: dict, x: Tensor, h: float) -> Tensor:
    """What nudging every coordinate together gives: the slope along the ones vector, in each entry."""
    f, x64 = build(spec), x.detach().to(torch.float64)
    slope = (f(x64 + h) - f(x64 - h)) / (2 * h)
    return slope.expand(x.numel()).clone().to(x.dtype)


@expected
def wrong_backward_error(spec: dict, x: Tensor, how: str = "largest") -> float:
    """relative_error between the deliberately wrong autograd gradient and the true one
    (how="mean", "norm" or "maxima": what those mistakes of relative_error give)."""
    leaf = x.detach().to(torch.float64).clone().requires_grad_(True)
    build(spec)(leaf).backward()
    right = autograd_gradient({"kind": "sum_sin", "a": spec["a"]}, x.to(torch.float64))
    return relative_gap(leaf.grad, right, how)


@expected
def floored_at_zero_only(a: Tensor, b: Tensor) -> float:
    """What relative_error gives when it floors the denominator only where |a| + |b| is exactly 0."""
    scale = a.abs() + b.abs()
    return ((a - b).abs() / torch.where(scale == 0, torch.full_like(scale, 1e-8), scale)).max().item()


@expected
def mean_relative_error(a: Tensor, b: Tensor) -> float:
    """What relative_error gives when it averages the elementwise gaps instead of taking the largest."""
    return relative_gap(a, b, "mean")


@expected
def norm_relative_error(a: Tensor, b: Tensor) -> float:
    """What relative_error gives as one ratio of norms, ||a − b|| / (||a|| + ||b||)."""
    return relative_gap(a, b, "norm")


@expected
def maxima_relative_error(a: Tensor, b: Tensor) -> float:
    """What relative_error gives as one ratio of largest values, max|a − b| / max(|a| + |b|)."""
    return relative_gap(a, b, "maxima")


@expected
def one_sided_relative_errors(a: Tensor, b: Tensor) -> list[float]:
    """What relative_error gives with |b| alone, then |a| alone, in each ratio's denominator instead of |a| + |b|."""
    return [relative_gap(a, b, "over_b"), relative_gap(a, b, "over_a")]


@expected
def abs_of_sum_relative_error(a: Tensor, b: Tensor) -> float:
    """What relative_error gives with |a + b| in each ratio's denominator instead of |a| + |b|."""
    return relative_gap(a, b, "abs_of_sum")


def relative_gap(a: Tensor, b: Tensor, how: str) -> float:
    """The largest elementwise relative gap (how="largest"), their mean ("mean"), the largest with |a + b| below
    ("abs_of_sum") or one side's size alone ("over_a", "over_b"), or one ratio for the whole tensors: of norms
    ("norm") or of largest values ("maxima")."""
    if how == "abs_of_sum":
        return ((a - b).abs() / (a + b).abs().clamp(min=1e-8)).max().item()
    if how in ("over_a", "over_b"):
        return ((a - b).abs() / (a if how == "over_a" else b).abs().clamp(min=1e-8)).max().item()
    if how == "norm":
        norms = torch.linalg.vector_norm(a) + torch.linalg.vector_norm(b)
        return (torch.linalg.vector_norm(a - b) / norms.clamp(min=1e-8)).item()
    if how == "maxima":
        return ((a - b).abs().max() / (a.abs() + b.abs()).max().clamp(min=1e-8)).item()
    gaps = (a - b).abs() / (a.abs() + b.abs()).clamp(min=1e-8)
    return (gaps.max() if how == "largest" else gaps.mean()).item()


def public_cases() -> list[tuple[dict, Tensor]]:
    generator = torch.Generator().manual_seed(EXERCISE.seed("public_functions"))
    x = torch.randn(5, generator=generator, dtype=torch.float64)
    return [(make_spec(kind, 5, generator), x) for kind in FORMULAS]


def shown(function: str, spec: dict, x: Tensor, h: float | None = None) -> str:
    step = "" if h is None else f", h={h:g}"
    return f"{function}(f, x{step}) with {FORMULAS[spec['kind']]} (seeded coefficients), x = {describe(x, 5)}"


def tolerance(x: Tensor) -> dict[str, float]:
    value = EXERCISE.tolerance("float64_gradient" if x.dtype == torch.float64 else "float32_gradient")
    return {"rtol": value, "atol": value}


def estimate_evidence(spec: dict, x: Tensor, h: float) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The true gradient, the forward-difference one, the all-at-once one and the nudged-in-place
    one. Computed up front, even for a right answer, so that a replayed recording always holds them."""
    return (autograd_gradient(spec, x), forward_differences(spec, x, h), all_coordinates_at_once(spec, x, h),
            nudged_in_place(spec, x, h))


def numerical_mistake(estimate: Any, x: Tensor, evidence: tuple[Tensor, Tensor, Tensor, Tensor]) -> Mistake | None:
    """Which catalogued mistake explains a wrong estimate of the gradient, if any."""
    truth, forward, at_once, in_place = evidence
    if type(estimate) is not Tensor or estimate.shape != truth.shape:
        return None
    if tensor_problem(estimate, forward, requires_grad=None, **tolerance(x)) is None:
        return FORWARD_DIFFERENCES
    if tensor_problem(estimate, at_once, requires_grad=None, **tolerance(x)) is None:
        return ALL_AT_ONCE
    if tensor_problem(estimate, in_place, requires_grad=None, **tolerance(x)) is None:
        return DETACH_SHARES_MEMORY
    if times_h_squared(estimate, truth, EXERCISE.tolerance("default_step")):  # gradient_check uses the default h
        return TIMES_H_SQUARED
    return DIVIDED_BY_H if is_scaled(gradient_signature(estimate, truth), 2.0) else None


def times_h_squared(estimate: Any, truth: Tensor, h: float) -> bool:
    """Whether the estimate is h² times the gradient, what `/ 2 * h` gives. The estimate is divided by h²
    first, so that the fit asks for a scale of 1: h² itself lies far inside is_scaled's absolute tolerance."""
    return (type(estimate) is Tensor and estimate.shape == truth.shape
            and is_scaled(gradient_signature(estimate / h ** 2, truth), 1.0))


def estimate_mistake(estimate: Any, x: Tensor, x_after: Any, evidence: tuple[Tensor, Tensor, Tensor, Tensor]
                     ) -> Mistake | None:
    """The mistake behind a wrong estimate; a changed x names "left x modified", unless the estimate
    shows the detach one (its x can come back a rounding off, nudged up by h and back down)."""
    mistake = numerical_mistake(estimate, x, evidence)
    if mistake is not DETACH_SHARES_MEMORY and argument_changed(x, x_after):
        return MODIFIED_X
    return mistake


def fail_if_every_ratio(returned: Returned) -> None:
    """A list, or a tensor of more than one value, is every ratio never reduced to the largest: named alike by
    relative_error's check and by gradient_check's, which return the same thing for this one slip."""
    __tracebackhide__ = True
    value = returned.value
    if (type(value) is list and len(value) > 1) or (type(value) is Tensor and value.numel() > 1):
        fail(f"{returned.call.split('(')[0]} returned {describe(value)}, one ratio per element, not one Python "
             "float.", call=returned.call, got=describe(value), expected="one Python float, the largest ratio",
             mistake=RATIOS_NOT_REDUCED)


STEP_HINT = "For each i: (f(x + step) − f(x − step)) / (2 * h), where step is zero except step[i] = h."


def estimate_hint(gradient: Any, truth: Tensor) -> str:
    """The hint for how an estimate differs: the formula's only when its values are what differ."""
    if type(gradient) is not Tensor:
        return "Return a torch.Tensor of shape (n,), one slope per coordinate (the docstring's Returns)."
    if gradient.shape != truth.shape:
        return (f"Return one slope per coordinate, shape {tuple(truth.shape)} like x: no squeeze, flatten or "
                "reduction of the result (the docstring: \"A tensor of shape (n,) and the dtype of `x`\").")
    if gradient.dtype != truth.dtype:
        return (f"Keep x's dtype, {str(truth.dtype).removeprefix('torch.')}: make the result with "
                "torch.empty_like(x) or torch.zeros_like(x), with no dtype= of your own (the docstring: \"A tensor "
                "of shape (n,) and the dtype of `x`\").")
    return STEP_HINT


def expect_gradient(returned: Returned, spec: dict, x: Tensor, h: float | None) -> None:
    """The driver's result: the estimate equals autograd's gradient, else the mistake by name."""
    __tracebackhide__ = True
    result = returned.value
    gradient = returned.value["gradient"]
    truth = autograd_gradient(spec, x)
    as_called = dataclasses.replace(returned, value=gradient)
    step = EXERCISE.tolerance("default_step") if h is None else h
    in_place = Suspect(DETACH_SHARES_MEMORY, nudged_in_place(spec, x, step))
    # float64 slopes written into a float32 tensor: the right values, rounded once. A float32 computation
    # would carry float32's noise over 2h instead, far from these.
    rounded = [Suspect(FLOAT32_RESULT, truth.float())] if x.dtype == torch.float64 else []
    # x nudged through x.detach() and back can come back a rounding off: that estimate is named below.
    if (argument_changed(x, result["x_after"])
            and tensor_problem(gradient, truth, requires_grad=None, **tolerance(x)) is not None
            and first_matching_variant(gradient, [in_place], **tolerance(x)) is None):
        fail_with_mistake(as_called, "numerical_gradient: the estimate is wrong, and x was changed by the call.",
                          MODIFIED_X, gradient)
    if times_h_squared(gradient, truth, step):
        fail(f"numerical_gradient: every entry of the estimate is h² = {step ** 2:g} times the gradient.",
             call=as_called.call, got=describe(gradient), expected=describe(truth), mistake=TIMES_H_SQUARED)
    expect_tensor(as_called, truth, **tolerance(x), requires_grad=None, section=WHY,
                  suspects=[Suspect(FORWARD_DIFFERENCES, forward_differences(spec, x, step)),
                            Suspect(ALL_AT_ONCE, all_coordinates_at_once(spec, x, step)),
                            Suspect(NUDGES_KEPT, nudges_kept(spec, x, step)), in_place, *rounded],
                  scaled={2.0: DIVIDED_BY_H}, hint=estimate_hint(gradient, truth))


# ---------------------------------------------------------------- public checks

@check
def test_numerical_gradient_matches_autograd(student: Student) -> None:
    for spec, x in public_cases():
        returned = student.run(run_numerical_gradient, spec, x, None, runs="numerical_gradient",
                               shown_as=shown("numerical_gradient", spec, x))
        expect_gradient(returned, spec, x, None)


@check
def test_numerical_gradient_calls_f_twice_per_coordinate(student: Student) -> None:
    spec, x = public_cases()[1]
    returned = student.run(run_numerical_gradient, spec, x, None, runs="numerical_gradient",
                               shown_as=shown("numerical_gradient", spec, x))
    with needs_value():
        expect_gradient(returned, spec, x, None)  # the right number of calls earns nothing for a wrong estimate
    # (Forward differences, n + 1 calls, are named by the estimate above.)
    calls, n = returned.value["calls"], x.numel()
    if calls != 2 * n:
        fail(f"numerical_gradient called f {calls} times for a vector of n = {n} numbers.", call=returned.call,
             got=f"{calls} calls of f", expected=f"{2 * n} calls: two per coordinate",
             meaning="Central differences cost exactly one pair of evaluations per coordinate; that cost, one "
                     "pass per parameter, is why finite differences do not scale to real networks.",
             hint="Inside one loop over i, call f(x + step) and f(x - step) once each; call f nowhere else.",
             section=WHY)
    f = student.evidence.parameter("numerical_gradient", 0) or "f"
    expect_code_shows(student, returned, "numerical_gradient", (f,), f"a call of its argument {f}", WHY)


@check
def test_numerical_gradient_leaves_x_unchanged(student: Student) -> None:
    spec, x = public_cases()[0]
    returned = student.run(run_numerical_gradient, spec, x, None, runs="numerical_gradient",
                               shown_as=shown("numerical_gradient", spec, x))
    # An untouched x earns nothing for a wrong estimate; the estimate's check covers its shape and dtype too.
    with needs_value():
        expect_gradient(returned, spec, x, None)
    after = returned.value["x_after"]
    if argument_changed(x, after):
        fail_with_mistake(returned, "numerical_gradient changed the x it was given.", MODIFIED_X, after)


@check
def test_relative_error_on_fixed_cases(student: Student, reference: ModuleType) -> None:
    cases = {
        "a = [1, 2, 3], b = [1, 2, 3.3]": ([1.0, 2.0, 3.0], [1.0, 2.0, 3.3]),
        "a = b = [0, 0] (both zero)": ([0.0, 0.0], [0.0, 0.0]),
        "a = [1e-9, 0, -4], b = [-1e-9, 0, -4] (tiny values)": ([1e-9, 0.0, -4.0], [-1e-9, 0.0, -4.0]),
        "a = [[2, -1], [0.5, 8]], b = [[1, -1], [0.5, 7]]": ([[2.0, -1.0], [0.5, 8.0]], [[1.0, -1.0], [0.5, 7.0]]),
        # Opposite signs: |a| + |b| = 3 where |a + b| = 1, so the largest ratio is 1, not 3 (and neither |a| + b nor
        # a + |b| gives it either).
        "a = [-2, 1], b = [1, 3] (opposite signs)": ([-2.0, 1.0], [1.0, 3.0]),
    }
    tol = EXERCISE.tolerance("relative_error")
    for text, (a, b) in cases.items():
        a_t, b_t = torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)
        returned = student.call("relative_error", a_t, b_t, shown_as=f"relative_error(a, b) with {text}, float64")
        right = reference.relative_error(a_t, b_t)
        fail_if_every_ratio(returned)
        expect_float_not_tensor(returned, right, ERROR_AS_TENSOR, rtol=tol, atol=tol, what="the relative error",
                                wanted=f"the Python float {describe(right)}")
        expect_number(returned, right, rtol=tol, atol=tol, section=WHY,
                      what="the relative error", suspects=[Suspect(MEAN_OF_GAPS, mean_relative_error(a_t, b_t)),
                                                           Suspect(ABS_OF_SUM, abs_of_sum_relative_error(a_t, b_t)),
                                                           Suspect(FLOOR_ONLY_AT_ZERO, floored_at_zero_only(a_t, b_t)),
                                                           Suspect(WHOLE_TENSOR_RATIO, norm_relative_error(a_t, b_t)),
                                                           Suspect(WHOLE_TENSOR_RATIO, maxima_relative_error(a_t, b_t)),
                                                           *(Suspect(ONE_SIDED_SCALE, value)
                                                             for value in one_sided_relative_errors(a_t, b_t))],
                      hint="Elementwise |a − b| / max(1e-8, |a| + |b|) (torch.clamp(..., min=1e-8)), then the "
                           "largest, as a Python float with .item().")


def expect_small_gradient_check(returned: Returned, spec: dict, x: Tensor) -> None:
    """gradient_check's answer is tiny, else say why: float32, or which numerical_gradient mistake."""
    __tracebackhide__ = True
    if "raised" in returned.value:  # it raised with a gradient left in x.grad: that says why
        expect_x_untouched(returned, x)
    result, limit = returned.value, EXERCISE.tolerance("gradient_check_limit")
    error = result["error"]
    as_called = dataclasses.replace(returned, value=error)
    x64 = x.detach().to(torch.float64)
    evidence = estimate_evidence(spec, x64, EXERCISE.tolerance("default_step"))
    problem = number_problem(error, 0.0, rtol=0, atol=limit, what="the relative error")
    if problem is None and error >= 0:
        expect_x_untouched(returned, x)
        return
    fail_if_every_ratio(as_called)
    expect_float_not_tensor(as_called, 0.0, ERROR_AS_TENSOR, rtol=0, atol=limit, what="the relative error",
                            wanted=f"a Python float in [0, {limit:g})")
    if problem is not None and "should be" not in problem:  # a number, only too large: say the range, not 0.0
        problem = f"the relative error is {describe(error)}; expected a float below {limit:g}"
    if problem is not None and "should be" in problem:  # not a number at all: the formula is not the cause
        fail(f"gradient_check: {problem}.", call=returned.call, got=describe(error),
             expected=f"a Python float in [0, {limit:g})",
             hint="gradient_check returns what relative_error returns: one Python float (relative_error's own "
                  "check says whether it does).", section=WHY)
    if any(dtype != "float64" for dtype in result["dtypes"]):
        fail_with_mistake(as_called, f"gradient_check returned {describe(error)} for a correct gradient.",
                          FLOAT32_CHECK, error)
    mistake = estimate_mistake(result["estimate"], x64, result["x64_after"], evidence)
    if mistake is not None:
        fail_with_mistake(as_called, f"gradient_check returned {describe(error)} for a correct gradient, "
                                     "because numerical_gradient is off.", mistake, error)
    fail(f"gradient_check: {problem or 'the relative error cannot be negative'}.", call=returned.call,
         got=describe(error), expected=f"a float in [0, {limit:g})",
         meaning="autograd's gradient of these smooth functions is right, so in float64 the two should "
                 "agree to about 1e-10.",
         hint="Float64 leaf copy of x → f(leaf).backward() → relative_error(leaf.grad, numerical_gradient(f, x64)).",
         section=WHY)


def expect_x_untouched(returned: Returned, x: Tensor) -> None:
    """gradient_check left the caller's x as it was, and returned; a gradient left in x.grad, or an x that now
    requires grad, names its mistake."""
    __tracebackhide__ = True
    after, raised = returned.value["x_after"], returned.value.get("raised")
    if raised is None and not argument_changed(x, after):
        return
    info = origin(after) if type(after) is Tensor else None
    grad = None if info is None else info.grad
    if x.requires_grad and grad is not None:
        then = f" and then raised {raised.split(':')[0]}" if raised is not None else ""
        fail(f"gradient_check, given an x that requires grad, sent the gradient into x.grad{then}.",
             call=returned.call, got=raised if raised is not None else describe(returned.value["error"]),
             changed=f"x after the call: {describe(after, 5)}, and its .grad holds {describe(grad, 5)}",
             expected="the relative error, and x as it was: no .grad on it", mistake=LEAF_NOT_DETACHED)
    if not x.requires_grad and info is not None and (info.requires_grad or grad is not None):
        held = "" if grad is None else f", and its .grad holds {describe(grad, 5)}"
        fail("gradient_check made the x it was given require grad.", call=returned.call,
             got=f"x after the call: {describe(after, 5)}{held}", expected="x as it was: not requiring grad, no .grad",
             mistake=X_MADE_A_LEAF)
    if raised is not None:  # the driver sends an error back only with a gradient in x.grad, which is named above
        fail(f"gradient_check raised {raised.split(':')[0]}.", call=returned.call, got=raised,
             changed=f"x after the call: {describe(after, 5)}", expected="the relative error, and x as it was",
             hint="Make the leaf from a copy cut from x's graph: x.detach().to(torch.float64).clone().requires_grad_(True).",
             section=WHY)
    fail_with_mistake(returned, "gradient_check changed the x it was given.", MODIFIED_X, after)


@check
def test_gradient_check_is_small_for_smooth_functions(student: Student) -> None:
    cases = [(spec, x.to(torch.float32)) for spec, x in public_cases()]
    cases.append(public_cases()[0])  # float64 too: then x.to(torch.float64) is x itself, and x must stay untouched
    # And an x that requires grad, as a parameter does: a float64 copy of it that is not detached stays in its graph.
    spec, x = public_cases()[1]
    cases.append((spec, x.to(torch.float32).requires_grad_(True)))
    for spec, x in cases:
        returned = student.run(run_gradient_check, spec, x, runs="gradient_check",
                               shown_as=shown("gradient_check", spec, x))
        expect_small_gradient_check(returned, spec, x)


# ---------------------------------------------------------------- hidden checks

@check
def test_numerical_gradient_on_fresh_functions(student: Student) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_functions"))
    float32_step = EXERCISE.tolerance("float32_step")
    for n, dtype, h in ((3, torch.float64, None), (8, torch.float64, None), (6, torch.float32, float32_step)):
        x = (torch.randn(n, generator=generator, dtype=torch.float64) * 1.5).to(dtype)
        for kind in FORMULAS:
            spec = make_spec(kind, n, generator)
            returned = student.run(run_numerical_gradient, spec, x, h, runs="numerical_gradient",
                                   shown_as=shown("numerical_gradient", spec, x, h))
            expect_gradient(returned, spec, x, h)
    expect_default_step(student)


def expect_default_step(student: Student) -> None:
    """numerical_gradient called without h uses h = 1e-5, its default: on f(x) = (x ** 3).sum() at x = [0.] (n = 1,
    float64) the central difference is ((h³) − (−h³)) / (2h) = h² exactly, so the estimate shows the step used."""
    __tracebackhide__ = True
    x, h = torch.zeros(1, dtype=torch.float64), EXERCISE.tolerance("default_step")
    returned = student.run(run_numerical_gradient, {"kind": "cube"}, x, None, runs="numerical_gradient",
                           shown_as="numerical_gradient(f, x) with f(x) = (x ** 3).sum(), x = torch.zeros(1, "
                                    "dtype=torch.float64), h left to its default")
    gradient, want = returned.value["gradient"], torch.full((1,), h ** 2, dtype=torch.float64)
    as_called = dataclasses.replace(returned, value=gradient)
    if type(gradient) is Tensor and gradient.shape == want.shape and gradient.dtype == want.dtype:
        value = gradient.item()
        if value > 0 and abs(value - h ** 2) > 1e-6 * h ** 2:
            fail(f"numerical_gradient: with h left to its default the estimate is {value:.6g}; expected h² = "
                 f"{h ** 2:g}.", call=as_called.call, got=describe(gradient), expected=describe(want),
                 meaning=f"At 0 the central difference of x³ is exactly h², so your estimate says h = "
                         f"{math.sqrt(value):.3g} was used; the signature's default is h = {h:g}.",
                 hint=f"Keep the default of the signature, h: float = {h:g}, and use h itself in the step and "
                      "the division.", section=WHY)
    expect_tensor(as_called, want, rtol=1e-6, atol=0, requires_grad=None, section=WHY,
                  hint=estimate_hint(gradient, want))


@check
def test_gradient_check_catches_a_wrong_backward(student: Student) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_functions") + 1)
    x = torch.randn(7, generator=generator, dtype=torch.float64)
    spec = {"kind": "wrong_backward", "a": torch.rand(7, generator=generator, dtype=torch.float64) * 1.5 + 1.5}
    returned = student.run(run_gradient_check, spec, x, runs="gradient_check",
                           shown_as=f"gradient_check(f, x) with f(x) = sin(a * x).sum() whose backward forgets the "
                                    f"factor a, a in [1.5, 3], x = {describe(x, 5)}")
    if "raised" in returned.value:  # it raised with a gradient left in x.grad: that says why
        expect_x_untouched(returned, x)
    error = returned.value["error"]
    as_called = dataclasses.replace(returned, value=error)
    tol, target = EXERCISE.tolerance("wrong_backward_error"), wrong_backward_error(spec, x)
    evidence = estimate_evidence({"kind": "sum_sin", "a": spec["a"]}, x, EXERCISE.tolerance("default_step"))
    if number_problem(error, target, rtol=tol, atol=tol) is None:
        expect_x_untouched(returned, x)
        return
    fail_if_every_ratio(as_called)
    expect_float_not_tensor(as_called, target, ERROR_AS_TENSOR, rtol=tol, atol=tol, what="the relative error",
                            wanted=f"the Python float {describe(target)}")
    mistake = estimate_mistake(returned.value["estimate"], x, returned.value["x64_after"], evidence)
    if mistake is not None:
        fail_with_mistake(as_called, "gradient_check measured the wrong gap, because numerical_gradient is off.",
                          mistake, error)
    not_a_number = number_problem(error, target, rtol=math.inf, atol=math.inf) is not None
    expect_number(as_called, target, rtol=tol, atol=tol, section=WHY, what="the relative error",
                  suspects=[Suspect(MEAN_OF_GAPS, wrong_backward_error(spec, x, "mean")),
                            Suspect(WHOLE_TENSOR_RATIO, wrong_backward_error(spec, x, "norm")),
                            Suspect(WHOLE_TENSOR_RATIO, wrong_backward_error(spec, x, "maxima"))],
                  hint="gradient_check returns what relative_error returns: one Python float (relative_error's own "
                       "check says whether it does)." if not_a_number else
                       "Compare autograd's gradient (leaf.grad after f(leaf).backward()) with numerical_gradient, "
                       "both in float64, using your relative_error.")
