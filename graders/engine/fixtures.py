"""The fixtures a check asks for: `student`, `reference`, `exercise` and `plots_folder`.

They take what they give from the run's owners (the `Students` and the `RunSettings` in
config.stash) and give back what they took; they write into nothing else.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import pytest

import course_config
from graders.engine.collection import ExerciseModule
from graders.engine.recording import reference_for
from graders.engine.run_settings import RUN_SETTINGS
from graders.engine.student import Student
from graders.engine.students import STUDENTS


def _exercise_module(request: pytest.FixtureRequest) -> ExerciseModule:
    node = request.node.getparent(ExerciseModule)
    if node is None:
        raise RuntimeError("the student and reference fixtures are only for checks under exercises/")
    return node


@pytest.fixture(scope="module")
def student(request: pytest.FixtureRequest) -> Iterator[Student]:
    """The submission's module for this exercise, run in a sandboxed worker."""
    students, node = request.config.stash[STUDENTS], _exercise_module(request)
    yield students.take(node)
    students.give_back(node.exercise.slug)


@pytest.fixture(scope="module")
def reference(request: pytest.FixtureRequest) -> Any:
    """The reference solution of this exercise, imported in the grader (it is trusted code);
    with --record-expected / --replay-expected, its calls go through the recording."""
    node = _exercise_module(request)
    path = course_config.ROOT / "reference" / node.lesson.folder / f"{node.exercise.slug}.py"

    def load() -> ModuleType:
        spec = importlib.util.spec_from_file_location(f"reference_{node.lesson.folder}_{node.exercise.slug}", path)
        assert spec is not None and spec.loader is not None, f"no reference at {path}"
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return reference_for(node.exercise.slug, load)


@pytest.fixture(scope="module")
def exercise(request: pytest.FixtureRequest) -> course_config.Exercise:
    """This exercise as its manifest declares it: its seeds and tolerances."""
    return _exercise_module(request).exercise


@pytest.fixture(scope="session")
def plots_folder(request: pytest.FixtureRequest) -> Path:
    """Where a failing check writes a plot (--plots DIR); the check creates the folder when it writes."""
    return request.config.stash[RUN_SETTINGS].plots
