"""The assertions checks are written with (graders/engine/expect.py): a right value passes; a wrong one fails with
the call, what it gave and what was expected; and where a wrong variant or a known multiple of the gradient explains
the difference, the failure names that mistake instead of giving the check's own hint."""

from __future__ import annotations

import pytest
import torch

from graders.engine.expect import expect_float_not_tensor, expect_number, expect_tensor, fail_with_mistake
from graders.engine.feedback import CheckFailed, Feedback
from graders.engine.mistakes import Mistake, Suspect
from graders.engine.student import Returned

SUMMED = Mistake("sum instead of mean", "It adds the losses up instead of averaging them.", "Use .mean().",
                 "Loss functions")
TWICE = Mistake("gradients never zeroed", "The gradient of two passes was added up.", "Zero the gradient.",
                "Autograd")
ITEM = Mistake("a tensor, not a float", "It returns the tensor itself.", "Call .item().", "Tensors")
TOLERANCES = dict(rtol=1e-5, atol=1e-8)


def _failure(check, *args, **kwargs) -> Feedback:
    with pytest.raises(CheckFailed) as failed:
        check(*args, **kwargs)
    return failed.value.feedback


def test_a_right_tensor_passes_and_a_wrong_one_fails_with_the_call_and_both_values() -> None:
    expected = torch.tensor([1.0, 2.0])
    expect_tensor(Returned("loss(x)", torch.tensor([1.0, 2.0])), expected, section="Tensors", **TOLERANCES)
    feedback = _failure(expect_tensor, Returned("loss(x)", torch.tensor([1.0, 3.0])), expected, section="Tensors",
                        hint="Check the second element.", **TOLERANCES)
    assert feedback.summary.startswith("loss: ") and feedback.call == "loss(x)"
    assert feedback.got.endswith("[1, 3]") and feedback.expected.endswith("[1, 2]")
    assert feedback.hint == "Check the second element." and feedback.section == "Tensors" and feedback.mistake is None


def test_a_wrong_tensor_a_suspect_explains_names_that_mistake() -> None:
    got = torch.tensor([4.0, 6.0])
    feedback = _failure(expect_tensor, Returned("loss(x)", got), torch.tensor([2.0, 3.0]), section="Losses",
                        suspects=[Suspect(SUMMED, torch.tensor([4.0, 6.0]))], **TOLERANCES)
    assert feedback.mistake == "sum instead of mean" and feedback.hint == "Use .mean()."


def test_a_gradient_twice_the_right_one_is_named_by_its_scale() -> None:
    right = torch.tensor([0.5, -1.5, 2.0])
    feedback = _failure(expect_tensor, Returned("grad(w)", right * 2), right, section="Autograd",
                        scaled={2.0: TWICE}, **TOLERANCES)
    assert feedback.mistake == "gradients never zeroed"


def test_a_number_is_compared_within_its_tolerance_and_a_suspect_names_a_wrong_one() -> None:
    expect_number(Returned("mean(x)", 2.0000001), 2.0, section="Numbers", rtol=1e-6, atol=0.0)
    feedback = _failure(expect_number, Returned("mean(x)", 6.0), 2.0, section="Numbers", rtol=1e-6, atol=0.0,
                        suspects=[Suspect(SUMMED, 6)])
    assert feedback.mistake == "sum instead of mean" and feedback.call == "mean(x)"


def test_the_right_number_in_a_tensor_fails_as_a_missing_item_and_anything_else_is_left_alone() -> None:
    feedback = _failure(expect_float_not_tensor, Returned("mean(x)", torch.tensor(2.0)), 2.0, ITEM,
                        wanted="2.0 (a float)", **TOLERANCES)
    assert feedback.summary == "mean: the result is right, but it is a tensor, not a Python float."
    assert feedback.mistake == "a tensor, not a float" and feedback.expected == "2.0 (a float)"
    expect_float_not_tensor(Returned("mean(x)", torch.tensor(5.0)), 2.0, ITEM, wanted="2.0", **TOLERANCES)
    expect_float_not_tensor(Returned("mean(x)", 2.0), 2.0, ITEM, wanted="2.0", **TOLERANCES)


def test_a_mistake_the_check_recognised_itself_fails_naming_it() -> None:
    feedback = _failure(fail_with_mistake, Returned("fit(x)", [1]), "fit: the steps were skipped.", SUMMED, got=[1])
    assert feedback.summary == "fit: the steps were skipped." and feedback.mistake == "sum instead of mean"
    assert feedback.got == "[1]"
