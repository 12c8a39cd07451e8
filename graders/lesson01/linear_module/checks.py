"""Checks of `linear_module` ("The same model, the PyTorch way").

Oracle: the reference script run in this process on the same seed, learning rate and
number of steps. Public checks run the lesson's fit_linear_module(lr=0.1, steps=101, seed=42)
and a watched 5-step run; in their twin run, fresh seeds with learning rates and numbers of
steps for which training still settles as the lesson's does. The three ways to get the loop's
order wrong are recognised twice: by their effect on the run (compared with wrong variants
built from reference runs) and by what a driver sees in the worker at each backward() and step().
"""

from __future__ import annotations

import ast
import functools
import random
import warnings
from types import ModuleType
from typing import Any, Callable

import torch
from torch import nn

from graders.kit import (GLOBAL_SEED, Meanwhile, Mistake, RECORD, RECORDING, Returned, Scalar, Student, checks_for,
                         close, describe, exercise, expect_code_shows, expected, fail, fail_with_mistake, origin, twin,
                         unless_contradicted)
from graders.lesson01.linear_module.mistakes import (DETACHED_LOSSES_AS_TENSORS, LOSSES_AS_TENSORS, LOSS_AFTER_UPDATE,
                                                     LR_AND_SEED_IGNORED, LR_IGNORED, MODEL_BEFORE_DATA,
                                                     NOISE_BROADCAST, ONE_STEP_TOO_FEW, ONE_STEP_TOO_MANY, PARAMETER_LEFT_OUT,
                                                     OWN_GENERATOR_ONLY, SECTION, SEED_IGNORED, SEED_SET_LATE,
                                                     DATA_ON_ITS_OWN_GENERATOR, MINI_BATCHES, STARTED_ELSEWHERE,
                                                     STEP_BEFORE_BACKWARD, STOPPED_EARLY, SUM_FOR_MEAN,
                                                     TARGETS_BROADCAST, ZERO_GRAD_BEFORE_STEP, ZERO_GRAD_MISSING)
from graders.lesson01.linear_module.drivers import watch_training

EXERCISE = exercise("lesson01", "linear_module")
check = checks_for("lesson01", EXERCISE.slug)

LESSON_RUN = {"lr": 0.1, "steps": 101, "seed": 42}
# What the trace shows for the layer's forward pass and for the loss.
BUILDING_BLOCKS = {"the linear layer (nn.Linear)": "nn.functional.linear", "the loss (nn.MSELoss)": "nn.functional.mse_loss"}
# The watched runs are short: tracing every call is slow, and five passes show the order.
# What the code the grader reads must show, beside what the run's record says (graders/engine/source_evidence.py).
CODE_BUILDING_BLOCKS = ((("Linear",), "nn.Linear"), (("MSELoss", "mse_loss"), "nn.MSELoss"),
                        (("SGD",), "torch.optim.SGD"))
CODE_LOOP_STEPS = ((("zero_grad", "zero_", "grad"), "a way of clearing the gradients"), (("backward",), "backward()"),
                   (("step",), "optimiser.step()"))
WATCHED_RUN = {"lr": 0.1, "steps": 5, "seed": 42}
# What the lesson prints: the loss at steps 0, 25, 50, 75, 100, then the weight and bias.
PRINTED_LOSSES = {0: 13.4355, 25: 0.0598, 50: 0.0597, 75: 0.0597, 100: 0.0597}
PRINTED_WEIGHT, PRINTED_BIAS = 2.965, -2.0


Run = tuple[list[float], float, float]


# ---------------------------------------------------------------- the runs public checks ask for

