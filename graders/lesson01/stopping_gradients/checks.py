"""Checks of `stopping_gradients` (companion text, "The Detach / no_grad / .data Triangle").

Oracle: the reference run in this process on the same inputs. `sgd_step` returns
nothing, so a driver builds parameters with real gradients in the worker, calls it and
sends back the tensors it was given: their values, leaf flags and gradients afterwards.
When a parameter keeps its old value, a second run tells from its version counter whether
sgd_step never changed it in place (a rebound) or did, by a gradient zeroed too early.
The trace tells whether predict's arithmetic ran with autograd on and where `.data` is used.
Public checks use the lesson's fitted line, the worked example's first step and three of
its losses; in their twin run, a fresh line and inputs, step and losses of the same kind.
"""

from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any

import numpy as np
import torch

from graders.kit import (DTYPE_DIFFERS, CheckFailed, dtype_fact, shape_fact, Mistake, Returned, Student, argument_changed, checks_for, code_lines, describe,
                         exercise, expect_code_shows, expect_tensor, expected, fail, fail_with_mistake, origin,
                         tensor_problem, twin, twin_random, unless_contradicted, needs_value)
from graders.lesson01.stopping_gradients.mistakes import (DATA_USED, FLOAT32_TO_FLOAT64, GRADS_NOT_ZEROED,
                                                          NO_GRAD_MISSING_IN_PREDICT, NOT_REACHED, PART_OUTSIDE_NO_GRAD,
                                                          REBOUND,
                                                          REQUIRES_GRAD_TURNED_OFF, TRIANGLE, WEIGHT_NOT_TRANSPOSED,
                                                          ZEROED_BEFORE_UPDATE, ZEROING)
from graders.lesson01.stopping_gradients.drivers import (apply_step, changed_in_place, predict_around_a_step,
                                                         to_numpy_on_a_gpu)

EXERCISE = exercise("lesson01", "stopping_gradients")
check = checks_for("lesson01", EXERCISE.slug)


# The lesson's fitted line (weight 2.965, bias -2.0) and five inputs in [-2, 2].
LINE_TEXT = "weight = tensor([[2.965]]), bias = tensor([-2.0]), X = torch.linspace(-2, 2, 5).unsqueeze(1)"
# w = b = 0 with the gradients of the worked example's first step (rounded): lr 0.1 gives 0.792 and -0.362.
STEP_CALL = "sgd_step([w, b], lr=0.1) with w = b = tensor([0.]), w.grad = tensor([-7.92]), b.grad = tensor([3.62])"
LOSSES_TEXT = "t = tensor([15.4288, 0.0606, 0.0597], requires_grad=True)"
ARITHMETIC = ("matmul", "__matmul__", "__rmatmul__", "mm", "addmm", "linear", "add", "__add__", "__radd__",
              "mul", "__mul__", "__rmul__", "einsum", "sum")
DATA_EVENTS = ("torch.Tensor.data.__get__", "torch.Tensor.data.__set__")
# What code that computes without recording a graph must name, one of them at least (source_evidence.py).
GRAPH_STOPPERS = ("no_grad", "inference_mode", "set_grad_enabled", "detach", "requires_grad_", "data", "tolist",
                  "numpy")


# Every fresh value has few decimals, so that messages can show it exactly as torch.tensor takes it. The
# three builders draw with offsets of their own: no_data_attribute uses all three in one run.

