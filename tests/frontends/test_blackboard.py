"""Blackboard (graders/frontends/grade/lms/blackboard.py): its download (usernames, the latest attempt graded, a tie
said, a name whose attempt time is impossible no Blackboard file), and its grade upload read back by a parser
that holds it to Blackboard's documented rules."""

from __future__ import annotations

import re
from pathlib import Path

from graders.frontends.grade.intake.sources import NOTHING_HANDED_IN, find_submissions
from graders.frontends.grade.lms.blackboard import blackboard_csv
from lms_rows import CLASS, SCORE, as_floats, csv_rows, finals, one_per_student, standing_of
from test_sources import ALICE_ONLY, EMPTY, GRADED, SOLVED, _find, _write


def parse_blackboard(text: str, column: str) -> dict[str, str]:
    """Blackboard's upload: every value in quotes, Username and the column, one row per username."""
    quoted = re.compile(r'"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*')
    for line in text.splitlines():
        assert quoted.fullmatch(line), f"Blackboard needs every value of a .csv in quotes: {line}"
    rows = csv_rows(text)
    assert rows[0] == ["Username", column], rows[0]
    one_per_student(rows[1:], key=0, width=2)
    for row in rows[1:]:
        assert SCORE.fullmatch(row[1]) or row[1] == "", f"Blackboard would not read {row[1]!r} as a score"
    return {row[0]: row[1] for row in rows[1:]}


def test_blackboard_export_reads_back_as_each_students_final():
    text = blackboard_csv(CLASS, "Lab 1", 10.0, column_id="1702852")
    grades = parse_blackboard(text, "Lab 1 [Total Pts: 10 Score] |1702852")
    assert as_floats(grades) == finals(CLASS)


def test_blackboard_column_without_an_id_is_new_and_excused_cells_are_empty():
    grades = parse_blackboard(blackboard_csv([standing_of("alice", 1.0, excused=True)], "Lab 1", 10.0), "Lab 1")
    assert grades == {"alice": ""}


BLACKBOARD = {
    "Lesson 1_alice_attempt_2024-05-01-10-00-00_lesson01.ipynb": ALICE_ONLY,
    "Lesson 1_alice_attempt_2024-05-01-10-00-00.txt": "Name: Alice Smith (alice)\n",
    "Lesson 1_alice_attempt_2024-05-02-09-00-00_lesson01.ipynb": SOLVED,
    "Lesson 1_alice_attempt_2024-05-02-09-00-00.txt": "Name: Alice Smith (alice)\n",
    "Lesson 1_mallory_attempt_2024-05-02-11-00-00_alice_attempt_2030-01-01-00-00-00_lesson01.ipynb": EMPTY,
    "Lesson 1_bob_attempt_2024-05-01-12-00-00.txt": "Name: Bob Jones (bob)\nComments:\nforgot the file\n",
}


def test_blackboard_ids_are_usernames_and_the_latest_attempt_is_graded(tmp_path: Path) -> None:
    layout, found = _find(_write(tmp_path, BLACKBOARD))
    assert layout == "Blackboard download"
    assert set(found) == {"alice", "mallory", "bob"}
    assert found["alice"].sources == GRADED
    assert "(attempt of 2024-05-01 10:00:00)" in found["alice"].problems[0]
    assert "the latest by the attempt time in Blackboard's file names" in found["alice"].problems[0]
    assert found["mallory"].sources == {}  # a file name imitating another attempt is still Mallory's
    assert found["bob"].problems == [f"{NOTHING_HANDED_IN} (such as views.py); every exercise scores 0"]


def test_two_files_of_one_attempt_tie_and_the_tie_is_said(tmp_path: Path) -> None:
    _, found = _find(_write(tmp_path, {"L_alice_attempt_2024-05-01-10-00-00_copy.ipynb": ALICE_ONLY,
                                       "L_alice_attempt_2024-05-01-10-00-00_lesson01.ipynb": SOLVED}))
    assert found["alice"].sources == GRADED
    assert ("2 of them tie as the latest by the attempt time in Blackboard's file names, and it is named "
            "lesson01.ipynb: check it is the one meant") in found["alice"].problems[0]


def test_a_file_name_with_an_impossible_attempt_time_is_no_blackboard_download(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    notebook = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    (tmp_path / "class" / "aaa_hw_attempt_2026-13-45-99-99-99_x.ipynb").write_text(notebook)
    (tmp_path / "class" / "bob_lesson01.ipynb").write_text(notebook)
    layout, found = find_submissions(tmp_path / "class", lesson="lesson01", slugs=["views"])
    assert layout == "notebooks" and {s.student for s in found} == {"aaa", "bob"}
