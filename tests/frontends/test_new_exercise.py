"""`python -m graders new`: in a scratch copy of the project, a scaffolded exercise grades at once (the
reference full marks, the stub 0, a wrong answer named), passes the layout and house tests, and bad
requests are refused with a message that says why."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, STUBS

SLUG = "scale_rows"
COPIED = ("exercises", "reference", "graders", "tests", "docs", "course_config.py", "pyproject.toml")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("project")
    for name in COPIED:
        source = STUBS if name == "exercises" else ROOT / name  # the stubs as committed, not the ones tried here
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif source.exists():
            shutil.copyfile(source, copy / name)
    made = _run(copy, "-m", "graders", "new", "lesson01", SLUG, "--title", "Scale the rows of a batch",
                "--section", '"Tensors"', "--points", "4")
    assert made.returncode == 0, made.stderr
    return copy


def _run(project: Path, *args: str) -> subprocess.CompletedProcess:
    # The copy's own package, not the installed one: PYTHONPATH puts it first.
    env = {**os.environ, "PYTHONPATH": str(project), "GRADERS_CACHE_DIR": "off"}
    return subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True, text=True, timeout=600)


def _graded(project: Path, folder: Path | None) -> dict:
    out = project / "result.json"
    args = ["-m", "pytest", f"exercises/lesson01/{SLUG}.py", "-p", "no:cacheprovider", "--json", str(out)]
    _run(project, *args, *(["--submission", str(folder)] if folder else []))
    return json.loads(out.read_text())["exercises"][0]


def test_the_scaffold_writes_a_room_and_joins_the_lesson(project: Path) -> None:
    room = project / "graders" / "lesson01" / SLUG
    assert sorted(p.name for p in room.iterdir() if p.name != "__pycache__") == [
        "__init__.py", "checks.py", "exercise.toml", "mistakes.py"]
    assert f'("{SLUG}", 4),' in (project / "course_config.py").read_text()
    shown = _run(project, "-m", "graders", "config", "--exercise", SLUG)
    assert shown.returncode == 0 and "Scale the rows of a batch" in shown.stdout and "4 points" in shown.stdout


def test_the_reference_earns_full_marks_and_the_stub_nothing(project: Path) -> None:
    solved = _graded(project, project / "reference")
    assert solved["score"] == solved["max_score"] == 4
    untouched = _graded(project, None)
    assert untouched["score"] == 0 and all(c["not_implemented"] for c in untouched["checks"])


def test_a_wrong_answer_is_named_by_the_scaffolds_mistake(project: Path, tmp_path: Path) -> None:
    wrong = (project / "reference" / "lesson01" / f"{SLUG}.py").read_text().replace("return x * factor", "return x")
    (tmp_path / "lesson01").mkdir()
    (tmp_path / "lesson01" / f"{SLUG}.py").write_text(wrong)
    graded = _graded(project, tmp_path)
    assert graded["score"] == 0
    public = next(c for c in graded["checks"] if not c["hidden"])
    assert public["mistake"] == "factor ignored", public


def test_the_new_room_passes_the_layout_house_and_driver_tests(project: Path) -> None:
    ran = _run(project, "-m", "pytest", "tests/test_layout.py", "tests/test_house.py", "tests/sandbox/test_drivers.py",
               "-k", SLUG, "-q", "-p", "no:cacheprovider")
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert " passed" in ran.stdout and "failed" not in ran.stdout


@pytest.mark.parametrize("args, says", [
    (["lesson01", SLUG], "exists already"),
    (["lesson01", "Scale-Rows"], "cannot name an exercise"),
    (["lesson09", "other"], "no lesson 'lesson09'"),
])
def test_a_bad_request_is_refused_and_says_why(project: Path, args: list[str], says: str) -> None:
    before = (project / "course_config.py").read_text()
    refused = _run(project, "-m", "graders", "new", *args, "--title", "Another")
    assert refused.returncode != 0 and says in refused.stderr, refused.stderr
    assert (project / "course_config.py").read_text() == before
