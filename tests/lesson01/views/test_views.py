"""The views checks rest on facts about torch's memory layout: which inputs are contiguous,
which flatten to a view anyway, what .view() raises, and where data_ptr and the storage
disagree. Each mistake is also named from recorded expected values."""

from __future__ import annotations

import re

import pytest
import torch

from conftest import ROOT, mistake_submissions
from graders.lesson01.views.drivers import apply
from graders.engine.fresh import twin_run
from graders.lesson01.views import checks, mistakes
from reference.lesson01 import views as reference

SLUG = "views"
REFERENCE = ROOT / "reference" / "lesson01" / f"{SLUG}.py"
MISTAKES = [s for s in mistake_submissions() if s.slug == SLUG]
# The mistakes some public check names: a recording holds published values only, so these are the ones a student's
# copy of the checks can name (the others show in a hidden check alone, as tests/test_mistakes.py proves).
PUBLIC_MISTAKES = [s for s in MISTAKES if any(not checks.EXERCISE.check(c).hidden for c in s.named)]
GRID = checks.LESSON_GRID


@pytest.mark.parametrize("layout", ["x", "x[2:]"])
def test_inputs_whose_result_must_be_a_view_are_contiguous(layout: str) -> None:
    assert checks.build((layout, (5, 3), "int32", 1)).is_contiguous()


@pytest.mark.parametrize("layout", ["x.T", "x[:, ::2]", "x[:, 1:3]", "x.permute(2, 0, 1)"])
def test_the_other_layouts_are_not_contiguous(layout: str) -> None:
    shape = (2, 3, 4) if layout.startswith("x.permute") else (4, 5)
    assert not checks.build((layout, shape, "float64", 1)).is_contiguous()


def test_every_other_column_flattens_to_a_view_so_non_contiguous_inputs_are_judged_on_values_only() -> None:
    x = checks.build(("x[:, ::2]", *GRID[1:]))
    flat = x.reshape(-1)
    assert not flat.is_contiguous() and flat.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    x.view(-1)  # no error either: the stride of 2 runs on across rows


def test_view_on_a_transposed_tensor_raises_the_error_the_mistake_matches() -> None:
    with pytest.raises(RuntimeError) as raised:
        checks.build(("x.T", *GRID[1:])).view(-1)
    assert re.search(mistakes.VIEW_ON_TRANSPOSED.error_pattern, str(raised.value))
    assert "Use .reshape(...) instead" in str(raised.value)


def test_contiguous_of_a_contiguous_tensor_is_the_tensor_itself_so_it_copies_nothing() -> None:
    x = checks.build(GRID)
    assert x.contiguous() is x


@pytest.mark.parametrize("pairs", [checks.LESSON_PAIRS, tuple(checks.PAIRS)], ids=["lesson", "all"])
def test_data_ptr_and_the_storage_disagree_only_on_slices_that_start_later(pairs: tuple) -> None:
    case = ("x", (12,), "int64", None)
    truth = [a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
             for a, b in checks.made_pairs(case, 3, pairs)]
    differs = [name for name, t, p in zip(pairs, truth, checks.data_ptr_answers(case, 3, pairs)) if t != p]
    assert differs and all("x[" in name for name in differs)
    assert True in truth and False in truth


@pytest.mark.parametrize("seed", range(10))
def test_a_twin_run_shuffles_the_lessons_numbers_and_keeps_each_pairs_relation(seed: int) -> None:
    lesson = dict(zip(checks.LESSON_PAIRS, checks.reference_answers(reference, *checks.lesson_pairs())))
    lesson[checks.EQUAL_VALUES] = lesson.pop(checks.ARANGE_PAIR)  # its twin: equal values, not shared
    with twin_run(seed):
        case, rows, pairs = checks.lesson_pairs()
        x, grid = checks.build(case), checks.build(checks.lesson_case(GRID))
        assert sorted(pairs) == sorted(lesson) and rows in (2, 3, 4, 6) and set(checks.grid_rows()) <= {2, 3, 4, 6}
        assert checks.reference_answers(reference, case, rows, pairs) == [lesson[name] for name in pairs]
    assert x.dtype == torch.int64 and sorted(x.tolist()) == list(range(12)) and x.tolist() != list(range(12))
    assert grid.dtype == torch.float32 and grid.shape == (3, 4) and grid.is_contiguous()
    first, second = checks.PAIR_MAKERS[checks.EQUAL_VALUES](rows)
    assert torch.equal(apply(x, first), apply(x, second))  # still a pair of merely equal values


