"""The layout holds for every exercise in course_config.py: stub, reference and checks exist,
stub and reference agree on their public API, and config and checks agree on the checks."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import course_config
from conftest import ROOT, STUBS

EXERCISES = course_config.LESSON_01.exercises
IDS = [e.slug for e in EXERCISES]


def public_api(path: Path) -> dict[str, str]:
    """Each public top-level function or class of a module, as its signature text."""
    tree = ast.parse(path.read_text())
    api = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            if isinstance(node, ast.FunctionDef):
                api[node.name] = f"({ast.unparse(node.args)}) -> {ast.unparse(node.returns) if node.returns else ''}"
            else:
                methods = [f"{m.name}({ast.unparse(m.args)})" for m in node.body if isinstance(m, ast.FunctionDef)]
                api[node.name] = "class: " + ", ".join(methods)
    return api


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_stub_and_reference_expose_the_same_signatures(exercise: course_config.Exercise) -> None:
    stub = STUBS / "lesson01" / f"{exercise.slug}.py"
    reference = ROOT / "reference" / "lesson01" / f"{exercise.slug}.py"
    assert public_api(stub) == public_api(reference)
    assert public_api(stub), f"{stub} defines no public function"


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_every_stub_function_has_a_docstring_and_raises_not_implemented(exercise: course_config.Exercise) -> None:
    tree = ast.parse((STUBS / "lesson01" / f"{exercise.slug}.py").read_text())
    assert ast.get_docstring(tree), "the stub module needs a docstring that says what to do"
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            assert ast.get_docstring(node), f"{node.name} has no docstring"
    assert "raise NotImplementedError" in ast.unparse(tree)


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_config_and_checks_module_list_the_same_checks(exercise: course_config.Exercise) -> None:
    module = importlib.import_module(f"graders.lesson01.{exercise.slug}.checks")
    tests = {name.removeprefix("test_") for name in vars(module) if name.startswith("test_")}
    assert tests == {c.id for c in exercise.checks}
    assert exercise.section and exercise.title
    for check in exercise.checks:
        # A public check may be worth nothing, where telling more would give a graded answer away (the quiz).
        assert (check.points > 0 or not check.hidden and check.points == 0) and check.description, check.id
    assert any(c.hidden for c in exercise.checks), "hidden checks keep hard-coded answers out"
    assert any(not c.hidden for c in exercise.checks)


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_every_hidden_check_id_names_a_public_function_of_its_stub(exercise: course_config.Exercise) -> None:
    # A failed hidden check shows students no input: its id and the function it called say where to look.
    names = [name.lower() for name in public_api(STUBS / "lesson01" / f"{exercise.slug}.py")]  # micrograd's Value
    for check in exercise.checks:
        if check.hidden:
            assert any(re.search(rf"(^|_){name}(_|$)", check.id) for name in names), (
                f"hidden check {check.id} names none of {exercise.slug}'s functions: {', '.join(names)}")


def test_every_setting_has_a_description() -> None:
    for exercise in EXERCISES:
        for table in (exercise.seeds, exercise.tolerances):
            for name, setting in table.items():
                assert setting.description, f"{exercise.slug}: {name}"
    for name in vars(course_config.LIMITS):
        assert getattr(course_config.LIMITS, name).description


def test_no_exercise_file_is_left_out_of_the_config() -> None:
    slugs = {e.slug for e in EXERCISES}
    for folder, path in (("exercises", STUBS), ("reference", ROOT / "reference")):
        files = {p.stem for p in (path / "lesson01").glob("*.py") if p.stem != "__init__"}
        assert files == slugs, f"{folder}/lesson01 differs from course_config.py"
    rooms = {p.parent.name for p in (ROOT / "graders" / "lesson01").glob("*/checks.py")}
    assert rooms == slugs, "graders/lesson01/ has a room (<slug>/checks.py) per exercise of course_config.py, and no other"
