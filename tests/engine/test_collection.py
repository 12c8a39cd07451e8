"""What `pytest exercises/` collects (graders/engine/collection.py): a student's exercise file is collected as its
room's checks, never imported; the checks come in the order the lesson teaches whatever the order asked; `-k <slug>`
means that exercise alone; a file that is no exercise of the course is not the grader's to collect."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import course_config
from conftest import STUBS

LESSON = course_config.LESSON_01


def _collected(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest_inprocess(*args, "--collect-only", "-q", "-p", "no:cacheprovider")
    return [line for line in result.stdout.lines if "::" in line]


def test_an_exercise_file_is_collected_as_its_rooms_checks_in_lesson_order(pytester: pytest.Pytester) -> None:
    later, earlier = LESSON.exercise("views"), LESSON.exercise("dtypes_and_devices")
    ids = _collected(pytester, str(STUBS / "lesson01" / "views.py"), str(STUBS / "lesson01" / "dtypes_and_devices.py"))
    assert [i.split("::")[-1] for i in ids] == [f"test_{c.id}" for c in (*earlier.checks, *later.checks)]


def test_a_slug_given_to_k_selects_that_exercise_alone(pytester: pytest.Pytester) -> None:
    ids = _collected(pytester, str(STUBS / "lesson01"), "-k", "views")
    assert {i.split("::")[0].rsplit("/", 1)[-1] for i in ids} == {"views.py"}
    assert len(ids) == len(LESSON.exercise("views").checks)


def test_a_file_that_is_no_exercise_is_not_collected_nor_imported(pytester: pytest.Pytester, tmp_path: Path) -> None:
    exercises = tmp_path / "exercises" / "lesson01"
    exercises.mkdir(parents=True)
    shutil.copy(STUBS / "lesson01" / "views.py", exercises / "views.py")
    (exercises / "notes.py").write_text("raise SystemExit('imported')\n")
    (exercises / "views.py").write_text("raise SystemExit('the student file was imported')\n")
    ids = _collected(pytester, str(exercises / "views.py"), str(exercises / "notes.py"))
    assert len(ids) == len(LESSON.exercise("views").checks)
    assert all(i.split("::")[0].endswith("views.py") for i in ids)
