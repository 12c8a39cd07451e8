"""The drivers are public: what runs beside student code in a worker holds nothing a student may not have.

A worker's memory holds graders/drivers/ (its zygote loads them all), so a driver module may import
only the standard library, torch, numpy and other drivers (not the checks, not course_config, not
the engine), and none may hold a hidden check's id or a seed of the course as a constant.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import course_config
from conftest import ROOT

DRIVERS = sorted((ROOT / "graders" / "drivers").glob("*.py"))
ALLOWED = {"torch", "numpy", "__future__"} | set(sys.stdlib_module_names)


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append(("." * node.level) + (node.module or ""))
    return names


@pytest.mark.parametrize("path", DRIVERS, ids=[p.stem for p in DRIVERS])
def test_a_driver_imports_only_the_standard_library_torch_numpy_and_drivers(path: Path) -> None:
    for name in _imports(ast.parse(path.read_text())):
        top = name.split(".")[0]
        assert top in ALLOWED or name.startswith("graders.drivers"), f"{path.name} imports {name}"


@pytest.mark.parametrize("path", DRIVERS, ids=[p.stem for p in DRIVERS])
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
    for checks in sorted((ROOT / "graders" / "lesson01").glob("*.py")):
        tree = ast.parse(checks.read_text())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "student" and node.args):
                driver = node.args[0]
                defined_here = isinstance(driver, ast.Name) and any(
                    isinstance(d, ast.FunctionDef) and d.name == driver.id for d in tree.body)
                assert not defined_here, f"{checks.name}: the driver {driver.id} is defined in the checks module"
