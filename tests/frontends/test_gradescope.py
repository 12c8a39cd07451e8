"""The Gradescope autograder, run as Gradescope runs it: the zip unpacked into a scratch folder laid
out like /autograder, `run_autograder` on a submission of .py files and on a notebook, and
results.json read back in Gradescope's format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

import course_config
from mistake_catalogue import submission
from graders.engine.results import HIDDEN_OUTCOME
from graders.frontends.nbgrader.notebook import lesson_notebook

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01


@pytest.fixture(scope="module")
def autograder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unpacked zip at <scratch>/autograder/source, as Gradescope leaves it."""
    scratch = tmp_path_factory.mktemp("gradescope")
    built = subprocess.run([sys.executable, "-m", "graders", "gradescope", "build", str(scratch / "autograder.zip")],
                           cwd=ROOT, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    source = scratch / "autograder" / "source"
    with zipfile.ZipFile(scratch / "autograder.zip") as bundle:
        names = bundle.namelist()
        bundle.extractall(source)
    assert {"setup.sh", "run_autograder"} <= set(names)
    assert "course/reference/lesson01/sin_exp_derivative.py" in names and "course/graders/lesson01/views/checks.py" in names
    for script in ("setup.sh", "run_autograder"):
        (source / script).chmod(0o755)
        assert subprocess.run(["bash", "-n", str(source / script)]).returncode == 0
    return scratch / "autograder"


def _run(autograder: Path, files: dict[str, str], links: dict[str, Path] | None = None) -> dict:
    """Grade a submission of these files (and these symbolic links, as a student's zip can hold)."""
    submission = autograder / "submission"
    if submission.exists():
        for path in sorted(submission.rglob("*"), reverse=True):
            path.unlink() if path.is_symlink() or path.is_file() else path.rmdir()
    submission.mkdir(exist_ok=True)
    for name, text in files.items():
        (submission / name).parent.mkdir(parents=True, exist_ok=True)
        (submission / name).write_text(text)
    for name, target in (links or {}).items():
        (submission / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, submission / name)
    env = {**os.environ, "AUTOGRADER_ROOT": str(autograder), "GRADERS_PYTHON": sys.executable}
    run = subprocess.run(["bash", str(autograder / "source" / "run_autograder")], env=env, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return json.loads((autograder / "results" / "results.json").read_text())


def _reference(slug: str) -> str:
    return (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()


def test_a_submission_of_py_files_gets_every_check_in_gradescopes_format(autograder: Path) -> None:
    results = _run(autograder, {"views.py": _reference("views"),
                                "lesson01/sin_exp_derivative.py": submission("sin_exp_derivative", "sign_error")})
    views, sin_exp = LESSON.exercise("views"), LESSON.exercise("sin_exp_derivative")
    assert len(results["tests"]) == sum(len(e.checks) for e in LESSON.exercises)
    for test in results["tests"]:
        assert set(test) >= {"name", "score", "max_score", "output", "visibility"}
    by_exercise: dict[str, float] = {}
    for test in results["tests"]:
        by_exercise[test["name"].split(":")[0]] = by_exercise.get(test["name"].split(":")[0], 0) + test["score"]
    assert by_exercise["views"] == pytest.approx(views.points)
    assert 0 < by_exercise["sin_exp_derivative"] < sin_exp.points
    assert results["score"] == pytest.approx(sum(by_exercise.values()))
    hidden = [t for t in results["tests"] if t["name"].endswith("[hidden]")]
    assert hidden and all(t["visibility"] == "after_published" for t in hidden)
    failed_hidden = [t for t in hidden if t["name"].startswith("sin_exp_derivative") and t["score"] == 0]
    # HIDDEN_CHECKS_SHOW: the function a hidden check called, never its arguments (its inputs)
    called = [line for t in failed_hidden for line in t["output"].splitlines() if "called:" in line]
    assert failed_hidden and all(t["output"].startswith(HIDDEN_OUTCOME) for t in failed_hidden)
    assert called and all(line.endswith("(...)") for line in called), called
    assert any("sign error" in t["output"] for t in results["tests"] if not t["name"].endswith("[hidden]"))


def test_a_notebook_submission_is_graded_too(autograder: Path) -> None:
    notebook = lesson_notebook(LESSON, list(LESSON.exercises), notebook="lesson01.ipynb", exercise_seconds=180)
    results = _run(autograder, {"lesson01.ipynb": nbformat.writes(notebook)})
    assert results["score"] == pytest.approx(LESSON.points)


def test_reading_the_reference_on_gradescope_earns_nothing(autograder: Path) -> None:
    reference = autograder / "source" / "course" / "reference" / "lesson01" / "sin_exp_derivative.py"
    cheat = f"exec(open({str(reference)!r}).read())\n"
    results = _run(autograder, {"sin_exp_derivative.py": cheat})
    assert results["score"] == 0


SECRET = "SECRET first line of a file only the grader's user may read 27ab"


def test_links_in_a_gradescope_submission_earn_nothing_and_show_nothing(autograder: Path, tmp_path: Path) -> None:
    reference = autograder / "source" / "course" / "reference" / "lesson01"
    secret = tmp_path / "shadow"
    secret.write_text(f"{SECRET}\n")
    secret.chmod(0o600)
    results = _run(autograder, {"shape_bugs.py": _reference("shape_bugs")},
                   links={"views.py": reference / "views.py", "lesson01/quick_check.py": secret,
                          "lesson01/sin_exp_derivative.py": reference / "sin_exp_derivative.py"})
    assert results["score"] == pytest.approx(LESSON.exercise("shape_bugs").points)  # the honest part only
    for name in ("views.py", "lesson01/quick_check.py", "lesson01/sin_exp_derivative.py"):
        assert f"Note: {name} is a symbolic link: it was not read" in results["output"], results["output"]
    assert SECRET not in json.dumps(results)


def test_a_linked_notebook_on_gradescope_is_refused(autograder: Path, tmp_path: Path) -> None:
    solved = tmp_path / "solved.ipynb"  # a solved notebook the grader's user can read (e.g. the instructor's)
    solved.write_text(nbformat.writes(lesson_notebook(LESSON, list(LESSON.exercises), notebook="lesson01.ipynb",
                                                      exercise_seconds=180)))
    results = _run(autograder, {}, links={"lesson01.ipynb": solved})
    assert results["score"] == 0
    assert "Note: lesson01.ipynb is a symbolic link: it was not read" in results["output"], results["output"]
