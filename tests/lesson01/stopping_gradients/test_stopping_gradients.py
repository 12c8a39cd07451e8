"""The stopping_gradients checks' twin inputs are of the lesson's kind, and their messages
show exactly what was passed."""

from __future__ import annotations

from types import SimpleNamespace

import torch
from torch import tensor  # noqa: F401  (the messages' tensor(...) is evaluated below)

from graders.engine.fresh import twin_run
from graders.lesson01.stopping_gradients import checks
from reference.lesson01 import stopping_gradients as reference


def _shown(text: str) -> torch.Tensor:
    return eval(text)


def test_the_published_inputs_are_shown_as_before() -> None:
    weight, bias, X = checks.lesson_line()
    assert checks.line_text(weight, bias, X) == checks.LINE_TEXT
    assert checks.step_text(*checks.lesson_step()) == checks.STEP_CALL
    assert checks.losses_text(checks.lesson_losses()) == checks.LOSSES_TEXT


def test_twin_inputs_are_the_lessons_kind_and_shown_as_they_are() -> None:
    for seed in range(20):
        with twin_run(seed):
            weight, bias, X = checks.lesson_line(requires_grad=True)
            values, grads, lr = checks.lesson_step()
            t = checks.lesson_losses()
            line, step, losses = (checks.line_text(weight, bias, X), checks.step_text(values, grads, lr),
                                  checks.losses_text(t))
        assert (weight.shape, bias.shape, X.shape) == ((1, 1), (1,), (5, 1))
        assert weight.requires_grad and bias.requires_grad and not X.requires_grad
        assert 2 <= weight.item() <= 4 and -3 <= bias.item() <= -1 and (X.abs() <= 2).all()
        assert torch.equal(X[:, 0], X[:, 0].sort().values)
        shown_weight, rest = line.removeprefix("weight = ").split(", bias = ")
        shown_bias, shown_X = rest.split(", X = ")
        assert torch.equal(_shown(shown_weight), weight.detach()) and torch.equal(_shown(shown_bias), bias.detach())
        assert torch.equal(_shown(shown_X), X)

        assert [v.shape for v in values] == [g.shape for g in grads] == [(1,), (1,)]
        assert 0 <= values[0].item() <= 3 and -2 <= values[1].item() <= 0 and 0.05 <= lr <= 0.2
        assert all(0.5 <= abs(g.item()) <= 8 for g in grads)  # every parameter moves: a rebound shows
        names = ("w", "b", "w.grad", "b.grad")
        assert step.startswith(f"sgd_step([w, b], lr={lr}) with ")
        assert all(f"{name} = tensor({checks._values(v)})" in step for name, v in zip(names, values + grads))
        assert all(torch.equal(_shown(f"tensor({checks._values(v)})"), v) for v in values + grads)

        assert t.shape == (3,) and t.requires_grad and 5 <= t[0].item() <= 20
        assert (0.05 <= t[1:]).all() and (t[1:] <= 0.1).all() and t[1] >= t[2]
        assert torch.equal(_shown(losses.removeprefix("t = ")), t)


def _rebound(params: list[torch.Tensor], lr: float) -> None:
    with torch.no_grad():
        for p in params:
            p = p - lr * p.grad  # the mistake: a new tensor, the parameter untouched
    for p in params:
        p.grad.zero_()


def _zeroed_first(params: list[torch.Tensor], lr: float) -> None:
    with torch.no_grad():
        for p in params:
            p.grad.zero_()
            p -= lr * p.grad


def test_an_in_place_update_is_told_from_a_rebinding_one() -> None:
    # Both leave the values as they were and the grads at zero; only the in-place one moves the version counter.
    values, grads, lr = checks.lesson_step()
    assert checks.changed_in_place(reference, values, grads, lr) == [True, True]
    assert checks.changed_in_place(SimpleNamespace(sgd_step=_zeroed_first), values, grads, lr) == [True, True]
    assert checks.changed_in_place(SimpleNamespace(sgd_step=_rebound), values, grads, lr) == [False, False]


def test_an_sgd_step_that_returns_its_parameters_costs_only_the_in_place_check(grade) -> None:
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "stopping_gradients.py").read_text()
    update = "            p.grad.zero_()\n"
    assert source.count(update) == 1
    graded = grade({"stopping_gradients": source.replace(update, update + "    return params\n")},
                   "-k", "stopping_gradients")
    assert graded.failed("stopping_gradients") == {"sgd_step_updates_in_place"}, graded.output
    message = graded.checks("stopping_gradients")["sgd_step_updates_in_place"]["message"]
    assert "sgd_step returned a list; it changes the parameters in place and returns None." in message, message


