"""Issue 41, "Student edges": what a student's own run accepts, every instructor path accepts the same way.

A module of the student's own beside the exercise files earns in the batch what it earns in `pytest exercises/`,
and anything else is refused by the student's run first, with the one rule in its hint; pytest-xdist is refused
plainly, and no JSON claims a complete 0 / 0; what passing code prints is shown with -s, or said where it went;
code that stopped is never said to have "returned"; a check that failed on a value an earlier check found wrong
says it did not judge its own point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import course_config
from conftest import ROOT, STUBS, batch_environment
from graders.engine.causes import SAME_VALUE
from graders.engine.error_hints import missing_module_hint
from graders.engine.points_table import PRINTED_ELSEWHERE
from graders.frontends import gradescope
from graders.frontends.grade.intake.sources import find_submissions
from graders.frontends.pytest_plugin import XDIST_REFUSED
from graders.sandbox import StudentError

SLUG = "sin_exp_derivative"
POINTS = course_config.LESSON_01.exercise(SLUG).points
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
F_BODY = "    return torch.sin(x) * torch.exp(-x)\n"
# The exercise's f, written in a module of the student's own.
USES_HELPER = REFERENCE.replace("from torch import Tensor\n", "from torch import Tensor\n\nfrom helpers import damped\n",
                                1).replace(F_BODY, "    return damped(x)\n", 1)
HELPER = "import torch\n\n\ndef damped(x):\n    return torch.sin(x) * torch.exp(-x)\n"
WRONG_HELPER = HELPER.replace("torch.exp(-x)", "torch.exp(x)")
MEAN_FOR_SUM = REFERENCE.replace("f(leaf).sum().backward()", "f(leaf).mean().backward()")


def _folder(root: Path, files: dict[str, str]) -> Path:
    """A student's folder laid out like exercises/: root/lesson01/<name>."""
    for name, text in files.items():
        (root / "lesson01" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "lesson01" / name).write_text(text)
    return root


def _batch(source: Path, out: Path) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(source), "--out", str(out), "-j", "1"],
                         capture_output=True, text=True, timeout=900, cwd=ROOT, env=batch_environment())
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run


def _exercise(record: dict, slug: str = SLUG) -> dict:
    return next(e for e in record["exercises"] if e["slug"] == slug)


# ------------------------------------------------------------------ a module of the student's own


def test_a_helper_module_earns_in_the_batch_what_it_earns_in_the_students_own_run(grade, tmp_path: Path) -> None:
    ann = _folder(tmp_path / "class" / "ann", {f"{SLUG}.py": USES_HELPER, "helpers.py": HELPER})
    own = grade(ann, only=[SLUG])
    assert own.result["score"] == POINTS, own.output
    out = tmp_path / "out"
    _batch(tmp_path / "class", out)
    record = json.loads((out / "students" / "ann.json").read_text())
    assert _exercise(record)["score"] == POINTS, _exercise(record)
    assert not [p for p in record["problems"] if "helpers" in p], record["problems"]
    assert (out / "answers" / "ann" / "helpers.py").read_text() == HELPER  # for the instructor's review
    # The helper is part of what is graded: changed alone, it regrades the exercise that imports it.
    (ann / "lesson01" / "helpers.py").write_text(WRONG_HELPER)
    again = _batch(tmp_path / "class", out)
    assert "0 unchanged since the last run, 1 to grade" in again.stdout, again.stdout
    record = json.loads((out / "students" / "ann.json").read_text())
    assert _exercise(record)["score"] < POINTS and _exercise(record)["score"] == grade(ann, only=[SLUG]).result[
        "score"], _exercise(record)


def test_a_module_in_a_subfolder_is_refused_by_the_students_own_run_with_the_rule(grade, tmp_path: Path) -> None:
    # The batch reads the .py files of the lesson folder, never a subfolder: the student's run refuses it first.
    folder = _folder(tmp_path / "ann", {f"{SLUG}.py": USES_HELPER.replace("from helpers", "from utils"),
                                        "utils/__init__.py": HELPER})
    graded = grade(folder, only=[SLUG])
    assert graded.result["score"] == 0, graded.output
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert "raised:   ModuleNotFoundError: No module named 'utils'" in message, message
    assert f"put utils.py directly beside {SLUG}.py" in message, message


def test_a_helper_that_reaches_for_the_process_distrusts_the_exercise_that_imports_it(grade, tmp_path: Path) -> None:
    folder = _folder(tmp_path / "ann", {f"{SLUG}.py": USES_HELPER, "helpers.py": "import gc\n" + HELPER})
    graded = grade(folder, only=[SLUG])
    assert graded.result["integrity"] and graded.result["integrity"][0].startswith(
        f"{SLUG}: helpers.py line 1: import gc"), graded.result["integrity"]
    assert not graded.checks(SLUG)["autograd_derivative_uses_autograd"]["passed"]  # a check of how
    assert graded.checks(SLUG)["f_on_lesson_grid"]["passed"]  # values are still judged


def test_an_error_in_a_helper_shows_the_helpers_line(grade, tmp_path: Path) -> None:
    raising = HELPER.replace("    return torch.sin(x)", "    raise ValueError('from the helper')\n    return torch.sin(x)")
    graded = grade(_folder(tmp_path / "ann", {f"{SLUG}.py": USES_HELPER, "helpers.py": raising}), only=[SLUG])
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert "helpers.py, line 5, in damped: raise ValueError('from the helper')" in message, message
    assert "Line 5 of helpers.py, in damped" in message, message


