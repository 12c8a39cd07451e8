"""Checks of `quadratic_fit` ("Try it yourself" 2).

Oracles: the reference run on the same data and settings, and the least-squares fit by
numpy in float64. Public checks use the lesson's data, make_quadratic_data() with its
defaults; hidden ones use another seed, size and noise, float64 data from other
coefficients, and other rates and step counts. A wrong fit is named by running wrong
variants of gradient descent on the same data and finding the one the answer equals;
failing that, by the student's first step from zero, whose length and direction against
the right one give the rate they effectively used (the gradient signature).

Runs are kept short because a step costs ~80 µs: on the lesson's data lr 0.1 is within
0.01 of the least-squares fit after 60 steps and at float32's floor (4e-7) after 200;
the lesson's own 500 would cost 40 ms a call.

Longer than most modules, on purpose: what computes an expected value or a wrong variant stays in
the checks module, because the student bundle releases a filtered copy of it (public checks and what
they use, expected values replaced by recorded data); a helper module would be released whole.
"""

from __future__ import annotations

import dataclasses
import math
import re
from types import ModuleType
from typing import Any, Callable

import numpy as np
import torch

from graders.kit import (BACKWARD_IN_CODE, GLOBAL_SEED, GradientSignature, Meanwhile, Mistake, RECORD, RECORDING,
                         Returned, Student, Suspect, checks_for, defaults_told, describe, exercise, expect_code_shows,
                         expect_tensor, expected, fail, follows_the_recipes_law, gradient_signature, is_scaled,
                         number_problem, seed_judged, twin, twin_generator, twin_random, recipe_drawn_otherwise,
                         recipe_drawn_point_by_point, unless_contradicted, needs_value)
from graders.lesson01.quadratic_fit.mistakes import (CLOSED_FORM, DRAWN_IN_FLOAT64, DRAWN_POINT_BY_POINT, GRADIENT_SCALED,
                                                     GRADIENTS_CLEARED_BEFORE_UPDATE,
                                                     GRADIENTS_NOT_ZEROED, NOISE_AS_VARIANCE, NOISE_DRAWN_FIRST,
                                                     NOISE_IGNORED, NONZERO_START, ONE_STEP_SHORT, ONE_STEP_TOO_MANY,
                                                     OTHER_RANDOM_STREAM, RATE_TOO_HIGH, REBOUND_PARAMETERS,
                                                     SEED_IGNORED, SEED_NEVER_SET, SEED_SET_LATE, SHAPE_BROADCAST,
                                                     SIGN_ERROR, SOME_GRADIENTS_NOT_ZEROED, SUM_FOR_MEAN, TRY_IT)
from graders.lesson01.quadratic_fit.drivers import data_asked_again, fit_defaults

EXERCISE = exercise("lesson01", "quadratic_fit")
check = checks_for("lesson01", EXERCISE.slug)


LESSON_NOISE = 0.3  # make_quadratic_data's default, the lesson's noise

# The wrong variants of gradient descent whose final (a, b, c) a failing answer is compared
# with. A run that blew up (nan, inf) matches nothing here: every blow-up looks alike, so
# those are told apart by the student's first step instead (see _first_step_mistake).
_VARIANTS: list[tuple[Mistake, dict[str, Any]]] = [
    (GRADIENTS_NOT_ZEROED, {"zeroed": ""}),
    (SHAPE_BROADCAST, {"flat_target": True}),
    (SIGN_ERROR, {"ascent": True}),
    (NONZERO_START, {"start": 1.0}),  # torch.ones: the start a beginner writes when not zeros
    # Some gradients cleared and not the others (the measured text says which, _never_zeroed): after the start
    # other than zero, which the student's own steps=0 answer can contradict, since on the lesson's data the two
    # end near each other.
    *((SOME_GRADIENTS_NOT_ZEROED, {"zeroed": zeroed}) for zeroed in ("ab", "ac", "bc", "a", "b", "c")),
    (ONE_STEP_SHORT, {"loop_from": 1}),  # range(1, steps): steps − 1 updates
    (ONE_STEP_TOO_MANY, {"loop_from": -1}),  # range(steps + 1): steps + 1 updates
    # A hand-written gradient short of the 2 of d(r²)/dr, or with it twice: every step half or twice its size.
    (GRADIENT_SCALED, {"gradient_scale": 0.5}),
    (GRADIENT_SCALED, {"gradient_scale": 2.0}),
]
OFF_BY_ONE = (ONE_STEP_SHORT, ONE_STEP_TOO_MANY)

