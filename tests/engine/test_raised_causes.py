"""Errors whose cause the student's source shows (graders/engine/raised_causes.py, and the two mistakes of
graders/engine/mistakes.py that use it): named where the code has the construct that makes the error, and only
there; the same error from another cause keeps the general hint."""

from __future__ import annotations

import course_config
from graders.engine import single_edits
from graders.engine.mistakes import (FLOAT_FOR_WHOLE, FLOAT_OVERFLOW, FORWARD_UNDER_NO_GRAD, TRACKED_TO_NUMPY,
                                     UNPACKED_PARAMETERS, contradiction)
from graders.engine.raised_causes import (backward_of_unrecorded, divides, exponentiates_floats,
                                          rebuilds_from_numbers, unpacks_a_tracked_tensor)

LESSON = course_config.LESSON_01.folder
UNRECORDED_LOSS = ("        with torch.no_grad():\n            pred = model(X)\n            loss = loss_fn(pred, y)\n"
                   "        loss.backward()\n")
RECORDED_LOSS = "        pred = model(X)\n        loss = loss_fn(pred, y)\n        loss.backward()\n"


def _source(slug: str) -> str:
    return single_edits.reference_path(LESSON, slug).read_text(encoding="utf-8")


def test_a_true_division_is_seen_where_it_is_written() -> None:
    assert divides("def f(x):\n    return x.view(2, len(x) / 2)\n")
    assert divides("def f(n):\n    n /= 2\n    return n\n")
    assert not divides("def f(x):\n    return x.view(2, len(x) // 2)\n")
    assert not divides("def f(:\n")


def test_a_backward_of_a_value_computed_under_no_grad_is_seen_and_nothing_else() -> None:
    unrecorded = "import torch\ndef f(w):\n    with torch.no_grad():\n        loss = (w * 2).sum()\n    loss.backward()\n"
    assert backward_of_unrecorded(unrecorded)
    inside = "import torch\ndef f(w):\n    with torch.inference_mode():\n        (w * 2).sum().backward()\n"
    assert backward_of_unrecorded(inside)
    # Computed again outside the block before backward(): the grader does not follow which one runs last.
    again = unrecorded.replace("    loss.backward()", "    loss = (w * 3).sum()\n    loss.backward()")
    assert not backward_of_unrecorded(again)
    assert not backward_of_unrecorded("def f(w):\n    loss = w.detach().sum()\n    loss.backward()\n")
    assert not backward_of_unrecorded("def f(:\n")


def test_a_size_divided_with_a_slash_is_named_a_float_where_a_whole_number_belongs(grade) -> None:
    source = _source("views").replace("    return x.view(rows, -1)\n", "    return x.view(rows, len(x) / rows)\n")
    assert source != _source("views")
    checks = grade({"views": source}, "--no-expected-cache").checks("views")
    failed = [c for c in checks.values() if not c["passed"] and not c["same_cause_as"]]
    assert failed and failed[0]["mistake"] == FLOAT_FOR_WHOLE.name, [c["message"] for c in failed]
    assert "Use //" in failed[0]["message"]


def test_a_loss_computed_under_no_grad_is_named_and_a_detached_one_is_not(grade) -> None:
    reference = _source("linear_module")
    assert RECORDED_LOSS in reference
    unrecorded = grade({"linear_module": reference.replace(RECORDED_LOSS, UNRECORDED_LOSS)}, "--no-expected-cache")
    named = {c["mistake"] for c in unrecorded.checks("linear_module").values() if not c["passed"]}
    assert named == {FORWARD_UNDER_NO_GRAD.name}, named
    # The same RuntimeError from a detach: not this cause, so not this name (the error's own hint is told).
    detached = reference.replace("        loss = loss_fn(pred, y)\n", "        loss = loss_fn(pred, y).detach()\n")
    assert detached != reference
    checks = grade({"linear_module": detached}, "--no-expected-cache").checks("linear_module")
    failed = [c for c in checks.values() if not c["passed"]]
    assert failed and all(c["mistake"] != FORWARD_UNDER_NO_GRAD.name for c in failed), [c["message"] for c in failed]
    assert any("does not require grad" in c["message"] for c in failed)


