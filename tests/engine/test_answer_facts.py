"""Facts about a wrong tensor told where nothing else names the mistake (graders/engine/answer_facts.py): each
says how the result stands to the expected one (which shapes, which dtypes, which order), is read from the two
values alone, and keeps the general mistake's name; an answer with other values is never called reordered."""

from __future__ import annotations

import pytest
import torch

import course_config

from graders.engine import single_edits
from graders.engine.answer_facts import dtype_fact, nan_fact, none_fact, order_fact, shape_fact
from graders.engine.expect import expect_tensor
from graders.engine.feedback import CheckFailed
from graders.engine.mistakes import DTYPE_DIFFERS, NAN_WHERE_FINITE, NOT_NONE_FOR_NONE, SHAPE_DIFFERS, VALUES_REORDERED
from graders.engine.student import Returned


@pytest.mark.parametrize("got, expected, words", [
    ((), (5,), "a single number (a 0-d tensor) where a 1-D tensor of 5 belongs"),
    ((3,), (3, 1), "a dimension of size 1 is missing"),
    ((3, 1), (3,), "a dimension of size 1 too many"),
    ((100, 100), (100,), "an n × n square where n values belong"),
    ((3, 4), (4, 3), "rows and columns swapped"),
    ((4,), (4, 3), "dimension 1 was reduced away"),
    ((4, 3, 2), (4, 2), "it has one dimension too many, dimension 1 of size 3"),
    ((2, 6), (4, 3), "the right number of elements, arranged in another shape"),
    ((7,), (4, 3), "Your result has shape (7,) where (4, 3) belongs."),
])
def test_a_shape_fact_says_how_the_shapes_differ_under_the_general_name(got, expected, words) -> None:
    fact = shape_fact(torch.Size(got), torch.Size(expected))
    assert fact.name == SHAPE_DIFFERS.name and fact.concept == SHAPE_DIFFERS.concept
    assert words in fact.explanation, fact.explanation


@pytest.mark.parametrize("got, expected", [((), (5,)), ((3,), (3, 1)), ((3, 1), (3,)), ((100, 100), (100,)),
                                            ((3, 4), (4, 3)), ((4,), (4, 3)), ((4, 3, 2), (4, 2)), ((2, 6), (4, 3))])
def test_a_shape_fact_tells_its_kind_without_either_shape_for_a_hidden_check(got, expected) -> None:
    fact = shape_fact(torch.Size(got), torch.Size(expected))
    unvalued = fact.without_values
    assert unvalued and unvalued != SHAPE_DIFFERS.explanation
    assert not any(str(size) in unvalued for size in (*got, *expected) if size > 1), unvalued
    assert str(tuple(got)) not in unvalued and str(tuple(expected)) not in unvalued
    # The kind is the same as the one the full message gives.
    assert unvalued.split(": ", 1)[1].split(" (")[0].split(",")[0] in fact.explanation


def test_a_shape_fact_of_no_known_kind_leaves_the_catalogue_words_to_a_hidden_check() -> None:
    assert shape_fact(torch.Size((7,)), torch.Size((4, 3))).without_values == ""


@pytest.mark.parametrize("got, expected, words", [
    (torch.float32, torch.float64, "float32 where float64 belongs: a tensor made on the way with torch's default"),
    (torch.float64, torch.float32, "float64 where float32 belongs: float64 came in on the way, NumPy's default"),
    (torch.int64, torch.float32, "whole numbers where floats belong"),
    (torch.float32, torch.int64, "floats where whole numbers belong"),
    (torch.int32, torch.int64, "another integer type"),
    (torch.float16, torch.float64, "the checks compare dtypes as well as values"),
])
def test_a_dtype_fact_names_both_dtypes_and_the_steps_that_give_the_one_found(got, expected, words) -> None:
    fact = dtype_fact(got, expected)
    assert fact.name == DTYPE_DIFFERS.name and words in fact.explanation, fact.explanation