LESSON_DATA = "X, y = make_quadratic_data() (100 points, seed 0, noise 0.3)"
TRUE_COEFFICIENTS = (0.5, -1.0, 1.0)
LESSON_LR = 0.1
# After 60 steps the fit is within 0.06 of (0.5, −1, 1) and 0.01 of its limit but still
# moving, so the path itself (start at zero, step size, mean) is compared, not only its end.
SIGNATURE_DEFAULTS = {"lr": 0.1, "steps": 500}  # fit_quadratic's, as the stub's signature gives them
PATH_STEPS = 60
CONVERGED_STEPS = 200
TRACED_STEPS = 3  # enough to see backward() being called, cheap under tracing
OTHER_DATA_ARGUMENTS = {"n": 37, "noise": 0.1}
OTHER_COEFFICIENTS, OTHER_N, OTHER_NOISE, OTHER_STEPS = (-2.0, 0.3, 4.0), 64, 0.2, 150
# (lr, steps), both rates below the lesson data's limit of 0.255; steps=0 is the docstring's "how many updates"
# at its lower end: no update, so a, b and c stay at zero.
OTHER_SETTINGS = ((0.05, 40), (0.2, 30), (0.1, 0))
BACKWARD_CALLS = ("Tensor.backward", "autograd.grad", "autograd.backward")
# The errors a parameter rebound by `a = a - lr * a.grad` raises on the step after: a .grad that is None (the new a is
# no leaf), or a loss with no graph (the new a, made under no_grad, does not require grad).
GRAPH_LOST = "does not require grad and does not have a grad_fn"
NONE_GRAD = r"'NoneType' object has no attribute 'zero_'|unsupported operand type\(s\) for .*'NoneType'"


def _lesson_arguments() -> dict[str, Any]:
    return {"n": 100, "seed": EXERCISE.seed("lesson"), "noise": LESSON_NOISE}


@dataclasses.dataclass(frozen=True)
class Fit:
    """One call of fit_quadratic: its data and settings, and how messages show it."""

    X: torch.Tensor
    y: torch.Tensor
    lr: float
    steps: int
    data: str  # how messages describe X and y

    @property
    def call(self) -> str:
        return f"fit_quadratic(X, y, lr={self.lr:g}, steps={self.steps}) with {self.data}"


def _never_zeroed(change: dict[str, Any]) -> str:
    """What a variant that clears some gradients only says of the others."""
    missed = [name for name in "abc" if name not in change.get("zeroed", "abc")]
    names = " and ".join(f"{name}'s" for name in missed)
    return (f"Here {names} gradient{'s are' if len(missed) > 1 else ' is'} never cleared; the answer equals that "
            f"run's on these data.")


def _descend(X: torch.Tensor, y: torch.Tensor, lr: float, steps: int, zeroed: str = "abc",
             flat_target: bool = False, ascent: bool = False, start: float = 0.0,
             loop_from: int = 0, gradient_scale: float = 1.0) -> tuple[float, float, float]:
    """Gradient descent on a, b, c, optionally with one of the catalogued mistakes built in."""
    target = y.reshape(-1) if flat_target else y
    lr = -lr if ascent else lr  # p -= (−lr)·g is bit for bit p += lr·g
    a, b, c = (torch.full((1,), start, requires_grad=True) for _ in range(3))
    for _ in range(loop_from, steps):
        loss = ((a * X**2 + b * X + c - target) ** 2).mean()
        if not torch.isfinite(loss):  # blown up: the rest of the run is nan anyway
            return (math.nan, math.nan, math.nan)
        loss.backward()
        with torch.no_grad():
            for name, parameter in zip("abc", (a, b, c)):
                parameter -= lr * gradient_scale * parameter.grad
                if name in zeroed:
                    parameter.grad.zero_()
    return a.item(), b.item(), c.item()


@expected
def mistaken_fits(X: torch.Tensor, y: torch.Tensor, lr: float, steps: int) -> dict[str, Any]:
    """What tells a wrong fit's cause on these data and settings: what each variant in
    _VARIANTS returns, the right run and its first step from zero, and the largest stable rate."""
    return {"variants": [_descend(X, y, **{"lr": lr, "steps": steps, **change}) for _, change in _VARIANTS],
            "right": _descend(X, y, lr, steps), "first_step": _descend(X, y, lr, 1), "stable_limit": _stable_limit(X)}


def _stable_limit(X: torch.Tensor) -> float:
    """2 / λ_max of the mean squared error's Hessian in (a, b, c): faster rates diverge."""
    x = X.detach().to(torch.float64).reshape(-1, 1)
    features = torch.cat([x**2, x, torch.ones_like(x)], dim=1)
    return 2 / float(torch.linalg.eigvalsh(2 * features.T @ features / len(x)).max())


def _wrong_fits(fit: Fit) -> Callable[[], dict[str, Any]]:
    """mistaken_fits, run only for an answer that fails, except while recording: then it
    runs at once, so that students' copies of the checks carry its values too."""
    if RECORDING.mode == RECORD:
        known = mistaken_fits(fit.X, fit.y, fit.lr, fit.steps)
        return lambda: known
    return lambda: mistaken_fits(fit.X, fit.y, fit.lr, fit.steps)


@expected
def least_squares(X: torch.Tensor, y: torch.Tensor) -> tuple[float, float, float]:
    """The exact minimiser of the mean squared error, by numpy in float64."""
    x = X.detach().to(torch.float64).numpy().reshape(-1)
    design = np.stack([x**2, x, np.ones_like(x)], axis=1)
    solution = np.linalg.lstsq(design, y.detach().to(torch.float64).numpy().reshape(-1), rcond=None)[0]
    return tuple(float(v) for v in solution)


