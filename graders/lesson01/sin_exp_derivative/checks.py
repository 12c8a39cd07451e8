"""Checks of `sin_exp_derivative` ("Try it yourself" 3).

Oracles: the reference `f` differentiated by `torch.autograd` in this process, and the
reference's hand-worked formula. Public checks use the lesson's grid
`torch.linspace(0, 5, 50)`; hidden ones use seeded random points, float64, 2-D inputs
and points where the derivative is zero. The checks of how a function works (autograd
used, nothing modified, no autograd in the formula) first check its value: a process
earns nothing on a wrong answer.

Longer than most modules, on purpose: what computes an expected value or a wrong variant stays in
the checks module, because the student bundle releases a filtered copy of it (public checks and what
they use, expected values replaced by recorded data); a helper module would be released whole.
"""

from __future__ import annotations

import dataclasses
import math
import re
from types import ModuleType

import torch

from graders.kit import (AUTOGRAD_IN_CODE, Mistake, Returned, Student, StudentError, Suspect, argument_changed,
                         checks_for, code_lines, describe, exercise, expect_code_shows, expect_float_not_tensor,
                         expect_number, expect_tensor, expected, fail, fail_with_mistake, first_matching_variant,
                         number_problem, origin, tensor_problem, twin, twin_generator, twin_random,
                         unless_contradicted)
from graders.lesson01.sin_exp_derivative.mistakes import (ACCUMULATED_TWICE, AUTOGRAD, COPY_NOT_DETACHED,
                                                          DEFAULT_GRID_CHANGED,
                                                          DERIVATIVE_EXPONENT_SIGN, F_EXPONENT_SIGN,
                                                          F_BOUND_AS_DEFAULT, F_HELD_FROM_IMPORT, F_NOT_DIFFERENTIATED,
                                                          F_THROUGH_NUMPY,
                                                          GAP_AS_TENSOR,
                                                          GAP_NOT_ABSOLUTE, GAPS_NOT_REDUCED, MEAN_NOT_MAX,
                                                          GRID_ARGUMENTS_IGNORED, MEAN_NOT_SUM, MODIFIED_INPUT,
                                                          ONE_TERM_WRONG,
                                                          PRODUCT_OF_DERIVATIVES, PRODUCT_RULE_MISSED, SIGN_ERROR,
                                                          STILL_REQUIRES_GRAD, TRY_IT)
from graders.lesson01.sin_exp_derivative.drivers import (derivative_of_tracked_x, differentiate_substitute, f_on_leaf,
                                                replace_derivatives, substitute_f)

EXERCISE = exercise("lesson01", "sin_exp_derivative")
check = checks_for("lesson01", EXERCISE.slug)


LESSON_N, LESSON_START, LESSON_END = 50, 0.0, 5.0  # the lesson's grid, max_abs_difference's defaults

LESSON_GRID = "x = torch.linspace(0, 5, 50)"
# What the trace records of every API that computes gradients: backward(), autograd.grad (torch.func's reverse
# transforms and autograd.functional call it too) and forward mode's dual numbers (torch.func.jvp, jacfwd, forward_ad).
BACKWARD_CALLS = ("Tensor.backward", "autograd.grad", "autograd.backward", "_make_dual")
SUBSTITUTE, SUBSTITUTE_DERIVATIVE = "t ** 3", "3·x²"  # substitute_f and its derivative, as messages show them
NO_BACKWARD_HINT = ("Your autograd_derivative never calls backward() or torch.autograd.grad: make a leaf copy of x "
                    "that requires grad, compute f(leaf).sum(), call .backward() and return leaf.grad.")
ITEM_HINT = "Return a Python float: call .item() on the 0-d tensor that .max() gives."
NUMPY_HINT = "A NumPy value is not a Python float: call .item() on the 0-d tensor that .max() gives, not .numpy()."
OTHER_TYPE_HINT = ("Return one Python float, the largest absolute difference: .item() takes it out of the 0-d "
                   "tensor that .max() gives.")
SHAPE_HINT = ("Keep x's shape {shape}: compute elementwise, with no reshape, flatten or reduction (the docstring: "
              "\"A tensor of the same shape and dtype as `x`.\").")
