"""How graders/engine/compare.py compares, where the expected value is infinite: rtol x inf is an infinite tolerance, so a comparison
within `atol + rtol * |expected|` took any finite number (even -inf) for +inf. Only an equal answer may match
an infinite expected value; nan matches nan; everything finite is compared as before."""

from __future__ import annotations

import math

import pytest
import torch

from graders.engine.compare import close, number_problem, values_problem

INF = math.inf


@pytest.mark.parametrize("got", [1e300, 0.0, -INF, 10**400])
def test_a_number_that_is_not_the_expected_infinity_fails(got: float) -> None:
    problem = number_problem(got, INF, rtol=1e-6, atol=1e-6, what="the loss")
    assert problem is not None and problem.startswith("the loss is ") and problem.endswith("expected inf"), problem


def test_the_expected_infinity_itself_passes_and_finite_values_are_judged_as_before() -> None:
    assert number_problem(INF, INF, rtol=1e-6, atol=1e-6) is None
    assert number_problem(-INF, -INF, rtol=1e-6, atol=1e-6) is None
    assert number_problem(float("nan"), float("nan"), rtol=1e-6, atol=1e-6) is None
    assert number_problem(2.0 + 1e-7, 2.0, rtol=1e-6, atol=1e-6) is None
    assert number_problem(2.1, 2.0, rtol=1e-6, atol=1e-6) == "the result is 2.1; expected 2"
    assert number_problem(INF, 2.0, rtol=1e-6, atol=1e-6) == "the result is inf; expected 2"
    assert number_problem(12.5, 0.0, rtol=0, atol=INF) is None, "atol=inf still takes any finite number"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_tensor_with_a_finite_value_where_inf_is_expected_fails(dtype: torch.dtype) -> None:
    expected = torch.tensor([1.0, INF, -INF], dtype=dtype)
    for wrong in ([1.0, 3e38, -INF], [1.0, INF, -3e38], [1.0, -INF, INF]):
        problem = values_problem(torch.tensor(wrong, dtype=dtype), expected, rtol=1e-5, atol=1e-8)
        assert problem is not None and "differs from the expected values" in problem, (wrong, problem)
    assert values_problem(expected.clone(), expected, rtol=1e-5, atol=1e-8) is None
    assert values_problem(torch.tensor([1.0 + 1e-7, INF, -INF], dtype=dtype), expected, rtol=1e-5, atol=1e-8) is None


def test_close_is_the_one_rule_for_plain_numbers() -> None:
    assert close(INF, INF, rtol=1e-3, atol=0) and not close(1e308, INF, rtol=1e-3, atol=0)
    assert not close(10**400, 1.0, rtol=1e-3, atol=1e-3), "an int too large for a float is far from any number"
    assert close(float("nan"), float("nan"), rtol=0, atol=0) and not close(0.0, float("nan"), rtol=0, atol=INF)