def test_only_x_times_the_weight_as_given_is_taken_for_a_missing_transpose() -> None:
    import pytest

    X, weight = torch.zeros(7, 3, dtype=torch.float64), torch.zeros(2, 3, dtype=torch.float64)
    products = {"X @ weight": lambda: X @ weight, "weight @ X": lambda: weight @ X,
                "X.T @ weight.T": lambda: X.T @ weight.T, "torch.mm(X, weight)": lambda: torch.mm(X, weight)}
    messages = {}
    for text, product in products.items():
        with pytest.raises(RuntimeError) as raised:
            product()
        messages[text] = str(raised.value)
    named = {text for text, message in messages.items() if checks.multiplied_untransposed(message, weight, X)}
    assert named == {"X @ weight", "torch.mm(X, weight)"}, messages


def test_a_to_numpy_that_changes_t_in_place_costs_its_values_check(grade) -> None:
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "stopping_gradients.py").read_text()
    body = "    return t.detach().cpu().numpy()\n"
    assert source.count(body) == 1
    doubled = "    out = t.detach().cpu().numpy().copy()\n    with torch.no_grad():\n        t.mul_(2)\n    return out\n"
    graded = grade({"stopping_gradients": source.replace(body, doubled)}, "-k", "stopping_gradients")
    assert "to_numpy_values" in graded.failed("stopping_gradients"), graded.output
    message = graded.checks("stopping_gradients")["to_numpy_values"]["message"]
    assert "to_numpy changed the tensor it was given." in message, message


def test_right_answers_written_another_way_score_full_marks(grade) -> None:
    from mistake_catalogue import submission

    graded = grade({"stopping_gradients": submission("stopping_gradients", "correct_grad_disabled")}, "-k", "stopping_gradients")
    assert graded.failed("stopping_gradients") == set(), graded.output


def test_an_array_squeezed_on_the_way_out_loses_a_hidden_point_with_a_hint_on_shape(grade) -> None:
    import course_config

    source = (course_config.ROOT / "reference" / "lesson01" / "stopping_gradients.py").read_text()
    old = "    return t.detach().cpu().numpy()"
    assert old in source
    graded = grade({"stopping_gradients": source.replace(old, old + ".squeeze()")}, "-k", "stopping_gradients")
    assert graded.failed("stopping_gradients") == {"predict_sgd_step_and_to_numpy_on_float64_other_shapes"}, graded.output
    message = graded.checks("stopping_gradients")["predict_sgd_step_and_to_numpy_on_float64_other_shapes"]["message"]
    assert "has shape (3, 4); expected (3, 1, 4)" in message and "squeeze" in message, message


# How students write to_numpy, and whether each form works on a real GPU tensor (by what torch does with CUDA).
GPU_FORMS = {
    "t.detach().cpu().numpy()": (lambda t: t.detach().cpu().numpy(), True),
    "t.cpu().detach().numpy()": (lambda t: t.cpu().detach().numpy(), True),
    't.detach().to("cpu").numpy()': (lambda t: t.detach().to("cpu").numpy(), True),
    "t.detach().to(device=torch.device('cpu')).numpy()": (
        lambda t: t.detach().to(device=torch.device("cpu")).numpy(), True),
    "t.numpy(force=True)": (lambda t: t.numpy(force=True), True),
    "a .cpu() only where t.device is not the CPU": (
        lambda t: (t.detach().cpu() if t.device.type != "cpu" else t.detach()).numpy(), True),
    "a .cpu() only where t.is_cuda": (lambda t: (t.detach().cpu() if t.is_cuda else t.detach()).numpy(), True),
    "t.detach().numpy()": (lambda t: t.detach().numpy(), False),
    "np.array(t.detach())": (lambda t: __import__("numpy").array(t.detach()), False),
}


def test_the_gpu_stand_in_lets_numpy_read_only_what_was_copied_to_the_cpu() -> None:
    import warnings

    from graders.lesson01.stopping_gradients.drivers import NOT_ON_THE_CPU, to_numpy_on_a_gpu

    t = torch.tensor([15.4288, 0.0606, 0.0597], requires_grad=True)
    for form, (to_numpy, works_on_a_gpu) in GPU_FORMS.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2's note on torch's __array__
                got = to_numpy_on_a_gpu(SimpleNamespace(to_numpy=to_numpy), t)
        except TypeError as error:
            assert not works_on_a_gpu and str(error) == NOT_ON_THE_CPU, form
        else:
            assert works_on_a_gpu and type(got).__name__ == "ndarray" and got.tolist() == t.tolist(), form


def test_a_to_numpy_for_cpu_tensors_only_is_named_on_the_gpu_check_alone(grade) -> None:
    from mistake_catalogue import submission

    graded = grade({"stopping_gradients": submission("stopping_gradients", "numpy_without_cpu")},
                   "-k", "stopping_gradients")
    assert graded.failed("stopping_gradients") == {"to_numpy_gpu_tensor"}, graded.output
    message = graded.checks("stopping_gradients")["to_numpy_gpu_tensor"]["message"]
    assert "t on a GPU (cuda:0)" in message and ".cpu()" in message, message