def lesson_line(requires_grad: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The lesson's line and inputs; in a public check's twin run, a fresh line near y = 3x − 2
    (weight in [2, 4], bias in [-3, -1]) and five fresh sorted inputs in [-2, 2]."""
    if not twin():
        weight, bias, x = [[2.965]], [-2.0], torch.linspace(-2, 2, 5)
    else:
        draw = twin_random()
        weight, bias = [[round(draw.uniform(2.0, 4.0), 3)]], [round(draw.uniform(-3.0, -1.0), 3)]
        x = torch.tensor(sorted(round(draw.uniform(-2.0, 2.0), 2) for _ in range(5)))
    return (torch.tensor(weight, requires_grad=requires_grad), torch.tensor(bias, requires_grad=requires_grad),
            x.unsqueeze(1))


def line_text(weight: torch.Tensor, bias: torch.Tensor, X: torch.Tensor) -> str:
    if not twin():
        return LINE_TEXT
    return (f"weight = tensor([{_values(weight[0])}]), bias = tensor({_values(bias)}), "
            f"X = torch.tensor({_values(X[:, 0])}).unsqueeze(1)")


def lesson_step() -> tuple[list[torch.Tensor], list[torch.Tensor], float]:
    """The worked example's first step (w = b = 0, its gradients, lr 0.1); in a public check's twin
    run, fresh w in [0, 3] and b in [-2, 0], gradients in [-8, 8] of at least 0.5 in size (so that
    a step moves them clearly) and a learning rate in [0.05, 0.2]."""
    if not twin():
        return [torch.tensor([0.0]), torch.tensor([0.0])], [torch.tensor([-7.92]), torch.tensor([3.62])], 0.1
    draw = twin_random(offset=1)
    values = [torch.tensor([round(draw.uniform(0.0, 3.0), 2)]), torch.tensor([round(draw.uniform(-2.0, 0.0), 2)])]
    grads = [torch.tensor([round(draw.choice((-1, 1)) * draw.uniform(0.5, 8.0), 2)]) for _ in values]
    return values, grads, round(draw.uniform(0.05, 0.2), 3)


def step_text(values: list[torch.Tensor], grads: list[torch.Tensor], lr: float) -> str:
    if not twin():
        return STEP_CALL
    (w, b), (w_grad, b_grad) = map(_values, values), map(_values, grads)
    return (f"sgd_step([w, b], lr={lr}) with w = tensor({w}), b = tensor({b}), w.grad = tensor({w_grad}), "
            f"b.grad = tensor({b_grad})")


def lesson_losses() -> torch.Tensor:
    """Three of the worked example's losses; in a public check's twin run, three fresh falling
    losses as a training run logs them: one in [5, 20], then two in [0.05, 0.1]."""
    if not twin():
        return torch.tensor([15.4288, 0.0606, 0.0597], requires_grad=True)
    draw = twin_random(offset=2)
    late = sorted((round(draw.uniform(0.05, 0.1), 4) for _ in range(2)), reverse=True)
    return torch.tensor([round(draw.uniform(5.0, 20.0), 4), *late], requires_grad=True)


def losses_text(t: torch.Tensor) -> str:
    return f"t = tensor({_values(t)}, requires_grad=True)" if twin() else LOSSES_TEXT


def _values(t: torch.Tensor) -> str:
    """A fresh 1-D tensor's values with the digits they were drawn with (float32 keeps 6 of them)."""
    return "[" + ", ".join(repr(float(f"{v:.6g}")) for v in t.detach().tolist()) + "]"


def tolerance(t: torch.Tensor) -> dict[str, float]:
    value = EXERCISE.tolerance("float64" if t.dtype == torch.float64 else "float32")
    return {"rtol": value, "atol": value}


# ---------------------------------------------------------------- sgd_step, in the worker (drivers.py) and here


def _unchanged_mistake(student: Student, returned: Returned, values: list, grads: list, lr: float,
                       index: int) -> Mistake | None:
    """Why params[index] kept its old value: rebound (never changed in place), or changed in place
    by a gradient zeroed beforehand (its .grad is zero or None afterwards)."""
    diagnosis = student.run(changed_in_place, values, grads, lr, shown_as=returned.call, allow_raise=True,
                            runs="sgd_step")
    flags = diagnosis.value
    if diagnosis.error is not None or type(flags) is not list or len(flags) != len(values):
        return None
    if flags[index] is False:
        # Code that changes tensors in place did not rebind this one: the update never reached it.
        return NOT_REACHED if student.evidence.updates_in_place("sgd_step") else REBOUND
    info = origin(returned.value[index])
    if flags[index] is True and info is not None and (info.grad is None or not bool(info.grad.ne(0).any())):
        return ZEROED_BEFORE_UPDATE
    return None


@expected
def stepped_values(reference: ModuleType, values: list[torch.Tensor], grads: list[torch.Tensor],
                   lr: float) -> list[torch.Tensor]:
    """The parameters' values after the reference's sgd_step."""
    return [p.detach().clone() for p in apply_step(reference, values, grads, lr)["params"]]


def _step(student: Student, values: list, grads: list, lr: float, shown_as: str,
          **options: Any) -> tuple[Returned, str | None]:
    """sgd_step called in the worker: a Returned whose value is the list of the parameters it was given,
    and the type of what the call returned (None when it returned None, as promised)."""
    __tracebackhide__ = True
    returned = student.run(apply_step, values, grads, lr, shown_as=shown_as, **options)
    if returned.error is not None:
        return returned, None
    got = returned.value if type(returned.value) is dict else {}
    params = got.get("params")
    if type(params) is not list or len(params) != len(values) or any(type(p) is not torch.Tensor for p in params):
        fail("sgd_step's parameters could not be read back after the call.", call=returned.call,
             got=describe(returned.value), section=TRIANGLE)
    answer = got.get("returned")
    return dataclasses.replace(returned, value=params), answer if type(answer) is str else None


def expect_none_returned(returned: Returned, answer: str | None) -> None:
    """sgd_step's docstring promises None: the parameters change in place, nothing is handed back."""
    __tracebackhide__ = True
    if answer is not None:
        fail(f"sgd_step returned a {answer}; it changes the parameters in place and returns None.",
             call=returned.call, got=f"a {answer}", expected="None",
             meaning="The update happens to the very tensors the caller holds, so there is nothing to hand back; "
                     "returning them suggests that params = sgd_step(params, lr) is needed, and hides where the "
                     "change really happens.",
             hint="Leave out the return statement: a function without one returns None.", section=TRIANGLE)


def expect_updated(student: Student, returned: Returned, reference: ModuleType, values: list, grads: list,
                   lr: float) -> None:
    """Each given tensor now holds p - lr * p.grad and is still a leaf that requires grad."""
    __tracebackhide__ = True
    for index, (got, want, before) in enumerate(zip(returned.value, stepped_values(reference, values, grads, lr),
                                                    values)):
        name = f"params[{index}]"
        info = origin(got)
        if info is not None and not (info.is_leaf and info.requires_grad):
            fail(f"sgd_step: after the step, {name} is no longer a leaf that requires grad.", call=returned.call,
                 got=describe(got), meaning="A parameter must stay trainable: the next backward() fills its .grad.",
                 hint="Update inside torch.no_grad() with an in-place operation; do not detach or "
                      "requires_grad_(False) the parameter.", section=TRIANGLE)
        problem = tensor_problem(got, want, **tolerance(want), requires_grad=None, what=f"{name} after the step")
        if problem is None:
            continue
        if not before.equal(want) and tensor_problem(got, before, rtol=0, atol=0, requires_grad=None) is None:
            summary = f"sgd_step: {name} still holds its old value after the step."
            mistake = _unchanged_mistake(student, returned, values, grads, lr, index)
            if mistake is not None:
                fail(summary, call=returned.call, got=describe(got), expected=describe(want), mistake=mistake)
            fail(summary, call=returned.call, got=describe(got), expected=describe(want),
                 hint="The update is p -= lr * p.grad for every p in params, with p.grad zeroed only afterwards.",
                 section=TRIANGLE)
        fail(f"sgd_step: {problem}.", call=returned.call, got=describe(got), expected=describe(want),
             hint="The update is p -= lr * p.grad for every p in params.", section=TRIANGLE)


# ---------------------------------------------------------------- public checks

def expect_predicted(returned: Returned, reference: ModuleType, weight: torch.Tensor, bias: torch.Tensor,
                     X: torch.Tensor) -> None:
    """predict's answer has the reference's values (whether it requires grad is checked elsewhere)."""
    __tracebackhide__ = True
    expect_tensor(returned, reference.predict(weight, bias, X), **tolerance(X), requires_grad=None, section=TRIANGLE,
                  hint="X has shape (n, in_features) and weight (out_features, in_features): X @ weight.T + bias.")


def multiplied_untransposed(message: str, weight: torch.Tensor, X: torch.Tensor) -> bool:
    """Whether an error is torch refusing X @ weight with both as given: X's shape and weight's, untransposed."""
    (n, features), (out, features_w) = X.shape, weight.shape
    return f"shapes cannot be multiplied ({n}x{features} and {out}x{features_w})" in message


def _data_lines(student: Student, returned: Returned, function: str) -> list[int]:
    """The student's lines that read or set a tensor's .data: in the run's record (the student's word), or in
    the function's code as the grader reads it."""
    return code_lines(student, returned, function, DATA_EVENTS, ("data",))


@check
def test_predict_values(student: Student, reference: ModuleType) -> None:
    weight, bias, X = lesson_line()
    returned = student.call("predict", weight, bias, X,
                            shown_as=f"predict(weight, bias, X) with {line_text(weight, bias, X)}")
    expect_predicted(returned, reference, weight, bias, X)


def _no_grad_mistake(student: Student) -> Mistake:
    """No no_grad at all, or, where the code has a no_grad block (so the first is ruled out), part left outside it."""
    return unless_contradicted(NO_GRAD_MISSING_IN_PREDICT, student) or PART_OUTSIDE_NO_GRAD


@check
def test_predict_records_no_graph(student: Student, reference: ModuleType) -> None:
    weight, bias, X = lesson_line(requires_grad=True)
    returned = student.call("predict", weight, bias, X, trace=True,
                            shown_as=f"predict(weight, bias, X) with {line_text(weight, bias, X)}, weight and bias "
                                     "requiring grad")
    # How the answer was made earns nothing when the answer itself is wrong: its values first.
    with needs_value():
        expect_predicted(returned, reference, weight, bias, X)
    value = returned.value
    info = origin(value)
    if info is not None and (info.requires_grad or info.grad_fn is not None):
        fail_with_mistake(returned, f"predict returned a tensor with grad_fn={info.grad_fn}: it is part of a graph.",
                          _no_grad_mistake(student), value)
    recorded = [e for e in returned.calls_to(*ARITHMETIC) if e.line and e.grad_enabled]
    # Arithmetic on .data records nothing either: that slip is test_no_data_attribute's to name.
    if recorded and not _data_lines(student, returned, "predict"):
        fail_with_mistake(returned, f"predict computes with autograd recording (line {recorded[0].line}), "
                          "then cuts the result from the graph.", _no_grad_mistake(student))
    # The record is the student's word: the code itself must show a way of computing without a graph.
    expect_code_shows(student, returned, "predict", GRAPH_STOPPERS, "torch.no_grad() (or another way of computing "
                      "without a graph)", NO_GRAD_MISSING_IN_PREDICT.section)


@check
def test_sgd_step_updates_in_place(student: Student, reference: ModuleType) -> None:
    values, grads, lr = lesson_step()
    stepped, answer = _step(student, values, grads, lr, step_text(values, grads, lr))
    expect_updated(student, stepped, reference, values, grads, lr)
    expect_none_returned(stepped, answer)


@check
def test_sgd_step_zeroes_grads(student: Student, reference: ModuleType) -> None:
    values, grads, lr = lesson_step()
    returned, _ = _step(student, values, grads, lr, step_text(values, grads, lr))
    expect_updated(student, returned, reference, values, grads, lr)  # zeroed gradients of a wrong step earn nothing
    for index, (p, grad) in enumerate(zip(returned.value, grads)):
        info = origin(p)
        left = info.grad if info is not None else None
        if left is None or not bool(left.ne(0).any()):
            continue
        summary = f"sgd_step: after the step, params[{index}].grad is {describe(left)}; expected zeros."
        if left.shape == grad.shape and torch.equal(left, grad):
            fail_with_mistake(returned, summary, GRADS_NOT_ZEROED, left)
        fail(summary, call=returned.call, got=describe(left), expected="zeros (or None)",
             hint="Clear each gradient after its update: p.grad.zero_().", section=ZEROING)


@check
def test_no_data_attribute(student: Student, reference: ModuleType) -> None:
    weight, bias, X = lesson_line(requires_grad=True)
    values, grads, lr = lesson_step()
    t = lesson_losses()
    shown = [f"predict with {line_text(weight, bias, X)}", step_text(values, grads, lr), f"to_numpy(t) with {losses_text(t)}"]
    calls = [
        student.call("predict", weight, bias, X, trace=True, allow_raise=True, shown_as=shown[0]),
        _step(student, values, grads, lr, shown[1], trace=True, allow_raise=True)[0],
        student.call("to_numpy", t, trace=True, allow_raise=True, shown_as=shown[2]),
    ]
    # Only a function that gives the right answer is credited for avoiding .data (code that
    # avoids it by doing nothing earns nothing), and a slip in one costs the others nothing.
    expectations = [lambda: expect_predicted(calls[0], reference, weight, bias, X),
                    lambda: expect_updated(student, calls[1], reference, values, grads, lr),
                    lambda: expect_array(calls[2], reference.to_numpy(t))]
    right, first_failure = [], None
    for returned, expectation, function in zip(calls, expectations, ("predict", "sgd_step", "to_numpy")):
        try:
            if returned.error is not None:
                fail(f"{returned.call.split()[0]} raised {returned.error.type}: {returned.error.message}",
                     call=returned.call, section=TRIANGLE)
            expectation()
            right.append((returned, function))
        except CheckFailed as failure:
            first_failure = first_failure or failure
    if not right and first_failure is not None:
        raise first_failure
    for returned, function in right:
        used = _data_lines(student, returned, function)
        if used:
            lines = ", ".join(str(line) for line in used if line) or "?"
            fail(f"{returned.call.split('(')[0].split()[0]} uses .data ({student.display_path}, line {lines}).",
                 call=returned.call, mistake=DATA_USED)


def _array_dtype_fact(got: np.dtype, want: np.dtype) -> Mistake:
    """The dtype fact of two arrays' dtypes, as torch names them (so that the code's converting line can be told);
    the general one for a dtype torch has no name for."""
    try:
        return dtype_fact(torch.from_numpy(np.empty(0, dtype=got)).dtype, torch.from_numpy(np.empty(0, dtype=want)).dtype)
    except TypeError:
        return DTYPE_DIFFERS


def expect_array(returned: Returned, want: np.ndarray, what: str = "the result") -> None:
    """An exact numpy.ndarray of `want`'s shape, dtype and values."""
    __tracebackhide__ = True
    got = returned.value
    problem, otherwise = None, None
    # Each hint points to the clause of the docstring's Returns that the array breaks.
    hint = "t.detach().cpu().numpy() keeps the values and the dtype."
    if type(got) is not np.ndarray:
        problem = f"{what} should be a numpy.ndarray but is {describe(got)}"
    elif got.shape != want.shape:
        problem, otherwise = f"{what} has shape {got.shape}; expected {want.shape}", shape_fact(got.shape, want.shape)
        hint = ("The docstring promises an array of the tensor's own shape: do not reshape, flatten or squeeze it "
                "on the way out (a dimension of size 1 stays).")
    elif got.dtype != want.dtype:
        problem = f"{what} has dtype {got.dtype}; expected {want.dtype} (the tensor's own)"
        otherwise = _array_dtype_fact(got.dtype, want.dtype)
        hint = ("The docstring promises the tensor's own dtype: no .float(), .double(), .astype(...) or dtype=... on "
                "the way out.")
    elif not np.allclose(got, want, rtol=EXERCISE.tolerance("float64"), atol=0, equal_nan=True):
        problem = f"{what} holds {got.tolist()}; expected {want.tolist()}"
    # float32 values widen to float64 exactly, so the right values in the wrong dtype compare equal.
    if (problem is not None and type(got) is np.ndarray and got.shape == want.shape and got.dtype == np.float64
            and want.dtype == np.float32 and np.array_equal(got, want, equal_nan=True)):
        mistake = FLOAT32_TO_FLOAT64
        fail(f"to_numpy: {problem}.", call=returned.call, got=repr(got)[:200], expected=repr(want)[:200],
             mistake=mistake)
    if problem is not None:
        fail(f"to_numpy: {problem}.", call=returned.call, got=repr(got)[:200], expected=repr(want)[:200],
             hint=hint, section=TRIANGLE, otherwise=otherwise)


@check
def test_to_numpy_values(student: Student, reference: ModuleType) -> None:
    t = lesson_losses()
    returned = student.call("to_numpy", t, return_args=True, shown_as=f"to_numpy(t) with {losses_text(t)}")
    expect_array(returned, reference.to_numpy(t))
    after = returned.args[0] if returned.args else None
    info = origin(after) if type(after) is torch.Tensor else None
    if info is not None and not info.requires_grad:
        mistake = REQUIRES_GRAD_TURNED_OFF
        fail("to_numpy switched off requires_grad on the tensor it was given.", call=returned.call,
             changed=f"t after the call: {describe(after)}, requires_grad=False", mistake=mistake)
    if argument_changed(t, after):  # the docstring's "t itself is left unchanged": its values and .grad too
        fail("to_numpy changed the tensor it was given.", call=returned.call, changed=f"t after the call: "
             f"{describe(after)}", expected=f"t unchanged: {describe(t)}", section=TRIANGLE,
             hint="Read t without writing to it: return t.detach().cpu().numpy().")


@check
def test_to_numpy_gpu_tensor(student: Student, reference: ModuleType) -> None:
    # The grader has no GPU: the worker's driver hands to_numpy a stand-in that says it lives on cuda:0 and, as a
    # CUDA tensor does, lets NumPy read it only once copied to the CPU (drivers.OnAnotherDevice).
    t = lesson_losses()
    shown = f"to_numpy(t) with {losses_text(t)}, t on a GPU (cuda:0)"
    returned = student.run(to_numpy_on_a_gpu, t, runs="to_numpy", allow_raise=True, shown_as=shown)
    if returned.error is not None:
        student.fail_raised(returned, "to_numpy")  # the missing copy is named by its TypeError
    expect_array(returned, reference.to_numpy(t))


# ---------------------------------------------------------------- hidden checks

@check
def test_predict_sgd_step_and_to_numpy_on_float64_other_shapes(student: Student, reference: ModuleType) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("random_inputs"))

    def draw(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    weight, bias, X = draw(2, 3), draw(2), draw(7, 3)
    shown = "predict(weight, bias, X) with float64 weight (2, 3), bias (2,) and X (7, 3)"
    returned = student.call("predict", weight, bias, X, shown_as=shown, allow_raise=True)
    error = returned.error
    if error is not None and multiplied_untransposed(error.message, weight, X):
        fail(f"predict raised {error.type}: X (7, 3) cannot be multiplied by weight (2, 3) as it is.", call=shown,
             got=f"{error.type}: {error.message}", expected="a tensor of shape (7, 2)",
             mistake=WEIGHT_NOT_TRANSPOSED)
    if error is not None:
        student.fail_raised(returned, "predict")
    expect_tensor(returned, reference.predict(weight, bias, X), **tolerance(X), requires_grad=None, section=TRIANGLE,
                  hint="X has shape (n, in_features) and weight (out_features, in_features): X @ weight.T + bias.")
    # Trained weights change in place between calls: the same tensor asked again after a step predicts with its
    # new values.
    step = torch.full_like(weight, 0.25)
    shown = "predict(weight, bias, X) with the same float64 tensors, asked again after weight += 0.25 in place"
    moved = student.run(predict_around_a_step, weight, bias, X, step, shown_as=shown)
    got = moved.value if type(moved.value) is dict else {}
    expect_tensor(Returned(shown, got.get("second")), reference.predict(weight + step, bias, X), **tolerance(X),
                  requires_grad=None, section=TRIANGLE,
                  hint="Read the weight's values at every call: they change in place as training steps.")

    values, grads = [draw(2, 3), draw(2), draw(4, 1, 2)], [draw(2, 3), draw(2), draw(4, 1, 2)]
    stepped, _ = _step(student, values, grads, 0.03, "sgd_step(params, lr=0.03) with three float64 parameters of "
                    "shapes (2, 3), (2,) and (4, 1, 2)")
    expect_updated(student, stepped, reference, values, grads, 0.03)

    # A size-1 dimension, which an array squeezed on the way out would lose.
    for t, text in ((draw(3, 1, 4).requires_grad_(True), "a float64 (3, 1, 4) tensor that requires grad"),
                    (torch.arange(6).reshape(2, 3), "t = torch.arange(6).reshape(2, 3), int64")):
        expect_array(student.call("to_numpy", t, shown_as=f"to_numpy(t) with {text}"), reference.to_numpy(t))
