"""Checks of `views` (companion: "Reshape vs. View vs. Contiguous").

A view and a copy hold the same numbers, so values alone cannot tell them apart, and a
tensor sent back from the worker arrives as a fresh copy anyway. So a driver builds the
input inside the worker, calls the student's function there and reports the result
together with whether it shares the input's storage. The same driver runs the reference
here, on the same input: that is the oracle. Inputs are named by plain data (a layout
such as "x.T", a shape, a dtype, a seed) so that both sides build the same tensor. In a
public check's twin run the lesson's torch.arange input is shuffled by a fresh seed (the same
layout, shape, dtype and numbers, in another order), with other row counts.
"""

from __future__ import annotations

import math
from dataclasses import replace
from types import ModuleType
from typing import Any, Callable

import torch

from graders.kit import (Returned, Student, Suspect, checks_for, describe, exercise, expect_tensor, expected, fail,
                         fail_with_mistake, twin, twin_random, unless_contradicted)
from graders.lesson01.views.mistakes import (ALWAYS_COPYING, BASE_COMPARED, BASE_FOLLOWED, COPIED_A_STRIDED_VIEW,
                                             DATA_PTR_COMPARED, FLAT_COLUMN, INPUT_HANDED_BACK, OFFSET_IN_ELEMENTS,
                                             READ_FROM_THE_STORAGE_START, ROWS_AND_COLUMNS_SWAPPED,
                                             SPANS_COMPARED, VIEWS)
from graders.lesson01.views.drivers import MISSING, Steps, apply, make_input, observe, pair_answers

EXERCISE = exercise("lesson01", "views")
check = checks_for("lesson01", EXERCISE.slug)


# The inputs and pairs, by the names messages show, as the steps graders/lesson01/views/drivers.py applies.
LAYOUTS: dict[str, Steps] = {
    "x": [],
    "x.T": [["T"]],
    "x[:, ::2]": [["slice", 1, None, None, 2]],
    "x[:, 1:3]": [["slice", 1, 1, 3, 1]],
    "x[2:]": [["slice", 0, 2, None, 1]],  # contiguous, but starting past the first element of its storage
    # Every other column from the second row on: not contiguous, evenly spaced (a view as reshape makes it), and
    # starting past the storage's first element, which a view made by hand must start from.
    "x[1:, ::2]": [["slice", 0, 1, None, 1], ["slice", 1, None, None, 2]],
    "x.permute(2, 0, 1)": [["permute", [2, 0, 1]]],
}
PAIRS: dict[str, Callable[[int], tuple[Steps, Steps]]] = {
    "x, x.view({r}, -1)": lambda r: ([], [["view", [r, -1]]]),
    "g, g.T where g = x.view({r}, -1)": lambda r: ([["view", [r, -1]]], [["view", [r, -1]], ["T"]]),
    "x, x[{r}:]": lambda r: ([], [["slice", 0, r, None, 1]]),
    # The slice first too: its data_ptr() is past the storage's start, so a test that reads one argument's
    # data_ptr() and the other's storage is right in one order only.
    "x[{r}:], x": lambda r: ([["slice", 0, r, None, 1]], []),
    "x, x.clone()": lambda r: ([], [["clone"]]),
    "g.T, g.T.reshape(-1) where g = x.view({r}, -1)": lambda r: ([["view", [r, -1]], ["T"]],
                                                                 [["view", [r, -1]], ["T"], ["reshape", [-1]]]),
    "x, torch.arange({n})": lambda r: ([], [["arange"]]),
    "x[::2], x[1::2]": lambda r: ([["slice", 0, None, None, 2]], [["slice", 0, 1, None, 2]]),
    "x, x.detach()": lambda r: ([], [["detach"]]),
    # The same bytes read as another dtype of the same size (float64 as int64, int32 as float32): a view, so one
    # storage, whatever the two dtypes.
    "x, x viewed as another dtype": lambda r: ([], [["as_dtype"]]),
    # Two slices with no element in common: one storage all the same (no byte of one lies in the other's range).
    "x[:{r}], x[{r}:]": lambda r: ([["slice", 0, None, r, 1]], [["slice", 0, r, None, 1]]),
}
LESSON_PAIRS = tuple(list(PAIRS)[:7])
ARANGE_PAIR, EQUAL_VALUES = "x, torch.arange({n})", "x, torch.tensor(x.tolist())"
# A shuffled x no longer holds torch.arange's values, so a twin run makes its pair of merely
# equal values from x's own values. Kept out of PAIRS, which the hidden checks run whole.
PAIR_MAKERS = {**PAIRS, EQUAL_VALUES: lambda r: ([], [["values"]])}