@expected
def data_with_flat_noise(n: int, seed: int, noise: float) -> torch.Tensor:
    """The y of the recipe with its noise drawn as shape (n,): an (n, n) table."""
    generator = torch.Generator().manual_seed(seed)  # same stream as torch.manual_seed(seed)
    X = torch.rand(n, 1, generator=generator) * 4 - 2
    return 0.5 * X**2 - X + 1 + noise * torch.randn(n, generator=generator)


@expected
def data_drawn_otherwise(n: int, seed: int, noise: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor,
                                                                   torch.Tensor]:
    """The recipe's (X, y) with the noise drawn before X, then (X, y) drawn in float64 and made float32."""
    return recipe_drawn_otherwise(n, seed, _parabola, noise)


@expected
def data_drawn_point_by_point(n: int, seed: int, noise: float) -> tuple[torch.Tensor, torch.Tensor]:
    """The recipe's (X, y) drawn one x and its noise at a time."""
    return recipe_drawn_point_by_point(n, seed, _parabola, noise)


def _parabola(X: torch.Tensor) -> torch.Tensor:
    """The recipe's curve, without noise."""
    return 0.5 * X**2 - X + 1


def _other_coefficient_data() -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(EXERCISE.seed("other_coefficients"))
    X = torch.rand(OTHER_N, 1, generator=generator, dtype=torch.float64) * 4 - 2
    a, b, c = OTHER_COEFFICIENTS
    noise = torch.randn(OTHER_N, 1, generator=generator, dtype=torch.float64)
    return X, a * X**2 + b * X + c + OTHER_NOISE * noise


def _coefficients_problem(got: Any, want: tuple[float, ...], atol: float) -> str | None:
    if type(got) not in (tuple, list) or len(got) != 3:
        return f"the result should be a tuple of three Python floats (a, b, c) but is {describe(got)}"
    for name, value, target in zip("abc", got, want):
        problem = number_problem(value, target, rtol=0, atol=atol, what=name)
        if problem is not None:
            return problem
    return None


def _as_numbers(value: Any) -> Any:
    """A tuple or list of three whose one-element tensors are replaced by the floats they hold; anything else as it
    is. The type of the numbers is one property, their values another: each is judged by a check of its own."""
    if type(value) not in (tuple, list) or len(value) != 3:
        return value
    numbers = [float(v.detach().reshape(-1)[0]) if type(v) is torch.Tensor and v.numel() == 1
               and v.is_floating_point() else v for v in value]
    return type(value)(numbers)


def _expect_floats(returned: Returned) -> None:
    """The docstring's Returns: three Python floats. Right values held in tensors lose this check alone."""
    __tracebackhide__ = True
    value = returned.value
    if type(value) in (tuple, list) and len(value) == 3:
        held = next((name for name, v in zip("abc", value) if type(v) is torch.Tensor), None)
        if held is not None:
            fail(f"fit_quadratic returned the right values, but {held} is a tensor, not a Python float.",
                 call=returned.call, got=describe(value), expected="(a, b, c): a tuple of three Python floats",
                 hint=RETURNS_HINT, section=TRY_IT)


def _is_triple(value: Any) -> bool:
    return type(value) in (tuple, list) and len(value) == 3 and all(type(v) in (int, float) for v in value)


def _blew_up(values: Any, limit: float) -> bool:
    return any(not math.isfinite(v) or abs(v) > limit for v in values)


def _variant_mistake(student: Student, got: Any, variants: list[tuple[float, float, float]],
                     right: tuple[float, float, float],
                     others: Callable[[], list[tuple[Any, list[Any]]]] = list) -> tuple[Mistake, str] | None:
    """The first variant that ended at the answer's values; a variant that blew up matches nothing,
    and neither does a start other than zero once that run has caught up with the right one (after
    enough steps both reach the least-squares fit, and so does any answer near it), nor one that the student's own
    facts contradict (a start other than zero where their steps=0 answer is zero), nor one that does not explain
    the student's answers to the check's other inputs as well (`others`: each answer with the variants' values on
    that input): a name fits the code, not one input. Then the next variant is tried."""
    close, limit = EXERCISE.tolerance("mistake_match"), EXERCISE.tolerance("diverged")
    exact = EXERCISE.tolerance("reference")

    def near(values: Any, target: Any) -> bool:
        return all(abs(v - w) <= close * (1 + abs(w)) for v, w in zip(values, target))

    def equal(values: Any, target: Any) -> bool:
        return all(abs(v - w) <= exact for v, w in zip(values, target))

    def exactly(mistake: Mistake) -> bool:
        # One update less, or one more, ends within `close` of the right run once descent has slowed down
        # (60 steps on the lesson's data): this one is named only for an answer that equals it as a right
        # answer must equal the reference's, and only where it is not that close to the right run itself. So is
        # a gradient left uncleared: the same steps as the student's, so the same numbers, not near ones.
        return mistake in OFF_BY_ONE or mistake is SOME_GRADIENTS_NOT_ZEROED

    def agrees(mistake: Mistake, answer: Any, wrong: Any) -> bool:
        """The answer to another input is that variant's there (both blown up counts: they look alike)."""
        if not _is_triple(answer):
            return False
        if _blew_up(wrong, limit):
            return _blew_up(answer, limit)
        return equal(answer, wrong) if exactly(mistake) else near(answer, wrong)

    for index, ((mistake, change), wrong) in enumerate(zip(_VARIANTS, variants)):
        if mistake is NONZERO_START and near(wrong, right):
            continue
        if exactly(mistake):
            fits = not equal(wrong, right) and equal(got, wrong)
        else:
            fits = not _blew_up(wrong, limit) and near(got, wrong)
        if (fits and all(agrees(mistake, answer, there[index]) for answer, there in others())
                and unless_contradicted(mistake, student) is not None):
            return mistake, _never_zeroed(change) if mistake is SOME_GRADIENTS_NOT_ZEROED else ""
    return None