def test_the_right_values_in_another_order_are_told_which_order() -> None:
    grid = torch.arange(12.0).reshape(3, 4)
    filled_by_columns = torch.arange(12.0).reshape(4, 3).T
    assert "filled column by column" in order_fact(filled_by_columns, grid).explanation
    flat = grid.reshape(-1)
    assert "listed column by column (as of a 3 × 4 grid)" in order_fact(grid.T.reshape(-1), flat).explanation
    assert "reversed" in order_fact(flat.flip(0), flat).explanation
    shuffled = flat[torch.tensor([1, 0, *range(2, 12)])]
    fact = order_fact(shuffled, flat)
    assert fact.name == VALUES_REORDERED.name and fact.explanation.endswith("sort and index on the way.")


@pytest.mark.parametrize("got", [
    torch.arange(12.0) + 1,  # other values
    torch.arange(12.0),  # the same (not wrong at all)
    torch.arange(12.0).to(torch.float64),  # another dtype: the dtype fact's, not this one's
    torch.arange(12.0).reshape(3, 4),  # another shape
    torch.tensor([0.0] * 12),  # one value repeated: not a reordering
])
def test_values_that_are_not_the_expected_ones_reordered_are_never_called_so(got) -> None:
    assert order_fact(got, torch.arange(12.0)) is None


def test_expect_tensor_names_the_fact_only_where_nothing_else_does() -> None:
    expected = torch.arange(6.0).reshape(2, 3)
    with pytest.raises(CheckFailed) as failed:
        expect_tensor(Returned("as_grid(x, 2)", torch.arange(6.0).reshape(3, 2).T), expected, rtol=0, atol=0,
                      section="Views", requires_grad=None)
    feedback = failed.value.feedback
    assert feedback.mistake == VALUES_REORDERED.name and "filled column by column" in feedback.meaning
    with pytest.raises(CheckFailed) as failed:
        expect_tensor(Returned("f(x)", torch.zeros(2, 3, dtype=torch.int64)), expected, rtol=0, atol=0,
                      section="Tensors", hint="The check's own hint.")
    feedback = failed.value.feedback
    assert feedback.mistake == DTYPE_DIFFERS.name and "int64 where float32 belongs" in feedback.meaning
    assert feedback.hint == "The check's own hint."


@pytest.mark.parametrize("factor, words", [
    (100.0, "times 100, everywhere: a sum of 100 values where their mean belongs"),
    (0.5, "divided by 2, everywhere: a mean of 2 values where their sum belongs"),
    (-1.0, "every sign flipped"),
    (1.25, "times 1.25, everywhere: one factor of the formula is off"),
])
def test_the_right_result_times_one_factor_is_told_which_factor(factor: float, words: str) -> None:
    from graders.engine.answer_facts import scale_fact
    from graders.engine.mistakes import SCALED_RESULT

    expected = torch.tensor([[1.0, -2.0], [0.0, 4.0]])
    fact = scale_fact(expected * factor, expected)
    assert fact is not None and fact.name == SCALED_RESULT.name and words in fact.explanation, fact


@pytest.mark.parametrize("got, expected", [
    (torch.tensor([2.0, 4.0, 7.0]), torch.tensor([1.0, 2.0, 3.0])),  # no one factor
    (torch.tensor([2.0, 4.0, 1.0]), torch.tensor([1.0, 2.0, 0.0])),  # a value where the expected one is 0
    (torch.tensor([2.0]), torch.tensor([1.0])),  # one value: any wrong number is some multiple of the right one
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])),  # the same
    (torch.tensor([2.0, 4.0], dtype=torch.float64), torch.tensor([1.0, 2.0])),  # another dtype: its own fact
    (torch.tensor([float("inf"), 2.0]), torch.tensor([1.0, 1.0])),
])
def test_a_result_that_is_not_the_right_one_times_one_factor_is_never_called_so(got, expected) -> None:
    from graders.engine.answer_facts import scale_fact

    assert scale_fact(got, expected) is None


def test_nan_where_the_right_result_is_a_number_is_told_where_and_why() -> None:
    many = nan_fact(torch.tensor([0.5, float("nan"), float("nan")]), torch.tensor([0.5, 0.0, 0.0]))
    assert many is not None and many.name == NAN_WHERE_FINITE.name
    assert "nan in 2 of 3 places where the right one is a number, each where the right one is 0: a 0/0" in \
        many.explanation, many.explanation
    one = nan_fact(float("nan"), 0.0)  # a Python float, as relative_error returns
    assert one is not None and "Your result is nan where the right one is 0: a 0/0" in one.explanation
    other = nan_fact(torch.tensor([float("nan")]), torch.tensor([2.0]))
    assert other is not None and "inf − inf" in other.explanation and "0/0 there" not in other.explanation