def recipe(case: tuple) -> list:
    """The steps the driver follows to make a case's input: (layout, shape, dtype name, seed or None)."""
    layout, shape, dtype, seed = case
    return [LAYOUTS[layout], list(shape), dtype, seed]


def build(case: tuple) -> torch.Tensor:
    """The input a case names, made here as the driver makes it in the worker."""
    return make_input(recipe(case))


def pair_steps(pairs: tuple, rows: int) -> list[tuple[Steps, Steps]]:
    return [PAIR_MAKERS[name](rows) for name in pairs]


def made_pairs(case: tuple, rows: int, pairs: tuple) -> list[tuple[torch.Tensor, torch.Tensor]]:
    x = build(case)
    return [(apply(x, first), apply(x, second)) for first, second in pair_steps(pairs, rows)]


def lesson_case(case: tuple) -> tuple:
    """A case of the lesson's torch.arange input as it is; in a public check's twin run, its
    numbers shuffled by a fresh seed: the same layout, shape, dtype and value range."""
    return (*case[:3], twin_random().randrange(2**31)) if twin() else case


def grid_rows() -> tuple[int, ...]:
    """The row counts as_grid is asked for: the lesson's 3 and 2; in a twin run, two drawn from
    all the ways to cut the lesson's 12 elements into a grid (2, 3, 4 or 6 rows)."""
    return tuple(twin_random(1).sample(_row_counts(), 2)) if twin() else (3, 2)


def lesson_pairs() -> tuple[tuple, int, tuple[str, ...]]:
    """shares_memory's case, rows and pairs: the lesson's; in a twin run, the lesson's x shuffled,
    a drawn row count, and the same relations in a shuffled order (the worker keeps the module
    between calls, so the order stops answers by counting)."""
    if not twin():
        return LESSON_FLAT, 3, LESSON_PAIRS
    draw = twin_random(2)
    pairs = [EQUAL_VALUES if name == ARANGE_PAIR else name for name in LESSON_PAIRS]
    draw.shuffle(pairs)
    return lesson_case(LESSON_FLAT), draw.choice(_row_counts()), tuple(pairs)