def _start_mistake(student: Student, fit: Fit, got: tuple[float, ...],
                   known: dict[str, Any]) -> tuple[Mistake, str] | None:
    """NONZERO_START when the student's fit with steps=0 (no update made) returns where it starts, and that is
    not zero. Not when steps=0 gives the answer itself (an answer that ignores steps: hard-coded, closed form)
    or the right first step from zero (one update too many)."""
    returned = student.call("fit_quadratic", fit.X, fit.y, lr=fit.lr, steps=0, allow_raise=True,
                            shown_as=Fit(fit.X, fit.y, fit.lr, 0, fit.data).call)
    if returned.error is not None or not _is_triple(returned.value):
        return None
    start, close = tuple(float(v) for v in returned.value), EXERCISE.tolerance("mistake_match")
    if not all(math.isfinite(v) for v in start) or all(v == 0 for v in start):
        return None

    def near(values: tuple[float, ...], target: Any) -> bool:
        return all(abs(v - w) <= close * (1 + abs(w)) for v, w in zip(values, target))

    if near(start, got) or near(start, known["first_step"]):
        return None
    shown = ", ".join(f"{v:.4g}" for v in start)
    return NONZERO_START, f"Here fit_quadratic(X, y, steps=0), which makes no update, returns ({shown}), not (0, 0, 0)."


def _never_moved_mistake(student: Student, fit: Fit, got: tuple[float, ...]) -> tuple[Mistake, str] | None:
    """GRADIENTS_CLEARED_BEFORE_UPDATE where the answer after `steps` updates is where the student's fit starts
    (its steps=0 answer), so no update moved anything, and the code shows why: a gradient cleared between
    backward() and an in-place update. Without that line in the code, nothing is named."""
    if fit.steps < 1 or not student.evidence.clears_gradients_before_update("fit_quadratic"):
        return None
    returned = student.call("fit_quadratic", fit.X, fit.y, lr=fit.lr, steps=0, allow_raise=True,
                            shown_as=Fit(fit.X, fit.y, fit.lr, 0, fit.data).call)
    if returned.error is not None or not _is_triple(returned.value) or tuple(returned.value) != tuple(got):
        return None
    shown = ", ".join(f"{v:.4g}" for v in got)
    return GRADIENTS_CLEARED_BEFORE_UPDATE, (f"Here fit_quadratic with steps={fit.steps} returns ({shown}), what it "
                                             f"returns with steps=0: no update moved a, b or c.")


def _first_step_mistake(student: Student, fit: Fit, known: dict[str, Any]) -> tuple[Mistake, str] | None:
    """The mistake the student's first step from zero shows, with what it measured.

    From zero, one step is −lr times the gradient there; the student's is k times the right
    one. k = −1 is a step uphill; k = n (the number of points) at this rate and at half of it is
    a loss summed instead of averaged; any other k > 0 means an effective rate of k·lr, which
    diverges when it is above the data's stable limit (a rate of the student's own).
    """
    signature = _first_step_signature(student, fit, known["first_step"])
    close, limit, n = EXERCISE.tolerance("mistake_match"), known["stable_limit"], len(fit.X)
    if is_scaled(signature, -1.0, tolerance=close):
        return SIGN_ERROR, ""
    # A rate of the student's own can be n times lr by chance; a sum makes every rate's step n times too long.
    half = dataclasses.replace(fit, lr=fit.lr / 2)
    half_step = [v / 2 for v in known["first_step"]]  # from zero, the right step is proportional to lr
    if (is_scaled(signature, float(n), tolerance=close)
            and is_scaled(_first_step_signature(student, half, half_step), float(n), tolerance=close)):
        above = f", above these data's limit of {limit:.3g}" if n * fit.lr > limit else ""
        return SUM_FOR_MEAN, (f"Here your first step from zero is {n} times the right one at lr={fit.lr:g} and at "
                              f"lr={half.lr:g} alike: the factor is the number of points, not a rate of your own, "
                              f"and it makes lr={fit.lr:g} an effective rate of {n * fit.lr:.3g}{above}.")
    if signature is not None and abs(signature.cosine - 1) < close and signature.scale * fit.lr > limit:
        return RATE_TOO_HIGH, (f"Here your first step from zero is {signature.scale:.3g} times the right one: "
                               f"an effective rate of {signature.scale * fit.lr:.3g}, above these data's limit "
                               f"of {limit:.3g}.")
    return None


