"""`python -m graders config` (graders/frontends/course_settings.py): every setting the checks use, each with its
description, from course_config.py and the manifests together; one exercise's alone; an unknown slug refused with
the known ones. (tests/test_docs.py runs both commands as the docs give them.)"""

from __future__ import annotations

import dataclasses

import pytest

import course_config
from graders.frontends.course_settings import WIDTH, course_lines, exercise_lines

LESSON = course_config.LESSON_01


def test_the_course_lists_every_limit_and_every_exercise_with_its_points_and_checks() -> None:
    lines = course_lines()
    for field in dataclasses.fields(course_config.LIMITS):
        assert f"  {field.name} = {getattr(course_config.LIMITS, field.name).value!r}" in lines, field.name
    for exercise in LESSON.exercises:
        assert any(line.startswith(f"{exercise.slug}: ") for line in lines), exercise.slug
    assert all(len(line) <= WIDTH for line in lines if line.startswith("    ") and "=" not in line), "descriptions wrap"


def test_one_exercise_shows_its_manifest_checks_marks_seeds_and_tolerances() -> None:
    exercise = next(e for e in LESSON.exercises if any(c.hidden for c in e.checks) and e.tolerances)
    lines = exercise_lines(exercise.slug)
    points = f"{exercise.points:g} point{'' if exercise.points == 1 else 's'}"
    assert lines[0] == (f"{exercise.slug}: {points}, lesson {LESSON.number} "
                        f"(graders/{LESSON.folder}/{exercise.slug}/exercise.toml)"), lines[0]
    hidden = next(c for c in exercise.checks if c.hidden)
    assert any(line.startswith(f"    {hidden.id}: ") and "[hidden]" in line for line in lines)
    assert "  tolerances:" in lines and any(f"    {name} = " in "\n".join(lines) for name in exercise.tolerances)


def test_an_unknown_exercise_is_refused_with_the_known_ones() -> None:
    with pytest.raises(SystemExit) as stop:
        exercise_lines("nope")
    said = str(stop.value)
    assert said.startswith("--exercise nope: course_config.py has no such exercise (it has: ")
    assert all(e.slug in said for e in LESSON.exercises)
