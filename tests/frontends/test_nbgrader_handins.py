"""What happens to hand-ins on the nbgrader path, with nbgrader's own commands: the students'
Validate button, the pre-autograde check that mends copied cells and renamed notebooks, and
feedback pages that name each exercise and carry no copy of the bundle."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

import course_config
from conftest import STUBS
from mistake_catalogue import submission
from graders.frontends.grade.intake.answers import notebook_answers
from graders.frontends.nbgrader import build

nbgrader_api = pytest.importorskip("nbgrader.api")

ROOT = course_config.ROOT
SLUGS = ["sin_exp_derivative", "views"]


def _nbgrader(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    run = subprocess.run(["nbgrader", *args], cwd=cwd, capture_output=True, text=True, timeout=900)
    if check:
        assert run.returncode == 0, f"nbgrader {' '.join(args)}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return run


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("handins")
    build.main(folder, course_id="handins", exercises=SLUGS, prove=False)
    _nbgrader(folder, "generate_assignment", "lesson01")
    return folder


def _answered(course: Path, answers: dict[str, str]) -> nbformat.NotebookNode:
    notebook = nbformat.read(course / "release" / "lesson01" / "lesson01.ipynb", as_version=4)
    for cell in notebook.cells:
        slug = cell.metadata.get("nbgrader", {}).get("grade_id", "").removeprefix("answer-")
        if slug in answers:
            cell.source = f"%%answer {slug}\n{answers[slug]}"
    return notebook


def _reference(slug: str) -> str:
    return (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()


def _validate(course: Path, notebook: nbformat.NotebookNode, tmp_path: Path) -> str:
    """`nbgrader validate` as a student runs it: in their copy of the release, not the course."""
    folder = tmp_path / "student"
    shutil.copytree(course / "release" / "lesson01", folder)
    nbformat.write(notebook, folder / "lesson01.ipynb")
    return _nbgrader(folder, "validate", "lesson01.ipynb", check=False).stdout


def test_validate_passes_a_correct_notebook(course: Path, tmp_path: Path) -> None:
    output = _validate(course, _answered(course, {s: _reference(s) for s in SLUGS}), tmp_path)
    assert "Success! Your notebook passes all the tests." in output, output[-3000:]


def test_validate_fails_a_wrong_notebook(course: Path, tmp_path: Path) -> None:
    wrong = submission("sin_exp_derivative", "sign_error")
    output = _validate(course, _answered(course, {"sin_exp_derivative": wrong, "views": _reference("views")}), tmp_path)
    assert "VALIDATION FAILED" in output, output[-3000:]
    assert "test-sin_exp_derivative" in output or "sin_exp_derivative" in output


def _submit(course: Path, student: str, notebook: nbformat.NotebookNode, name: str = "lesson01.ipynb") -> Path:
    target = course / "submitted" / student / "lesson01"
    target.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target / name)
    return target / name


def test_check_keeps_the_last_copy_of_an_answer_cell_and_mends_a_renamed_notebook_so_autograde_grades_all(course: Path) -> None:
    solved = _answered(course, {s: _reference(s) for s in SLUGS})
    # The copier's first try at views is the untouched stub; they copied the cell, with its nbgrader metadata as
    # Jupyter copies it, to the end of the notebook and solved it there: that copy, the last, is the one graded.
    copied = _answered(course, {"sin_exp_derivative": _reference("sin_exp_derivative"),
                                "views": (STUBS / "lesson01" / "views.py").read_text()})
    first = next(i for i, c in enumerate(copied.cells)
                 if c.metadata.get("nbgrader", {}).get("grade_id") == "answer-views")
    copied.cells.append(nbformat.v4.new_code_cell(f"%%answer views\n{_reference('views')}",
                                                  metadata=json.loads(json.dumps(copied.cells[first].metadata))))
    last = len(copied.cells)
    handed_in = _submit(course, "copier", copied).read_text()
    _submit(course, "renamer", solved, name="lesson01 (1).ipynb")
    _submit(course, "honest", solved)
    stopped = _nbgrader(course, "autograde", "lesson01", check=False)
    assert stopped.returncode != 0  # nbgrader #1083: one copied cell stops the batch

    report = subprocess.run(["python", "-m", "graders", "nbgrader", "check", str(course)], cwd=ROOT,
                            capture_output=True, text=True)
    assert (f"copier: mended: lesson01.ipynb: 2 answer cells for views: kept the last one (cell {last}) for autograde "
            f"to grade; the first (cell {first + 1}) lost its nbgrader id") in report.stdout, (
        report.stdout + report.stderr)
    assert "renamer: mended: renamed 'lesson01 (1).ipynb' to 'lesson01.ipynb'" in report.stdout
    assert (course / "submitted" / "renamer" / "lesson01" / "lesson01.ipynb").is_file()
    assert list((course / "check-backups").rglob("lesson01.ipynb"))
    again = subprocess.run(["python", "-m", "graders", "nbgrader", "check", str(course)], cwd=ROOT,
                           capture_output=True, text=True)
    assert "every hand-in is ready for autograde" in again.stdout

    _nbgrader(course, "autograde", "lesson01", "--force")
    points = sum(course_config.LESSON_01.exercise(s).points for s in SLUGS)
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="handins") as gradebook:
        for student in ("copier", "renamer", "honest"):
            assert gradebook.find_submission("lesson01", student).score == pytest.approx(points), student

    # The batch grader reads the notebook as handed in by the same rule: the last copy.
    batch = notebook_answers(handed_in, "lesson01.ipynb", SLUGS)
    assert "raise NotImplementedError" not in batch.sources["views"]
    assert batch.problems == [f"2 answer cells for views: graded the last one (cell {last}); "
                              f"the first (cell {first + 1}) was ignored"]

    _nbgrader(course, "generate_feedback", "lesson01")
    told = (course / "feedback" / "copier" / "lesson01" / "lesson01.html").read_text()
    assert "Not graded: an earlier copy of your answer to <code>views</code>" in told
    assert "Not graded" not in (course / "feedback" / "honest" / "lesson01" / "lesson01.html").read_text()
    feedback = course / "feedback" / "honest" / "lesson01"
    html = (feedback / "lesson01.html").read_text()
    for index, slug in enumerate(SLUGS, start=1):
        title = course_config.LESSON_01.exercise(slug).title
        assert f'href="#test-{slug}">{index}. {title}</a>' in html.replace("&#39;", "'")
    assert "Test cell</a>" not in html
    assert "white-space: pre-wrap" in html
    assert not (feedback / "nbchecks").exists()


SECRET = "SECRET first line of a file only the grader's user may read 5d0a"


def test_check_moves_links_aside_so_autograde_never_reads_through_them(tmp_path_factory: pytest.TempPathFactory,
                                                                       tmp_path: Path) -> None:
    course = tmp_path_factory.mktemp("links")
    build.main(course, course_id="links", exercises=SLUGS, prove=False)
    _nbgrader(course, "generate_assignment", "lesson01")
    secret = tmp_path / "shadow"
    secret.write_text(f"{SECRET}\n")
    secret.chmod(0o600)
    _submit(course, "honest", _answered(course, {s: _reference(s) for s in SLUGS}))
    mallory = course / "submitted" / "mallory" / "lesson01"
    mallory.mkdir(parents=True)
    os.symlink(course / "source" / "lesson01" / "lesson01.ipynb", mallory / "lesson01.ipynb")  # the solutions
    os.symlink(secret, mallory / "notes.txt")  # a file autograde would copy beside the notebook
    (course / "submitted" / "eve").mkdir()
    os.symlink("../honest/lesson01", course / "submitted" / "eve" / "lesson01")  # a classmate's whole folder

    dry = subprocess.run(["python", "-m", "graders", "nbgrader", "check", str(course), "--dry-run"], cwd=ROOT,
                         capture_output=True, text=True)
    assert "mallory: PROBLEM: mallory/lesson01/lesson01.ipynb is a symbolic link: set aside so that nbgrader never " \
           "reads it" in dry.stdout, dry.stdout
    assert "it would be moved to" in dry.stdout and (mallory / "lesson01.ipynb").is_symlink()

    report = subprocess.run(["python", "-m", "graders", "nbgrader", "check", str(course)], cwd=ROOT,
                            capture_output=True, text=True)
    assert report.returncode == 1, report.stdout + report.stderr  # some hand-in has a problem
    for student, moved in (("mallory", "mallory/lesson01/lesson01.ipynb"), ("mallory", "mallory/lesson01/notes.txt"),
                           ("eve", "eve/lesson01")):
        assert f"{student}: PROBLEM: {moved} is a symbolic link: set aside so that nbgrader never reads it" \
               in report.stdout, report.stdout
        assert not (course / "submitted" / moved).is_symlink()
        (stamp,) = (course / "check-set-aside").iterdir()
        assert (stamp / moved).is_symlink()  # the link itself was moved, not what it points to
    assert "honest" not in report.stdout

    _nbgrader(course, "autograde", "lesson01")
    points = sum(course_config.LESSON_01.exercise(s).points for s in SLUGS)
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="links") as gradebook:
        assert gradebook.find_submission("lesson01", "honest").score == pytest.approx(points)
        graded = {s.student.id: s.score for s in gradebook.assignment_submissions("lesson01")}
    assert graded.get("mallory", 0) == 0 and graded.get("eve", 0) == 0, graded
    for path in (course / "autograded").rglob("*"):
        assert not path.is_symlink(), path
        assert not path.is_file() or SECRET.encode() not in path.read_bytes(), path
