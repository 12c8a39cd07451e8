"""Checks of `learning_rate` ("Worked example" and "Try it yourself" 1).

Oracles: the reference run on the same data in this process, and wrong variants of it
(`mistaken_runs`): when a student's run follows one of them, that mistake is named.
Runs that raise are named by their error. Public checks use the lesson's data; hidden
ones other lines, seeds, sizes, rates and float64. A failing run's loss curve is drawn
against the reference's into the plots folder.

Longer than most modules, on purpose: what computes an expected value or a wrong variant stays in
the checks module, because the student bundle releases a filtered copy of it (public checks and what
they use, expected values replaced by recorded data); a helper module would be released whole.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable

import pytest
import torch

from graders.kit import (LossCurves, Meanwhile, Mistake, RECORD, RECORDING, Returned, Student, Suspect, checks_for,
                         collect_mistakes, describe, exercise, expect_code_shows, expect_number, expect_tensor,
                         expected, fail, fail_with_mistake, first_matching_variant, gradient_signature, is_scaled,
                         none_fact, origin, seed_judged, twin, twin_random, recipe_drawn_otherwise,
                         recipe_drawn_point_by_point, needs_value)
from graders.lesson01.learning_rate.mistakes import (ASSUMES_FALLING_LOSSES, DRAWN_IN_FLOAT64, DRAWN_POINT_BY_POINT,
                                                     NAN_PASSED_BY_MAX,
                                                     EMPTY_LOSSES,
                                                     EQUAL_COUNTS_AS_BELOW,
                                                     FLAT_TARGET, GRADIENTS_NOT_ZEROED, GROWTH_NOT_COUNTED, HESSIAN_MISSING_FACTOR_2,
                                                     HESSIAN_OVER_N_MINUS_1,
                                                     HESSIAN_SUMS, LAST_LOSS_ONLY, LOSSES_AS_TENSORS,
                                                     SMALLEST_EIGENVALUE,
                                                     LOSS_AFTER_UPDATE, LR_IGNORED, MISSING_FACTOR_2, NAN_NOT_DIVERGED,
                                                     NOISE_DRAWN_FIRST, NONZERO_START, ONE_GRADIENT_ZEROED,
                                                     ONE_STEP_TOO_FEW,
                                                     ONE_STEP_TOO_MANY, REBOUND_PARAMETERS, RISE_ON_ANY_STEP,
                                                     SEED_IGNORED, SEED_NEVER_SET, SEED_SET_LATE, SIGN_ERROR,
                                                     STEPS_FROM_ONE, STOPPED_AT_BLOW_UP, SUM_FOR_MEAN, TRY_IT,
                                                     W_AND_B_ONE_TENSOR,
                                                     WORKED)
from graders.lesson01.learning_rate import mistakes as _mistakes
from graders.lesson01.learning_rate.trajectories import BLOWN_UP, Parsed, matching_mistake, parsed, run_problem

EXERCISE = exercise("lesson01", "learning_rate")
check = checks_for("lesson01", EXERCISE.slug)


LESSON_LR = 0.1  # the worked example's rate

LESSON_DATA = "X, y = make_line_data(), the lesson's 100 points"
FRESH_DATA = "X, y = make_line_data(100, seed={seed}): the lesson's line with other noise"
GRAPH_LOST = "does not require grad and does not have a grad_fn"
NONE_GRAD = r"'NoneType' object has no attribute 'zero_'|unsupported operand type\(s\) for .*'NoneType'"
TARGET = 0.06  # the lesson's question: how many steps to reach a loss of 0.06
LR_0_01_STEPS = 260  # enough to pass step 248 at lr 0.01, the lesson's answer
LR_1_1_STEPS = 30  # ~4x growth per step: still finite in float32 (inf comes at step 57)


@dataclass(frozen=True)
class Run:
    """One call of train_line: its data and settings, and how messages show it."""

    X: torch.Tensor
    y: torch.Tensor
    lr: float
    steps: int
    data: str

    @property
    def call(self) -> str:
        return f"train_line(X, y, lr={self.lr:g}, steps={self.steps}) with {self.data}"


def line_data(reference: ModuleType) -> tuple[torch.Tensor, torch.Tensor, str]:
    """The lesson's 100 points; in a public check's twin run, 100 points of the same line from another seed."""
    if not twin():
        X, y = reference.make_line_data()
        return X, y, LESSON_DATA
    seed = twin_random().randrange(1, 10**6)
    X, y = reference.make_line_data(100, seed)
    return X, y, FRESH_DATA.format(seed=seed)


def hint_for(lesson_hint: str) -> str:
    """A hint that quotes the lesson's printed numbers holds for the lesson's data only."""
    return "Use the X, y, lr and steps you are given; the lesson's printout is one run of the same loop." \
        if twin() else lesson_hint


@expected
def mistaken_runs(X: torch.Tensor, y: torch.Tensor, lr: float, steps: int) -> dict[str, list[tuple]]:
    """What train_line returns with each trajectory mistake, on the same data (some mistakes
    can be made in more than one way, hence a list of runs per mistake)."""

    def descend(zeroed: str = "wb", mean: bool = True, scale: float = 1.0, after: bool = False,
                rate: float = lr, flat: bool = False, count: int = steps) -> tuple:
        w = torch.zeros(1, requires_grad=True)
        b = torch.zeros(1, requires_grad=True)
        target = y.reshape(-1) if flat else y

        def loss_now() -> torch.Tensor:
            errors = (X * w + b - target) ** 2
            return errors.mean() if mean else errors.sum()

        losses = []
        for _ in range(count):
            loss = loss_now()
            loss.backward()
            with torch.no_grad():
                w -= rate * scale * w.grad
                b -= rate * scale * b.grad
                if after:
                    loss = loss_now()
            losses.append(loss.item())
            if "w" in zeroed:
                w.grad.zero_()
            if "b" in zeroed:
                b.grad.zero_()
        return losses, w.item(), b.item()

    longer = descend(count=steps + 1)
    return {GRADIENTS_NOT_ZEROED.name: [descend(zeroed="")],
            ONE_GRADIENT_ZEROED.name: [descend(zeroed="w"), descend(zeroed="b")],
            SUM_FOR_MEAN.name: [descend(mean=False)], MISSING_FACTOR_2.name: [descend(scale=0.5)],
            SIGN_ERROR.name: [descend(scale=-1.0)], LOSS_AFTER_UPDATE.name: [descend(after=True)],
            LR_IGNORED.name: [descend(rate=LESSON_LR)] if lr != LESSON_LR else [],
            FLAT_TARGET.name: [descend(flat=True)] if y.dim() == 2 and y.shape[1] == 1 else [],
            # One update too many, or one loss too many recorded around the right `steps` updates.
            ONE_STEP_TOO_MANY.name: [longer, (longer[0], *descend()[1:])],
            ONE_STEP_TOO_FEW.name: [descend(count=steps - 1)] if steps >= 1 else []}


def suspects(run: Run) -> list[tuple[Mistake, Parsed]]:
    by_name = {m.name: m for m in collect_mistakes(_mistakes)}
    return [(by_name[name], parsed(value)[0]) for name, values in mistaken_runs(run.X, run.y, run.lr, run.steps).items()
            for value in values]


def tolerance(name: str = "loss") -> dict[str, float]:
    return {"rtol": EXERCISE.tolerance(name), "atol": EXERCISE.tolerance("loss_atol")}


@pytest.fixture
def plot_file(request: pytest.FixtureRequest, plots_folder: Path) -> Path:
    """Where this check draws a failing run: <plots>/learning_rate-<check id>.png."""
    return plots_folder / f"{EXERCISE.slug}-{request.node.name.removeprefix('test_')}.png"


def reference_train_line(reference: ModuleType, run: Run) -> Meanwhile:
    """The reference's train_line on a run, computed while the worker runs the student's (call_train_line): the
    two cost the same."""
    return Meanwhile(lambda: reference.train_line(run.X, run.y, run.lr, run.steps))


def call_train_line(student: Student, run: Run, trace: bool = False, meanwhile: Meanwhile | None = None) -> Returned:
    """train_line on a run; an error names the mistake that raises it."""
    __tracebackhide__ = True
    returned = student.call("train_line", run.X, run.y, run.lr, run.steps, shown_as=run.call, allow_raise=True,
                            trace=trace, meanwhile=meanwhile)
    if returned.error is None:
        return returned
    if lost_its_leaves(student, run, returned.error.message):
        mistake, error = REBOUND_PARAMETERS, returned.error
        fail(f"{run.call.split(' with ')[0]} raised {error.type}.", call=run.call,
             got=f"{error.type}: {error.message} (after a backward() that worked)", mistake=mistake)
    student.fail_raised(returned, "train_line")


def lost_its_leaves(student: Student, run: Run, message: str) -> bool:
    """Whether a None .grad, or a loss with no graph, came after a backward() that worked: the
    parameters were leaves once and stopped being ones. (Zeroing a .grad before the first
    backward, or never asking for grad, raise the same errors before any backward succeeds.)"""
    lost_graph = GRAPH_LOST in message
    if not lost_graph and re.search(NONE_GRAD, message) is None:
        return False
    traced = student.call("train_line", run.X, run.y, run.lr, run.steps, shown_as=run.call, trace=True,
                          allow_raise=True)
    backward_calls = sum(event.count for event in traced.calls_to("Tensor.backward"))
    return backward_calls - lost_graph >= 1  # a backward that raised GRAPH_LOST is counted too


def expect_run(returned: Returned, run: Run, expected_run: tuple, plot_file: Path, hint: str,
               section: str = WORKED, scaled: dict[float, Mistake] | None = None, *,
               student: Student) -> Parsed:
    """The student's run follows the reference's: every loss, and the final w and b.

    `scaled` names mistakes by the ratio of the student's (w, b) to the reference's, which
    after one step from zero is the ratio of their gradients (the gradient signature).
    """
    __tracebackhide__ = True
    got, problem = parsed(returned.value)
    if got is None:
        fail(f"train_line: {problem}.", call=run.call, got=describe(returned.value),
             expected="(losses, w, b): a list of floats and two floats",
             hint="End with `return losses, w.item(), b.item()`.", section=WORKED)
    reference_run = parsed(expected_run)[0]
    # The wrong variants run only for a failing run, except while recording: students' copies need them.
    wrong_runs = suspects(run) if RECORDING.mode == RECORD else None
    problem = run_problem(got, reference_run, **tolerance())
    if problem is None:
        return got
    mistake = matching_mistake(got, suspects(run) if wrong_runs is None else wrong_runs, **tolerance("mistake"))
    if mistake is None and _stopped_at_blow_up(got[0], reference_run[0]):
        mistake = STOPPED_AT_BLOW_UP
    if mistake is None and scaled:
        signature = gradient_signature(torch.tensor(got[1:]), torch.tensor(reference_run[1:]))
        mistake = next((m for factor, m in scaled.items() if is_scaled(signature, factor)), None)
    measured = ""
    if mistake is None:
        mistake, measured = start_mistake(student, run, got, reference_run)
    if mistake is None and _one_tensor(student, got, reference_run):
        mistake = W_AND_B_ONE_TENSOR
    picture = LossCurves(plot_file, {"your train_line": got[0], "expected (the reference)": reference_run[0]}, run.call)
    parts: dict[str, Any] = dict(call=run.call, got=_shown(got), expected=_shown(reference_run), pictures=(picture,))
    if mistake is not None:
        if measured:
            parts["meaning"] = f"{mistake.explanation} {measured}"
        fail(f"train_line: {problem}.", mistake=mistake, **parts)
    fail(f"train_line: {problem}.", hint=hint, section=section, **parts)


def _stopped_at_blow_up(losses: list[float], want: list[float]) -> bool:
    """Whether a run is the expected one cut short where the expected loss has blown up (past any bound, inf or
    nan): it follows every loss before that step and has none from there on."""
    cut = len(losses)
    return cut < len(want) and not abs(want[cut]) < BLOWN_UP and \
        run_problem((losses, 0.0, 0.0), (want[:cut], 0.0, 0.0), **tolerance()) is None


def _one_tensor(student: Student, got: Parsed, reference_run: Parsed) -> bool:
    """Whether the run ends with w and b exactly equal, as the reference's do not, and train_line's code binds both
    names in one chained assignment: one tensor under two names, moved by both gradients at once."""
    if got[1] != got[2] or reference_run[1] == reference_run[2]:
        return False
    return any({"w", "b"} <= names for names in student.evidence.bound_together("train_line"))


def start_mistake(student: Student, run: Run, got: Parsed, reference_run: Parsed) -> tuple[Mistake | None, str]:
    """NONZERO_START, and where the run starts, when train_line with steps=0 (no update) returns no losses and a w, b
    other than zero, and the run's first loss is not the one at w = b = 0. Not for an answer that ignores steps (a
    hard-coded one gives its w and b at steps=0 too), nor for one whose first loss is right (it did start at zero)."""
    close = EXERCISE.tolerance("mistake")
    if not got[0] or abs(got[0][0] - reference_run[0][0]) <= close * abs(reference_run[0][0]):
        return None, ""
    shown = f"train_line(X, y, lr={run.lr:g}, steps=0)"
    probe = student.call("train_line", run.X, run.y, run.lr, 0, shown_as=f"{shown} with {run.data}", allow_raise=True)
    start = parsed(probe.value)[0] if probe.error is None else None
    if start is None or start[0] or (start[1], start[2]) == (0.0, 0.0):
        return None, ""
    if all(math.isclose(a, b, rel_tol=close, abs_tol=close) for a, b in zip(start[1:], got[1:])):
        return None, ""
    return NONZERO_START, f"Here {shown}, which makes no update, returns w = {start[1]:.4g}, b = {start[2]:.4g}."


def _shown(run: Parsed) -> str:
    losses, w, b = run
    return f"losses {describe(losses)}; w = {describe(w)}, b = {describe(b)}"


# ---------------------------------------------------------------- public checks

@check
def test_make_line_data_matches_lesson(student: Student, reference: ModuleType) -> None:
    if not twin():
        returned = student.call("make_line_data", shown_as="make_line_data()")
        with seed_judged(student, returned, "make_line_data", late=SEED_SET_LATE, never=SEED_NEVER_SET):
            _expect_data(returned, reference.make_line_data(), 100, 42)
        _expect_pair_as_tuple(returned)
        return
    seed = twin_random().randrange(1, 10**6)
    returned = student.call("make_line_data", 100, seed, shown_as=f"make_line_data(100, seed={seed})")
    with seed_judged(student, returned, "make_line_data", 100, seed, late=SEED_SET_LATE, never=SEED_NEVER_SET):
        _expect_data(returned, reference.make_line_data(100, seed), 100, seed, reference.make_line_data(100))
    _expect_pair_as_tuple(returned)


def _expect_pair_as_tuple(returned: Returned) -> None:
    """The signature promises tuple[Tensor, Tensor]: the right data in a list lose the public check alone."""
    __tracebackhide__ = True
    if type(returned.value) is not tuple:
        fail(f"make_line_data returned the right X and y as {describe(returned.value)}, not as a tuple.",
             call=returned.call, got=describe(returned.value), expected="(X, y): a tuple of two float32 tensors",
             hint="End with `return X, y`: the comma makes the tuple.", section=WORKED)


@expected
def line_data_drawn_otherwise(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The recipe's (X, y) with the noise drawn before X, then (X, y) drawn in float64 and made float32."""
    return recipe_drawn_otherwise(n, seed, lambda X: 3 * X - 2, 0.3)