DTYPE_HINT = ("Keep x's dtype, {dtype}: no .float() or .double() on the way, and a tensor you create gets "
              "dtype=x.dtype (the docstring: \"A tensor of the same shape and dtype as `x`.\").")
NUMPY_ON_TRACKED = r"Can't call numpy\(\) on Tensor that requires grad"  # torch's error, when NumPy meets a graph


def lesson_grid() -> torch.Tensor:
    """The lesson's grid; in a public check's twin run, 50 fresh sorted points of the same range."""
    if twin():
        return (torch.rand(50, generator=twin_generator()) * 5).sort().values
    return torch.linspace(0, 5, 50)


def grid_text() -> str:
    return "x = 50 fresh sorted float32 points in [0, 5)" if twin() else LESSON_GRID


def difference_call() -> tuple[dict[str, float], torch.Tensor, str]:
    """max_abs_difference's arguments, the grid they stand for, and the call as messages show it:
    the defaults (the lesson's grid), or fresh ones in a twin run."""
    if not twin():
        return {}, torch.linspace(LESSON_START, LESSON_END, LESSON_N), "max_abs_difference()"
    draw = twin_random()
    n, start = draw.randint(20, 80), round(draw.uniform(-1.0, 1.0), 2)
    end = round(start + draw.uniform(3.0, 6.0), 2)
    return ({"n": n, "start": start, "end": end}, torch.linspace(start, end, n),
            f"max_abs_difference(n={n}, start={start:g}, end={end:g})")


@expected
def autograd_truth(reference: ModuleType, x: torch.Tensor) -> torch.Tensor:
    """The derivative of the reference f by torch.autograd, in this (trusted) process."""
    leaf = x.detach().clone().requires_grad_(True)
    reference.f(leaf).sum().backward()
    return leaf.grad.detach()


@expected
def substitute_truth(x: torch.Tensor) -> torch.Tensor:
    """The derivative of substitute_f by torch.autograd, in this (trusted) process."""
    leaf = x.detach().clone().requires_grad_(True)
    substitute_f(leaf).sum().backward()
    return leaf.grad.detach()


@expected
def wrong_derivatives(x: torch.Tensor) -> list[torch.Tensor]:
    """What the product-rule, sign and product-of-derivatives mistakes give on x, then the two e^(+x) ones:
    the derivative of sin(x)·e^(+x), and the lesson's bracket times e^(+x)."""
    e, grows = torch.exp(-x), torch.exp(x)
    return [torch.cos(x) * e, e * (torch.cos(x) + torch.sin(x)), torch.cos(x) * -e,
            grows * (torch.cos(x) + torch.sin(x)), grows * (torch.cos(x) - torch.sin(x))]


# The product rule's two terms of the derivative, and how one term alone may slip while the other stays right:
# a derivative a single term away from the right one is named by that term, whatever the other mistakes cover.
_TERMS = (("first", "u'·v = cos x · e^(−x)"), ("second", "u·v' = −sin x · e^(−x)"))
# (Not sin and cos swapped in one term: either way that gives 0 everywhere, which says nothing of the term.)
_TERM_SLIPS = ("is left out", "has the wrong sign", "has e^(+x) in place of e^(−x)")


@expected
def one_term_slips(x: torch.Tensor) -> list[torch.Tensor]:
    """The derivative with one term slipped and the other right, for each term of `_TERMS` and each slip of
    `_TERM_SLIPS`, in that order."""
    e, grows = torch.exp(-x), torch.exp(x)
    right = (torch.cos(x) * e, -torch.sin(x) * e)
    slipped = ((torch.zeros_like(x), -right[0], torch.cos(x) * grows),
               (torch.zeros_like(x), -right[1], -torch.sin(x) * grows))
    return [slip + right[1 - term] for term in (0, 1) for slip in slipped[term]]


def _one_term_wrong(term: int, slip: int) -> Mistake:
    (name, written), (other, other_written) = _TERMS[term], _TERMS[1 - term]
    return dataclasses.replace(ONE_TERM_WRONG, explanation=(
        f"{ONE_TERM_WRONG.explanation.removesuffix('Your derivative has one of them right and the other wrong.')}"
        f"Your derivative has the {other} term, {other_written}, right, but its {name} term, {written}, "
        f"{_TERM_SLIPS[slip]}."))


