"""Checks of `grad_accumulation` ("Forgetting zero_grad()", and accumulating on purpose).

Oracles: the reference for the x² loop, and one backward pass of torch.autograd on the
full-batch loss for the accumulated gradient. Public checks use the lesson's x0 = 3 and
the worked example's 100 points (seed 42) with a column of ones, at w = 0; hidden ones
use other points, sizes, splits and float64.
"""

from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any, Iterator

import torch

from graders.kit import (Mistake, RECORD, RECORDING, Returned, Student, Suspect, argument_changed, checks_for,
                         collect_mistakes, describe, exercise, expect_code_shows, expect_tensor, expected, fail,
                         first_matching_variant, gradient_signature, is_scaled, number_problem, origin, tensor_problem,
                         twin, twin_generator, twin_random, needs_value)
from graders.lesson01.grad_accumulation.mistakes import (CLEARED_BETWEEN_CALLS, COMPANION, COPY_NOT_DETACHED,
                                                         GRAD_NOT_ACCUMULATED,
                                                         DIVIDED_TWICE, KEPT_GRAD_TENSOR, LESSON_GRADS, MEAN_OF_MEANS,
                                                         MODIFIED_W, NOT_SCALED, PREDICTION_AS_COLUMN, REMAINDER_DROPPED,
                                                         SUMMED_NOT_AVERAGED, WORKED, ZEROED_BETWEEN_MICRO_BATCHES)
from graders.lesson01.grad_accumulation import mistakes as _mistakes
from graders.lesson01.grad_accumulation.drivers import call_with_tracked_w

EXERCISE = exercise("lesson01", "grad_accumulation")
check = checks_for("lesson01", EXERCISE.slug)


_BY_NAME = {mistake.name: mistake for mistake in collect_mistakes(_mistakes)}

LESSON_DATA = ("w = torch.zeros(2), X = the worked example's 100 points with a column of ones (shape (100, 2)), "
               "y = their targets (shape (100,))")
FRESH_DATA = ("w = 2 fresh float32 weights in [-1, 1), X = 100 fresh points x in [-2, 2) with a column of ones "
              "(shape (100, 2)), y = 3x − 2 + 0.3·noise at those points (shape (100,))")
BACKWARD_CALLS = ("Tensor.backward", "autograd.backward")
ROWS = 100  # the worked example's number of points
# The twin run's micro-batch counts for the lesson's 100 rows: ones that divide them, and ones that do not,
# for which tensor_split and chunk both give that many groups of unequal sizes (as for 3 and 7).
EVEN_SPLITS = (2, 4, 5, 10, 20, 25)
UNEVEN_SPLITS = (3, 6, 7, 8, 9, 12)


def lesson_case() -> tuple[float, int]:
    """The lesson's x0 = 3 and 3 calls; in a public check's twin run, another x0 in [1, 5] and 2 to 6 calls
    (at least 2, so that a gradient cleared between calls still shows)."""
    if not twin():
        return 3.0, 3
    draw = twin_random()
    return round(draw.uniform(1.0, 5.0), 2), draw.randint(2, 6)


def lesson_data() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The worked example's points, made as the lesson makes them, as (w, X, y) for X @ w; in a public
    check's twin run, 100 fresh points of the same line and noise, at a fresh w."""
    fresh = twin()
    generator = twin_generator() if fresh else torch.Generator().manual_seed(EXERCISE.seed("lesson_data"))
    x = torch.rand(ROWS, 1, generator=generator) * 4 - 2
    y = 3 * x - 2 + 0.3 * torch.randn(ROWS, 1, generator=generator)
    w = torch.rand(2, generator=generator) * 2 - 1 if fresh else torch.zeros(2)
    # The column of ones turns the lesson's X * w + b into X @ (w, b).
    return w, torch.cat([x, torch.ones(ROWS, 1)], dim=1), y[:, 0]


def data_text() -> str:
    return FRESH_DATA if twin() else LESSON_DATA


def micro_batches(published: int) -> int:
    """A public check's micro-batch count; in its twin run, another that divides the 100 rows if the
    published one does, and does not if it does not."""
    if not twin():
        return published
    choices = EVEN_SPLITS if ROWS % published == 0 else UNEVEN_SPLITS
    # Offset by the published count: a check that splits twice draws its two counts independently.
    return twin_random(offset=published).choice([k for k in choices if k != published])


def gradient_call(k: int) -> str:
    return f"accumulated_gradient(w, X, y, micro_batches={k}) with {data_text()}"


