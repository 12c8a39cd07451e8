"""`python -m graders config [--exercise SLUG]`: the course's settings as course_config.py has
read them (the worker's LIMITS, the policy, and per exercise its points, checks, seeds and
tolerances), each with its description: what the checks will use, from the manifests and
course_config.py together, without reading TOML and Python side by side."""

from __future__ import annotations

import dataclasses
import os
import sys
import textwrap

import course_config
from graders.engine.manifests import manifest_path

WIDTH = 100  # descriptions are wrapped to this many columns


def main(exercise: str | None = None) -> int:
    """Print every setting, or only those of one exercise; an unknown slug stops with the known ones."""
    try:
        print("\n".join(exercise_lines(exercise) if exercise is not None else course_lines()))
    except BrokenPipeError:  # `... | head` has read what it wanted; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def course_lines() -> list[str]:
    """The limits, the policy, then each lesson's exercises in order."""
    lines = ["LIMITS (course_config.py): what student code may use in the sandboxed worker"]
    for field in dataclasses.fields(course_config.LIMITS):
        lines += _described(field.name, getattr(course_config.LIMITS, field.name))
    lines += ["", "policy (course_config.py)"]
    lines += _described("HIDDEN_CHECKS_SHOW", course_config.HIDDEN_CHECKS_SHOW)
    lines += _described("LESSON_URL", course_config.LESSON_URL)
    lines += ["", "CONCEPTS (course_config.py): the lesson ideas a named mistake breaks (Mistake(concept=...)); "
                  "the class report groups mistakes by them"]
    for key, sentence in course_config.CONCEPTS.items():
        lines += [f"  {key}"] + _wrapped(sentence, 4)
    for lesson in course_config.LESSONS:
        lines += ["", f"lesson {lesson.number}, {lesson.title}: {len(lesson.exercises)} exercises, "
                      f"{lesson.points:g} points (graders/{lesson.folder}/<slug>/exercise.toml)"]
        for exercise in lesson.exercises:
            lines += ["", *_exercise(lesson, exercise)]
    return lines


def exercise_lines(slug: str) -> list[str]:
    """One exercise's settings."""
    for lesson in course_config.LESSONS:
        for exercise in lesson.exercises:
            if exercise.slug == slug:
                return _exercise(lesson, exercise)
    known = ", ".join(e.slug for lesson in course_config.LESSONS for e in lesson.exercises)
    raise SystemExit(f"--exercise {slug}: course_config.py has no such exercise (it has: {known})")


def _exercise(lesson: course_config.Lesson, exercise: course_config.Exercise) -> list[str]:
    manifest = manifest_path(lesson.folder, exercise.slug)
    lines = [f"{exercise.slug}: {_points(exercise.points)}, lesson {lesson.number} "
             f"({manifest.relative_to(course_config.ROOT)})",
             *_wrapped(f"title: {exercise.title}", 2, hang=4), *_wrapped(f"section: {exercise.section}", 2, hang=4),
             "  checks ([hidden]: kept from students; [how]: a check of how the answer is computed):"]
    for check in exercise.checks:
        marks = "".join(f" [{mark}]" for mark, on in (("hidden", check.hidden), ("how", check.how)) if on)
        lines += [f"    {check.id}: {_points(check.points)}{marks}", *_wrapped(check.description, 8)]
    for heading, table in (("seeds", exercise.seeds), ("tolerances", exercise.tolerances)):
        if table:
            lines.append(f"  {heading}:")
            for name, setting in table.items():
                lines += _described(name, setting, 4)
    return lines


def _described(name: str, setting: course_config.Setting, indent: int = 2) -> list[str]:
    return [f"{' ' * indent}{name} = {setting.value!r}", *_wrapped(setting.description, indent + 4)]


def _points(points: float) -> str:
    return f"{points:g} point{'' if points == 1 else 's'}"


def _wrapped(text: str, indent: int, hang: int = 0) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=" " * indent, subsequent_indent=" " * (indent + hang))
