"""The front ends' tests mirror their source: each module of graders/frontends/ with behaviour of its own has a
test file named after it in tests/frontends/, or an entry in FRONTENDS (tests/frontends_mirror_exemptions.py)
saying why not.

The name rule. A module `<folder>/<stem>.py` is tested by `test_<stem>.py` or `test_<folder>_<stem>.py`. Where the
stem is also a module's elsewhere in graders/ (outputs/report.py and nbgrader/report.py, run/progress.py and
engine/progress.py, run/main.py and graders/__main__.py), only `test_<folder>_<stem>.py` counts: `test_report.py`
would not say which report it tests, and pytest cannot hold two test files of one name in tests/. A package's
`__init__.py` that holds code (grade/lms/, the registry) is a module named after its folder; one that holds only
its docstring has nothing to test and is not counted."""

from __future__ import annotations

import ast
from pathlib import Path

import course_config
from frontends_mirror_exemptions import FRONTENDS

GRADERS = course_config.ROOT / "graders"
SOURCE = GRADERS / "frontends"
TESTS = course_config.ROOT / "tests" / "frontends"


def _only_a_docstring(path: Path) -> bool:
    body = ast.parse(path.read_text()).body
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body)


def _stem(path: Path) -> str:
    """What a module is called: its file's stem, or its folder's for a package's __init__.py."""
    return path.parent.name if path.name == "__init__.py" else path.stem


def modules(source: Path = SOURCE) -> dict[str, Path]:
    """Every module of the floor by its path relative to it, leaving out the __init__.py files that hold only a
    docstring."""
    return {path.relative_to(source).as_posix(): path for path in sorted(source.rglob("*.py"))
            if not (path.name == "__init__.py" and _only_a_docstring(path))}


def accepted_names(relative: str, stems_elsewhere: set[str]) -> list[str]:
    """The test file names that count as `relative`'s tests, the preferred one first."""
    path = Path(relative)
    stem = _stem(path)
    folder = (path.parent.parent if path.name == "__init__.py" else path.parent).name
    with_folder = f"test_{folder}_{stem}.py" if folder else None
    if stem in stems_elsewhere and with_folder:
        return [with_folder]
    return [f"test_{stem}.py", *([with_folder] if with_folder else [])]


def _stems_counted_twice(source: Path, graders: Path) -> set[str]:
    """The stems of floor modules that name another module of graders/ too (`__main__` counts as `main`)."""
    def name(path: Path) -> str:
        return _stem(path).strip("_") if path.name != "__init__.py" else path.parent.name
    everywhere = [name(path) for path in graders.rglob("*.py")
                  if not (path.name == "__init__.py" and _only_a_docstring(path))]
    return {stem for stem in set(everywhere) if everywhere.count(stem) > 1}


def unmirrored(source: Path, tests: Path, graders: Path, exempt: dict[str, str]) -> list[str]:
    """What breaks the rule, one sentence each: a module with neither a test file nor an exemption, and a stale
    exemption (no such module, a module that has its test file now, or no reason given)."""
    test_files = {path.name for path in tests.rglob("test_*.py")}
    twice = _stems_counted_twice(source, graders)
    found = modules(source)
    problems = []
    for relative in found:
        names = accepted_names(relative, twice)
        tested = any(name in test_files for name in names)
        if not tested and relative not in exempt:
            problems.append(f"graders/frontends/{relative} has no tests by name: create tests/frontends/{names[0]} "
                            f"or add {relative!r} with a reason to FRONTENDS in tests/frontends_mirror_exemptions.py")
        elif tested and relative in exempt:
            problems.append(f"FRONTENDS exempts {relative!r} but it has tests by name now: remove its entry")
    for relative, reason in exempt.items():
        if relative not in found:
            problems.append(f"FRONTENDS exempts {relative!r}, which is no module of graders/frontends/: remove it")
        elif not reason.strip():
            problems.append(f"FRONTENDS exempts {relative!r} without a reason: say why it has no test file")
    return problems


def test_every_front_end_module_has_its_test_file_or_a_reason() -> None:
    problems = unmirrored(SOURCE, TESTS, GRADERS, FRONTENDS)
    assert not problems, "\n".join(problems)


def _tree(root: Path, files: list[str]) -> None:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")


def test_the_rule_names_the_module_and_the_file_to_create_and_refuses_stale_exemptions(tmp_path: Path) -> None:
    # A small made-up graders/ checks the rule itself can fail, each way it can.
    graders, tests = tmp_path / "graders", tmp_path / "tests"
    _tree(graders, ["frontends/cli.py", "frontends/grade/roster.py", "frontends/grade/report.py",
                    "frontends/nbgrader/report.py", "engine/roster_words.py"])
    (graders / "frontends" / "grade" / "__init__.py").write_text('"""Only words."""\n')
    _tree(tests, ["test_cli.py", "test_report.py"])
    problems = unmirrored(graders / "frontends", tests, graders,
                          {"nbgrader/report.py": "", "gone.py": "it was deleted"})
    assert problems == [
        "graders/frontends/grade/report.py has no tests by name: create tests/frontends/test_grade_report.py or add "
        "'grade/report.py' with a reason to FRONTENDS in tests/frontends_mirror_exemptions.py",
        "graders/frontends/grade/roster.py has no tests by name: create tests/frontends/test_roster.py or add "
        "'grade/roster.py' with a reason to FRONTENDS in tests/frontends_mirror_exemptions.py",
        "FRONTENDS exempts 'nbgrader/report.py' without a reason: say why it has no test file",
        "FRONTENDS exempts 'gone.py', which is no module of graders/frontends/: remove it",
    ], problems
    # The folder's name in the test's name is enough, and an exemption of a tested module is stale.
    _tree(tests, ["test_grade_roster.py", "test_grade_report.py", "test_nbgrader_report.py"])
    assert unmirrored(graders / "frontends", tests, graders, {"cli.py": "wiring"}) == [
        "FRONTENDS exempts 'cli.py' but it has tests by name now: remove its entry"]


def test_a_package_with_code_is_named_after_its_folder() -> None:
    assert accepted_names("grade/lms/__init__.py", set()) == ["test_lms.py", "test_grade_lms.py"]
    assert accepted_names("grade/run/progress.py", {"progress"}) == ["test_run_progress.py"]
    assert accepted_names("cli.py", set()) == ["test_cli.py"]
