"""The checks' one door (graders/kit.py): every name it lists is there, and `exercise` finds an exercise by its
lesson's folder, or says which folder the course does not have."""

from __future__ import annotations

import pytest

import course_config
from graders import kit


def test_every_name_the_kit_lists_can_be_imported_from_it() -> None:
    missing = [name for name in kit.__all__ if not hasattr(kit, name)]
    assert not missing, f"graders.kit lists {missing} but does not hold them"


def test_an_exercise_is_found_by_its_lessons_folder_and_its_slug() -> None:
    lesson = course_config.LESSONS[0]
    first = lesson.exercises[0]
    assert kit.exercise(lesson.folder, first.slug) is lesson.exercise(first.slug)


def test_a_lesson_folder_the_course_does_not_have_is_named_in_the_error() -> None:
    with pytest.raises(KeyError, match="the course has no lesson in folder 'lesson99'"):
        kit.exercise("lesson99", "anything")
