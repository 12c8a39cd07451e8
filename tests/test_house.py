"""The house's rules, read from the source: three floors that import one way (front ends -> engine
-> sandbox), the sandbox entered through its door only, checks that import the kit alone, and no
import cycle anywhere in graders/."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import course_config

GRADERS = course_config.ROOT / "graders"
SLUGS = {e.slug for lesson in course_config.LESSONS for e in lesson.exercises}


def _module_name(path: Path) -> str:
    parts = path.relative_to(GRADERS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, top_level_only: bool = False) -> list[str]:
    """The graders modules a file imports (`from graders.x import y` gives graders.x.y where y is a
    module, else graders.x)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and (node.module + ".").startswith("graders."):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                as_path = GRADERS.parent.joinpath(*candidate.split("."))
                found.append(candidate if as_path.with_suffix(".py").is_file() or as_path.is_dir() else node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if (a.name + ".").startswith("graders.")]
    return found


MODULES = {_module_name(p): p for p in GRADERS.rglob("*.py")}


def _floor(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) == "engine"))
def test_the_engine_never_imports_a_front_end(module: str) -> None:
    wrong = [i for i in _imports(MODULES[module]) if _floor(i) == "frontends"]
    assert not wrong, f"{module} imports the front end(s) {wrong}: the engine is imported by them, not the reverse"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) == "sandbox"))
def test_the_sandbox_imports_only_itself(module: str) -> None:
    # It finds the rooms' drivers (graders/<lesson>/<slug>/drivers.py, standard library, torch and numpy only:
    # test_drivers.py) by their path, to warm them in the zygote; nothing else of the grader may be there.
    wrong = [i for i in _imports(MODULES[module]) if _floor(i) != "sandbox"]
    assert not wrong, f"{module} imports {wrong}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) in ("engine", "frontends", "lesson01")
                                          or m == "graders.kit"))
def test_the_sandbox_is_entered_by_its_door(module: str) -> None:
    wrong = [i for i in _imports(MODULES[module]) if i.startswith("graders.sandbox.")]
    assert not wrong, f"{module} reaches past graders.sandbox's door into {wrong}: export the name from its __init__"


@pytest.mark.parametrize("slug", sorted(SLUGS))
def test_checks_import_the_kit_and_their_own_room_only(slug: str) -> None:
    room = f"graders.lesson01.{slug}"
    for path in sorted((GRADERS / "lesson01" / slug).glob("*.py")):
        allowed = {"graders.kit", room} | {m for m in MODULES if m.startswith(room + ".")}
        if path.stem == "drivers":
            allowed = {m for m in allowed if m != "graders.kit"}  # drivers run in the worker: nothing of the grader
        wrong = [i for i in _imports(path) if i not in allowed]
        assert not wrong, f"{path.relative_to(GRADERS)} imports {wrong}: a room imports graders.kit and itself only"
        source = path.read_text()
        assert "import course_config" not in source and "from course_config" not in source, (
            f"{path.relative_to(GRADERS)} reads the course through the kit's exercise(), not course_config")


@pytest.mark.parametrize("slug", sorted(SLUGS))
def test_a_room_holds_checks_mistakes_and_nothing_that_loads_on_its_own(slug: str) -> None:
    room = GRADERS / "lesson01" / slug
    assert (room / "checks.py").is_file() and (room / "mistakes.py").is_file()
    # A worker imports its drivers through the room's package: the package itself must load nothing.
    init = ast.parse((room / "__init__.py").read_text())
    assert [type(node) for node in init.body] == [ast.Expr], f"{slug}/__init__.py holds more than its docstring"
    mistakes = ast.parse((room / "mistakes.py").read_text())
    assert not any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in mistakes.body), (
        f"{slug}/mistakes.py holds the named mistakes only (their variants are code of the checks)")


def test_no_import_cycle_among_the_modules() -> None:
    graph = {m: {i for i in _imports(p, top_level_only=True) if i in MODULES and i != m} for m, p in MODULES.items()}
    # A package's __init__ is imported before its modules: an edge to a module implies one to its packages.
    for module in list(graph):
        graph[module] |= {".".join(d.split(".")[:k]) for d in list(graph[module])
                          for k in range(2, len(d.split("."))) if ".".join(d.split(".")[:k]) in MODULES} - {module}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1 and not module.startswith(target + "."):
                cycle = path[path.index(target):] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