@pytest.mark.parametrize("submission", PUBLIC_MISTAKES, ids=[s.name for s in PUBLIC_MISTAKES])
def test_each_mistake_is_named_from_recorded_expected_values_too(grade, tmp_path, submission) -> None:
    recorded = tmp_path / "expected.json"
    assert grade({SLUG: REFERENCE}, "--record-expected", str(recorded)).exit_code == 0
    graded = grade({SLUG: submission.text()}, "--replay-expected", str(recorded), "-k", "not hidden")
    checks_run = graded.checks(SLUG)
    public_failures = {c for c in submission.named if not checks_run.get(c, {}).get("hidden", True)}
    assert public_failures, "every mistake costs at least one public check"
    for check_id in public_failures:
        assert checks_run[check_id]["mistake"] == submission.mistake, checks_run[check_id]["message"]


def test_a_loop_in_as_grid_costs_only_its_own_checks(grade) -> None:
    # Every view check runs through a driver in the worker: the timeout belongs to as_grid, not to the driver.
    looping = REFERENCE.read_text() + "\n\ndef as_grid(x, rows):\n    while True:\n        pass\n"
    graded = grade({SLUG: looping}, "--call-timeout", "3", "-m", "not hidden")
    assert graded.failed(SLUG) == {"as_grid_is_a_view"}, graded.output
    assert graded.output.count("ran out of time") == 0 and graded.output.count("did not return within") == 1


def test_the_base_mistake_answers_true_on_some_lesson_pairs_so_it_is_not_any_all_false_answer() -> None:
    # A flat x is built without a reshape, so it has no ._base, as torch.arange(12) has none: x and x.view(3, -1)
    # then count as sharing under the ._base comparison too, and its answers are a pattern of their own.
    case, rows, pairs = checks.LESSON_FLAT, 3, checks.LESSON_PAIRS
    assert checks.build(case)._base is None
    answers = checks.base_answers(case, rows, pairs)
    assert True in answers and answers != checks.reference_answers(reference, case, rows, pairs)
    assert answers != checks.data_ptr_answers(case, rows, pairs)


NEVER_SHARING = REFERENCE.read_text().replace(
    "    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()\n", "    return False\n")


def test_a_shares_memory_that_always_says_false_is_not_called_a_base_comparison(grade) -> None:
    assert NEVER_SHARING != REFERENCE.read_text()
    graded = grade({SLUG: NEVER_SHARING}, "-k", "shares_memory_on_lesson_pairs")
    check = graded.checks(SLUG)["shares_memory_on_lesson_pairs"]
    assert not check["passed"] and check["mistake"] is None, check["message"]


@pytest.mark.parametrize("name", ["correct_reshape_and_flatten"])
def test_right_answers_written_another_way_score_full_marks(grade, name: str) -> None:
    from mistake_catalogue import submission

    graded = grade({SLUG: submission(SLUG, name)}, "-k", SLUG)
    assert graded.failed(SLUG) == set(), graded.output