@expected
def full_batch_gradient(w: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """One backward pass of torch.autograd on the full-batch mean squared error."""
    leaf = w.detach().clone().requires_grad_(True)
    ((X @ leaf - y) ** 2).mean().backward()
    return leaf.grad.detach()


@expected
def cleared_grads(x0: float, calls: int) -> list[float]:
    """What the loop records when .grad is cleared before every pass: 2·x0 each time."""
    return [2 * x0] * calls


@expected
def kept_grads(x0: float, calls: int) -> list[float]:
    """What the list shows when it holds x.grad itself: the final 2·x0·calls in every entry."""
    return [2 * x0 * calls] * calls


def _number_of(value: Any) -> float | None:
    """A Python number, or the value of a one-element tensor (a kept x.grad); None for anything else."""
    if type(value) in (int, float):
        return float(value)
    if type(value) is torch.Tensor and value.numel() == 1:
        return float(value.detach().reshape(()))
    return None


def _weighted_gradient(w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """The gradient of Σ weights_r · (x_r · w − y_r)²: every variant below is one choice of weights."""
    return 2 * X.T @ (weights * (X @ w - y))


@expected
def wrong_gradients(w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, k: int) -> dict[str, list[torch.Tensor]]:
    """The gradients each micro-batch mistake gives, for tensor_split's and chunk's group sizes."""
    rows = X.shape[0]
    indices = torch.arange(rows)
    splits = {tuple(len(p) for p in indices.tensor_split(k)), tuple(len(p) for p in indices.chunk(k))}
    found: dict[str, list[torch.Tensor]] = {
        m.name: [] for m in (NOT_SCALED, MEAN_OF_MEANS, DIVIDED_TWICE, ZEROED_BETWEEN_MICRO_BATCHES,
                             SUMMED_NOT_AVERAGED, PREDICTION_AS_COLUMN, REMAINDER_DROPPED)}
    found[SUMMED_NOT_AVERAGED.name].append(_weighted_gradient(w, X, y, torch.ones(rows, dtype=w.dtype)))
    # Groups of N // k rows cut by hand: the last N % k rows in none of them, each sum divided by N or by the rows kept.
    kept = k * (rows // k)
    if kept < rows:
        first = (indices < kept).to(w.dtype)
        for scale in (1 / rows, 1 / kept):
            found[REMAINDER_DROPPED.name].append(_weighted_gradient(w, X, y, first * scale))
    for sizes in sorted(splits):
        counts = torch.tensor(sizes)
        per_row = torch.repeat_interleave(counts, counts).to(w.dtype)  # each row's micro-batch size
        last = torch.zeros(rows, dtype=w.dtype)
        last[rows - sizes[-1]:] = 1
        found[NOT_SCALED.name].append(_weighted_gradient(w, X, y, 1 / per_row))
        found[MEAN_OF_MEANS.name].append(_weighted_gradient(w, X, y, 1 / (k * per_row)))
        # Each micro-batch's mean divided by N too: 1/n of the right gradient, n that micro-batch's size.
        found[DIVIDED_TWICE.name].append(_weighted_gradient(w, X, y, 1 / (rows * per_row)))
        # Only the last micro-batch counts, with whichever scaling the student chose.
        for scale in (1 / rows, 1 / (k * sizes[-1]), 1 / sizes[-1]):
            found[ZEROED_BETWEEN_MICRO_BATCHES.name].append(_weighted_gradient(w, X, y, last * scale))
        # Each micro-batch's (n, 1) prediction against its n targets: Σ over every pair (i, j) of (x_i·w − y_j)²,
        # whose gradient is 2 Σ_i x_i (n·x_i·w − Σ_j y_j); divided by N, or averaged over the n² pairs.
        parts = list(zip(X.split(list(sizes)), y.split(list(sizes))))
        for scale in (lambda n: 1 / rows, lambda n: 1 / (n * n)):
            found[PREDICTION_AS_COLUMN.name].append(sum(
                2 * scale(len(y_part)) * X_part.T @ (len(y_part) * (X_part @ w) - y_part.sum())
                for X_part, y_part in parts))
    return found


def _tolerance(t: torch.Tensor) -> dict[str, float]:
    value = EXERCISE.tolerance("float64" if t.dtype == torch.float64 else "float32")
    return {"rtol": value, "atol": value}


def expect_gradient(returned: Returned, w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, k: int,
                    named: bool = True) -> None:
    """`named`: a wrong gradient may be named by the wrong variants (a check of several inputs passes False where
    the name of this one does not hold on the others, `_name_holds`)."""
    __tracebackhide__ = True
    if RECORDING.mode == RECORD:  # the wrong gradients name a mistake only, but a recording must hold them for replay
        wrong_gradients(w, X, y, k)
    expect_tensor(returned, full_batch_gradient(w, X, y), **_tolerance(w), requires_grad=None,
                  suspects=_suspects(w, X, y, k) if named else (),
                  scaled={float(k): NOT_SCALED} if k > 1 and named else None, section=COMPANION, what="the gradient",
                  hint="With micro_batches=1 your function must give the ordinary full-batch gradient; check "
                       "that first, then split.")


def _variant_named(returned: Returned, w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, k: int) -> str | None:
    """The name expect_gradient would give this answer from the wrong variants; "" for a right answer; None for
    a wrong one no variant names (or no answer)."""
    names = _variants_fitting(returned, w, X, y, k)
    return None if not names else names[0]


def _variants_fitting(returned: Returned, w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, k: int) -> list[str]:
    """Every name whose wrong variant this answer equals, in the order expect_gradient tries them; [""] for a right
    answer; [] for a wrong one no variant names (or no answer)."""
    got = returned.value
    if returned.error is not None or type(got) is not torch.Tensor:
        return []
    right = full_batch_gradient(w, X, y)
    if tensor_problem(got, right, **_tolerance(w), requires_grad=None) is None:
        return [""]
    names = list(dict.fromkeys(suspect.mistake.name for suspect in _suspects(w, X, y, k)
                               if first_matching_variant(got, [suspect], **_tolerance(w)) is not None))
    if k > 1 and got.shape == right.shape and is_scaled(gradient_signature(got, right), float(k)) \
            and NOT_SCALED.name not in names:
        names.append(NOT_SCALED.name)
    return names


def _name_holds(answers: list[tuple[Returned, torch.Tensor, torch.Tensor, torch.Tensor, int]], index: int) -> bool:
    """Whether the name the variants give answer `index` fits every other wrong answer of the check too: a variant
    may fit one input by chance (rows / features equal to the number of micro-batches makes X.shape[1] for
    X.shape[0] look like unscaled micro-batch losses), never every input. An input where two variants agree (one
    row per micro-batch: the sum of k means is the sum over the rows) fits either name."""
    name = _variant_named(*answers[index])
    return bool(name) and all(set(_variants_fitting(*other)) & {"", name}
                              for other in answers if other is not answers[index])


def _suspects(w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, k: int) -> Iterator[Suspect]:
    """The wrong gradients as suspects, computed once a wrong answer asks for them."""
    for name, values in wrong_gradients(w, X, y, k).items():
        yield from (Suspect(_BY_NAME[name], value) for value in values)


def _never_added(student: Student) -> Mistake:
    """Why each value is the plain derivative: the gradient cleared before each pass, or, where the code takes its
    gradients with torch.autograd.grad and never calls backward(), that nothing was ever added into x.grad."""
    evidence = student.evidence
    if (evidence.shows("repeated_backward_grads", ("autograd.grad",))
            and not evidence.shows("repeated_backward_grads", ("backward",))):
        return GRAD_NOT_ACCUMULATED
    return CLEARED_BETWEEN_CALLS


def expect_grads(student: Student, returned: Returned, reference: ModuleType, x0: float, calls: int) -> None:
    """The list of x.grad values, compared number by number."""
    __tracebackhide__ = True
    wanted = reference.repeated_backward_grads(x0, calls)
    cleared = cleared_grads(x0, calls)  # computed up front, so that it is recorded for replay too
    kept = kept_grads(x0, calls)
    got = returned.value
    tolerance = EXERCISE.tolerance("float32")
    hint = "Record x.grad.item() after each y.backward(), without clearing x.grad."
    if type(got) not in (list, tuple) or len(got) != calls:
        fail(f"repeated_backward_grads must return a list of {calls} numbers, one per backward pass.",
             call=returned.call, got=describe(got), expected=describe(wanted), hint=hint, section=WORKED)
    for i, (value, right) in enumerate(zip(got, wanted)):
        problem = number_problem(value, right, rtol=tolerance, atol=tolerance, what=f"x.grad after call {i + 1}")
        if problem is None:
            continue
        if all(number_problem(v, c, rtol=tolerance, atol=tolerance) is None for v, c in zip(got, cleared)):
            never_added = _never_added(student)
            cleared_hint = never_added.hint
            if twin():
                cleared_hint = cleared_hint.removesuffix(LESSON_GRADS) + "."
            fail(f"repeated_backward_grads: {problem}.", call=returned.call, got=describe(got),
                 expected=describe(wanted), mistake=never_added.name,
                 meaning=never_added.explanation, hint=cleared_hint, section=WORKED)
        # Tensors or numbers, all equal to the last sum: the one x.grad tensor, kept instead of copied. When
        # the last sum is the first (a single call) the values cannot tell this slip apart.
        numbers = [_number_of(v) for v in got]
        piled_up = number_problem(kept[0], wanted[0], rtol=tolerance, atol=tolerance) is not None
        if piled_up and None not in numbers and all(
                number_problem(v, k, rtol=tolerance, atol=tolerance) is None for v, k in zip(numbers, kept)):
            fail(f"repeated_backward_grads: {problem}.", call=returned.call, got=describe(got),
                 expected=describe(wanted), mistake=KEPT_GRAD_TENSOR)
        fail(f"repeated_backward_grads: {problem}.", call=returned.call, got=describe(got), expected=describe(wanted),
             hint=hint, section=WORKED)


def _backward_count(returned: Returned) -> int:
    return sum(event.count for event in returned.calls_to(*BACKWARD_CALLS))


# ---------------------------------------------------------------- public checks

@check
def test_repeated_backward_on_lesson_case(student: Student, reference: ModuleType) -> None:
    x0, calls = lesson_case()
    returned = student.call("repeated_backward_grads", x0, calls, trace=True)
    with needs_value():
        expect_grads(student, returned, reference, x0, calls)  # the right number of passes earns nothing for wrong values
    count = _backward_count(returned)
    if count != calls:
        fail(f"repeated_backward_grads called backward() {count} time(s) for {calls} passes; expected {calls}.",
             call=returned.call, meaning="The numbers are right, but the exercise is to watch autograd pile them "
                                         "up in x.grad: they must come from y.backward(), one call per pass, not "
                                         "from the formula 2·x0·k.",
             hint="Make x once, then in a loop: y = x ** 2; y.backward(); record x.grad.item().", section=WORKED)
    expect_code_shows(student, returned, "repeated_backward_grads", ("backward",), "backward()", WORKED)


@check
def test_accumulated_gradient_even_split(student: Student) -> None:
    w, X, y = lesson_data()
    k = micro_batches(4)
    expect_gradient(student.call("accumulated_gradient", w, X, y, k, shown_as=gradient_call(k)), w, X, y, k)


@check
def test_accumulated_gradient_uneven_split(student: Student) -> None:
    w, X, y = lesson_data()
    k = micro_batches(3)
    expect_gradient(student.call("accumulated_gradient", w, X, y, k, shown_as=gradient_call(k)), w, X, y, k)


@check
def test_backward_once_per_micro_batch(student: Student) -> None:
    w, X, y = lesson_data()
    for k in (micro_batches(4), micro_batches(7)):
        returned = student.call("accumulated_gradient", w, X, y, k, trace=True, shown_as=gradient_call(k))
        with needs_value():
            expect_gradient(returned, w, X, y, k)  # the right number of passes earns nothing for a wrong gradient
        count = _backward_count(returned)
        if count != k:
            grad_calls = returned.calls_to("autograd.grad")
            meaning = ("torch.autograd.grad returns gradients instead of adding them into .grad, so nothing "
                       "accumulates." if grad_calls else
                       "One backward pass on the whole batch gives the right numbers, but the exercise is to get "
                       "them by letting .grad add up micro-batch by micro-batch." if count == 1 else
                       "Each micro-batch needs exactly one backward pass: split X and y into micro_batches groups.")
            fail(f"accumulated_gradient called backward() {count} time(s) for {k} micro-batches; expected {k}.",
                 call=returned.call, meaning=meaning, section=COMPANION,
                 hint="Loop over zip(torch.tensor_split(X, micro_batches), torch.tensor_split(y, micro_batches)) "
                      "and call .backward() on each group's loss.")
        expect_code_shows(student, returned, "accumulated_gradient", ("backward",), "backward()", COMPANION)


@check
def test_accumulated_gradient_is_clean(student: Student) -> None:
    w, X, y = lesson_data()
    k = micro_batches(3)
    returned = student.call("accumulated_gradient", w, X, y, k, return_args=True, shown_as=gradient_call(k))
    expect_clean(returned, w, returned.args[0] if returned.args else None, X, y, k)
    # The same promises for a w that requires grad, as a model's weights do.
    tracked = student.run(call_with_tracked_w, w, X, y, k, runs="accumulated_gradient",
                          shown_as=gradient_call(k) + ", w requiring grad")
    result = tracked.value if type(tracked.value) is dict else {}
    as_called = dataclasses.replace(tracked, value=result.get("value"))
    expect_copy_detached(as_called, result.get("w_after"), w, X, y)
    if result.get("raised") is not None:
        fail("accumulated_gradient raised an error for a w that requires grad.", call=tracked.call,
             got=str(result["raised"]), section=COMPANION,
             hint="Work on a copy cut from the graph: leaf = w.detach().clone().requires_grad_(True).")
    expect_clean(as_called, w.clone().requires_grad_(True), result.get("w_after"), X, y, k)


def expect_clean(returned: Returned, given: torch.Tensor, after: Any, X: torch.Tensor, y: torch.Tensor,
                 k: int) -> None:
    """The right gradient, detached, and the caller's w (`given`) as it was before the call."""
    __tracebackhide__ = True
    w = given.detach()
    # A clean wrong gradient earns nothing: its value (and with it type, shape and dtype) comes first.
    with needs_value():
        expect_gradient(returned, w, X, y, k)
    if argument_changed(given, after):
        fail("accumulated_gradient changed the w it was given.", call=returned.call,
             got=describe(returned.value), changed=f"w after the call: {describe(after)}",
             expected=f"w unchanged: {describe(given)}", mistake=MODIFIED_W)
    value_info = origin(returned.value)
    if value_info is not None and value_info.requires_grad:
        fail("accumulated_gradient returned a tensor that requires grad.", call=returned.call,
             got=describe(returned.value), section=COMPANION,
             hint="Return leaf.grad.detach(): a plain tensor, not part of any autograd graph.")


def expect_copy_detached(returned: Returned, after: Any, w: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> None:
    """A w that requires grad, whose .grad afterwards holds the full gradient: the copy stayed in w's graph."""
    __tracebackhide__ = True
    info = origin(after) if type(after) is torch.Tensor else None
    grad = info.grad if info is not None else None
    if grad is not None and tensor_problem(grad, full_batch_gradient(w, X, y), **_tolerance(w),
                                           requires_grad=None) is None:
        fail("accumulated_gradient sent the gradient into the caller's w.grad instead of its own copy's.",
             call=returned.call, got=describe(returned.value), changed=f"w.grad after the call: {describe(grad)}",
             expected="the gradient returned, and w.grad left empty", mistake=COPY_NOT_DETACHED)


# ---------------------------------------------------------------- hidden checks

@check
def test_repeated_backward_grads_at_fresh_points(student: Student, reference: ModuleType) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_data"))
    fresh = round(float(torch.rand(1, generator=generator)) * 10 - 5, 3)
    # -1.5 asked again last: each call makes its own leaf, so nothing of the first call may show in the second.
    for x0, calls in ((-1.5, 5), (0.25, 1), (fresh, 4), (-1.5, 2)):
        returned = student.call("repeated_backward_grads", x0, calls,
                                shown_as=f"repeated_backward_grads({x0}, {calls})")
        expect_grads(student, returned, reference, x0, calls)


@check
def test_accumulated_gradient_on_fresh_data(student: Student) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_data"))
    answers: list[tuple[Returned, torch.Tensor, torch.Tensor, torch.Tensor, int]] = []
    # (rows, features, micro_batches, dtype): even first, then uneven, then one row per micro-batch, then
    # micro_batches=1, the docstring's other end, where a single group must still be divided by N.
    for rows, features, k, dtype in ((12, 3, 4, torch.float64), (50, 5, 7, torch.float64),
                                     (23, 4, 5, torch.float32), (9, 2, 9, torch.float64), (15, 3, 1, torch.float64)):
        X = torch.randn(rows, features, generator=generator, dtype=dtype)
        y = X @ torch.randn(features, generator=generator, dtype=dtype) + 0.5 * torch.randn(
            rows, generator=generator, dtype=dtype)
        w = torch.randn(features, generator=generator, dtype=dtype)
        text = str(dtype).removeprefix("torch.")
        answers.append((student.call("accumulated_gradient", w, X, y, k,
                                     shown_as=f"accumulated_gradient(w, X, y, micro_batches={k}) with {rows} random "
                                              f"{text} rows of {features} features and a random w"), w, X, y, k))
    # Every input is asked first: a name is given only where it holds on all of them.
    for index, answer in enumerate(answers):
        expect_gradient(*answer, named=_name_holds(answers, index))
