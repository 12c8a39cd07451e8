"""`@check` (graders/engine/registration.py): a check takes its points and visibility from the course's manifest, so
no number is written twice; a public check runs again on fresh inputs of its own and pays only if both runs pass,
its second failure saying so; a name that is no check of the exercise, or no test_ name, is refused."""

from __future__ import annotations

import pytest

import course_config
from graders.engine.feedback import CheckFailed, fail
from graders.engine.fresh import TWIN_NOTE, twin, twin_random
from graders.engine.recording import LIVE, RECORDING
from graders.engine.registration import checks_for

VIEWS = course_config.LESSON_01.exercise("views")
check = checks_for("lesson01", "views")


def _marks(test: object) -> dict[str, tuple]:
    return {mark.name: mark.args for mark in getattr(test, "pytestmark", [])}


def test_a_check_takes_its_points_and_visibility_from_the_manifest() -> None:
    public, hidden = VIEWS.check("as_grid_is_a_view"), VIEWS.check("shares_memory_on_fresh_pairs")
    assert not public.hidden and hidden.hidden

    @check
    def test_as_grid_is_a_view() -> None:
        pass

    @check
    def test_shares_memory_on_fresh_pairs() -> None:
        pass

    assert _marks(test_as_grid_is_a_view) == {"points": (public.points,)}
    assert _marks(test_shares_memory_on_fresh_pairs) == {"points": (hidden.points,), "hidden": ()}


def test_a_public_check_runs_again_on_fresh_inputs_and_its_second_failure_says_so() -> None:
    assert RECORDING.mode == LIVE
    runs: list[tuple[bool, float]] = []

    @check
    def test_as_grid_is_a_view() -> None:
        runs.append((twin(), twin_random().random()))
        if twin():
            fail("as_grid: the fresh tensor was copied.")

    with pytest.raises(CheckFailed) as failed:
        test_as_grid_is_a_view()
    assert [first for first, _ in runs] == [False, True]
    assert failed.value.feedback.summary == f"{TWIN_NOTE} as_grid: the fresh tensor was copied."
    fresh = runs[1][1]
    runs.clear()
    with pytest.raises(CheckFailed):
        test_as_grid_is_a_view()
    assert runs[1][1] == fresh  # the fresh inputs are the check's own seed's: the same run after run


def test_a_hidden_check_runs_once() -> None:
    runs: list[bool] = []

    @check
    def test_shares_memory_on_fresh_pairs() -> None:
        runs.append(twin())

    test_shares_memory_on_fresh_pairs()
    assert runs == [False]


def test_a_name_that_is_no_check_is_refused() -> None:
    with pytest.raises(NameError, match="must be named test_<check id>, not as_grid_is_a_view"):
        @check
        def as_grid_is_a_view() -> None:
            pass
    with pytest.raises(KeyError, match="no lesson in folder 'lesson42'"):
        checks_for("lesson42", "views")
