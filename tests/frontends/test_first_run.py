"""What a student sees in the terminal: a short first run on untouched stubs, `-k <slug>`
selecting one exercise, one full explanation per cause, and their own print() output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import course_config

from mistake_catalogue import submission
from conftest import ROOT, STUBS

EXERCISES = STUBS


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*args, "-p", "no:cacheprovider")


def test_the_first_run_on_untouched_stubs_is_short_and_says_where_to_begin() -> None:
    # As a student runs it: from the repository (or the copy of its committed stubs, where this checkout's differ),
    # on the stubs as they are handed out.
    shown = subprocess.run([sys.executable, "-m", "pytest", "exercises/", "-p", "no:cacheprovider"], cwd=STUBS.parent,
                           capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "100"})
    lines = shown.stdout.splitlines()
    assert len(lines) < 40, shown.stdout
    assert "FAILURES" not in shown.stdout
    assert "Begin with exercises/lesson01/dtypes_and_devices.py" in shown.stdout
    for slug in ("views", "micrograd", "quick_check"):
        assert f"{slug}: 0 / " in shown.stdout and f"not implemented yet: open exercises/lesson01/{slug}.py" in shown.stdout
    assert lines[-1] == f"Lesson 1: 0 / {course_config.LESSON_01.points:g} points"


def test_an_untouched_exercise_beside_started_ones_is_one_line_and_named_next(
        pytester: pytest.Pytester, tmp_path: Path) -> None:
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    for slug in ("views", "sin_exp_derivative"):
        source = (ROOT / "reference" if slug == "views" else STUBS) / "lesson01" / f"{slug}.py"
        (folder / f"{slug}.py").write_text(source.read_text())
    result = _run(pytester, str(EXERCISES / "lesson01" / "views.py"), str(EXERCISES / "lesson01" / "sin_exp_derivative.py"),
                  "--submission", str(folder.parent))
    text = result.stdout.str()
    assert "FAILURES" not in text and "views: 6 / 6 points" in text
    assert result.stdout.lines[-1].endswith("Next to start: lesson01/sin_exp_derivative.py"), result.stdout.lines[-1]


def test_k_with_a_slug_selects_exactly_that_exercise(pytester: pytest.Pytester) -> None:
    # quick_check has test_answers_shapes_and_views: plain -k matching would take it too.
    result = _run(pytester, str(EXERCISES), "-k", "views", "--submission", str(ROOT / "reference"))
    total = sum(len(e.checks) for e in course_config.LESSON_01.exercises)
    views = len(course_config.LESSON_01.exercise("views").checks)
    result.stdout.fnmatch_lines([f"collected {total} items / {total - views} deselected / {views} selected"])
    assert "quick_check" not in result.stdout.str()
    others = _run(pytester, str(EXERCISES), "-k", "answers_shapes_and_views", "--submission", str(ROOT / "reference"))
    others.stdout.fnmatch_lines(["*/ 1 selected"])  # any other expression works as pytest's own


def test_the_header_says_when_a_run_holds_no_exercises() -> None:
    shown = subprocess.run([sys.executable, "-m", "pytest", "--co", "-p", "no:cacheprovider", "tests/test_layout.py"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert "graders: no exercises in this run: it runs the project's own tests" in shown.stdout, shown.stdout
    assert "grading exercises/" not in shown.stdout


def test_a_mistake_is_explained_once_and_later_checks_say_same_cause(pytester: pytest.Pytester, tmp_path: Path) -> None:
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    (folder / "learning_rate.py").write_text(submission("learning_rate", "never_zeroed"))
    result = _run(pytester, str(EXERCISES / "lesson01" / "learning_rate.py"), "--submission", str(folder.parent))
    text = result.stdout.str()
    assert text.count("mistake:  gradients never zeroed.") == 1, text
    assert text.count("same cause as above (gradients never zeroed).") >= 2, text
    failures = text.split("FAILURES")[1].split("Lesson 1: points")[0]
    assert len(failures.splitlines()) < 40, failures


PRINTING = '''
_lesson_train_line = train_line


def train_line(X, y, lr, steps):
    print(f"training: lr={lr}, steps={steps}")
    return _lesson_train_line(X, y, lr, steps)
'''


def test_a_failed_check_shows_what_the_students_code_printed_but_a_hidden_one_does_not(
        pytester: pytest.Pytester, tmp_path: Path) -> None:
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    (folder / "learning_rate.py").write_text(submission("learning_rate", "never_zeroed") + PRINTING)
    result = _run(pytester, str(EXERCISES / "lesson01" / "learning_rate.py"), "--submission", str(folder.parent),
                  "--json", str(tmp_path / "result.json"))
    text = result.stdout.str()
    assert "printed:  training: lr=0.1, steps=101" in text, text
    assert "training: lr=0.1, steps=1\n" not in text  # a passing check's prints are not carried over
    checks = {c["id"]: c for e in json.loads((tmp_path / "result.json").read_text())["exercises"] for c in e["checks"]}
    assert "printed:" in checks["lesson_run_at_lr_0_1"]["message"]
    assert checks["train_line_on_fresh_data"]["hidden"] and "printed:" not in checks["train_line_on_fresh_data"]["message"]


def test_a_file_that_cannot_be_imported_is_one_message_for_the_whole_exercise(
        pytester: pytest.Pytester, tmp_path: Path) -> None:
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    broken = (ROOT / "reference" / "lesson01" / "sin_exp_derivative.py").read_text().replace("def f(x", "def f(x,,", 1)
    (folder / "sin_exp_derivative.py").write_text(broken)
    result = _run(pytester, str(EXERCISES / "lesson01" / "sin_exp_derivative.py"), "--submission", str(folder.parent))
    text = result.stdout.str()
    assert text.count("could not be imported") == 2, text  # its block under FAILURES, and the table's line
    assert text.count("Fix the syntax error") == 1 and "same cause as above" not in text
    assert "sin_exp_derivative: 0 / 10 points   every check:" in text