def _first_step_signature(student: Student, fit: Fit, right_step: Any) -> GradientSignature | None:
    """How the student's one step from zero (steps=1) relates to the right one; None if there is none."""
    returned = student.call("fit_quadratic", fit.X, fit.y, lr=fit.lr, steps=1, allow_raise=True,
                            shown_as=Fit(fit.X, fit.y, fit.lr, 1, fit.data).call)
    if returned.error is not None or not _is_triple(returned.value):
        return None
    return gradient_signature(torch.tensor(returned.value, dtype=torch.float64),
                              torch.tensor(right_step, dtype=torch.float64))


RETURNS_HINT = ("The docstring's Returns: the learned (a, b, c) as a tuple of three Python floats. End with "
                "`return a.item(), b.item(), c.item()`: .item() turns a one-element tensor into a float.")


def _expect_fit(student: Student, fit: Fit, returned: Returned, want: tuple[float, ...], atol: float,
                known: Callable[[], dict[str, Any]], hint: str, meaning: str = "",
                others: Callable[[], list[tuple[Any, list[Any]]]] = list) -> None:
    """The answer is within atol of `want`; a wrong one is named by the variants, then by its first step. Its
    numbers are judged whatever they are held in: one-element tensors count by their value here, and
    fit_matches_reference alone judges that they are Python floats (_expect_floats)."""
    __tracebackhide__ = True
    closed_form = least_squares(fit.X, fit.y)  # before the verdict, so that a recording holds it too
    returned = dataclasses.replace(returned, value=_as_numbers(returned.value))
    problem = _coefficients_problem(returned.value, want, atol)
    if problem is None:
        return
    summary = f"fit_quadratic: {problem}."
    got, expected_text = describe(returned.value), f"{describe(tuple(want))}, each within {atol:g}"
    named = None
    if _is_triple(returned.value):
        # The exact solution, to the reference's own tolerance, first: a variant that descends near the bottom (a
        # gradient twice the right one) lies within a variant's margin of it. Within a loose check's margin of it
        # lies any descent that got near the bottom (a hand gradient short of its factor 2 does, in 60 steps).
        exact = min(atol, EXERCISE.tolerance("reference"))
        if _coefficients_problem(returned.value, closed_form, exact) is None:
            named = CLOSED_FORM, ""
        else:
            named = _variant_mistake(student, returned.value, known()["variants"], known()["right"], others)
        named = (named or _start_mistake(student, fit, tuple(returned.value), known())
                 or _never_moved_mistake(student, fit, tuple(returned.value)) or _first_step_mistake(student, fit, known()))
    if named is not None:
        mistake, measured = named
        fail(summary, call=returned.call, got=got, expected=expected_text, mistake=mistake.name,
             meaning=f"{mistake.explanation} {measured}".strip(), hint=mistake.hint, section=mistake.section)
    if not _is_triple(returned.value):
        # What differs is the kind of answer, not the descent: the hint is the docstring's Returns clause.
        hint, meaning = RETURNS_HINT, ""
    fail(summary, call=returned.call, got=got, expected=expected_text, meaning=meaning, hint=hint, section=TRY_IT)


RECIPE_HINT = "Follow the docstring's three lines exactly: seed first, then X from torch.rand, then y from torch.randn."
FLAT_Y_HINT = ("Keep y of shape (n, 1), here ({n}, 1): draw the noise as torch.randn(n, 1), not torch.randn(n), "
               "and do not flatten, squeeze or reshape y.")


