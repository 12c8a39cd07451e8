"""Canvas (graders/frontends/grade/lms/canvas.py): its download (user ids, the latest file id graded), its gradebook
import read back by a parser that holds it to Canvas's documented rules, and its gradebook export read as a
roster."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders.frontends.grade.lms.canvas import canvas_csv
from graders.frontends.grade.lms.grade_import import LmsExportError
from graders.frontends.grade.term.roster import read_roster
from graders.frontends.grade.term.standing import Person
from lms_rows import (ALICE, BOB, CANVAS_EXPORT, CLASS, SCORE, as_floats, csv_rows, finals, one_per_student,
                      roster_file, standing_of)
from test_sources import ALICE_ONLY, EMPTY, GRADED, SOLVED, _find, _write


def parse_canvas(text: str, column: str, points: str) -> dict[str, str]:
    """Canvas's gradebook import: the student columns, one assignment column, the Points Possible row,
    then one row per student keyed by ID, each grade a score or EX."""
    rows = csv_rows(text)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column], rows[0]
    assert "Points Possible" in rows[1][0] and rows[1][1:] == ["", "", "", "", points], \
        f"the second row must be Canvas's Points Possible row with {points} points: {rows[1]}"
    students = rows[2:]
    one_per_student(students, key=1, width=6)
    for row in students:
        assert SCORE.fullmatch(row[5]) or row[5] == "EX", f"Canvas cannot import grade {row[5]!r}"
    return {row[1]: row[5] for row in students}


def test_canvas_export_reads_back_as_each_students_final():
    grades = parse_canvas(canvas_csv(CLASS, "Lab 1", 10.0, canvas_assignment_id="4567"), "Lab 1 (4567)", "10")
    assert as_floats(grades) == finals(CLASS)


def test_canvas_rows_carry_the_roster_and_name_an_unrostered_student_by_id():
    rows = {row[1]: row for row in csv_rows(canvas_csv(CLASS, "Lab 1", 10.0))[2:]}
    assert rows["101"][:5] == ["Liddell, Alice", "101", "S101", "alice", "Section 1"]
    assert rows["103"][:5] == ["103", "103", "", "", ""]


def test_canvas_column_without_an_id_is_the_assignment_name_alone():
    assert parse_canvas(canvas_csv(CLASS, "Lab 1", 10.0), "Lab 1", "10")
    assert parse_canvas(canvas_csv(CLASS, "Lab (2)", 10.0, "88"), "Lab (2) (88)", "10")


def test_canvas_excused_students_get_EX():
    standings = [standing_of("101", 0.0, ALICE, excused=True), standing_of("102", 4.25, BOB)]
    assert parse_canvas(canvas_csv(standings, "Lab 1", 12.5), "Lab 1", "12.5") == {"101": "EX", "102": "4.25"}


def test_canvas_refuses_an_assignment_id_that_is_not_a_number():
    with pytest.raises(LmsExportError) as error:
        canvas_csv(CLASS, "Lab 1", 10.0, canvas_assignment_id="abc")
    assert str(error.value).startswith("canvas_assignment_id 'abc' is not a number"), str(error.value)


def test_a_canvas_export_is_read_as_it_was_downloaded(tmp_path):
    students = read_roster(roster_file(tmp_path, CANVAS_EXPORT))
    # Canvas's export has no email column.
    assert students == {"101": Person("101", "Liddell, Alice", "", "S101", "alice", "Section 1"),
                        "102": Person("102", "Builder, Bob", "", "S102", "bob", "Section 2")}


def test_a_canvas_export_round_trips_into_canvas_import(tmp_path):
    students = read_roster(roster_file(tmp_path, CANVAS_EXPORT))
    standings = [standing_of(student, 5.0, person) for student, person in students.items()]
    rows = csv_rows(canvas_csv(standings, "Lab 1", 10.0, "4567"))
    assert [row[:5] for row in rows[2:]] == [row[:5] for row in csv_rows(CANVAS_EXPORT)[3:]]


def test_a_canvas_export_with_first_and_last_names_joins_them(tmp_path):
    path = roster_file(tmp_path, "LastName,FirstName,ID,SIS Login ID,Section,Lab 1 (1)\nLiddell,Alice,101,alice,S,1\n")
    assert read_roster(path)["101"] == Person("101", "Alice Liddell", login="alice", section="S")


def test_a_canvas_export_in_a_semicolon_locale_is_read(tmp_path):
    # Canvas writes ";" and a byte-order mark when the user's export settings ask for them.
    text = CANVAS_EXPORT.replace(",", ";").replace('"Liddell; Alice"', '"Liddell, Alice"')
    text = text.replace('"Builder; Bob"', '"Builder, Bob"').replace(";7.5;", ";7,5;")
    students = read_roster(roster_file(tmp_path, text, encoding="utf-8-sig"))
    assert students["101"] == Person("101", "Liddell, Alice", "", "S101", "alice", "Section 1")
    assert list(students) == ["101", "102"]


CANVAS = {
    "smithalice_101_5001_lesson01.ipynb": ALICE_ONLY,
    "smithalice_101_5003_lesson01-1.ipynb": SOLVED,  # uploaded after 5001
    "evilmallory_LATE_102_5002_alice_lesson01.ipynb": EMPTY,
    "anon_x7Qz2_5004_lesson01.ipynb": SOLVED,
    "smithalice_101_text.html": "<p>online text</p>",
}


def test_canvas_ids_are_the_user_ids_and_the_latest_file_id_is_graded(tmp_path: Path) -> None:
    layout, found = _find(_write(tmp_path, CANVAS))
    assert layout == "Canvas download"
    assert set(found) == {"101", "102", "anon_x7Qz2"}
    assert found["101"].sources == GRADED
    assert ("2 hand-ins for this student: smithalice_101_5001_lesson01.ipynb (Canvas file 5001); "
            "smithalice_101_5003_lesson01-1.ipynb (Canvas file 5003). Graded smithalice_101_5003_lesson01-1.ipynb, "
            "the latest by Canvas's file id") in found["101"].problems[0]
    assert found["102"].sources == {}
    assert found["anon_x7Qz2"].sources == GRADED