def test_an_exponential_or_power_of_floats_is_seen_and_an_overflow_is_named_only_then() -> None:
    assert exponentiates_floats("import math\ndef f(x):\n    return math.exp(2 * x)\n")
    assert exponentiates_floats("def f(x):\n    return x ** 400\n")
    assert not exponentiates_floats("import math\ndef f(x):\n    return math.tanh(x)\n")
    assert not exponentiates_floats("def f(:\n")  # does not parse: shows nothing
    assert FLOAT_OVERFLOW.matches_error("OverflowError", "math range error")
    assert FLOAT_OVERFLOW.matches_error("OverflowError", "(34, 'Numerical result out of range')")
    assert not FLOAT_OVERFLOW.matches_error("OverflowError", "int too large to convert to float")


def test_parameters_unpacked_from_a_tracked_tensor_are_seen_and_a_none_grad_is_named_only_then() -> None:
    assert unpacks_a_tracked_tensor("import torch\na, b = torch.zeros(2, requires_grad=True)\n")
    assert unpacks_a_tracked_tensor("import torch\n[a, b] = torch.ones(2, 1).requires_grad_()\n")
    assert not unpacks_a_tracked_tensor("import torch\na, b = torch.zeros(2), torch.zeros(2)\n")
    assert not unpacks_a_tracked_tensor("import torch\na, b = torch.zeros(2, requires_grad=False)\n")
    assert not unpacks_a_tracked_tensor("import torch\nw = torch.zeros(2, requires_grad=True)\n")
    assert UNPACKED_PARAMETERS.matches_error("TypeError", "unsupported operand type(s) for *: 'float' and 'NoneType'")
    assert not UNPACKED_PARAMETERS.matches_error("TypeError", "'NoneType' object is not subscriptable")


def test_numpy_of_a_tracked_tensor_is_named_only_where_the_code_calls_numpy() -> None:
    import types

    from graders.engine.source_evidence import SourceEvidence

    def student(source: str) -> types.SimpleNamespace:
        return types.SimpleNamespace(evidence=SourceEvidence(source))

    assert TRACKED_TO_NUMPY.matches_error("RuntimeError", "Can't call numpy() on Tensor that requires grad. Use "
                                                          "tensor.detach().numpy() instead.")
    assert not contradiction(TRACKED_TO_NUMPY, student("def f(w):\n    return w.numpy()\n"))
    assert contradiction(TRACKED_TO_NUMPY, student("import numpy as np\ndef f(w):\n    return np.asarray(w)\n"))


def test_a_tensor_rebuilt_from_numbers_is_seen_only_where_one_function_does_both() -> None:
    assert rebuilds_from_numbers("import torch\ndef f(x):\n    return torch.tensor([v.item() for v in x])\n")
    assert rebuilds_from_numbers("import math, torch\ndef f(x):\n    return torch.as_tensor([math.sin(v) for v in x])\n")
    assert rebuilds_from_numbers("import torch\ndef f(x):\n    a = x.numpy()\n    return torch.from_numpy(a * 2)\n")
    # Numbers out in one function, a tensor made in another: not one round trip.
    assert not rebuilds_from_numbers("import torch\ndef f(x):\n    return x.item()\n"
                                     "def g(n):\n    return torch.tensor(n)\n")
    assert not rebuilds_from_numbers("import torch\ndef f(x):\n    return torch.sin(x) * torch.exp(-x)\n")
    assert not rebuilds_from_numbers("def f(:\n")  # does not parse: shows nothing


def test_a_division_by_zero_is_named_only_for_code_that_divides() -> None:
    from graders.engine.mistakes import DIVIDED_BY_ZERO

    assert DIVIDED_BY_ZERO.matches_error("ZeroDivisionError", "float division by zero")
    assert not DIVIDED_BY_ZERO.matches_error("RuntimeError", "division by zero")
    import types

    from graders.engine.source_evidence import SourceEvidence

    def student(source: str) -> types.SimpleNamespace:
        return types.SimpleNamespace(evidence=SourceEvidence(source))

    assert contradiction(DIVIDED_BY_ZERO, student("def f(x):\n    return x // 0\n"))  # no true division
    assert not contradiction(DIVIDED_BY_ZERO, student("def f(x, n):\n    return n * x ** n / x\n"))