def _expect_data(returned: Returned, want: tuple[torch.Tensor, torch.Tensor], arguments: dict[str, Any],
                 seed_42: tuple[torch.Tensor, torch.Tensor], lesson_noise_y: torch.Tensor | None = None, *,
                 seeds_torch: bool) -> None:
    """X and y equal the reference's for `arguments`; a wrong pair is named when it is the reference's with seed 42
    (`seed_42`) or the recipe's drawn in another order or in float64, a wrong y when it is the flat-noise table, or
    (given `lesson_noise_y`, for a call with another noise) the reference's y with the lesson's noise."""
    __tracebackhide__ = True
    value = returned.value
    if type(value) not in (tuple, list) or len(value) != 2:
        fail("make_quadratic_data must return the pair (X, y).", call=returned.call, got=describe(value),
             expected="(X, y): two float32 tensors of shape (n, 1)", hint="End the function with `return X, y`.",
             section=TRY_IT)
    tolerance, n = EXERCISE.tolerance("data"), len(want[1])
    y_flat = type(value[1]) is torch.Tensor and tuple(value[1].shape) in ((n,), (n, n))
    first_X, first_y, float64_X, float64_y = data_drawn_otherwise(**arguments)
    pointwise_X, pointwise_y = data_drawn_point_by_point(**arguments)
    y_suspects = [Suspect(SHAPE_BROADCAST, data_with_flat_noise(**arguments)), Suspect(SEED_IGNORED, seed_42[1]),
                  Suspect(NOISE_DRAWN_FIRST, first_y), Suspect(DRAWN_IN_FLOAT64, float64_y),
                  Suspect(DRAWN_POINT_BY_POINT, pointwise_y)]
    if lesson_noise_y is not None:
        y_suspects.append(Suspect(NOISE_IGNORED, lesson_noise_y))
    if arguments["noise"] not in (0, 1):  # where noise**2 is noise, the two recipes draw the same y
        clean = _parabola(want[0])
        y_suspects.append(Suspect(NOISE_AS_VARIANCE, clean + (want[1] - clean) * arguments["noise"]))
    X_suspects = [Suspect(SEED_IGNORED, seed_42[0]), Suspect(NOISE_DRAWN_FIRST, first_X),
                  Suspect(DRAWN_IN_FLOAT64, float64_X), Suspect(DRAWN_POINT_BY_POINT, pointwise_X)]
    # Last, data of another generator: the recipe's law, not its numbers, from code that never seeds torch's own
    # stream (code that does draws from it, and slipped otherwise: a seed ignored, a range turned round). The
    # student's own X is the suspect, named only where no draw of torch's stream above is theirs.
    if not seeds_torch and type(value[0]) is torch.Tensor and value[0].shape == want[0].shape \
            and value[0].dtype == want[0].dtype and follows_the_recipes_law(value[0], value[1], _parabola,
                                                                            arguments["noise"]):
        X_suspects.append(Suspect(OTHER_RANDOM_STREAM, value[0]))
    for name, got, target, suspects, hint in (
            ("X", value[0], want[0], X_suspects, RECIPE_HINT),
            ("y", value[1], want[1], y_suspects, FLAT_Y_HINT.format(n=n) if y_flat else RECIPE_HINT)):
        expect_tensor(dataclasses.replace(returned, value=got), target, rtol=tolerance, atol=tolerance,
                      requires_grad=False, what=name, suspects=suspects, hint=hint, section=TRY_IT)


def _seeds_torch(student: Student) -> bool:
    """Whether make_quadratic_data's code (or a function of the file it calls) seeds torch's own random stream."""
    return student.evidence.shows("make_quadratic_data", GLOBAL_SEED)


def _lesson_data(reference: ModuleType) -> tuple[torch.Tensor, torch.Tensor, str, tuple[float, ...] | None]:
    """(X, y, how messages show them, the true coefficients): the lesson's data; in a public
    check's twin run, 100 fresh points of another parabola with the same noise and x range.
    A twin's coefficients stay where lr 0.1 settles as fast as on the lesson's, and c is at
    least 0.4 from the lesson's 1, so the lesson's answer is not the twin's."""
    if not twin():
        X, y = reference.make_quadratic_data()
        return X, y, LESSON_DATA, None
    draw, generator = twin_random(), twin_generator()
    a, b = round(draw.uniform(0.2, 0.8), 2), round(draw.uniform(-1.5, 0.5), 2)
    c = round(1 + draw.choice((-1, 1)) * draw.uniform(0.4, 1.0), 2)
    X = torch.rand(100, 1, generator=generator) * 4 - 2
    y = a * X**2 + b * X + c + 0.3 * torch.randn(100, 1, generator=generator)
    return X, y, f"100 points of y = {a:g}x² {b:+g}x {c:+g} plus noise 0.3, x uniform on [−2, 2]", (a, b, c)


