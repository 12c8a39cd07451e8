"""Identity is not the student's to choose: sources.find_submissions (graders/frontends/grade/intake/sources.py)
with students who name their files after a classmate, hand in twice, or hand in links; the layouts a student
cannot switch, each LMS's hand-in time, and what is handed in beside the answers. Each LMS's own download is
tested with its module (test_moodle.py, test_canvas.py, test_blackboard.py), from the class set up here."""

from __future__ import annotations

import os
import time
import zipfile
from datetime import datetime
from pathlib import Path

import nbformat
import pytest

import course_config
from graders.frontends.grade.intake.sources import Submission, find_submissions

ROOT = course_config.ROOT
SLUGS = ["views", "sin_exp_derivative"]
REFERENCE = {slug: (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text() for slug in SLUGS}
MAY_1, MAY_2 = time.mktime((2024, 5, 1, 10, 0, 0, 0, 0, -1)), time.mktime((2024, 5, 2, 9, 0, 0, 0, 0, -1))


def _notebook(answers: dict[str, str]) -> str:
    """A lesson notebook whose answer cells hold these sources (the others are left out)."""
    notebook = nbformat.v4.new_notebook()
    for slug, source in answers.items():
        metadata = {"nbgrader": {"grade": False, "solution": True, "locked": False, "grade_id": f"answer-{slug}",
                                 "schema_version": 3}}
        notebook.cells.append(nbformat.v4.new_code_cell(f"%%answer {slug}\n{source}", metadata=metadata))
    return nbformat.writes(notebook)


SOLVED, EMPTY = _notebook(REFERENCE), _notebook({})
GRADED = {slug: "\n" + source for slug, source in REFERENCE.items()}  # the %%answer line left empty
ALICE_ONLY = _notebook({"views": "# alice's own, older\n"})


def _write(root: Path, files: dict[str, str], times: dict[str, float] | None = None) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
        if times and name in times:
            os.utime(root / name, (times[name], times[name]))
    return root


def _find(source: Path, **options: str) -> tuple[str, dict[str, Submission]]:
    layout, found = find_submissions(source, lesson="lesson01", slugs=SLUGS, **options)
    assert len({s.student for s in found}) == len(found), "one submission per student"
    return layout, {s.student: s for s in found}


MOODLE = {
    "Alice Smith_12_assignsubmission_file_/lesson01.ipynb": SOLVED,
    # Mallory names an empty notebook after Alice: it is still Mallory's (participant 17).
    "Mallory Evil_17_assignsubmission_file_/alice_lesson01.ipynb": EMPTY,
    "Bob Jones_20_assignsubmission_onlinetext_/onlinetext.html": "<p>I wrote it in the text box</p>",
}


def test_without_an_lms_layout_the_student_pattern_applies_and_a_duplicate_is_decided_by_file_time(
        tmp_path: Path) -> None:
    files = {"alice_first.ipynb": SOLVED, "alice_second.ipynb": ALICE_ONLY, "bob_lesson01.ipynb": EMPTY}
    source = _write(tmp_path, files, times={"alice_first.ipynb": MAY_2, "alice_second.ipynb": MAY_1})
    layout, found = _find(source)
    assert layout == "notebooks" and set(found) == {"alice", "bob"}
    assert found["alice"].sources == GRADED
    assert "the latest by file modification time (these file names carry no LMS time)" in found["alice"].problems[0]
    layout, found = _find(source, student_pattern=r"_(?P<student>[a-z0-9]+)\.ipynb$")
    assert set(found) == {"first", "second", "lesson01"}


def test_a_students_own_file_cannot_switch_the_class_to_another_layout(tmp_path: Path) -> None:
    for student in ("ann", "zed"):
        _write(tmp_path, {f"{student}/lesson01/views.py": REFERENCE["views"]})
    _write(tmp_path, {"zed/ann_lesson01.ipynb": EMPTY,  # zed commits a notebook named after ann
                      "zed/Ann A_1_assignsubmission_file_/lesson01.ipynb": EMPTY})
    layout, found = _find(tmp_path)
    assert layout == "student folders" and set(found) == {"ann", "zed"}
    assert found["ann"].sources == {"views": REFERENCE["views"]}
    # In a Moodle download, a participant's file named like another download's is still theirs.
    moodle = _write(tmp_path / "moodle", {**MOODLE, "Mallory Evil_17_assignsubmission_file_/"
                                                     "smithalice_101_5009_lesson01.ipynb": EMPTY})
    layout, found = _find(moodle)
    assert layout == "Moodle download" and set(found) == {"12", "17", "20"}


def test_links_in_student_folders_and_an_nbgrader_course_are_that_students_problem(tmp_path: Path) -> None:
    _write(tmp_path / "class", {"ann/lesson01/views.py": REFERENCE["views"]})
    (tmp_path / "class" / "eve").mkdir()
    os.symlink("../ann/lesson01", tmp_path / "class" / "eve" / "lesson01")
    (tmp_path / "class" / "mallory" / "lesson01").mkdir(parents=True)
    os.symlink(ROOT / "reference" / "lesson01" / "views.py", tmp_path / "class" / "mallory" / "lesson01" / "views.py")
    _, found = _find(tmp_path / "class")
    assert found["eve"].sources == {} and found["mallory"].sources == {}
    assert found["eve"].problems[0].startswith("eve/lesson01 is a symbolic link: it was not read")
    assert found["mallory"].problems[0].startswith("views: lesson01/views.py is a symbolic link: it was not read")

    course = tmp_path / "course" / "submitted"
    _write(course, {"alice/lesson01/lesson01.ipynb": SOLVED})
    (course / "mallory" / "lesson01").mkdir(parents=True)
    os.symlink("../../alice/lesson01/lesson01.ipynb", course / "mallory" / "lesson01" / "lesson01.ipynb")
    (course / "eve").mkdir()
    os.symlink("../alice/lesson01", course / "eve" / "lesson01")
    layout, found = _find(tmp_path / "course")
    assert layout == "nbgrader course"
    assert found["alice"].sources == GRADED
    assert found["mallory"].sources == {} and found["eve"].sources == {}
    assert "mallory/lesson01/lesson01.ipynb is a symbolic link" in found["mallory"].problems[0]
    assert found["eve"].problems[0].startswith("submitted/eve/lesson01 is a symbolic link")


def test_a_bad_archive_is_a_clear_error(tmp_path: Path) -> None:
    from graders.frontends.grade.intake.sources import SourceError

    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("a_x.ipynb", "{}")
    archive.write_bytes(archive.read_bytes()[:-30] + b"PK\x05\x06" + b"\0" * 6 + b"\xff\xfe" + b"\0" * 18)
    with pytest.raises(SourceError):
        find_submissions(archive, lesson="lesson01", slugs=SLUGS)


def test_each_lms_zip_gives_the_time_its_lms_received_the_graded_hand_in(tmp_path: Path) -> None:
    import zipfile

    notebook = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    downloads = {
        "moodle": [("Ana Alves_1234_assignsubmission_file_/lesson01.ipynb", (2026, 12, 2, 8, 15, 0))],
        "canvas": [("alves_4321_987_lesson01.ipynb", (2026, 12, 1, 9, 0, 0)),
                   ("alves_4321_990_lesson01.ipynb", (2026, 12, 2, 7, 30, 0))],  # the later upload is graded
        "blackboard": [("lesson01_ana_attempt_2026-12-02-06-45-00_lesson01.ipynb", (2020, 1, 1, 0, 0, 0)),
                       ("lesson01_ana_attempt_2026-12-02-06-45-00.txt", (2020, 1, 1, 0, 0, 0))],
    }
    exact = "from its zip entry (exact)"  # an unzipped folder's times are approximate (test_instructor_edges.py)
    expected = {"moodle": ("1234", datetime(2026, 12, 2, 8, 15), f"Moodle's time for the file, {exact}"),
                "canvas": ("4321", datetime(2026, 12, 2, 7, 30), f"Canvas's time for the file, {exact}"),
                "blackboard": ("ana", datetime(2026, 12, 2, 6, 45), "Blackboard's attempt time")}
    for lms, files in downloads.items():
        archive = tmp_path / f"{lms}.zip"
        with zipfile.ZipFile(archive, "w") as bundle:
            for name, when in files:
                bundle.writestr(zipfile.ZipInfo(name, date_time=when), notebook)
        _, found = find_submissions(archive, lesson="lesson01", slugs=["views"])
        student, when, how = expected[lms]
        assert [(s.student, s.submitted_at, s.submitted_how) for s in found] == [(student, when, how)], lms


def test_a_reuploaded_file_is_a_hand_in_of_its_exercise_and_a_module_of_the_students_own_is_kept(
        tmp_path: Path) -> None:
    import os

    folder = tmp_path / "moodle" / "Emma Eze_1048205_assignsubmission_file_"
    folder.mkdir(parents=True)
    (folder / "views.py").write_text("# first try\n")
    (folder / "views (1).py").write_text("# the fix\n")
    (folder / "helpers.py").write_text("# mine\n")
    os.utime(folder / "views.py", (1_700_000_000, 1_700_000_000))
    os.utime(folder / "views (1).py", (1_700_100_000, 1_700_100_000))
    _, (emma,) = find_submissions(tmp_path / "moodle", lesson="lesson01", slugs=["views", "micrograd"])
    assert emma.sources == {"views": "# the fix\n"}
    assert any("views (1).py" in p and "2 hand-ins" in p for p in emma.problems), emma.problems
    # A .py file of no exercise is one of the student's own modules, which their exercises may import (issue 41:
    # every path takes what the student's own run takes).
    assert emma.modules == {"helpers": "# mine\n"}
    assert not any("helpers.py" in p for p in emma.problems), emma.problems


def test_a_note_handed_in_beside_the_answers_is_named_for_the_instructor(tmp_path: Path) -> None:
    folder = tmp_path / "moodle" / "Lena Lux_1048210_assignsubmission_file_"
    folder.mkdir(parents=True)
    (folder / "views.py").write_text("# mine\n")
    (folder / "notes.txt").write_text("please have a look at question 3\n")
    _, (lena,) = find_submissions(tmp_path / "moodle", lesson="lesson01", slugs=["views"])
    assert any(p.startswith("notes.txt was handed in too") for p in lena.problems), lena.problems