def test_a_storage_test_that_reads_one_arguments_data_ptr_fails_with_the_slice_first(grade) -> None:
    # a.data_ptr() against b's storage is right while the slice comes second, wrong once it comes first.
    source = (ROOT / "reference/lesson01/views.py").read_text()
    right = "    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()\n"
    assert source.count(right) == 1
    graded = grade({SLUG: source.replace(right, "    return a.data_ptr() == b.untyped_storage().data_ptr()\n")},
                   "-k", SLUG)
    assert graded.failed(SLUG) == {"shares_memory_on_lesson_pairs", "shares_memory_on_fresh_pairs"}, graded.output
    assert "shares_memory(x[3:], x) returned False" in graded.checks(SLUG)["shares_memory_on_lesson_pairs"]["message"]


def test_storages_compared_with_something_more_are_told_what_is_left_not_a_name_the_code_rules_out(grade) -> None:
    # Same storage and same storage_offset: the answers of a data_ptr comparison, but the code compares the storages,
    # so that name is ruled out; what the code does beyond the storages is told rather than nothing at all.
    right = "    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()\n"
    source = REFERENCE.read_text().replace(right, right.rstrip("\n") + " and a.storage_offset() == b.storage_offset()\n")
    assert source != REFERENCE.read_text()
    check = grade({SLUG: source}, "-k", "shares_memory_on_lesson_pairs").checks(SLUG)["shares_memory_on_lesson_pairs"]
    assert not check["passed"] and check["mistake"] != checks.DATA_PTR_COMPARED.name, check["message"]
    # Told what is left, never the recipe it already follows (compare the two storages' data_ptr()).
    assert "Your code compares the storages, yet answers otherwise on this pair" in check["message"], check["message"]
    assert "untyped_storage().data_ptr()" not in check["message"], check["message"]


WRONG_ONLY_ON_HIDDEN_INPUTS = {
    # A function that leaves a tensor of at most one dimension as it is: a 0-d x comes back 0-d.
    "0-d flattened to itself": ("    return x.reshape(-1)\n",
                                "    return x if x.dim() <= 1 else x.reshape(-1)\n",
                                {"as_grid_and_flatten_on_fresh_tensors"}),
    # One storage read as "do their bytes overlap": two slices with no element in common say False.
    "storage read as overlapping bytes": (
        "    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()\n",
        "    start_a, start_b = a.data_ptr(), b.data_ptr()\n"
        "    end_a = start_a + a.numel() * a.element_size()\n"
        "    end_b = start_b + b.numel() * b.element_size()\n"
        "    return start_a < end_b and start_b < end_a\n",
        {"shares_memory_on_fresh_pairs"}),
}


@pytest.mark.parametrize("line, wrong, fails", WRONG_ONLY_ON_HIDDEN_INPUTS.values(), ids=WRONG_ONLY_ON_HIDDEN_INPUTS)
def test_an_answer_wrong_only_where_the_hidden_inputs_look_loses_those_points(grade, line: str, wrong: str,
                                                                              fails: set[str]) -> None:
    source = REFERENCE.read_text()
    assert source.count(line) == 1
    graded = grade({SLUG: source.replace(line, wrong)}, "-k", SLUG)
    assert graded.failed(SLUG) == fails, graded.output


def test_storages_read_on_one_side_only_are_told_the_answer_changes_when_the_two_are_swapped(grade) -> None:
    # a's storage against b's own data_ptr(): right for (x[3:], x), wrong for (x, x[3:]). The code reads a storage,
    # so "data_ptr instead of storage" is ruled out; what is told is the asymmetry, and the recipe for both sides.
    right = "    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()\n"
    source = REFERENCE.read_text().replace(right, "    return a.untyped_storage().data_ptr() == b.data_ptr()\n")
    assert source != REFERENCE.read_text()
    check = grade({SLUG: source}, "-k", "shares_memory_on_lesson_pairs").checks(SLUG)["shares_memory_on_lesson_pairs"]
    assert not check["passed"] and check["mistake"] is None, check["message"]
    assert "answers differently when its two arguments are swapped" in check["message"], check["message"]
    assert "shares_memory(x, x[3:]) and shares_memory(x[3:], x)" in check["message"], check["message"]