@expected
def f_with_growing_exponential(x: torch.Tensor) -> torch.Tensor:
    """f with the exponent's sign lost: sin(x)·e^(+x)."""
    return torch.sin(x) * torch.exp(x)


def suspects(x: torch.Tensor, own_f: bool = False) -> list[Suspect]:
    """The wrong derivatives a check can name. With `own_f`, the derivative came from autograd on the student's
    own f (not the lesson's in its place): the derivative of sin(x)·e^(+x) then says that f lost its minus."""
    missed, sign, product, of_growing, bracket_growing = wrong_derivatives(x)
    growing = [Suspect(F_EXPONENT_SIGN, of_growing)] if own_f else [
        Suspect(DERIVATIVE_EXPONENT_SIGN, of_growing), Suspect(DERIVATIVE_EXPONENT_SIGN, bracket_growing)]
    # A derivative by hand one term away from the right one (not for autograd on the student's own f, which is no
    # term-by-term work): after the named mistakes, which cover some of the same values with their own words.
    one_term = [] if own_f else [Suspect(_one_term_wrong(i // len(_TERM_SLIPS), i % len(_TERM_SLIPS)), value)
                                 for i, value in enumerate(one_term_slips(x))]
    return [Suspect(PRODUCT_RULE_MISSED, missed), Suspect(SIGN_ERROR, sign), Suspect(PRODUCT_OF_DERIVATIVES, product),
            *growing, *one_term]


def scaled_mistakes(x: torch.Tensor) -> dict[float, Mistake]:
    """The mistakes that give a known multiple of the right derivative on x."""
    # A mean over one point is the sum: nothing to tell apart.
    return {2.0: ACCUMULATED_TWICE, **({1 / x.numel(): MEAN_NOT_SUM} if x.numel() > 1 else {})}


def fitting_hint(value: object, expected: torch.Tensor, values_hint: str) -> str:
    """The hint for how a returned tensor differs: the formula's hint only when its values are what differ, so
    that a lost dtype or shape is not answered with calculus."""
    if type(value) is not torch.Tensor:
        return "Return a torch.Tensor of x's shape and dtype, as the docstring's Returns says."
    if value.shape != expected.shape:
        return SHAPE_HINT.format(shape=tuple(expected.shape))
    if value.dtype != expected.dtype:
        return DTYPE_HINT.format(dtype=str(expected.dtype).removeprefix("torch."))
    return values_hint


def number_hint(value: object) -> str:
    """The hint for a largest difference that is not a Python number, by what it is instead."""
    if type(value) is torch.Tensor:
        return ITEM_HINT
    if type(value).__module__ == "numpy" or "numpy" in describe(value) or "array(" in describe(value):
        return NUMPY_HINT
    return OTHER_TYPE_HINT


def fail_if_every_gap(returned: Returned, n: int) -> None:
    """A 1-D tensor of one value per grid point is the differences never reduced to the largest: named alike by
    every check of max_abs_difference."""
    __tracebackhide__ = True
    value = returned.value
    if type(value) is torch.Tensor and value.dim() == 1 and len(value) == n and n > 1:
        fail(f"max_abs_difference returned a tensor of {n} values, one per point of the grid, not one Python float.",
             call=returned.call, got=describe(value), expected="one Python float, the largest of those differences",
             mistake=GAPS_NOT_REDUCED)


def tolerance(x: torch.Tensor) -> dict[str, float]:
    value = EXERCISE.tolerance("float64" if x.dtype == torch.float64 else "float32")
    return {"rtol": value, "atol": value}


def expect_derivative(returned: Returned, reference: ModuleType, x: torch.Tensor, own_f: bool = False) -> None:
    __tracebackhide__ = True
    truth = autograd_truth(reference, x)
    expect_tensor(returned, truth, **tolerance(x), requires_grad=None,
                  suspects=suspects(x, own_f), scaled=scaled_mistakes(x), section=TRY_IT,
                  hint=fitting_hint(returned.value, truth, "Compare your result with e^(−x)·(cos x − sin x) at "
                                                           "x = 0, where it is 1."))


def expect_analytic(returned: Returned, reference: ModuleType, x: torch.Tensor) -> None:
    __tracebackhide__ = True
    truth = reference.analytic_derivative(x)
    expect_tensor(returned, truth, **tolerance(x), requires_grad=None, suspects=suspects(x), section=TRY_IT,
                  hint=fitting_hint(returned.value, truth, "Differentiate sin(x)·e^(−x) with the product rule; at "
                                                           "x = 0 the result is 1."))


def uses_autograd(returned: Returned) -> bool:
    return bool(returned.calls_to(*BACKWARD_CALLS))


def call_f_on_leaf(student: Student, x: torch.Tensor, text: str) -> Returned:
    """The student's f on a leaf copy of x that requires grad; an error comes back in the Returned."""
    shown = f"f(x) with {text}, x requiring grad (as autograd_derivative's leaf does)"
    return student.run(f_on_leaf, x, allow_raise=True, runs="f", shown_as=shown)


def own_f_is_right(student: Student, reference: ModuleType, x: torch.Tensor, text: str) -> bool:
    """Whether the student's f gives the lesson's f on x, on a leaf that requires grad as autograd_derivative
    gives it (computed first, so that a recording holds it)."""
    truth = reference.f(x)
    own = call_f_on_leaf(student, x, text)
    return own.error is None and tensor_problem(own.value, truth, **tolerance(x), requires_grad=None) is None


def numpy_on_tracked(error: StudentError | None) -> bool:
    """Whether a student's error is torch refusing to give NumPy a tensor that requires grad."""
    return error is not None and re.search(NUMPY_ON_TRACKED, f"{error.type}: {error.message}") is not None


def fail_f_through_numpy(returned: Returned, summary: str) -> None:
    __tracebackhide__ = True
    error = returned.error
    assert error is not None
    fail(summary, call=returned.call, got=f"{error.type}: {error.message}", mistake=F_THROUGH_NUMPY)


def derivative_call(student: Student, reference: ModuleType, x: torch.Tensor, text: str,
                    with_x: bool = False) -> Returned:
    """autograd_derivative(x), with the student's own f when that f is right on x; otherwise with
    the lesson's f in its place, so that a wrong f costs f's own check and not these too."""
    if own_f_is_right(student, reference, x, text):
        shown = f"autograd_derivative(x) with {text}"
        return student.call("autograd_derivative", x, return_args=with_x, shown_as=shown)
    shown = (f"autograd_derivative(x) with {text}, and with the lesson's f, sin(t)·e^(−t), in place of your f: "
             f"yours is wrong (its own check says how), so this check tries autograd_derivative alone")
    returned = student.run(differentiate_substitute, x, with_x, True, shown_as=shown, runs="autograd_derivative")
    if with_x and type(returned.value) is list and len(returned.value) == 2:
        returned = dataclasses.replace(returned, value=returned.value[0], args=[returned.value[1]])
    return returned


# ---------------------------------------------------------------- public checks

def other_shape() -> tuple[torch.Tensor, str]:
    """f's "any shape" and "same dtype": a float64 grid of 2 rows and 3 columns (fresh values in a twin run)."""
    if twin():
        return torch.rand(2, 3, generator=twin_generator(1), dtype=torch.float64) * 5, \
            "x = a fresh float64 tensor of shape (2, 3), values in [0, 5)"
    return (torch.arange(6, dtype=torch.float64).reshape(2, 3),
            "x = torch.arange(6, dtype=torch.float64).reshape(2, 3)")


@check
def test_f_on_lesson_grid(student: Student, reference: ModuleType) -> None:
    for x, text in ((lesson_grid(), grid_text()), other_shape()):
        returned = student.call("f", x, shown_as=f"f(x) with {text}")
        expect_tensor(returned, reference.f(x), **tolerance(x), requires_grad=None, section=TRY_IT,
                      suspects=[Suspect(F_EXPONENT_SIGN, f_with_growing_exponential(x))],
                      hint="f(x) = torch.sin(x) * torch.exp(-x), elementwise: the result keeps x's shape and dtype.")
    # autograd_derivative calls f on a leaf that requires grad: f must work there too.
    x, text = lesson_grid(), grid_text()
    returned = call_f_on_leaf(student, x, text)
    if numpy_on_tracked(returned.error):
        fail_f_through_numpy(returned, "f raised RuntimeError on a tensor that requires grad.")
    if returned.error is not None:
        student.fail_raised(returned, "f")
    expect_tensor(returned, reference.f(x), **tolerance(x), requires_grad=None, section=AUTOGRAD,
                  hint="Build f from torch operations only, so that it works on a tensor that requires grad.")


@check
def test_autograd_derivative_on_lesson_grid(student: Student, reference: ModuleType) -> None:
    x = lesson_grid()
    expect_derivative(derivative_call(student, reference, x, grid_text()), reference, x)


@check
def test_autograd_derivative_uses_autograd(student: Student, reference: ModuleType) -> None:
    x = lesson_grid()
    expect_derivative(derivative_call(student, reference, x, grid_text()), reference, x)
    returned = student.run(differentiate_substitute, x, trace=True,
                           shown_as=f"autograd_derivative(x) with {grid_text()}, after replacing f in your "
                                    f"module by f(t) = {SUBSTITUTE}")
    expected_value = substitute_truth(x)
    # Computed before comparing, so that recording from the reference stores it too.
    own_derivative = [Suspect(F_NOT_DIFFERENTIATED, autograd_truth(reference, x))]
    problem = tensor_problem(returned.value, expected_value, **tolerance(x), requires_grad=None)
    if problem is None:
        # What ran is the evidence: a derivative that follows f may come from a complex step or a finite
        # difference as well (the module's code is read too, and code the grader cannot follow is flagged).
        if not uses_autograd(returned):
            fail("autograd_derivative follows f, but its run never asked autograd for a gradient.", call=returned.call,
                 meaning="The exercise is to let autograd differentiate f; another numerical method (a complex step, "
                         "a difference quotient) skips what it practises.",
                 hint=NO_BACKWARD_HINT, section=AUTOGRAD)
        expect_code_shows(student, returned, "autograd_derivative", AUTOGRAD_IN_CODE, "backward() or autograd.grad",
                          AUTOGRAD)
        return
    summary = (f"autograd_derivative does not differentiate f: with f(t) = {SUBSTITUTE} it should return "
               f"{SUBSTITUTE_DERIVATIVE}, but {problem}.")
    # The trace only shapes the hint: the verdict above is behavioural.
    hint = NO_BACKWARD_HINT if not uses_autograd(returned) else ""
    mistake = first_matching_variant(returned.value, own_derivative, **tolerance(x))
    if mistake is not None and unless_contradicted(mistake, student) is None:
        # It differentiates f: the f the def saw, or the one a value made when the module ran holds.
        own_default = "f" in student.evidence.defaults("autograd_derivative").values()
        mistake = F_BOUND_AS_DEFAULT if own_default else F_HELD_FROM_IMPORT
    if mistake is not None:
        fail(summary, call=returned.call, got=describe(returned.value), expected=describe(expected_value),
             mistake=mistake, hint=hint or mistake.hint)
    fail(summary, call=returned.call, got=describe(returned.value), expected=describe(expected_value),
         meaning="The derivative must come from autograd on f, so that it follows f when f changes.",
         hint=hint or "Evaluate f on a leaf that requires grad, call backward() on the sum, return the leaf's .grad.",
         section=AUTOGRAD)


@check
def test_autograd_derivative_is_clean(student: Student, reference: ModuleType) -> None:
    x = lesson_grid()
    returned = derivative_call(student, reference, x, grid_text(), with_x=True)
    expect_derivative(returned, reference, x)
    expect_clean(returned, x, returned.args[0] if returned.args else None)
    # The same promises for an x that requires grad, with the student's own f where it is right.
    if not own_f_is_right(student, reference, x, grid_text()):
        return
    tracked = student.run(derivative_of_tracked_x, x, runs="autograd_derivative",
                          shown_as=f"autograd_derivative(x) with {grid_text()}, x requiring grad")
    result = tracked.value if type(tracked.value) is dict else {}
    as_called = dataclasses.replace(tracked, value=result.get("value"))
    after, given = result.get("x_after"), x.clone().requires_grad_(True)
    after_info = origin(after) if type(after) is torch.Tensor else None
    if result.get("raised") is not None or (after_info is not None and after_info.grad is not None):
        fail("autograd_derivative, given an x that requires grad, sent the gradient into x.grad.",
             call=tracked.call, got=str(result.get("raised") or describe(result.get("value"))),
             changed=f"x after the call: {describe(after)}", expected="the derivative, and x unchanged",
             mistake=COPY_NOT_DETACHED)
    expect_derivative(as_called, reference, x)
    expect_clean(as_called, given, after)


def expect_clean(returned: Returned, given: torch.Tensor, after: object) -> None:
    """The caller's x (`given`) as it was before the call, and a result that does not require grad."""
    __tracebackhide__ = True
    if argument_changed(given, after):
        info = origin(after) if type(after) is torch.Tensor else None
        leftover = ", and it holds a .grad" if info is not None and info.grad is not None else ""
        fail("autograd_derivative changed the tensor it was given.", call=returned.call,
             got=describe(returned.value), changed=f"x after the call: {describe(after)}{leftover}",
             expected=f"x unchanged: {describe(given)}",
             mistake=MODIFIED_INPUT)
    result_info = origin(returned.value)
    if result_info is not None and result_info.requires_grad:
        fail_with_mistake(returned, "autograd_derivative returned a tensor that requires grad.",
                          STILL_REQUIRES_GRAD, returned.value)


@check
def test_analytic_derivative_on_lesson_grid(student: Student, reference: ModuleType) -> None:
    x = lesson_grid()
    expect_analytic(student.call("analytic_derivative", x, shown_as=f"analytic_derivative(x) with {grid_text()}"),
                    reference, x)


@check
def test_analytic_derivative_without_autograd(student: Student, reference: ModuleType) -> None:
    x = lesson_grid()
    returned = student.call("analytic_derivative", x, trace=True,
                            shown_as=f"analytic_derivative(x) with {grid_text()}")
    expect_analytic(returned, reference, x)
    used = code_lines(student, returned, "analytic_derivative", BACKWARD_CALLS, AUTOGRAD_IN_CODE)
    info = origin(returned.value)
    if used or (info is not None and info.requires_grad):
        where = f" (line {', '.join(str(line) for line in used if line)})" if any(used) else ""
        fail(f"analytic_derivative uses autograd{where}; it must be the formula worked out by hand.",
             call=returned.call, hint="Return torch.exp(-x) * (torch.cos(x) - torch.sin(x)) with no backward().",
             section=TRY_IT)


@check
def test_max_abs_difference_is_small(student: Student, reference: ModuleType) -> None:
    arguments, x, call = difference_call()
    grid = f"x = torch.linspace({x[0].item():g}, {x[-1].item():g}, {len(x)})"
    returned = student.call("max_abs_difference", **arguments, shown_as=call, allow_raise=True)
    if numpy_on_tracked(returned.error) and numpy_on_tracked(call_f_on_leaf(student, x, grid).error):
        fail_f_through_numpy(returned, "max_abs_difference raised RuntimeError, because f cannot take a tensor "
                                       "that requires grad.")
    if returned.error is not None:
        student.fail_raised(returned, "max_abs_difference")
    limit = EXERCISE.tolerance("max_difference")
    value = returned.value
    problem = number_problem(value, 0.0, rtol=0, atol=math.inf, what="the largest difference")
    fail_if_every_gap(returned, len(x))
    if problem is not None and type(value) is not torch.Tensor:
        fail(f"max_abs_difference: {problem}.", call=returned.call, got=describe(value), hint=number_hint(value),
             section=TRY_IT)
    by_autograd = student.call("autograd_derivative", x, shown_as=f"autograd_derivative(x) with {grid}")
    by_hand = student.call("analytic_derivative", x, shown_as=f"analytic_derivative(x) with {grid}")
    gap = _largest_gap(by_autograd.value, by_hand.value, x)
    if problem is not None:  # a tensor: named when it holds the gap of the student's own two derivatives
        if gap is not None:
            expect_float_not_tensor(returned, gap, GAP_AS_TENSOR, rtol=EXERCISE.tolerance("float32"),
                                    atol=EXERCISE.tolerance("max_difference_match"), what="the largest difference",
                                    wanted=f"the Python float {gap:.6g}")
        fail(f"max_abs_difference: {problem}.", call=returned.call, got=describe(value), hint=ITEM_HINT,
             section=TRY_IT)
    if gap is None:
        fail("max_abs_difference could not be compared with your two derivatives: on the lesson's grid they do "
             "not both return a tensor of x's shape.", call=returned.call, got=describe(value),
             meaning=f"autograd_derivative(x) gave {describe(by_autograd.value, 3)}; "
                     f"analytic_derivative(x) gave {describe(by_hand.value, 3)}.",
             hint="Make both derivative functions return a tensor of x's shape (the other checks say how).",
             section=TRY_IT)
    if number_problem(value, gap, rtol=EXERCISE.tolerance("float32"), atol=EXERCISE.tolerance("max_difference_match"),
                      what="the largest difference") is not None:
        fail(f"max_abs_difference() returned {describe(value)}, but your two derivatives differ by up to "
             f"{gap:.6g} on {grid}.", call=returned.call, got=describe(value),
             expected=f"{gap:.6g}, the largest |autograd_derivative(x) − analytic_derivative(x)| of your functions",
             meaning="The number must be measured from your two functions, not written down.",
             hint="Build x = torch.linspace(start, end, n), call both derivative functions on it, and return "
                  "the largest absolute difference with .abs().max().item().", section=TRY_IT)
    if not 0 <= value < limit:
        summary = f"max_abs_difference: the largest difference is {value:.3g}; it should be in [0, {limit:g})."
        # The same name the derivative's (or f's) own check gives, when one of the two is a known wrong variant.
        mistake = (first_matching_variant(by_autograd.value, suspects(x, own_f=True), **tolerance(x))
                   or first_matching_variant(by_hand.value, suspects(x), **tolerance(x)))
        if mistake is not None:
            fail(summary, call=returned.call, got=describe(value), expected=f"a float in [0, {limit:g})",
                 mistake=mistake)
        fail(summary,
             call=returned.call, got=describe(value), expected=f"a float in [0, {limit:g})",
             meaning="Your two derivatives disagree by more than float32 rounding, so at least one of "
                     "them is wrong (the other checks say which), or the difference is not taken in absolute value.",
             hint="Compare autograd_derivative(x) and analytic_derivative(x) at x = 0: both should give 1.",
             section=TRY_IT)
    # Two derivatives that agree earn nothing if they are both wrong (e.g. both zero).
    expect_derivative(by_autograd, reference, x, own_f=True)
    expect_analytic(by_hand, reference, x)


def _largest_gap(first: object, second: object, x: torch.Tensor) -> float | None:
    """max |first − second| in x's dtype, as the student's own code would compute it; None if not comparable."""
    if not all(type(t) is torch.Tensor and t.shape == x.shape and t.dtype == x.dtype for t in (first, second)):
        return None
    return torch.max(torch.abs(first.detach() - second.detach())).item()


# ---------------------------------------------------------------- hidden checks

@check
def test_analytic_derivative_and_autograd_on_fresh_points(student: Student, reference: ModuleType) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_points"))
    inputs = {
        "x = 200 random float32 points in [-4, 8]": torch.rand(200, generator=generator) * 12 - 4,
        "x = 37 random float64 points in [-2, 6]": torch.rand(37, generator=generator, dtype=torch.float64) * 8 - 2,
        "x of shape (4, 5), float32": torch.randn(4, 5, generator=generator) * 2,
    }
    for text, x in inputs.items():
        expect_derivative(derivative_call(student, reference, x, text), reference, x)
        expect_derivative(student.call("analytic_derivative", x, shown_as=f"analytic_derivative(x) with {text}"),
                          reference, x)


@check
def test_analytic_derivative_and_autograd_near_stationary_points(student: Student, reference: ModuleType) -> None:
    offsets = torch.tensor([-1e-3, -1e-5, 0.0, 1e-5, 1e-3], dtype=torch.float64)
    x = torch.cat([math.pi / 4 + offsets, 5 * math.pi / 4 + offsets])
    text = "x near π/4 and 5π/4 (float64)"
    for name in ("autograd_derivative", "analytic_derivative"):
        returned = (derivative_call(student, reference, x, text) if name == "autograd_derivative"
                    else student.call(name, x, shown_as=f"{name}(x) with {text}"))
        truth = autograd_truth(reference, x)
        # Near a zero of the derivative, relative error means nothing: compare absolutely.
        expect_tensor(returned, truth, rtol=0, atol=EXERCISE.tolerance("float64"),
                      requires_grad=None, suspects=suspects(x), scaled=scaled_mistakes(x), section=TRY_IT,
                      hint=fitting_hint(returned.value, truth, "The derivative is zero where cos x = sin x: at π/4 "
                                                               "and 5π/4."))


@expected
def sin_3x_gap(n: int, start: float, end: float) -> float:
    """max |sin(3x) − 0| over the float32 grid the student must build: it depends on every argument."""
    grid = torch.linspace(start, end, n)
    return torch.sin(3 * grid).abs().max().item()


@expected
def sin_3x_wrong_gaps(n: int, start: float, end: float) -> list[float]:
    """On the same grid: the largest signed difference either way round, and the mean absolute one."""
    gaps = torch.sin(3 * torch.linspace(start, end, n))
    return [gaps.max().item(), (-gaps).max().item(), gaps.abs().mean().item()]


# max_abs_difference's grids: its defaults (the lesson's grid), one point, and two others.
OTHER_GRIDS: tuple[tuple[float, ...], ...] = ((), (1, 0.5, 0.5), (7, -3.0, 2.0), (101, 1.5, 4.5))


def expect_default_grid(returned: Returned, points: object) -> None:
    """Called with its defaults, max_abs_difference built the lesson's grid: the distinct points its derivatives
    were given are 50, from 0 to 5. (The gap of sin(3x) is the same on linspace(0, 10, 50), so it cannot tell.)"""
    __tracebackhide__ = True
    if type(points) is not torch.Tensor or points.dim() != 1 or not len(points) or not points.is_floating_point():
        return  # no grid reached the derivatives as a tensor: the value's check below says what is wrong
    lowest, highest, count = points.min().item(), points.max().item(), len(points)
    if count == LESSON_N and math.isclose(lowest, LESSON_START, abs_tol=1e-6) and math.isclose(highest, LESSON_END,
                                                                                                 rel_tol=1e-6):
        return
    fail(f"max_abs_difference() with its defaults measured the gap on {count} points from {lowest:g} to "
         f"{highest:g}, not on the lesson's grid.", call=returned.call,
         got=f"autograd_derivative given {count} distinct points, from {lowest:g} to {highest:g}",
         expected=f"torch.linspace({LESSON_START:g}, {LESSON_END:g}, {LESSON_N}): {LESSON_N} points from "
                  f"{LESSON_START:g} to {LESSON_END:g}, the defaults n={LESSON_N}, start={LESSON_START}, end={LESSON_END}",
         mistake=DEFAULT_GRID_CHANGED)


@check
def test_max_abs_difference_on_other_grids(student: Student) -> None:
    for grid in OTHER_GRIDS:
        n, start, end = grid or (LESSON_N, LESSON_START, LESSON_END)
        arguments = ", ".join(f"{value:g}" for value in grid)
        run = student.run(replace_derivatives, *grid, shown_as=f"max_abs_difference({arguments}) with "
                                                               "autograd_derivative returning sin(3x) and "
                                                               "analytic_derivative returning 0")
        result = run.value if type(run.value) is dict else {}
        returned = dataclasses.replace(run, value=result.get("value"))
        if not grid:
            expect_default_grid(returned, result.get("points"))
        hint = ("Build the grid from n, start and end (their defaults are the lesson's grid), call your two "
                "derivative functions on it, and return the largest absolute difference."
                if type(returned.value) in (int, float) else number_hint(returned.value))
        signed, reversed_signed, mean = sin_3x_wrong_gaps(n, start, end)
        right = sin_3x_gap(n, start, end)
        # A grid written out as the lesson's gives its gap there, whatever the arguments.
        wrong = [Suspect(GRID_ARGUMENTS_IGNORED, sin_3x_gap(LESSON_N, LESSON_START, LESSON_END)),
                 Suspect(GAP_NOT_ABSOLUTE, signed), Suspect(GAP_NOT_ABSOLUTE, reversed_signed),
                 Suspect(MEAN_NOT_MAX, mean)]
        fail_if_every_gap(returned, n)
        expect_float_not_tensor(returned, right, GAP_AS_TENSOR, rtol=1e-6, atol=1e-6, what="the largest difference",
                                wanted=f"the Python float {right:.6g}")
        expect_number(returned, right, rtol=1e-6, atol=1e-6, section=TRY_IT,
                      what="the largest difference", hint=hint, suspects=[s for s in wrong if s.value != right])