def test_the_batch_and_gradescope_read_helper_modules_as_handed_in_files(tmp_path: Path) -> None:
    _folder(tmp_path / "class" / "ann", {f"{SLUG}.py": USES_HELPER, "helpers.py": HELPER, "my-notes.py": "x\n",
                                         "sub/deep.py": HELPER})
    _folder(tmp_path / "class" / "ben", {f"{SLUG}.py": USES_HELPER})
    os.symlink(ROOT / "reference" / "lesson01" / f"{SLUG}.py", tmp_path / "class" / "ben" / "lesson01" / "helpers.py")
    _, found = find_submissions(tmp_path / "class", lesson="lesson01", slugs=[SLUG])
    ann, ben = found
    assert ann.modules == {"helpers": HELPER}, ann.modules  # a subfolder is no module of the lesson folder
    assert any(p.startswith("lesson01/my-notes.py is no exercise's file nor a module") for p in ann.problems), (
        ann.problems)
    assert ben.modules == {} and any("helpers.py is a symbolic link" in p for p in ben.problems), ben.problems
    # Gradescope stages them beside the answers, for the batch to read the same way.
    submission = tmp_path / "gradescope"
    _folder(submission, {f"{SLUG}.py": USES_HELPER, "helpers.py": HELPER})
    staged, problems = gradescope._stage(submission, tmp_path / "staged")
    assert (staged / "student" / "lesson01" / "helpers.py").read_text() == HELPER and not problems


def test_an_answer_cell_is_told_it_cannot_import_a_module_of_its_own() -> None:
    error = StudentError("ModuleNotFoundError", "No module named 'helpers'", [], False)
    assert "put its code in the answer cell" in missing_module_hint(error, "answer cell")
    assert f"put helpers.py directly beside {SLUG}.py" in missing_module_hint(error, f"{SLUG}.py")


# ------------------------------------------------------------------ pytest-xdist


def test_xdist_is_refused_plainly_and_leaves_no_json(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    out.write_text('{"score": 10, "complete": true}')  # an earlier run's
    run = subprocess.run([sys.executable, "-m", "pytest", f"exercises/lesson01/{SLUG}.py", "--submission", "reference",
                          "-n", "2", "-p", "no:cacheprovider", "--json", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-2000:] + run.stderr[-2000:]
    assert XDIST_REFUSED in run.stderr, run.stderr
    assert not out.exists()


def test_a_run_that_grades_nothing_never_writes_a_complete_zero(pytester: pytest.Pytester, tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    pytester.runpytest_inprocess(str(STUBS / "lesson01" / f"{SLUG}.py"), "-p", "no:cacheprovider",
                                 "--submission", str(ROOT / "reference"), "-k", "no_such_check", "--json", str(out))
    result = json.loads(out.read_text())
    assert result["max_score"] == 0 and result["complete"] is False, result


# ------------------------------------------------------------------ what the student sees

PRINTS = REFERENCE.replace(F_BODY, "    print('f got', tuple(x.shape))\n" + F_BODY, 1)


def test_what_passing_code_prints_shows_under_its_check_with_s(grade) -> None:
    shown = grade({SLUG: PRINTS}, "-s")
    assert shown.result["score"] == POINTS
    lines = shown.output.splitlines()
    at = lines.index("  PASS  f_on_lesson_grid: 1 / 1")
    assert lines[at + 1] == "        printed:  f got (50,)", lines[at:at + 3]
    assert "not shown: a hidden check's output would show its inputs" in shown.output, shown.output
    assert PRINTED_ELSEWHERE.split("{")[0] not in shown.output


def test_without_s_the_table_says_where_printed_output_went(grade) -> None:
    quiet = grade({SLUG: PRINTS})
    assert PRINTED_ELSEWHERE.split("{")[0] in quiet.output and "run with -s to see it" in quiet.output, quiet.output
    assert "f got (50,)" not in quiet.output


def test_code_that_stopped_is_never_said_to_have_returned(grade) -> None:
    leaf = "    leaf = x.detach().clone().requires_grad_(True)\n"
    graded = grade({SLUG: REFERENCE.replace(leaf, f"{leaf}    breakpoint()\n", 1)}, "--call-timeout", "5")
    stopped = graded.checks(SLUG)["autograd_derivative_on_lesson_grid"]["message"]
    assert "  stopped:  " in stopped and "returned:" not in stopped, stopped
    broken = grade({SLUG: "import no_such_package_of_ours\n" + REFERENCE})
    message = broken.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert "  raised:   ModuleNotFoundError" in message and "returned:" not in message, message
    syntax = grade({SLUG: REFERENCE.replace("def f(x: Tensor)", "def f(x: Tensor", 1)})
    message = syntax.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert "  raised:   SyntaxError" in message and "returned:" not in message, message


def test_a_check_that_failed_on_a_value_found_wrong_above_says_it_did_not_judge_its_own_point(grade) -> None:
    graded = grade({SLUG: MEAN_FOR_SUM})
    checks = graded.checks(SLUG)
    first = "autograd_derivative_on_lesson_grid"
    assert checks[first]["mistake"] == "mean instead of sum before backward" and checks[first]["same_cause_as"] == ""
    told = SAME_VALUE.format(named=" (mean instead of sum before backward)", first=first)
    for name in ("autograd_derivative_is_clean", "autograd_derivative_uses_autograd"):
        assert checks[name]["message"].endswith(told), checks[name]["message"]
        assert (f"  FAIL  {name}: 0 / 1   (not judged: mean instead of sum before backward, as in {first})"
                in graded.output), graded.output
