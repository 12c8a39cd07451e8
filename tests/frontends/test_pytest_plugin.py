"""The pytest front end as students and instructors use it: `pytest exercises/` and its options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import course_config
from conftest import ROOT, STUBS
from graders.frontends import pytest_plugin as plugin
from graders.engine import session, student

SLUG = "sin_exp_derivative"
STUB = STUBS / "lesson01" / f"{SLUG}.py"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()


def run_inprocess(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(str(STUB), "-p", "no:cacheprovider", *args)


def test_untouched_stubs_score_zero_and_say_not_implemented_yet(pytester: pytest.Pytester, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = run_inprocess(pytester, "--json", str(out))
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"{SLUG}: 0 / * points   not implemented yet: open exercises/lesson01/{SLUG}.py",
                                 "Lesson 1: 0 / * points   (10 of * checks ran)"])
    assert "Traceback" not in result.stdout.str()
    data = json.loads(out.read_text())
    assert data["score"] == 0 and all(c["not_implemented"] for e in data["exercises"] for c in e["checks"])


def test_the_reference_earns_full_marks_and_the_json_says_so(pytester: pytest.Pytester, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = run_inprocess(pytester, "--submission", str(ROOT / "reference"), "--json", str(out))
    assert result.ret == 0
    data = json.loads(out.read_text())
    assert data["score"] == data["max_score"] == course_config.LESSON_01.exercise("sin_exp_derivative").points
    assert data["trusted"] is True
    check = data["exercises"][0]["checks"][0]
    assert set(check) >= {"id", "points", "score", "passed", "message", "hidden", "mistake"}
    points = f"{course_config.LESSON_01.exercise('sin_exp_derivative').points:g}"
    assert result.stdout.lines[-1].startswith(f"Lesson 1: {points} / {points} points")
    assert data["complete"] is True


def test_the_submission_may_name_the_lesson_folder_itself(pytester: pytest.Pytester) -> None:
    result = run_inprocess(pytester, "--submission", str(ROOT / "reference" / "lesson01"))
    assert result.ret == 0


def test_a_missing_submission_folder_is_a_usage_error_that_names_it(pytester: pytest.Pytester) -> None:
    result = run_inprocess(pytester, "--submission", "no_such_folder")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--submission no_such_folder: no folder*"])


def test_a_bad_call_timeout_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = run_inprocess(pytester, "--call-timeout", "soon")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--call-timeout 'soon': give a number of seconds*"])


def test_a_missing_exercise_file_says_so(grade, tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    (folder / "lesson01").mkdir(parents=True)
    graded = grade(folder, only=[SLUG])
    assert "does not exist: the submission has no file for this exercise" in graded.checks(SLUG)["f_on_lesson_grid"]["message"]


def test_a_misspelled_function_is_named_with_its_file(grade) -> None:
    graded = grade({SLUG: REFERENCE.replace("def f(x", "def ff(x")})
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert "`f` is not defined in" in message and f"lesson01/{SLUG}.py" in message and "ff" in message


def test_k_selects_checks_and_x_stops_at_the_first_failure(pytester: pytest.Pytester, tmp_path: Path) -> None:
    # analytic_derivative's two checks on the lesson's grid, and the two hidden ones that name it
    result = run_inprocess(pytester, "-k", "analytic", "-q")
    result.assert_outcomes(failed=4)
    out = tmp_path / "r.json"
    result = run_inprocess(pytester, "-x", "-q", "--json", str(out))
    result.assert_outcomes(failed=1)
    assert json.loads(out.read_text())["complete"] is False


def test_the_json_result_replaces_whatever_stood_at_its_path(pytester: pytest.Pytester, tmp_path: Path) -> None:
    import os

    out = tmp_path / "r.json"
    os.mkfifo(out)  # a reader would block forever on a pipe; the result must replace it instead
    run_inprocess(pytester, "-q", "--json", str(out), "-k", "f_on_lesson_grid")
    assert json.loads(out.read_text())["score"] == 0


def test_junitxml_carries_the_feedback(pytester: pytest.Pytester, tmp_path: Path) -> None:
    xml = tmp_path / "junit.xml"
    run_inprocess(pytester, "--junitxml", str(xml))
    assert "not implemented yet" in xml.read_text()


def test_markers_are_documented(pytester: pytest.Pytester) -> None:
    # Without hypothesis's plugin, as pyproject.toml's addopts (which pytester does not read) has it.
    result = pytester.runpytest_inprocess("--markers", "-p", "no:hypothesispytest")
    result.stdout.fnmatch_lines([f"@pytest.mark.{plugin.POINTS_MARKER}", f"@pytest.mark.{plugin.HIDDEN_MARKER}"])


def test_in_process_debugging_grades_the_same_and_says_it_is_not_for_grading(pytester: pytest.Pytester,
                                                                           tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = run_inprocess(pytester, "--submission", str(ROOT / "reference"), "--in-process", "--json", str(out))
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"*{session.IN_PROCESS_BANNER}*"])
    assert json.loads(out.read_text())["trusted"] is False


def test_a_failure_message_has_the_standard_parts(grade) -> None:
    graded = grade({SLUG: REFERENCE.replace("torch.cos(x) - torch.sin(x)", "torch.cos(x) + torch.sin(x)")})
    message = graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["message"]
    for label in ("called:", "returned:", "expected:", "mistake:", "hint:", "lesson:"):
        assert label in message


def test_not_implemented_messages_come_from_module_constants() -> None:
    assert "not implemented yet" in student.NOT_IMPLEMENTED


def test_pytest_exercises_runs_as_a_command(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", str(STUB), "-p", "no:cacheprovider", "-q",
                           "--submission", str(ROOT / "reference")], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("Lesson 1: ")


def test_quiet_lists_only_the_failed_checks(pytester: pytest.Pytester) -> None:
    wrong = REFERENCE.replace("torch.cos(x) - torch.sin(x)", "torch.cos(x) + torch.sin(x)")
    folder = pytester.path / "quiet" / "lesson01"
    folder.mkdir(parents=True)
    (folder / f"{SLUG}.py").write_text(wrong)
    result = run_inprocess(pytester, "--submission", str(folder.parent), "-q")
    result.stdout.fnmatch_lines(["  FAIL  analytic_derivative_on_lesson_grid: 0 / 1   (sign error)"])
    assert "  PASS  " not in result.stdout.str()
    result = run_inprocess(pytester, "--submission", str(folder.parent))
    result.stdout.fnmatch_lines(["  PASS  f_on_lesson_grid: 1 / 1"])


# A pytest run of the project's own tests, in a fresh interpreter: the plugin is loaded (an entry point), grades
# nothing itself, and so starts no zygote; a run that grades starts one.
_ZYGOTES_STARTED = """
import sys, pytest
from graders.sandbox.zygote import ZYGOTE
pytest.main([*sys.argv[1:], "-q", "-p", "no:cacheprovider", "-p", "no:xdist"])
print("zygotes started:", ZYGOTE.generation)
"""


@pytest.mark.parametrize(("target", "started"), [("tests/test_layout.py", 0), (f"exercises/lesson01/{SLUG}.py", 1)])
def test_only_a_run_that_grades_starts_a_zygote(target: str, started: int) -> None:
    run = subprocess.run([sys.executable, "-c", _ZYGOTES_STARTED, target, "--submission", str(ROOT / "reference")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert f"zygotes started: {started}" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]
