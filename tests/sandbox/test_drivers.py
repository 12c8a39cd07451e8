"""The drivers are public: what runs beside student code in a worker holds nothing a student may not have.

A worker's memory holds every room's drivers, graders/<lesson>/<slug>/drivers.py (its zygote loads them
all), so a driver module may import only the standard library, torch, numpy and public helpers of its own
room (not the checks, not the mistakes, not course_config, not the engine), and none of them may hold a
hidden check's id or a seed of the course as a constant.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import course_config
from conftest import ROOT

ALLOWED = {"torch", "numpy", "__future__"} | set(sys.stdlib_module_names)
NOT_FOR_WORKERS = ("checks", "mistakes")


def _room_helpers(driver: Path) -> list[Path]:
    """The modules of its own room a driver imports (they load into the worker too)."""
    room = f"graders.{driver.parent.parent.name}.{driver.parent.name}."
    found = []
    for node in ast.walk(ast.parse(driver.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(room):
            found.append(driver.parent / f"{node.module.removeprefix(room)}.py")
    return found


DRIVERS = sorted({p for d in (ROOT / "graders").glob("lesson*/*/drivers.py") for p in [d, *_room_helpers(d)]})


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append(("." * node.level) + (node.module or ""))
    return names


IDS = [f"{p.parent.name}/{p.stem}" for p in DRIVERS]


@pytest.mark.parametrize("path", DRIVERS, ids=IDS)
def test_a_driver_imports_only_the_standard_library_torch_numpy_and_its_rooms_helpers(path: Path) -> None:
    room = f"graders.{path.parent.parent.name}.{path.parent.name}."
    for name in _imports(ast.parse(path.read_text())):
        top = name.split(".")[0]
        own_helper = name.startswith(room) and name.removeprefix(room) not in NOT_FOR_WORKERS
        assert top in ALLOWED or own_helper, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", DRIVERS, ids=IDS)
def test_a_driver_holds_no_hidden_check_id_nor_seed(path: Path) -> None:
    hidden = {c.id for lesson in course_config.LESSONS for e in lesson.exercises for c in e.checks if c.hidden}
    seeds = {int(s.value) for lesson in course_config.LESSONS for e in lesson.exercises for s in e.seeds.values()
             if type(s.value) is int and s.value > 100}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert not any(check_id in node.value for check_id in hidden), f"{path.name}: {node.value!r}"
        if isinstance(node, ast.Constant) and type(node.value) is int:
            assert node.value not in seeds, f"{path.name} holds the seed {node.value}"


def test_every_driver_a_check_runs_lives_in_the_drivers() -> None:
    for checks in sorted((ROOT / "graders" / "lesson01").glob("*/checks.py")):
        tree = ast.parse(checks.read_text())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "student" and node.args):
                driver = node.args[0]
                defined_here = isinstance(driver, ast.Name) and any(
                    isinstance(d, ast.FunctionDef) and d.name == driver.id for d in tree.body)
                assert not defined_here, f"{checks.name}: the driver {driver.id} is defined in the checks module"