@pytest.mark.parametrize("got, expected", [
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0])),  # wrong, but no nan
    (torch.tensor([float("nan")]), torch.tensor([float("nan")])),  # nan where nan belongs
    (torch.tensor([float("nan"), 1.0]), torch.tensor([1.0])),  # another shape: the shape fact's to tell
    (float("nan"), float("inf")),
    ("nan", 0.0),
])
def test_no_nan_fact_where_no_nan_stands_for_a_number(got, expected) -> None:
    assert nan_fact(got, expected) is None


def test_a_relative_error_without_its_floor_is_told_it_divides_zero_by_zero(grade) -> None:
    # A check of a Python number (expect_number) tells it too.
    reference = single_edits.reference_path(course_config.LESSON_01.folder, "finite_differences").read_text()
    source = reference.replace("(a.abs() + b.abs()).clamp(min=1e-8)", "a.abs() + b.abs()")
    assert source != reference
    check = grade({"finite_differences": source}, "--no-expected-cache").checks(
        "finite_differences")["relative_error_on_fixed_cases"]
    assert check["mistake"] == "nan where a number belongs", check["message"]
    assert "a 0/0 there" in check["message"], check["message"]


@pytest.mark.parametrize("got", [-1, 0, False, "", [], float("inf"), float("nan")])
def test_a_stand_in_for_none_is_told_as_such(got) -> None:
    fact = none_fact(got, None)
    assert fact is not None and fact.name == NOT_NONE_FOR_NONE.name
    assert f"returns {got!r} where the docstring asks for None" in fact.explanation


@pytest.mark.parametrize("got, expected", [(3, None), (None, None), (-1, 4), ([0], None), (True, None)])
def test_an_answer_that_is_no_stand_in_for_none_is_not_called_one(got, expected) -> None:
    assert none_fact(got, expected) is None


def test_steps_to_reach_with_minus_one_for_none_is_told_so(grade) -> None:
    reference = single_edits.reference_path(course_config.LESSON_01.folder, "learning_rate").read_text()
    source = reference.replace("if loss < target), None)", "if loss < target), -1)")
    assert source != reference
    checks = grade({"learning_rate": source}, "--no-expected-cache").checks("learning_rate")
    failed = [c for c in checks.values() if not c["passed"]]
    assert failed and all(c["mistake"] == NOT_NONE_FOR_NONE.name for c in failed), [c["message"] for c in failed]


def test_places_left_at_zero_at_one_end_are_told_which_and_nothing_else_is() -> None:
    from graders.engine.answer_facts import unfilled_fact
    from graders.engine.mistakes import PLACES_LEFT_UNFILLED

    expected = torch.tensor([0.5, -1.0, 2.0, 3.0], dtype=torch.float64)
    last = unfilled_fact(torch.tensor([0.5, -1.0, 2.0, 0.0], dtype=torch.float64), expected)
    assert last is not None and last.name == PLACES_LEFT_UNFILLED.name and last.measured == ("last",)
    assert "the last index, 3," in last.explanation and "3" not in last.without_values.replace("range", "")
    first = unfilled_fact(torch.tensor([[0.0, 0.0], [2.0, 3.0]]), torch.tensor([[1.0, 1.0], [2.0, 3.0]]))
    assert first is not None and first.measured == ("first",) and "range(1, n)" in first.explanation
    assert unfilled_fact(torch.tensor([0.5, 0.0, 2.0, 3.0]), expected.float()) is None  # a place in the middle
    assert unfilled_fact(torch.tensor([0.5, -1.0, 2.0, 7.0]), expected.float()) is None  # wrong, but not left at 0
    assert unfilled_fact(torch.zeros(4), expected.float()) is None  # nothing right: no place was filled at all
    assert unfilled_fact(expected, expected) is None
    assert unfilled_fact(torch.zeros(3), torch.tensor([0.0, 1.0, 2.0])) is None  # zeros, right where 0 is