def _row_counts() -> list[int]:
    """Row counts that divide the lesson's flat x into a grid of at least two rows and two columns."""
    n = math.prod(LESSON_FLAT[1])
    return [rows for rows in range(2, n // 2 + 1) if n % rows == 0]


def case_text(case: tuple) -> str:
    """How a case's input is shown in messages, e.g. x = torch.arange(12).reshape(3, 4)."""
    _, shape, dtype, seed = case
    n = math.prod(shape)
    made = f"torch.arange({n}" + ("" if dtype == "int64" else f", dtype=torch.{dtype}") + ")"
    reshaped = (f".reshape({', '.join(map(str, shape))})" if len(shape) > 1 else ".reshape(())" if not shape
                else "")
    return f"x = {'a shuffled ' if seed is not None else ''}{made}{reshaped}"


@expected
def reference_view(reference: ModuleType, function: str, case: tuple, *args: Any) -> dict:
    return observe(reference, function, recipe(case), *args)


@expected
def reference_answers(reference: ModuleType, case: tuple, rows: int, pairs: tuple) -> list:
    return pair_answers(reference, recipe(case), pair_steps(pairs, rows))


@expected
def swapped_grid(case: tuple, rows: int) -> torch.Tensor:
    return build(case).reshape(-1, rows)


@expected
def flat_column(case: tuple) -> torch.Tensor:
    return build(case).reshape(-1, 1)


@expected
def from_the_storage_start(reference: ModuleType, function: str, case: tuple, *args: Any) -> torch.Tensor | None:
    """The reference's view, with the same size and steps, read from the storage's first element instead of the
    input's (None where the input starts there, or the reference's answer is no view of it)."""
    x = build(case)
    view = getattr(reference, function)(x, *args)
    if x.storage_offset() == 0 or view.untyped_storage().data_ptr() != x.untyped_storage().data_ptr():
        return None
    return torch.as_strided(x, view.shape, view.stride(), 0).clone()


@expected
def input_as_built(case: tuple) -> torch.Tensor:
    """x itself: what a flatten that hands its input back returns."""
    return build(case)


@expected
def data_ptr_answers(case: tuple, rows: int, pairs: tuple) -> list[bool]:
    return [a.data_ptr() == b.data_ptr() for a, b in made_pairs(case, rows, pairs)]


@expected
def base_answers(case: tuple, rows: int, pairs: tuple) -> list[bool]:
    """What shares_memory answers when it asks whether one tensor is the other's ._base."""
    return [a._base is b or b._base is a for a, b in made_pairs(case, rows, pairs)]


@expected
def span_answers(case: tuple, rows: int, pairs: tuple) -> list[bool]:
    """What shares_memory answers when it asks whether the bytes the two tensors cover overlap."""
    return [_spans_overlap(_span(a), _span(b)) for a, b in made_pairs(case, rows, pairs)]


def _span(t: torch.Tensor) -> tuple[int, int]:
    """The first byte a tensor's elements cover and the one past its last, from its data_ptr, sizes and strides
    (torch's strides are never negative: the first element is the lowest)."""
    last = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()))
    return t.data_ptr(), t.data_ptr() + (last + 1) * t.element_size()


def _spans_overlap(one: tuple[int, int], other: tuple[int, int]) -> bool:
    return one[0] < other[1] and other[0] < one[1]


def _run(student: Student, driver: Callable, function: str, *args: Any, shown_as: str) -> Returned:
    __tracebackhide__ = True
    return student.run_defined(driver, function, *args, shown_as=shown_as, missing=MISSING)


def expect_view(student: Student, reference: ModuleType, function: str, case: tuple, *args: Any,
                must_share: bool) -> None:
    """The student's result equals the reference's; with must_share, it is a view of the input
    (as the reference's is) rather than a copy."""
    __tracebackhide__ = True
    want = reference_view(reference, function, case, *args)
    suspects = ([Suspect(ROWS_AND_COLUMNS_SWAPPED, swapped_grid(case, *args))] if function == "as_grid" else
                [Suspect(FLAT_COLUMN, flat_column(case)), Suspect(INPUT_HANDED_BACK, input_as_built(case))])
    from_start = from_the_storage_start(reference, function, case, *args)
    if from_start is not None:
        suspects.append(Suspect(READ_FROM_THE_STORAGE_START, from_start))
    shown_args = "".join(f", {a!r}" for a in args)
    returned = _run(student, observe, function, function, recipe(case), *args,
                    shown_as=f"{function}({case[0]}{shown_args}) with {case_text(case)}")
    seen = returned.value if type(returned.value) is dict else {"value": returned.value}
    result = replace(returned, value=seen.get("value"))
    expect_tensor(result, want["value"], rtol=0, atol=EXERCISE.tolerance("values"), requires_grad=None,
                  suspects=suspects, section=VIEWS,
                  hint="Compare your result with x.tolist(): the same elements, in the same order."
                  if function == "flatten" else "x.view(rows, -1) fills the grid row by row.")
    if must_share and want["shares"] and not seen.get("shares"):
        contiguous = build(case).is_contiguous()
        mistake = ALWAYS_COPYING if contiguous else COPIED_A_STRIDED_VIEW
        fail(f"{function} copied the data of {'a contiguous input' if contiguous else 'an input a view can list'}; "
             "it should return a view.", call=result.call,
             got=f"{describe(result.value)}, in new memory", expected="the same values in x's own storage (a view)",
             mistake=mistake)