@expected
def line_data_drawn_point_by_point(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The recipe's (X, y) drawn one x and its noise at a time."""
    return recipe_drawn_point_by_point(n, seed, lambda X: 3 * X - 2, 0.3)


def _expect_data(returned: Returned, expected_data: tuple, n: int, seed: int,
                 default_seed_data: tuple | None = None) -> None:
    """X and y equal the reference's make_line_data(n, seed); a pair that is instead the reference's with its default
    seed, 42 (`default_seed_data`, for a call with another seed), names the seed argument ignored, and the recipe's
    numbers drawn in another order or in float64 name that."""
    __tracebackhide__ = True
    value = returned.value
    if type(value) not in (tuple, list) or len(value) != 2:
        fail("make_line_data should return a tuple (X, y).", call=returned.call, got=describe(value),
             hint="End with `return X, y`.", section=WORKED)
    close = EXERCISE.tolerance("data")
    hint = ("Seed first, then draw X with torch.rand and y with torch.randn, in that order: another order "
            "gives other random numbers.")
    drawn_otherwise, pointwise = line_data_drawn_otherwise(n, seed), line_data_drawn_point_by_point(n, seed)
    for index, (name, got, want) in enumerate(zip("Xy", value, expected_data)):
        suspects = [Suspect(SEED_IGNORED, default_seed_data[index])] if default_seed_data is not None else []
        suspects += [Suspect(NOISE_DRAWN_FIRST, drawn_otherwise[index]),
                     Suspect(DRAWN_IN_FLOAT64, drawn_otherwise[2 + index]),
                     Suspect(DRAWN_POINT_BY_POINT, pointwise[index])]
        expect_tensor(Returned(returned.call, got), want, rtol=close, atol=close, requires_grad=None,
                      what=name, hint=hint, section=WORKED, suspects=suspects)


@check
def test_first_update_matches_lesson(student: Student, reference: ModuleType, plot_file: Path) -> None:
    X, y, data = line_data(reference)
    run = Run(X, y, 0.1, 1, data)
    want = reference_train_line(reference, run)
    expect_run(call_train_line(student, run, meanwhile=want), run, want.value, plot_file,
               hint=hint_for("The lesson prints loss 15.4288 at step 0 (before the update), then w 0.792 and b -0.362."),
               scaled={0.5: MISSING_FACTOR_2, -1.0: SIGN_ERROR, float(len(X)): SUM_FOR_MEAN}, student=student)


@check
def test_lesson_run_at_lr_0_1(student: Student, reference: ModuleType, plot_file: Path) -> None:
    X, y, data = line_data(reference)
    run = Run(X, y, 0.1, 101, data)
    want = reference_train_line(reference, run)
    expect_run(call_train_line(student, run, meanwhile=want), run, want.value, plot_file,
               hint=hint_for("The lesson's printout: loss 15.4288 at step 0, 0.0606 at step 20, 0.0597 from step 40; "
                             "w 2.965 and b -2.000 at the end."), student=student)


@check
def test_losses_are_python_floats(student: Student, reference: ModuleType, plot_file: Path) -> None:
    X, y, data = line_data(reference)
    run = Run(X, y, 0.1, 5, data)
    want = reference_train_line(reference, run)
    returned = call_train_line(student, run, trace=True, meanwhile=want)
    # Floats of a wrong run earn nothing: the values come first, then their types.
    with needs_value():
        expect_run(returned, run, want.value, plot_file,
                   hint=hint_for("The lesson prints loss 15.4288 at step 0; each later loss is recorded before its "
                                 "update."), student=student)
    # The docstring's recipe: autograd's gradients, one pass per step; loss.backward() and torch.autograd.grad
    # are both autograd, and both are taken.
    passes = sum(event.count for event in returned.calls_to("Tensor.backward", "autograd.backward", "autograd.grad"))
    if passes != run.steps:
        wrote_out = passes == 0
        fail(f"train_line took gradients from autograd {passes} time(s) in {run.steps} steps; expected {run.steps}, "
             f"one per step.", call=run.call,
             meaning="The run is right, but the exercise is the worked example's recipe: w and b are leaves that "
                     "require grad, and each step's gradients come from autograd (loss.backward(), or "
                     "torch.autograd.grad), " + ("not from derivatives written out by hand." if wrote_out else
                                                 "once per step."),
             hint="In each step: loss.backward(), then update w and b inside torch.no_grad() and zero their grads.",
             section=WORKED)
    expect_code_shows(student, returned, "train_line", ("backward", "autograd.grad"),
                      "backward() or torch.autograd.grad", WORKED)
    value = returned.value
    # The signature's tuple[list[float], float, float]: a tuple, whose losses are a list.
    if type(value) is not tuple or len(value) != 3 or type(value[0]) is not list:
        fail("train_line should return the tuple (losses, w, b) with losses a list.", call=run.call,
             got=describe(value), expected="a tuple (losses, w, b): a list of Python floats, then two Python floats",
             hint="End with `return losses, w.item(), b.item()`, where losses is a list.", section=WORKED)
    losses, w, b = value
    graphs = [loss for loss in losses if type(loss) is torch.Tensor and (info := origin(loss)) and info.grad_fn]
    if graphs:
        fail_with_mistake(returned, f"train_line: its losses are tensors that carry a graph "
                                    f"(grad_fn={origin(graphs[0]).grad_fn}), not Python floats.",
                          LOSSES_AS_TENSORS, losses)
    named = [("each loss", loss) for loss in losses] + [("w", w), ("b", b)]
    for what, item in named:
        if type(item) is not float:
            fail(f"train_line: {what} should be a Python float.", call=run.call, got=f"{what}: {describe(item)}",
                 expected="a list of Python floats, then w and b as Python floats",
                 hint="Turn a one-element tensor into a Python float with .item().", section=WORKED)


@check
def test_lr_0_01_is_slow(student: Student, reference: ModuleType, plot_file: Path) -> None:
    X, y, data = line_data(reference)
    run = Run(X, y, 0.01, LR_0_01_STEPS, data)
    expected_run = reference_train_line(reference, run)
    hint = "With the same loop as at lr 0.1, only lr changes: each step is ten times shorter."
    losses = expect_run(call_train_line(student, run, meanwhile=expected_run), run, expected_run.value, plot_file,
                        hint, TRY_IT, student=student)[0]
    got, want = _first_below(losses, TARGET), reference.steps_to_reach(expected_run.value[0], TARGET)
    if want is None and twin():  # other noise may settle above the target: the curves above already agree
        return
    band = int(EXERCISE.tolerance("steps_band"))
    if got is None or abs(got - want) > band:
        fail(f"train_line: at lr 0.01 your loss first drops below {TARGET} at step {got}; expected step "
             f"{want} ± {band}.", call=run.call, got=describe(losses),
             expected=f"the first loss below {TARGET} at step {want} ± {band}", hint=hint, section=TRY_IT)


def _first_below(losses: list[float], target: float) -> int | None:
    """Where the student's own curve first goes below the target (not their steps_to_reach:
    this check grades train_line alone)."""
    below = [step for step, loss in enumerate(losses) if loss < target]
    return below[0] if below else None


@check
def test_lr_1_1_diverges(student: Student, reference: ModuleType, plot_file: Path) -> None:
    X, y, data = line_data(reference)
    run = Run(X, y, 1.1, LR_1_1_STEPS, data)
    want = reference_train_line(reference, run)
    expect_run(call_train_line(student, run, meanwhile=want), run, want.value, plot_file,
               hint="At lr 1.1 each step overshoots the bottom of the valley by more than it started from: "
                    "w changes sign every step and the loss grows about fourfold"
                    + ("." if twin() else " (15.43, 48.10, 179.54, ...)."),
               section=TRY_IT, student=student)


@check
def test_steps_to_reach_finds_first_step(student: Student, reference: ModuleType) -> None:
    cases = [(losses, TARGET, text) for losses, text in _lesson_loss_lists(reference)]
    falling = _falling_losses()
    cases += [(falling, falling[1], "a loss equal to the target does not count"),
              (falling, falling[0] + 2.0, "the very first loss is already below"),
              (falling, falling[-1] / 2, "no loss gets below"), ([], 1.0, "an empty list"),
              # Losses that dip below, rise and dip again: the first dip counts, not the last one, nor how
              # many losses are at or above the target (which equals the first dip on a falling curve only).
              ([falling[0], falling[2], falling[0], falling[0], falling[2]], falling[1],
               "losses that dip below, rise again and dip once more")]
    calls = [((losses, target), f"steps_to_reach(losses, {target:g}) with {text}: {describe(losses)}")
             for losses, target, text in cases]
    # Asked up front, so that they are recorded. `<=` differs from `<` on the list with a loss equal to the
    # target alone: it is named only for a steps_to_reach that answers as `<=` does on every list.
    at_or_below = [first_at_or_below(losses, target) for (losses, target), _ in calls]
    for index, ((losses, target), shown_as) in enumerate(calls):
        returned = student.call("steps_to_reach", losses, target, shown_as=shown_as)
        want = reference.steps_to_reach(losses, target)
        # Counting from 1 shifts every found step by one; where no loss is below, it still gives None.
        suspects = [Suspect(STEPS_FROM_ONE, want + 1)] if want is not None else []
        if type(returned.value) is not type(want) or returned.value != want:
            # Every list asked once, for both names: each holds only on the answers to all of them.
            answers = every_answer(student, "steps_to_reach", calls, (int, type(None)))
            if answers == at_or_below:
                suspects.insert(0, Suspect(EQUAL_COUNTS_AS_BELOW, at_or_below[index]))
            elif not _only_falls(losses) and _right_where_losses_only_fall(answers, reference, calls):
                suspects.insert(0, Suspect(ASSUMES_FALLING_LOSSES, returned.value))
        _expect_exactly(returned, want, hint="Return the index of the first loss < target (enumerate helps), or None.",
                        suspects=suspects)


def _only_falls(losses: list[float]) -> bool:
    return all(later <= earlier for earlier, later in zip(losses, losses[1:]))


def _right_where_losses_only_fall(answers: list[Any], reference: ModuleType, calls: list[tuple[tuple, str]]) -> bool:
    """Whether steps_to_reach's `answers` to `calls` are the reference's on every call whose losses only fall (two at
    least): then the lists it gets wrong are told apart by their rises alone."""
    falling = [(answer, args) for answer, (args, _) in zip(answers, calls) if len(args[0]) > 1 and _only_falls(args[0])]
    return len(falling) >= 2 and all(type(answer) is type(want) and answer == want for answer, args in falling
                                     for want in [reference.steps_to_reach(*args)])


@expected
def first_at_or_below(losses: list[float], target: float) -> int | None:
    """What steps_to_reach gives with `<=` for `<`: a loss equal to the target counts as reached."""
    return next((step for step, loss in enumerate(losses) if loss <= target), None)


@check
def test_diverged_spots_blow_ups(student: Student, reference: ModuleType) -> None:
    X, y, _ = line_data(reference)
    cases = list(_lesson_loss_lists(reference))
    falling = _falling_losses()
    cases += [(reference.train_line(X, y, 1.1, 60)[0], "train_line(X, y, lr=1.1, steps=60), which reaches inf"),
              ([falling[0], falling[1], math.nan], "a loss that became nan"),
              (falling[::-1], "losses that grow"), (falling, "losses that fall"),
              ([falling[0], falling[0] + 1.0, falling[2]], "a middle loss that grew past the first, then fell"),
              ([falling[0], falling[1], falling[0]], "a loss back at the first, not past it"),
              ([math.nan, falling[1], falling[2]], "a first loss that is already nan")]
    hint = ("A run diverged if a loss is inf or nan (math.isfinite) or larger than the first; a loss equal to "
            "the first does not count.")
    calls = [((losses,), f"diverged(losses) with {text}: {describe(losses)}") for losses, text in cases]
    # Asked up front, so that they are recorded. A bool has only two values: these variants are named only
    # for a diverged that answers as one of their forms does on every list, not on the one it got wrong alone.
    variants = [(mistake, [form(losses) for (losses,), _ in calls])
                for mistake, form in ((RISE_ON_ANY_STEP, rise_on_any_step), (NAN_NOT_DIVERGED, blind_to_nan),
                                      (LAST_LOSS_ONLY, last_loss_only), (LAST_LOSS_ONLY, last_loss_bare),
                                      (GROWTH_NOT_COUNTED, only_blow_ups), (NAN_PASSED_BY_MAX, largest_by_max))]
    for index, ((losses,), shown_as) in enumerate(calls):
        returned = student.call("diverged", losses, shown_as=shown_as)
        want = reference.diverged(losses)
        suspects = []
        if type(returned.value) is not bool or returned.value != want:
            given = every_answer(student, "diverged", calls, (bool,))
            suspects = [Suspect(mistake, answers[index]) for mistake, answers in variants if given == answers]
        _expect_exactly(returned, want, hint=hint, suspects=suspects)
    shown = "diverged(losses) with an empty list: []"
    returned = student.call("diverged", [], shown_as=shown, allow_raise=True)
    if returned.error is not None and returned.error.type == "IndexError":
        error = returned.error
        fail(f"diverged raised {error.type}.", call=shown, got=f"{error.type}: {error.message}",
             mistake=EMPTY_LOSSES)
    if returned.error is not None:
        student.fail_raised(returned, "diverged")
    _expect_exactly(returned, reference.diverged([]), hint=hint)


@expected
def last_loss_only(losses: list[float]) -> bool:
    """What diverged gives when it compares only the last loss with the first (after testing every loss for inf and
    nan)."""
    return any(not math.isfinite(loss) for loss in losses) or losses[-1] > losses[0]


@expected
def last_loss_bare(losses: list[float]) -> bool:
    """The same with no test for inf and nan: a last loss of nan is not past the first."""
    return losses[-1] > losses[0]


@expected
def only_blow_ups(losses: list[float]) -> bool:
    """What diverged gives when it counts inf and nan only, not a loss that grew past the first."""
    return any(not math.isfinite(loss) for loss in losses)


@expected
def rise_on_any_step(losses: list[float]) -> bool:
    """What diverged gives when it compares each loss with the one before it, not with the first."""
    return any(not math.isfinite(loss) for loss in losses) or any(b > a for a, b in zip(losses, losses[1:]))


@expected
def blind_to_nan(losses: list[float]) -> bool:
    """What diverged gives when it only compares each loss with the first: nan > anything is False."""
    return any(loss > losses[0] for loss in losses)


@expected
def largest_by_max(losses: list[float]) -> bool:
    """What diverged gives when it tests max(losses) alone: Python's max passes over a nan after a number."""
    top = max(losses)
    return not math.isfinite(top) or top > losses[0]


NO_ANSWER = object()  # equal to no variant's answer, not even None


def every_answer(student: Student, function: str, calls: list[tuple[tuple, str]], kinds: tuple[type, ...]
                 ) -> list[Any]:
    """`function`'s answer to every call (its arguments, how it is shown), NO_ANSWER where it raised or gave a
    value of none of the types `kinds`: so that True never counts as 1, nor an error as None."""
    answers: list[Any] = []
    for args, shown_as in calls:
        returned = student.call(function, *args, shown_as=shown_as, allow_raise=True)
        answers.append(returned.value if returned.error is None and type(returned.value) in kinds else NO_ANSWER)
    return answers


def _lesson_loss_lists(reference: ModuleType) -> list[tuple[list[float], str]]:
    X, y, data = line_data(reference)
    return [(reference.train_line(X, y, lr, steps)[0],
             f"the losses of train_line(X, y, lr={lr:g}, steps={steps}) with {data}")
            for lr, steps in ((0.1, 101), (0.01, LR_0_01_STEPS), (1.1, LR_1_1_STEPS))]


def _falling_losses() -> list[float]:
    """Three falling losses: 3, 2, 1; in a twin run, three others (two decimals, apart enough to tell)."""
    if not twin():
        return [3.0, 2.0, 1.0]
    draw = twin_random(offset=1)
    last = round(draw.uniform(0.5, 2.0), 2)
    middle = round(last + draw.uniform(0.5, 2.0), 2)
    return [round(middle + draw.uniform(0.5, 2.0), 2), middle, last]


def _expect_exactly(returned: Returned, want: Any, hint: str, suspects: Iterable[Suspect] = ()) -> None:
    __tracebackhide__ = True
    got = returned.value
    if type(got) is not type(want) or got != want:
        summary = f"{returned.call.split('(')[0]}: returned {describe(got)}; expected {describe(want)}."
        parts = dict(call=returned.call, got=describe(got), expected=describe(want))
        mistake = first_matching_variant(got, suspects, rtol=0, atol=0)
        if mistake is not None:
            fail(summary, mistake=mistake, **parts)
        fail(summary, hint=hint, section=TRY_IT, otherwise=none_fact(got, want), **parts)


@check
def test_max_stable_learning_rate_on_lesson_data(student: Student, reference: ModuleType) -> None:
    X, _, data = line_data(reference)
    _expect_rate(student.call("max_stable_learning_rate", X, shown_as=f"max_stable_learning_rate(X) with "
                                                                       f"{data}"), reference, X)


@expected
def rate_without_factor_2(X: torch.Tensor) -> float:
    """What max_stable_learning_rate gives with H = [[mean x², mean x], [mean x, 1]]: twice the right rate."""
    x = X.detach().to(torch.float64).reshape(-1)
    mean_x, mean_x2 = x.mean(), (x**2).mean()
    halved = torch.stack([torch.stack([mean_x2, mean_x]), torch.stack([mean_x, torch.ones_like(mean_x)])])
    return (2 / torch.linalg.eigvalsh(halved).max()).item()


@expected
def rate_over_n_minus_1(reference: ModuleType, X: torch.Tensor) -> float:
    """What max_stable_learning_rate gives with the Hessian's sums divided by n − 1: the right rate times (n − 1)/n
    (nan for a single point, where no such answer is told)."""
    n = X.shape[0]
    return reference.max_stable_learning_rate(X) * (n - 1) / n if n > 1 else float("nan")


@expected
def rate_from_sums(X: torch.Tensor) -> float:
    """What max_stable_learning_rate gives with H = 2·[[sum x², sum x], [sum x, n]]: the right rate over n."""
    x = X.detach().to(torch.float64).reshape(-1)
    sum_x, sum_x2, n = x.sum(), (x**2).sum(), torch.tensor(float(len(x)), dtype=torch.float64)
    summed = 2 * torch.stack([torch.stack([sum_x2, sum_x]), torch.stack([sum_x, n])])
    return (2 / torch.linalg.eigvalsh(summed).max()).item()


@expected
def rate_from_smallest(X: torch.Tensor) -> float:
    """What max_stable_learning_rate gives with the right H and its smallest eigenvalue: 2 / λ_min."""
    x = X.detach().to(torch.float64).reshape(-1)
    mean_x, mean_x2 = x.mean(), (x**2).mean()
    hessian = 2 * torch.stack([torch.stack([mean_x2, mean_x]), torch.stack([mean_x, torch.ones_like(mean_x)])])
    return (2 / torch.linalg.eigvalsh(hessian).min()).item()


def _expect_rate(returned: Returned, reference: ModuleType, X: torch.Tensor) -> None:
    __tracebackhide__ = True
    close = EXERCISE.tolerance("rate")
    expect_number(returned, reference.max_stable_learning_rate(X), rtol=close, atol=0, section=TRY_IT,
                  what="the largest stable learning rate",
                  suspects=[Suspect(HESSIAN_MISSING_FACTOR_2, rate_without_factor_2(X)),
                            Suspect(HESSIAN_SUMS, rate_from_sums(X)),
                            Suspect(HESSIAN_OVER_N_MINUS_1, rate_over_n_minus_1(reference, X)),
                            Suspect(SMALLEST_EIGENVALUE, rate_from_smallest(X))],
                  hint="Build H = 2·[[mean x², mean x], [mean x, 1]] in float64, take its largest eigenvalue "
                       "(torch.linalg.eigvalsh) and return 2 / λ_max. For x uniform on [−2, 2] it is near 0.75.")


# ---------------------------------------------------------------- hidden checks

def _fresh() -> torch.Generator:
    return torch.Generator().manual_seed(EXERCISE.seed("fresh_data"))


@check
def test_make_line_data_other_seeds(student: Student, reference: ModuleType) -> None:
    for n, seed in ((37, 7), (5, 0), (250, EXERCISE.seed("fresh_data"))):
        returned = student.call("make_line_data", n, seed, shown_as=f"make_line_data(n={n}, seed={seed})")
        with seed_judged(student, returned, "make_line_data", n, seed, late=SEED_SET_LATE, never=SEED_NEVER_SET):
            _expect_data(returned, reference.make_line_data(n, seed), n, seed, reference.make_line_data(n))


@check
def test_train_line_on_fresh_data(student: Student, reference: ModuleType, plot_file: Path) -> None:
    generator = _fresh()
    X1 = torch.rand(64, 1, generator=generator) * 6 - 3
    y1 = -1.5 * X1 + 0.5 + 0.2 * torch.randn(64, 1, generator=generator)
    X2 = torch.rand(40, 1, generator=generator, dtype=torch.float64) * 3
    y2 = 2 * X2 + 1 + 0.1 * torch.randn(40, 1, generator=generator, dtype=torch.float64)
    X3, y3 = reference.make_line_data(50, EXERCISE.seed("fresh_data"))
    runs = [Run(X1, y1, 0.2, 120, "64 points of y = −1.5x + 0.5 plus noise, x in [−3, 3]"),
            Run(X2, y2, 0.15, 150, "40 float64 points of y = 2x + 1 plus noise, x in [0, 3]"),
            Run(X3, y3, 0.5, 40, "make_line_data(50, another seed)"),
            # `steps` at its lower end: no update, so no loss recorded and w = b = 0.
            Run(X1, y1, 0.2, 0, "64 points of y = −1.5x + 0.5 plus noise, x in [−3, 3]"),
            # Past the stable rate the loss overflows to inf and then nan within the steps: a run still records one
            # loss per step, so that diverged() sees the blow-up (losses past any bound count as equal).
            Run(X1, y1, 1.0, 120, "64 points of y = −1.5x + 0.5 plus noise, x in [−3, 3], at lr 1.0, past the "
                                  "stable rate")]
    for run in runs:
        want = reference_train_line(reference, run)
        expect_run(call_train_line(student, run, meanwhile=want), run, want.value, plot_file,
                   hint="Use the X, y, lr and steps you are given; nothing from the lesson's run.", student=student)


@check
def test_max_stable_learning_rate_on_fresh_data(student: Student, reference: ModuleType) -> None:
    generator = _fresh()
    inputs = {"50 points in [0, 3] (off centre: mean x matters)": torch.rand(50, 1, generator=generator) * 3,
              "80 float64 points in [−1, 4]": torch.rand(80, 1, generator=generator, dtype=torch.float64) * 5 - 1,
              "20000 points in [−2, 2]": torch.rand(20000, 1, generator=generator) * 4 - 2}
    for text, X in inputs.items():
        returned = student.call("max_stable_learning_rate", X, shown_as=f"max_stable_learning_rate(X) with X = {text}")
        _expect_rate(returned, reference, X)
