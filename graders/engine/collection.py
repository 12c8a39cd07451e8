"""What `pytest exercises/` collects: a student's exercise file, as the checks written for it, in lesson order.

Collecting `exercises/<lesson>/<slug>.py` yields the checks of `graders/<lesson>/<slug>/checks.py`
instead of importing the student's file: the submission is only ever imported by a worker process.
"""

from __future__ import annotations

import functools
import importlib
from pathlib import Path
from types import ModuleType

import pytest

import course_config
from graders.engine.collect import collect_mistakes
from graders.engine.mistakes import Mistake


class ExerciseModule(pytest.Module):
    """A student's exercise file, collected as the checks written for it."""

    @functools.cached_property
    def lesson(self) -> course_config.Lesson:
        return course_config.find_exercise(self.path.parent.name, self.path.stem)[0]  # type: ignore[index]

    @functools.cached_property
    def exercise(self) -> course_config.Exercise:
        return course_config.find_exercise(self.path.parent.name, self.path.stem)[1]  # type: ignore[index]

    def _getobj(self) -> ModuleType:
        return importlib.import_module(f"graders.{self.lesson.folder}.{self.exercise.slug}.checks")

    def mistakes(self) -> list[Mistake]:
        """The exercise's catalogue of named mistakes: collected from its room's mistakes.py."""
        room = f"graders.{self.lesson.folder}.{self.exercise.slug}"
        return collect_mistakes(importlib.import_module(f"{room}.mistakes"))


def exercise_file(file_path: Path, parent: pytest.Collector) -> ExerciseModule | None:
    """A collector for `exercises/<lesson>/<slug>.py`; None for any other file."""
    if file_path.suffix != ".py" or file_path.parent.parent.name != "exercises":
        return None
    if course_config.find_exercise(file_path.parent.name, file_path.stem) is None:
        return None
    return ExerciseModule.from_parent(parent, path=file_path)


def in_lesson_order(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Select and order the checks in place: `-k <slug>` means that exercise, and the lesson's order is kept."""
    # `-k views` means the exercise views, not every check whose name says "views" too
    # (a check id may hold a slug too, as a hidden one of the quiz does): a bare slug selects that exercise's file.
    keyword = (config.option.keyword or "").strip()
    slugs = {e.slug for lesson in course_config.LESSONS for e in lesson.exercises}
    if keyword in slugs:
        others = [i for i in items if (m := i.getparent(ExerciseModule)) is not None and m.exercise.slug != keyword]
        if others:
            config.hook.pytest_deselected(items=others)
            items[:] = [i for i in items if i not in others]
    # Grade in the order the lesson teaches, as the points table lists them.
    order = {e.slug: i for lesson in course_config.LESSONS for i, e in enumerate(lesson.exercises)}

    def place(item: pytest.Item) -> int:
        module = item.getparent(ExerciseModule)
        return order.get(module.exercise.slug, -1) if module is not None else -1

    items.sort(key=place)