ONE_WAY, OTHER_WAY = "x, x[{r}:]", "x[{r}:], x"  # one pair of PAIRS both ways round


def _one_sided(pairs: tuple, answers: list) -> bool:
    """Whether the answers to a pair and to the same pair swapped differ."""
    if ONE_WAY not in pairs or OTHER_WAY not in pairs:
        return False
    return answers[pairs.index(ONE_WAY)] != answers[pairs.index(OTHER_WAY)]


def expect_answers(student: Student, reference: ModuleType, case: tuple, rows: int, pairs: tuple) -> None:
    """shares_memory gives the reference's answer on every pair built from the case's input."""
    __tracebackhide__ = True
    want = reference_answers(reference, case, rows, pairs)
    wrong_ptr, wrong_base = data_ptr_answers(case, rows, pairs), base_answers(case, rows, pairs)
    wrong_span = span_answers(case, rows, pairs)
    texts = [name.format(r=rows, n=math.prod(case[1])) for name in pairs]
    returned = _run(student, pair_answers, "shares_memory", recipe(case), pair_steps(pairs, rows),
                    shown_as=f"shares_memory(a, b) on the pairs {'; '.join(texts)}, with {case_text(case)}")
    got = returned.value
    if type(got) is not list or len(got) != len(pairs):
        fail("shares_memory could not be checked.", call=returned.call, got=describe(got), section=VIEWS)
    for text, answer, right in zip(texts, got, want):
        call = f"shares_memory(a, b) with a, b = {text} and {case_text(case)}"
        if type(answer) is not bool:
            fail("shares_memory must return a Python bool (True or False).", call=call, got=describe(answer),
                 expected=repr(right), hint="Compare the two storages' data_ptr() values, which are Python ints, with ==: that gives a bool.",
                 section=VIEWS)
        if answer != right:
            summary = f"shares_memory({text.split(' where ')[0]}) returned {answer}; expected {right}."
            # data_ptr's answers from code that takes the offset off, unscaled: an address less a count of elements.
            if got == wrong_ptr and student.evidence.shows("shares_memory", ("storage_offset",)) \
                    and unless_contradicted(OFFSET_IN_ELEMENTS, student) is not None:
                fail_with_mistake(replace(returned, call=call), summary, OFFSET_IN_ELEMENTS, answer)
            for wrong, mistake in ((wrong_ptr, DATA_PTR_COMPARED), (wrong_base, BASE_COMPARED),
                                   (wrong_span, SPANS_COMPARED)):
                # Every answer, not only this one, as that comparison gives; and not a comparison the student's
                # code rules out (it compares the storages, and something more): then the meaning below is told.
                if got == wrong and unless_contradicted(mistake, student) is not None:
                    fail_with_mistake(replace(returned, call=call), summary, mistake, answer)
            # A walk of ._base of its own (to a root, say) gives other answers than one level of it, for the same
            # reason: sharing made without a view operation has no ._base link.
            if student.evidence.shows("shares_memory", ("_base",)) \
                    and unless_contradicted(BASE_FOLLOWED, student) is not None:
                fail_with_mistake(replace(returned, call=call), summary, BASE_FOLLOWED, answer)
            if unless_contradicted(DATA_PTR_COMPARED, student) is None:
                # The code compares the storages already: the recipe would ask for what it does. What is left is
                # whatever else it asks of the two tensors, or, where its answer for a pair changes when the two
                # are swapped, that it reads the two sides differently (sharing is the same both ways round).
                if _one_sided(pairs, got):
                    fail(summary, call=call, got=repr(answer), expected=repr(right),
                         meaning="Your function answers differently when its two arguments are swapped "
                                 f"(shares_memory({ONE_WAY.format(r=rows)}) and shares_memory("
                                 f"{OTHER_WAY.format(r=rows)}) get different answers), but sharing a storage is the "
                                 "same both ways round: it reads one side's storage and something else of the other, "
                                 "such as the tensor's own data_ptr(), which is where its first element lies and "
                                 "which a slice moves.",
                         hint="Read the storage of each side alike: a.untyped_storage().data_ptr() == "
                              "b.untyped_storage().data_ptr().", section=VIEWS)
                fail(summary, call=call, got=repr(answer), expected=repr(right),
                     meaning="Your code compares the storages, yet answers otherwise on this pair: two tensors share "
                             "memory exactly when their storages are one, whatever their offsets, shapes, strides or "
                             "dtypes.",
                     hint="Let the storage comparison alone decide, with ==: look at what else your code asks of "
                          "the two tensors.", section=VIEWS)
            fail(summary, call=call, got=repr(answer), expected=repr(right),
                 meaning="Two tensors share memory when they use the same storage, whatever their shapes, "
                         "strides or values; a copy never shares, however equal its values.",
                 hint="Compare a.untyped_storage().data_ptr() with b.untyped_storage().data_ptr().",
                 section=VIEWS)


