"""`@check`: marks a test function as a graded check, with its points and visibility from
course_config.py, so that no number is written twice."""

from __future__ import annotations

from typing import Callable, TypeVar

import pytest

import course_config

F = TypeVar("F", bound=Callable)


def checks_for(lesson_folder: str, slug: str) -> Callable[[F], F]:
    """The decorator for the checks of one exercise: `check = checks_for("lesson01", "quadratic_fit")`."""
    lesson = next((l for l in course_config.LESSONS if l.folder == lesson_folder), None)
    if lesson is None:
        raise KeyError(f"course_config.py has no lesson in folder {lesson_folder!r}")
    exercise = lesson.exercise(slug)

    def check(test: F) -> F:
        name = test.__name__
        if not name.startswith("test_"):
            raise NameError(f"a check's function must be named test_<check id>, not {name}")
        entry = exercise.check(name.removeprefix("test_"))
        test = pytest.mark.points(entry.points)(test)
        if entry.hidden:
            test = pytest.mark.hidden(test)
        return test

    return check
