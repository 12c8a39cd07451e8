"""`python -m graders nbgrader check COURSE` (graders/frontends/nbgrader/check.py) on a small hand-made course,
without nbgrader itself: a renamed notebook named back, a copied answer cell graded from its last copy with a
note above the others, a link set aside without reading what it points to, what cannot be mended reported, and
a dry run that changes nothing. The same run before a real autograde is test_nbgrader_handins.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graders.frontends.nbgrader import check
from graders.frontends.nbgrader.check import COPY_NOTE


def _cell(grade_id: str, source: str, *, solution: bool = False, locked: bool = False) -> dict:
    return {"cell_type": "code", "source": source, "outputs": [], "execution_count": None,
            "metadata": {"nbgrader": {"grade_id": grade_id, "solution": solution, "locked": locked}}}


RELEASED = [_cell("setup", "# Setup", locked=True), _cell("answer-views", "%%answer views\n", solution=True),
            _cell("test-views", "autograder.check('views')", locked=True)]


def _write(path: Path, cells: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _course(tmp_path: Path) -> Path:
    _write(tmp_path / "source" / "lesson01" / "lesson01.ipynb", RELEASED)
    (tmp_path / "submitted").mkdir()
    return tmp_path


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def test_a_renamed_notebook_is_named_back_and_its_copied_answer_graded_from_the_last_copy(tmp_path: Path) -> None:
    course = _course(tmp_path)
    first, last = (_cell("answer-views", f"%%answer views\nx = {n}", solution=True) for n in (1, 2))
    _write(course / "submitted" / "ann" / "lesson01" / "lesson01 (1).ipynb", [RELEASED[0], first, last, RELEASED[2]])
    (finding,) = check.main(course)
    assert finding.student == "ann" and finding.problems == []
    assert finding.mended[0] == "renamed 'lesson01 (1).ipynb' to 'lesson01.ipynb'"
    cells = _cells(course / "submitted" / "ann" / "lesson01" / "lesson01.ipynb")
    assert [c["metadata"].get("nbgrader", {}).get("grade_id") for c in cells] == [
        "setup", None, None, "answer-views", "test-views"], "the earlier copy lost its id, a note stands above it"
    assert cells[1]["source"] == COPY_NOTE.format(slug="views") and cells[2]["source"].endswith("x = 1")
    backups = list((course / "check-backups").glob("*/ann/*.ipynb"))
    assert [p.name for p in backups] == ["lesson01 (1).ipynb", "lesson01.ipynb"], "each change backed up first"


def test_a_link_is_set_aside_and_what_cannot_be_mended_is_reported(tmp_path: Path) -> None:
    course = _course(tmp_path)
    secret = _write(tmp_path / "reference.ipynb", RELEASED)
    (course / "submitted" / "ann" / "lesson01").mkdir(parents=True)
    (course / "submitted" / "ann" / "lesson01" / "lesson01.ipynb").symlink_to(secret)
    _write(course / "submitted" / "bob" / "lesson01" / "a.ipynb", RELEASED)
    _write(course / "submitted" / "bob" / "lesson01" / "b.ipynb", RELEASED)
    _write(course / "submitted" / "cat" / "lesson01" / "lesson01.ipynb", RELEASED[:1])
    found = {f.student: f.problems for f in check.main(course)}
    assert "lesson01.ipynb is a symbolic link" in found["ann"][0] and "set aside" in found["ann"][0]
    assert found["ann"][1] == "no notebook handed in"
    assert (course / "check-set-aside").is_dir() and secret.is_file(), "the link moved, never what it points to"
    assert found["bob"] == ["2 notebooks and none named lesson01.ipynb: a.ipynb, b.ipynb; rename the one to grade"]
    assert found["cat"][0].startswith("lesson01.ipynb: cells gone: answer-views, test-views")


def test_a_dry_run_reports_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    course = _course(tmp_path)
    renamed = _write(course / "submitted" / "ann" / "lesson01" / "mine.ipynb", RELEASED)
    (finding,) = check.main(course, dry_run=True)
    assert finding.mended == ["renamed 'mine.ipynb' to 'lesson01.ipynb'"] and renamed.is_file()
    assert "ann: would mend: renamed" in capsys.readouterr().out
    assert sorted(p.name for p in course.iterdir()) == ["source", "submitted"]


def test_a_course_without_submissions_or_its_assignment_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="submitted does not exist: collect the submissions first"):
        check.main(tmp_path)
    course = _course(tmp_path)
    with pytest.raises(SystemExit, match="no notebook in .*source/lesson02: is 'lesson02' the assignment's name"):
        check.main(course, assignment="lesson02")