def lesson_run(watched: bool = False) -> dict[str, Any]:
    """The lesson's run (or the short watched one); in a public check's twin run, a fresh seed, a
    learning rate in [0.08, 0.15] and 90 to 130 steps (3 to 7 watched), other than the published
    number: with these, training settles well before the end, as the lesson's does, so the final
    weight and bias are as stable as its. The fresh run is the same in every check's twin, as the
    lesson's is in every published check: the checks judge one run from different sides, and the
    student's code trains it once (reuse)."""
    published = WATCHED_RUN if watched else LESSON_RUN
    if not twin():
        return dict(published)
    draw = random.Random(EXERCISE.seed("twins") + watched)
    steps = [n for n in (range(3, 8) if watched else range(90, 131)) if n != published["steps"]]
    return {"lr": round(draw.uniform(0.08, 0.15), 3), "steps": draw.choice(steps), "seed": draw.randint(100, 99_999)}


def call_text(run: dict[str, Any]) -> str:
    return f"fit_linear_module(lr={run['lr']}, steps={run['steps']}, seed={run['seed']})"


def printout(reference: ModuleType, run: dict[str, Any]) -> tuple[dict[int, float], float, float, str]:
    """What lesson_numbers compares with, and whose numbers they are: the lesson's printout; in a twin
    run, the reference's losses at the same points of the fresh run (first, quarters, last) and its
    weight and bias."""
    if not twin():
        return PRINTED_LOSSES, PRINTED_WEIGHT, PRINTED_BIAS, "the lesson prints"
    losses, weight, bias = reference_run(reference, **run)
    steps = run["steps"]
    return ({step: losses[step] for step in (0, steps // 4, steps // 2, 3 * steps // 4, steps - 1)}, weight, bias,
            "the reference gives")


# ---------------------------------------------------------------- expected runs

@expected
def wrong_script_run(lr: float, steps: int, seed: int, zeroed: bool = True,
                     noise_shape: tuple[int, ...] = (100, 1), model_first: bool = False,
                     flat_targets: bool = False, reduction: str = "mean", trained: str = "") -> Run:
    """The lesson's script without zero_grad() ("zero_grad missing"), with the noise drawn in
    another shape ("(100, 1) vs (100,) broadcast in the data"), with the layer made before
    the data ("model made before the data"), with targets of shape (100,) ("(100, 1) vs (100,)
    broadcast"), with the squared errors summed ("sum instead of mean") or with the optimiser
    handed only the parameter `trained` names ("weight" or "bias": "a parameter left out of the optimiser")."""
    torch.manual_seed(seed)
    if model_first:  # the layer's initial weight and bias take the first numbers of the seeded stream
        model = nn.Linear(1, 1)
    X = torch.rand(100, 1) * 4 - 2
    y = 3 * X - 2 + 0.3 * torch.randn(noise_shape)  # (100,) noise makes y (100, 100), the same numbers drawn
    if flat_targets:  # (100,) targets against a (100, 1) output: the loss broadcasts to (100, 100)
        y = y.reshape(-1)
    if not model_first:
        model = nn.Linear(1, 1)
    optimiser = torch.optim.SGD([getattr(model, trained)] if trained else model.parameters(), lr=lr)
    losses = []
    with warnings.catch_warnings():
        # MSELoss warns of a broadcast target: that warning is the student's to see, not the grader's.
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(steps):
            if zeroed:
                optimiser.zero_grad()
            loss = nn.functional.mse_loss(model(X), y, reduction=reduction)
            loss.backward()  # without zero_grad, adds onto every earlier gradient
            optimiser.step()
            losses.append(loss.item())
    return losses, model.weight.item(), model.bias.item()


@functools.lru_cache(maxsize=None)
def reference_run(reference: ModuleType, lr: float, steps: int, seed: int) -> Run:
    """The reference's run; several checks share the lesson's."""
    return reference.fit_linear_module(lr, steps, seed)


@functools.lru_cache(maxsize=None)
def wrong_runs(reference: ModuleType, lr: float, steps: int, seed: int) -> list[tuple[Mistake, Run]]:
    """Each catalogued mistake's run. Most follow from reference runs: nothing learned keeps the
    starting loss and parameters (the run of 0 steps); one update behind ends where the
    reference ends after steps − 1 updates, with the same losses; losses logged after the
    update are the losses of steps 1 to steps of a run one step longer; a loop off by one is the run one step
    longer or shorter (or the right layer with one loss too many logged)."""
    losses, weight, bias = reference_run(reference, lr, steps, seed)
    _, start_weight, start_bias = reference.fit_linear_module(lr, 0, seed)
    _, late_weight, late_bias = reference.fit_linear_module(lr, max(steps - 1, 0), seed)
    longer = reference.fit_linear_module(lr, steps + 1, seed)
    later_losses = longer[0]
    runs = [
        (ZERO_GRAD_MISSING, wrong_script_run(lr, steps, seed, zeroed=False)),
        (ZERO_GRAD_BEFORE_STEP, ([losses[0]] * steps if losses else [], start_weight, start_bias)),
        (STEP_BEFORE_BACKWARD, (losses, late_weight, late_bias)),
        (LOSS_AFTER_UPDATE, (later_losses[1:], weight, bias)),
        (NOISE_BROADCAST, wrong_script_run(lr, steps, seed, noise_shape=(100,))),
        (MODEL_BEFORE_DATA, wrong_script_run(lr, steps, seed, model_first=True)),
        (TARGETS_BROADCAST, wrong_script_run(lr, steps, seed, flat_targets=True)),
        (SUM_FOR_MEAN, wrong_script_run(lr, steps, seed, reduction="sum")),
        (PARAMETER_LEFT_OUT, wrong_script_run(lr, steps, seed, trained="weight")),
        (PARAMETER_LEFT_OUT, wrong_script_run(lr, steps, seed, trained="bias")),
        (ONE_STEP_TOO_MANY, longer),
        (ONE_STEP_TOO_MANY, (later_losses, weight, bias)),
    ]
    if steps >= 1:
        runs.append((ONE_STEP_TOO_FEW, reference.fit_linear_module(lr, steps - 1, seed)))
    if seed != LESSON_RUN["seed"]:
        # The seed argument ignored for the lesson's own: the same rate and steps on the lesson's seed.
        runs.append((SEED_IGNORED, reference.fit_linear_module(lr, steps, LESSON_RUN["seed"])))
    if lr != LESSON_RUN["lr"]:
        # The lr argument ignored for the lesson's own: the same seed and steps at the lesson's rate.
        runs.append((LR_IGNORED, reference.fit_linear_module(LESSON_RUN["lr"], steps, seed)))
    if seed != LESSON_RUN["seed"] and lr != LESSON_RUN["lr"]:
        # Both ignored: the lesson's own run, cut to the steps asked for.
        runs.append((LR_AND_SEED_IGNORED, reference.fit_linear_module(LESSON_RUN["lr"], steps, LESSON_RUN["seed"])))
    return runs


# ---------------------------------------------------------------- comparing runs

def _number(value: Any) -> Any:
    """A one-element tensor or a NumPy number as the float it holds: the wrong type of a
    right value costs the check of types only."""
    if type(value) is torch.Tensor and value.numel() == 1:
        return float(value.detach().reshape(-1)[0])
    return float(value.value) if isinstance(value, Scalar) and type(value.value) in (int, float) else value


def _numbers(value: Any, steps: int) -> tuple[list, Any, Any] | str:
    """(losses, weight, bias) as numbers, or what is wrong with the returned value's shape."""
    if type(value) not in (tuple, list) or len(value) != 3:
        return f"it should return a tuple (losses, weight, bias) but returned {describe(value)}"
    if type(value[0]) not in (list, tuple) or len(value[0]) != steps:
        return f"losses should be a list of one loss per step ({steps}) but is {describe(value[0])}"
    losses, weight, bias = [_number(v) for v in value[0]], _number(value[1]), _number(value[2])
    for name, item in (("a loss", next((v for v in losses if type(v) not in (int, float)), 0.0)),
                       ("the weight", weight), ("the bias", bias)):
        if type(item) not in (int, float):
            return f"{name} should be a number but is {describe(item)}"
    return losses, weight, bias


def _run_problem(value: Any, run: Run) -> str | None:
    """The first place where a returned (losses, weight, bias) differs from `run`."""
    got = _numbers(value, len(run[0]))
    if isinstance(got, str):
        return got
    rtol = EXERCISE.tolerance("loss")
    named = [(f"the loss at step {step}", g, w) for step, (g, w) in enumerate(zip(got[0], run[0]))]
    for what, g, w in named + [("the learned weight", got[1], run[1]), ("the learned bias", got[2], run[2])]:
        if not close(g, w, rtol=rtol, atol=rtol):  # an infinite expected value: only itself
            return f"{what} is {g:.6g}; expected {w:.6g}"
    return None


# Runs that blow up: 100 times the gradient overshoots further each step, so the last bits of the first
# update grow into whole digits within a few steps (and end in inf or nan). Only their first losses, before
# the error can grow, are compared.
DIVERGING = (SUM_FOR_MEAN,)
COMPARED_WHILE_DIVERGING = 2


def _starts_as(value: Any, run: Run) -> bool:
    """Whether a returned run's first losses are those of `run`, with as many losses in all."""
    got = _numbers(value, len(run[0]))
    if isinstance(got, str) or not run[0]:
        return False
    rtol = EXERCISE.tolerance("loss")
    return all(close(g, w, rtol=rtol, atol=rtol) for g, w in zip(got[0][:COMPARED_WHILE_DIVERGING], run[0]))


def _diagnosis(value: Any, runs: list[tuple[Mistake, Run]]) -> Mistake | None:
    return next((mistake for mistake, run in runs
                 if (_starts_as(value, run) if mistake in DIVERGING else _run_problem(value, run) is None)), None)


def _summary(value: Any) -> str:
    """A run in one line: the first losses, the last one, the weight and the bias."""
    got = _numbers(value, len(value[0]) if type(value) in (tuple, list) and value and
                   type(value[0]) in (list, tuple) else -1)
    if isinstance(got, str):
        return describe(value)
    losses, weight, bias = got
    shown = ", ".join(f"{v:.4f}" for v in losses[:3]) + (f", ..., {losses[-1]:.4f}" if len(losses) > 3 else "")
    return f"losses [{shown}], weight {weight:.4f}, bias {bias:.4f}"


def _record_wrong_runs(reference: ModuleType, lr: float, steps: int, seed: int) -> None:
    # A recording of expected values must hold the wrong runs for every student, so they are
    # worked out before knowing whether they are needed; a live grader waits for a failure.
    if RECORDING.mode == RECORD:
        wrong_runs(reference, lr, steps, seed)


def expect_run(returned: Returned, reference: ModuleType, lr: float, steps: int, seed: int,
               student: Student | None = None) -> None:
    """The student's run equals the reference's on the same seed, learning rate and steps."""
    __tracebackhide__ = True
    want = reference_run(reference, lr, steps, seed)
    _record_wrong_runs(reference, lr, steps, seed)
    problem = _run_problem(returned.value, want)
    if problem is not None:
        _fail_run(returned, problem, _summary(want), lambda: wrong_runs(reference, lr, steps, seed),
                  _repeats_differently(student, lr, seed) if student is not None else None, student, reference, want)


# A short run is enough to see whether two calls on one seed agree: the data and the start are drawn first.
REPEAT_STEPS = 2


def _repeats_differently(student: Student, lr: float, seed: int) -> Callable[[], bool]:
    """Whether two calls with the same arguments give different runs (asked only when a run failed and no
    wrong run matched): a run that sets no seed of its own draws other data each time, and one that seeds after
    drawing draws what the call before left."""
    def differ() -> bool:
        shown = call_text({"lr": lr, "steps": REPEAT_STEPS, "seed": seed})
        # A seed set after something is drawn leaves that draw to the state the call before left: after a call on
        # another seed, then after a call on this one, the same call must repeat itself.
        student.call("fit_linear_module", lr, REPEAT_STEPS, seed + 1, allow_raise=True,
                     shown_as=call_text({"lr": lr, "steps": REPEAT_STEPS, "seed": seed + 1}))
        first, second = (student.call("fit_linear_module", lr, REPEAT_STEPS, seed, allow_raise=True, shown_as=shown)
                         for _ in range(2))
        if first.error is not None or second.error is not None:
            return False
        runs = [_numbers(r.value, REPEAT_STEPS) for r in (first, second)]
        return not any(isinstance(r, str) for r in runs) and _run_problem(second.value, runs[0]) is not None
    return differ


def _starts_elsewhere(student: Student, reference: ModuleType) -> bool:
    """Whether the student's layer starts from another weight and bias than the reference's and yet learns from the
    same data (asked only when a run failed and no wrong run matched). The start is what the function returns for
    0 steps; the data show in where the check's own run (the lesson's, or its twin's fresh one) ends: on one set of
    data the mean squared error of a line has a single lowest point, which these runs settle at from any start
    (lesson_run), so a run that ends at the reference's end learned from the reference's data. Other data (drawn in
    another order, shape or dtype) end elsewhere; so does another loss, another rate that has not settled, or a
    loop that does not train."""
    run = lesson_run()
    start = student.call("fit_linear_module", run["lr"], 0, run["seed"], allow_raise=True,
                         shown_as=call_text({**run, "steps": 0}))
    got_start = _numbers(start.value, 0) if start.error is None else "it raised"
    if isinstance(got_start, str):
        return False
    _, weight, bias = reference.fit_linear_module(run["lr"], 0, run["seed"])
    if _run_problem(start.value, ([], weight, bias)) is None:
        return False  # the same start: whatever differs, it is not where the layer begins
    ended = _lesson_call(student, run)
    want = reference_run(reference, **run)
    got = _numbers(ended.value, run["steps"]) if ended.error is None else "it raised"
    if isinstance(got, str):
        return False
    rtol = EXERCISE.tolerance("loss")
    return all(close(g, w, rtol=rtol, atol=rtol) for g, w in ((got[0][-1], want[0][-1]), (got[1], want[1]),
                                                              (got[2], want[2])))


def _seeds_own_generator_only(student: Student) -> bool:
    """Whether fit_linear_module passes its seed to a manual_seed, but not to torch's own (GLOBAL_SEED)."""
    evidence, seed = student.evidence, student.evidence.parameter("fit_linear_module", 2) or "seed"
    return (evidence.passes("fit_linear_module", ("manual_seed",), seed)
            and not evidence.passes("fit_linear_module", GLOBAL_SEED, seed))


def _cut_short(value: Any, want: Run) -> bool:
    """Whether a returned run is the expected one stopped early: fewer losses (two at least, so that it is not one
    pass short), each the expected one of its pass."""
    if type(value) not in (tuple, list) or len(value) != 3 or type(value[0]) not in (list, tuple):
        return False
    count = len(value[0])
    if not 0 < count < len(want[0]) - 1:
        return False
    losses = [_number(v) for v in value[0]]
    rtol = EXERCISE.tolerance("loss")
    return all(type(g) in (int, float) and close(g, w, rtol=rtol, atol=rtol) for g, w in zip(losses, want[0]))


def _steps_in_an_inner_loop(student: Student) -> bool:
    """Whether fit_linear_module's code calls .step() inside a loop that is itself inside a loop: more than one
    update a pass, as mini-batches make (read from the source, never run)."""
    loops = (ast.For, ast.While, ast.AsyncFor)
    for definition in student.evidence.definitions("fit_linear_module"):
        for outer in (node for node in ast.walk(definition) if isinstance(node, loops)):
            for inner in (node for statement in outer.body for node in ast.walk(statement) if isinstance(node, loops)):
                if any(isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "step"
                       for call in ast.walk(inner)):
                    return True
    return False


def _fail_run(returned: Returned, problem: str, want: str, runs: Callable[[], list[tuple[Mistake, Run]]],
              repeats_differently: Callable[[], bool] | None = None, student: Student | None = None,
              reference: ModuleType | None = None, expected_run: Run | None = None) -> None:
    __tracebackhide__ = True
    mistake = _diagnosis(returned.value, runs())
    if mistake is None and expected_run is not None and _cut_short(returned.value, expected_run):
        mistake = STOPPED_EARLY
    if mistake is None and repeats_differently is not None and repeats_differently():
        # Runs that differ on one seed ignore it, unless the code seeds with its argument: then it seeds too late,
        # or it seeds a generator of its own and torch's stream, which the layer draws from, never.
        mistake = (OWN_GENERATOR_ONLY if student is not None and _seeds_own_generator_only(student) else
                   unless_contradicted(SEED_IGNORED, student) or SEED_SET_LATE)
    if mistake is None and student is not None and _steps_in_an_inner_loop(student):
        mistake = MINI_BATCHES
    if mistake is None and student is not None and reference is not None and _starts_elsewhere(student, reference):
        # Data drawn with generator=... leave torch's stream untouched, so the layer draws where the data should.
        mistake = (DATA_ON_ITS_OWN_GENERATOR if student.evidence.sets_keyword("fit_linear_module", "generator")
                   else STARTED_ELSEWHERE)
    fail(f"fit_linear_module: {problem}.", call=returned.call, got=_summary(returned.value), expected=want,
         mistake=mistake.name if mistake else None, meaning=mistake.explanation if mistake else "",
         section=mistake.section if mistake else SECTION,
         hint=mistake.hint if mistake else "Follow the lesson's script line by line: the seed first, then X, y, "
                                           "the layer, the loss, the optimiser, then the five-line loop.")


def _lesson_call(student: Student, run: dict[str, Any]) -> Returned:
    # Three checks judge the lesson's run, and in their twins one fresh run (lesson_run): each is trained once.
    return student.call("fit_linear_module", **run, shown_as=call_text(run), reuse=True)


# ---------------------------------------------------------------- the driver's letters (graders/lesson01/linear_module/drivers.py)

def _order_mistake(events: str) -> Mistake | None:
    stepped = [e for e in events if e in "se"]
    if "a" in events:
        return ZERO_GRAD_MISSING
    if stepped and all(e == "e" for e in stepped):
        return ZERO_GRAD_BEFORE_STEP
    if len(stepped) > 1 and stepped[0] == "e" and all(e == "s" for e in stepped[1:]):
        return STEP_BEFORE_BACKWARD
    return None


def _off_by_one(passes: int, steps: int) -> Mistake | None:
    """The loop off by one that makes `passes` passes (or logs as many losses) for `steps`; None if it is not one off."""
    return {steps + 1: ONE_STEP_TOO_MANY, steps - 1: ONE_STEP_TOO_FEW}.get(passes)


def _watched(student: Student, run: dict[str, Any], trace: bool = False) -> Returned:
    return student.run(watch_training, run["lr"], run["steps"], run["seed"], trace=trace,
                       shown_as=f"{call_text(run)}, with backward() and step() watched")


# ---------------------------------------------------------------- public checks

@check
def test_returns_plain_numbers(student: Student, reference: ModuleType) -> None:
    run = lesson_run()
    returned = _lesson_call(student, run)
    value = returned.value
    problem = _numbers(value, run["steps"])
    if isinstance(problem, str):
        off_by_one = _off_by_one(len(value[0]) if type(value) in (tuple, list) and len(value) == 3
                                 and type(value[0]) in (list, tuple) else -1, run["steps"])
        if off_by_one is not None:
            fail_with_mistake(returned, f"fit_linear_module: {problem}.", off_by_one, value[0])
        if _cut_short(value, reference_run(reference, **run)):
            fail_with_mistake(returned, f"fit_linear_module: {problem}.", STOPPED_EARLY, value[0])
        fail(f"fit_linear_module: {problem}.", call=returned.call, got=describe(value),
             expected=f"(a list of {run['steps']} floats, weight, bias)", section=SECTION,
             hint="Return losses, model.weight.item(), model.bias.item().")
    tensors = [v for v in value[0] if type(v) is torch.Tensor]
    if tensors:
        # Each keeps its step's graph only where it was returned with one (its origin on the student's side).
        tracked = any((o := origin(v)) is not None and (o.requires_grad or o.grad_fn is not None) for v in tensors)
        fail_with_mistake(returned, "fit_linear_module: the losses are tensors, not Python floats.",
                          LOSSES_AS_TENSORS if tracked else DETACHED_LOSSES_AS_TENSORS, value[0][0])
    for name, item in (("a loss", next((v for v in value[0] if type(v) is not float), 0.0)),
                       ("the weight", value[1]), ("the bias", value[2])):
        if type(item) is not float:
            fail(f"fit_linear_module: {name} is {describe(item)}, not a Python float.", call=returned.call,
                 got=describe(item), expected="a Python float", section=SECTION,
                 hint="Convert with .item(): loss.item(), model.weight.item(), model.bias.item().")


@check
def test_lesson_numbers(student: Student, reference: ModuleType) -> None:
    run = lesson_run()
    returned = _lesson_call(student, run)
    _record_wrong_runs(reference, **run)
    printed_losses, weight, bias, whose = printout(reference, run)
    got = _numbers(returned.value, run["steps"])
    problem = got if isinstance(got, str) else None
    if problem is None:
        loss_tol, param_tol = EXERCISE.tolerance("printed_loss"), EXERCISE.tolerance("printed_parameter")
        printed = [(f"the loss at step {step}", got[0][step], value, loss_tol)
                   for step, value in printed_losses.items()]
        printed += [("the learned weight", got[1], weight, param_tol), ("the learned bias", got[2], bias, param_tol)]
        problem = next((f"{what} is {g:.6g}; {whose} {p:g}" for what, g, p, tol in printed
                        if not abs(g - p) <= tol), None)
    if problem is not None:
        losses = ", ".join(f"step {s}: {v:.4f}" for s, v in printed_losses.items())
        # Rounded as the lesson prints them: to 3 decimals, which leaves the lesson's 2.965 and -2.0 as they are.
        _fail_run(returned, problem, f"losses {losses}; weight {round(weight, 3)}, bias {round(bias, 3)}",
                  lambda: wrong_runs(reference, **run), _repeats_differently(student, run["lr"], run["seed"]), student,
                  reference, reference_run(reference, **run))
    if not twin():
        expect_lesson_defaults(student, returned, got)


def expect_lesson_defaults(student: Student, explicit: Returned, numbers: Any) -> None:
    """fit_linear_module() with no arguments is the lesson's run, as its signature's defaults promise."""
    __tracebackhide__ = True
    shown = "fit_linear_module(), with its defaults"
    returned = student.call("fit_linear_module", shown_as=shown)
    if _numbers(returned.value, LESSON_RUN["steps"]) != numbers:
        fail("fit_linear_module() with its defaults gives another run than the lesson's "
             f"{call_text(LESSON_RUN)}.", call=shown, got=describe(returned.value),
             expected=f"what {explicit.call} returned: {describe(explicit.value)}",
             hint="Keep the signature's defaults as the stub has them: lr=0.1, steps=101, seed=42.", section=SECTION)


@check
def test_matches_reference(student: Student, reference: ModuleType) -> None:
    run = lesson_run()
    expect_run(_lesson_call(student, run), reference, **run, student=student)


@check
def test_uses_module_loss_and_optimiser(student: Student) -> None:
    # Which API each pass uses, judged apart from how many passes the loop makes (returns_plain_numbers and the
    # runs judge that): a loop one pass short still runs the layer, the loss and the optimiser in every pass.
    run = lesson_run(watched=True)
    returned = _watched(student, run, trace=True)
    counts = {what: sum(e.count for e in returned.calls_to(name)) for what, name in BUILDING_BLOCKS.items()}
    counts["optimiser.step() of torch.optim.SGD"] = sum(e in "se" for e in returned.value or "")
    passes = counts["optimiser.step() of torch.optim.SGD"]  # a pass of the loop is one step (a loss logged again
    # after the loop runs the layer and the loss once more, which is no pass)
    for what, count in counts.items():
        if count == 0 or count < passes:
            fail(f"fit_linear_module runs {what} {count} times in its {passes} passes of the loop; expected once "
                 f"per pass.",
                 call=returned.call, meaning="This exercise is the lesson's script written with PyTorch's building "
                 "blocks: the layer, the loss and the optimiser do the work, not hand-written formulas.",
                 hint="model = nn.Linear(1, 1), loss_fn = nn.MSELoss(), optimiser = torch.optim.SGD(model.parameters(), "
                      "lr=lr); then in each pass loss_fn(model(X), y), loss.backward(), optimiser.step().",
                 section=SECTION)
    for patterns, what in CODE_BUILDING_BLOCKS:
        expect_code_shows(student, returned, "fit_linear_module", patterns, what, SECTION)


@check
def test_loop_order(student: Student) -> None:
    # The order within each pass, judged apart from how many passes there are (a loop off by one keeps its order).
    run = lesson_run(watched=True)
    returned = _watched(student, run)
    events = returned.value if type(returned.value) is str else ""
    steps, passes = run["steps"], len(events) // 2
    if passes and events == "bs" * passes:
        for patterns, what in CODE_LOOP_STEPS:
            expect_code_shows(student, returned, "fit_linear_module", patterns, what, SECTION)
        return
    mistake = _order_mistake(events)
    seen = (f"of {events.count('b') + events.count('a')} backward() calls, {events.count('a')} added onto "
            f"gradients left from an earlier pass; of {events.count('s') + events.count('e')} step() calls, "
            f"{events.count('e')} found no gradient to apply")
    if mistake is not None:
        fail_with_mistake(returned, f"fit_linear_module's training loop is out of order: {seen}.", mistake)
    fail(f"fit_linear_module's training loop does not run zero_grad(), backward(), step() once each per pass: {seen}.",
         call=returned.call, expected=f"{steps} passes of: gradients cleared, backward(), step()", section=SECTION,
         hint="Write the five lines in the lesson's order: zero_grad, forward, loss, backward, step.")


# ---------------------------------------------------------------- hidden checks

FRESH_RUNS = ({"lr": 0.05, "steps": 30, "seed": "fresh_first"}, {"lr": 0.3, "steps": 7, "seed": "fresh_second"})


@check
def test_fit_linear_module_on_fresh_runs(student: Student, reference: ModuleType) -> None:
    for case in FRESH_RUNS:
        lr, steps, seed = case["lr"], case["steps"], EXERCISE.seed(case["seed"])
        # The reference's run, trained while the worker trains the student's: expect_run reads it from the cache.
        reference_meanwhile = Meanwhile(functools.partial(reference_run, reference, lr, steps, seed))
        returned = student.call("fit_linear_module", lr, steps, seed, meanwhile=reference_meanwhile,
                                shown_as=f"fit_linear_module(lr={lr}, steps={steps}, seed={seed})")
        reference_meanwhile.value  # noqa: B018 - raises what the run raised, rather than running it again
        expect_run(returned, reference, lr, steps, seed, student=student)
    # steps = 0 is a run too: no pass, no loss, the layer's starting weight and bias (a loop that makes one pass
    # whatever `steps` says differs only here). Apart from FRESH_RUNS: at 0 steps some wrong runs equal the right one.
    seed = EXERCISE.seed(FRESH_RUNS[0]["seed"])
    returned = student.call("fit_linear_module", 0.1, 0, seed,
                            shown_as=f"fit_linear_module(lr=0.1, steps=0, seed={seed})")
    expect_run(returned, reference, 0.1, 0, seed, student=student)