def _seed_42_data(reference: ModuleType, arguments: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    """The reference's data on the same n and noise with the worked example's seed: what a recipe with
    torch.manual_seed(42) written in place of the seed argument gives."""
    return reference.make_quadratic_data(**{**arguments, "seed": EXERCISE.seed("worked_example")})


def _reference_fit(reference: ModuleType, fit: Fit) -> Meanwhile:
    """The reference's fit, computed while the worker runs the student's (_fit_call): the two cost the same."""
    return Meanwhile(lambda: reference.fit_quadratic(fit.X, fit.y, lr=fit.lr, steps=fit.steps))


def _fit_call(student: Student, fit: Fit, trace: bool = False, meanwhile: Meanwhile | None = None) -> Returned:
    """The student's fit; an error is named by the mistake that raises it."""
    __tracebackhide__ = True
    # Checks that judge the same fit from different sides share one run of it.
    returned = student.call("fit_quadratic", fit.X, fit.y, lr=fit.lr, steps=fit.steps, trace=trace,
                            shown_as=fit.call, reuse=True, allow_raise=True, meanwhile=meanwhile)
    error = returned.error
    if error is None:
        return returned
    if _lost_its_leaves(student, fit, error.message) and unless_contradicted(REBOUND_PARAMETERS, student):
        fail(f"`fit_quadratic` raised {error.type}.", call=fit.call,
             got=f"{error.type}: {error.message} (after a backward() that worked)", mistake=REBOUND_PARAMETERS)
    student.fail_raised(returned, "fit_quadratic")


def _lost_its_leaves(student: Student, fit: Fit, message: str) -> bool:
    """Whether a None .grad, or a loss with no graph, came after a backward() that worked: the parameters were
    leaves once and stopped being ones. (Parameters made without requires_grad, or a .grad zeroed before the first
    backward, raise the same errors before any backward succeeds.)"""
    lost_graph = GRAPH_LOST in message
    if not lost_graph and re.search(NONE_GRAD, message) is None:
        return False
    traced = student.call("fit_quadratic", fit.X, fit.y, lr=fit.lr, steps=fit.steps, trace=True, allow_raise=True,
                          shown_as=fit.call)
    backward_calls = sum(event.count for event in traced.calls_to(*BACKWARD_CALLS))
    return backward_calls - lost_graph >= 1  # the backward that raised the lost graph is counted too


# ---------------------------------------------------------------- public checks

@check
def test_make_quadratic_data_follows_recipe(student: Student, reference: ModuleType) -> None:
    if not twin():
        returned = student.call("make_quadratic_data", shown_as="make_quadratic_data()")
        with seed_judged(student, returned, "make_quadratic_data", late=SEED_SET_LATE, never=SEED_NEVER_SET):
            _expect_data(returned, reference.make_quadratic_data(), _lesson_arguments(),
                         _seed_42_data(reference, _lesson_arguments()), seeds_torch=_seeds_torch(student))
    else:
        arguments = {**_lesson_arguments(), "seed": twin_random().randrange(1, 10**6)}
        returned = student.call("make_quadratic_data", shown_as=f"make_quadratic_data(seed={arguments['seed']})",
                                **arguments)
        with seed_judged(student, returned, "make_quadratic_data", late=SEED_SET_LATE, never=SEED_NEVER_SET,
                         **arguments):
            _expect_data(returned, reference.make_quadratic_data(**arguments), arguments,
                         _seed_42_data(reference, arguments), seeds_torch=_seeds_torch(student))
    # The signature promises tuple[Tensor, Tensor]; the right data in a list is told here only.
    _expect_tuple(returned, "make_quadratic_data", "(X, y): a tuple of two float32 tensors of shape (n, 1)",
                  "End the function with `return X, y`: the comma makes the tuple.")


@check
def test_fit_is_close_to_true_coefficients(student: Student, reference: ModuleType) -> None:
    X, y, data, truth = _lesson_data(reference)
    fit = Fit(X, y, LESSON_LR, PATH_STEPS, data)
    # Other noise moves the best fit off the truth by more or less than the lesson's does: a
    # twin is held to where the reference gets, with the same margin.
    reached = None if truth is None else _reference_fit(reference, fit)
    returned = _fit_call(student, fit, meanwhile=reached)
    _expect_fit(student, fit, returned, TRUE_COEFFICIENTS if reached is None else reached.value,
                EXERCISE.tolerance("true_coefficients"),
                _wrong_fits(fit),
                hint="Start a, b, c at zero; each step: prediction, mean squared error, backward(), update, zero.")


@check
def test_fit_matches_reference(student: Student, reference: ModuleType) -> None:
    X, y, data, _ = _lesson_data(reference)
    fit = Fit(X, y, LESSON_LR, PATH_STEPS, data)
    want = _reference_fit(reference, fit)
    returned = _fit_call(student, fit, meanwhile=want)
    _expect_fit(student, fit, returned, want.value, EXERCISE.tolerance("reference"), _wrong_fits(fit),
                hint="Start a, b and c at exactly zero, make exactly `steps` updates of −lr × gradient, "
                     "and use the mean (not the sum) of the squared errors.")
    # The docstring's Returns: a tuple of floats. Right values in a list, or in tensors, lose this check alone.
    _expect_tuple(returned, "fit_quadratic", "(a, b, c): a tuple of three Python floats", RETURNS_HINT)
    _expect_floats(returned)


def _expect_tuple(returned: Returned, function: str, expected_text: str, hint: str) -> None:
    __tracebackhide__ = True
    if type(returned.value) is not tuple:
        fail(f"{function} returned the right values as {describe(returned.value)}, not as a tuple.",
             call=returned.call, got=describe(returned.value), expected=expected_text, hint=hint, section=TRY_IT)


@check
def test_fit_reaches_least_squares(student: Student, reference: ModuleType) -> None:
    X, y, data, _ = _lesson_data(reference)
    fit = Fit(X, y, LESSON_LR, CONVERGED_STEPS, data)
    _expect_fit(student, fit, _fit_call(student, fit), least_squares(fit.X, fit.y), EXERCISE.tolerance("least_squares"),
                _wrong_fits(fit),
                hint=f"At lr 0.1, {CONVERGED_STEPS} steps bring a, b and c to the least-squares fit; check that "
                     "your loop runs `steps` times and returns the final values.")


@check
def test_fit_uses_autograd(student: Student, reference: ModuleType) -> None:
    X, y, data, _ = _lesson_data(reference)
    fit = Fit(X, y, LESSON_LR, TRACED_STEPS, data)
    want = _reference_fit(reference, fit)
    returned = _fit_call(student, fit, trace=True, meanwhile=want)
    # How the answer was made earns nothing when the answer itself is wrong: check it first.
    with needs_value():
        _expect_fit(student, fit, returned, want.value,
                    EXERCISE.tolerance("reference"), _wrong_fits(fit),
                    hint="Start a, b and c at exactly zero and make exactly `steps` updates of −lr × gradient.")
    if not returned.calls_to(*BACKWARD_CALLS):
        fail("fit_quadratic never calls backward() or torch.autograd.grad.", call=returned.call,
             meaning="The exercise is to let autograd find the gradients of the loss; a closed-form solution "
                     "or derivatives worked out by hand skip the very thing it practises.",
             hint="Make a, b, c with requires_grad=True, compute the loss, call loss.backward(), read a.grad.",
             section='"Autograd: gradients for free"')
    expect_code_shows(student, returned, "fit_quadratic", BACKWARD_IN_CODE, "backward() or torch.autograd.grad",
                      '"Autograd: gradients for free"')


# ---------------------------------------------------------------- hidden checks

@check
def test_make_quadratic_data_with_other_arguments(student: Student, reference: ModuleType) -> None:
    arguments = {**OTHER_DATA_ARGUMENTS, "seed": EXERCISE.seed("other_data")}
    shown = "make_quadratic_data(" + ", ".join(f"{k}={v}" for k, v in arguments.items()) + ")"
    returned = student.call("make_quadratic_data", shown_as=shown, **arguments)
    # The same call with the lesson's noise: what a recipe with 0.3 written in place of `noise` gives.
    _, lesson_noise_y = reference.make_quadratic_data(**{**arguments, "noise": LESSON_NOISE})
    want, seed_42 = reference.make_quadratic_data(**arguments), _seed_42_data(reference, arguments)
    with seed_judged(student, returned, "make_quadratic_data", late=SEED_SET_LATE, never=SEED_NEVER_SET, **arguments):
        _expect_data(returned, want, arguments, seed_42, lesson_noise_y, seeds_torch=_seeds_torch(student))
    # A caller may change the data in place (centre X, scale y): asked again, the function makes them anew.
    shown += ", asked again after the caller changed the first X and y in place"
    again = student.run(data_asked_again, arguments, runs="make_quadratic_data", shown_as=shown)
    _expect_data(again, want, arguments, seed_42, lesson_noise_y, seeds_torch=_seeds_torch(student))


@check
def test_fit_quadratic_on_other_coefficients(student: Student, reference: ModuleType) -> None:
    a, b, c = OTHER_COEFFICIENTS
    fit = Fit(*_other_coefficient_data(), LESSON_LR, OTHER_STEPS,
              f"{OTHER_N} float64 points of y = {a:g}x² + {b:g}x + {c:g} plus noise")
    want = _reference_fit(reference, fit)
    returned = _fit_call(student, fit, meanwhile=want)
    lesson_like = _coefficients_problem(returned.value, TRUE_COEFFICIENTS, EXERCISE.tolerance("true_coefficients"))
    meaning = ("Your answer is close to the lesson's (0.5, −1, 1) although these data follow other coefficients: "
               "the fit must be learned from the X and y passed in." if lesson_like is None else "")
    _expect_fit(student, fit, returned, want.value, EXERCISE.tolerance("reference"), _wrong_fits(fit), meaning=meaning,
                hint="Learn a, b and c from the X and y arguments; do not rebuild or hard-code the lesson's data.")


@check
def test_fit_quadratic_follows_lr_and_steps(student: Student, reference: ModuleType) -> None:
    X, y = reference.make_quadratic_data()
    fits = [Fit(X, y, lr, steps, LESSON_DATA) for lr, steps in OTHER_SETTINGS]
    wants = [_reference_fit(reference, fit) for fit in fits]
    answers = [_fit_call(student, fit, meanwhile=want) for fit, want in zip(fits, wants)]
    for index, (fit, want, returned) in enumerate(zip(fits, wants, answers)):
        # A mistake named here must explain the answers to the other settings too (_variant_mistake).
        def others(index: int = index) -> list[tuple[Any, list[Any]]]:
            return [(answers[i].value, _wrong_fits(fits[i])()["variants"]) for i in range(len(fits)) if i != index]

        _expect_fit(student, fit, returned, want.value, EXERCISE.tolerance("reference"), _wrong_fits(fit),
                    hint="Use the lr and steps arguments as given: `steps` updates, each of −lr × gradient.",
                    others=others)
    # The defaults the signature promises, read from it rather than paid for with a 500-step run.
    returned = student.run(fit_defaults, runs="fit_quadratic", shown_as="the defaults of fit_quadratic's signature")
    if returned.value != SIGNATURE_DEFAULTS:
        fail("fit_quadratic's signature gives other defaults than the stub's.", call=returned.call,
             got=describe(returned.value), expected=describe(SIGNATURE_DEFAULTS), section=TRY_IT,
             **{**defaults_told("fit_quadratic", returned.value, SIGNATURE_DEFAULTS),
                "hint": "Keep the stub's signature as it is: def fit_quadratic(X, y, lr=0.1, steps=500)."})


