"""What a stub is (graders/engine/stubs.py), and which text of a stub is handed out: the committed one
in a git checkout, the working copy elsewhere, and never one that holds code."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

import course_config
from conftest import STUBS
from graders.engine.stubs import NotAStubError, released_stubs, stub_problem, stub_to_release

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
STUB = '''"""A task."""

import math

SCALE = 2.0  # a constant students are given


def f(x: float) -> float:
    """Twice x."""
    # TODO: write this function.
    raise NotImplementedError


class Value:
    """A number."""

    def __init__(self, data: float) -> None:
        """Keep data."""
        raise NotImplementedError("write __init__")

    async def later(self) -> None:
        raise NotImplementedError()
'''
SOLVED = STUB.replace('''    # TODO: write this function.
    raise NotImplementedError''', '''    return SCALE * x''')
EDITED = STUB.replace('"""Twice x."""', '"""Twice x, as a float."""')
INSTRUCTOR = ["git", "-c", "user.name=Instructor", "-c", "user.email=instructor@example.invalid",
              "-c", "commit.gpgsign=false"]


def test_every_stub_of_the_course_is_a_stub() -> None:
    for exercise in LESSON.exercises:
        assert stub_problem((STUBS / "lesson01" / f"{exercise.slug}.py").read_text()) is None, exercise.slug


def test_every_reference_is_refused_naming_each_of_its_functions() -> None:
    for exercise in LESSON.exercises:
        source = (ROOT / "reference" / "lesson01" / f"{exercise.slug}.py").read_text()
        problem = stub_problem(source)
        assert problem is not None and problem.startswith("implements "), exercise.slug
        defined = []
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                defined.append(node.name)
            elif isinstance(node, ast.ClassDef):
                defined += [f"{node.name}.{m.name}" for m in node.body if isinstance(m, ast.FunctionDef)]
        assert problem == "implements " + ", ".join(defined), exercise.slug


def test_a_stub_may_hold_docstrings_todos_constants_classes_and_any_raise_of_not_implemented() -> None:
    assert stub_problem(STUB) is None
    assert stub_problem("def f():\n    raise NotImplementedError\n") is None


@pytest.mark.parametrize("body, named", [
    ("    pass", "f"),
    ("    ...", "f"),
    ("    raise ValueError", "f"),
    ("    raise NotImplementedError from None", "f"),
    ("    raise NotImplementedError\n    return 1", "f"),
    ("    x = 1\n    raise NotImplementedError", "f"),
])
def test_a_body_that_does_anything_else_is_code(body: str, named: str) -> None:
    assert stub_problem(f'def f():\n    """Doc."""\n{body}\n') == f"implements {named}"


def test_methods_are_named_with_their_class_and_lambdas_and_syntax_errors_are_refused() -> None:
    method = STUB.replace('        raise NotImplementedError("write __init__")', "        self.data = data")
    assert stub_problem(method) == "implements Value.__init__"
    assert stub_problem(STUB + "\ng = lambda x: 2 * x\n") == "implements a lambda (line 24)"
    assert stub_problem(STUB + "\ndef broken(:\n") == "does not parse (line 24: invalid syntax)"


def _course(tmp_path: Path, stubs: dict[str, str], *, commit: bool) -> Path:
    """A course folder holding these stubs of lesson01, committed to git when `commit`."""
    (tmp_path / "exercises" / "lesson01").mkdir(parents=True)
    for slug, text in stubs.items():
        (tmp_path / "exercises" / "lesson01" / f"{slug}.py").write_text(text)
    if commit:
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "stubs"]):
            subprocess.run([*INSTRUCTOR, *command], cwd=tmp_path, check=True, capture_output=True, timeout=60)
    return tmp_path


def _write(course: Path, slug: str, text: str) -> Path:
    path = course / "exercises" / "lesson01" / f"{slug}.py"
    path.write_text(text)
    return Path("exercises") / "lesson01" / f"{slug}.py"


def test_in_a_checkout_the_committed_stub_is_released_whatever_the_working_copy_holds(tmp_path: Path) -> None:
    course = _course(tmp_path, {"a": STUB, "b": STUB, "c": STUB, "d": STUB}, commit=True)
    assert stub_to_release(course, Path("exercises/lesson01/a.py")) == (STUB, None)
    text, note = stub_to_release(course, _write(course, "b", SOLVED))
    assert text == STUB and note == "exercises/lesson01/b.py: your working copy implements f; releasing the committed stub instead"
    text, note = stub_to_release(course, _write(course, "c", EDITED))
    assert text == STUB and note is not None and "uncommitted changes" in note and "exercises/lesson01/c.py" in note
    (course / "exercises" / "lesson01" / "d.py").unlink()
    text, note = stub_to_release(course, Path("exercises/lesson01/d.py"))
    assert text == STUB and note is not None and "missing from your working copy" in note


def test_a_committed_solution_is_refused_and_a_new_file_must_be_a_stub(tmp_path: Path) -> None:
    course = _course(tmp_path, {"a": SOLVED}, commit=True)
    with pytest.raises(NotAStubError, match=r"exercises/lesson01/a\.py as committed \(HEAD\) implements f: "):
        stub_to_release(course, Path("exercises/lesson01/a.py"))
    _write(course, "a", STUB)  # a stub in the working copy does not make the committed solution one
    with pytest.raises(NotAStubError, match="as committed"):
        stub_to_release(course, Path("exercises/lesson01/a.py"))
    assert stub_to_release(course, _write(course, "new", EDITED)) == (EDITED, None)  # never committed: as it is
    with pytest.raises(NotAStubError, match=r"exercises/lesson01/new\.py implements f:"):
        stub_to_release(course, _write(course, "new", SOLVED))


def test_without_git_the_working_copy_is_released_only_if_it_is_a_stub(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    course = _course(tmp_path, {"a": EDITED, "b": SOLVED, "c": STUB + "\ndef broken(:\n"}, commit=False)
    assert released_stubs("lesson01", ["a"], root=course) == {"a": EDITED}
    with pytest.raises(SystemExit) as refused:
        released_stubs("lesson01", ["a", "b", "c", "gone"], root=course)
    message = str(refused.value.code)
    assert "exercises/lesson01/b.py implements f: " in message and "`git checkout -- exercises/lesson01/b.py`" in message
    assert "exercises/lesson01/c.py does not parse (line 24" in message
    assert "exercises/lesson01/gone.py is missing" in message
    assert "exercises/lesson01/a.py" not in message and capsys.readouterr().out == ""


def test_released_stubs_prints_one_line_per_stub_taken_from_the_commit(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    course = _course(tmp_path, {"a": STUB, "b": STUB}, commit=True)
    _write(course, "b", SOLVED)
    assert released_stubs("lesson01", ["a", "b"], root=course) == {"a": STUB, "b": STUB}
    assert capsys.readouterr().out.splitlines() == [
        "exercises/lesson01/b.py: your working copy implements f; releasing the committed stub instead"]
