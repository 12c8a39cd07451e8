"""A submission's time allowance (graders/engine/allowance.py): an exercise spends from its own seconds and from its
submission's at once, what is left is the lesser of the two, and the one that ran out first is the one named."""

from __future__ import annotations

from graders.engine.allowance import SPENT, Allowance


def _nested(exercise: float, submission: float) -> tuple[Allowance, Allowance]:
    whole = Allowance(submission, "this submission", "submission_seconds")
    return Allowance(exercise, "this exercise", "exercise_seconds", within=whole), whole


def test_spending_in_an_exercise_spends_its_submissions_seconds_too() -> None:
    exercise, whole = _nested(10, 60)
    exercise.spend(4)
    assert (exercise.spent, whole.spent) == (4, 4)
    assert exercise.left() == 6 and whole.left() == 56


def test_what_is_left_is_the_lesser_of_the_exercises_and_the_submissions() -> None:
    exercise, whole = _nested(10, 60)
    whole.spend(57)  # other exercises used most of the submission's time
    assert exercise.left() == 3


def test_the_allowance_that_ran_out_is_named_the_innermost_first() -> None:
    exercise, whole = _nested(10, 60)
    assert exercise.used_up() is None
    whole.spend(60)
    assert exercise.used_up() is whole
    exercise.spend(10)
    assert exercise.used_up() is exercise


def test_its_message_names_what_ran_out_its_seconds_and_its_setting() -> None:
    exercise, _ = _nested(12.5, 60)
    assert exercise.message() == SPENT.format(what="this exercise", seconds=12.5, setting="exercise_seconds")
    assert "this exercise had used its 12.5 s in all (course_config.LIMITS.exercise_seconds)" in exercise.message()