# ---------------------------------------------------------------- public checks

LESSON_FLAT = ("x", (12,), "int64", None)  # the companion's torch.arange(12)
LESSON_GRID = ("x", (3, 4), "float32", None)  # the lesson's x = torch.arange(12, dtype=torch.float32).reshape(3, 4)


@check
def test_as_grid_is_a_view(student: Student, reference: ModuleType) -> None:
    for rows in grid_rows():
        expect_view(student, reference, "as_grid", lesson_case(LESSON_FLAT), rows, must_share=True)


@check
def test_flatten_contiguous_is_a_view(student: Student, reference: ModuleType) -> None:
    expect_view(student, reference, "flatten", lesson_case(LESSON_GRID), must_share=True)


@check
def test_flatten_non_contiguous(student: Student, reference: ModuleType) -> None:
    for layout in ("x.T", "x[:, ::2]"):  # a copy for the transpose; a view for every other column, as reshape gives
        expect_view(student, reference, "flatten", lesson_case((layout, *LESSON_GRID[1:])), must_share=True)


@check
def test_shares_memory_on_lesson_pairs(student: Student, reference: ModuleType) -> None:
    expect_answers(student, reference, *lesson_pairs())


# ---------------------------------------------------------------- hidden checks

@check
def test_as_grid_and_flatten_on_fresh_tensors(student: Student, reference: ModuleType) -> None:
    seed = EXERCISE.seed("fresh_tensors")
    expect_view(student, reference, "as_grid", ("x", (20,), "float64", seed), 5, must_share=True)
    expect_view(student, reference, "as_grid", ("x[2:]", (26,), "int32", seed + 1), 4, must_share=True)
    expect_view(student, reference, "flatten", ("x", (2, 5), "float64", seed + 2), must_share=True)
    expect_view(student, reference, "flatten", ("x[2:]", (5, 3), "int32", seed + 3), must_share=True)
    expect_view(student, reference, "flatten", ("x.permute(2, 0, 1)", (2, 3, 4), "int64", seed + 4), must_share=False)
    expect_view(student, reference, "flatten", ("x[:, 1:3]", (4, 5), "float64", seed + 5), must_share=False)
    expect_view(student, reference, "flatten", ("x[1:, ::2]", (4, 6), "int64", seed + 8), must_share=True)
    # One element: still a 1-D tensor of one element, not a 0-d one (a squeeze would drop its only dimension).
    expect_view(student, reference, "flatten", ("x", (1, 1), "float32", seed + 6), must_share=True)
    # No dimension at all: a 0-d x gives a 1-D tensor of its one element, not itself back.
    expect_view(student, reference, "flatten", ("x", (), "float32", seed + 7), must_share=True)


@check
def test_shares_memory_on_fresh_pairs(student: Student, reference: ModuleType) -> None:
    seed = EXERCISE.seed("fresh_tensors")
    expect_answers(student, reference, ("x", (20,), "float64", seed), 4, tuple(PAIRS))
    expect_answers(student, reference, ("x", (15,), "int32", seed + 1), 5, tuple(PAIRS))
