"""The roster in and the grades out: read_roster on a plain CSV and on the LMS's own exports, and
each LMS writer's output read back by a parser that holds it to that LMS's documented import rules
(see the docstrings of graders/frontends/grade/lms/moodle.py, canvas.py, blackboard.py and term/roster.py for the
sources)."""

from __future__ import annotations

import csv
import io
import math
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from graders.frontends.grade.lms import grade_import, moodle
from graders.frontends.grade.lms.blackboard import blackboard_csv
from graders.frontends.grade.lms.canvas import canvas_csv
from graders.frontends.grade.lms.grade_import import LmsExportError, format_score
from graders.frontends.grade.lms.moodle import moodle_grades_csv, moodle_worksheet_csv
from graders.frontends.grade.term import roster
from graders.frontends.grade.term.roster import RosterError, read_roster
from graders.frontends.grade.term.standing import Person, Standing

ALICE = Person("101", "Liddell, Alice", "alice@example.org", "S101", "alice", "Section 1")
BOB = Person("102", "Builder, Bob", "bob@example.org", "S102", "bob", "Section 2")
# A score as the formats take it: "." for decimals, at most two of them, no trailing zeros.
SCORE = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]?[1-9])?")


def _standing(student: str, final: float, person: Person | None = None, *, excused: bool = False,
              handed_in: bool = True, notes: tuple[str, ...] = ()) -> Standing:
    return Standing(student=student, person=person, handed_in=handed_in, raw=final, max_score=10.0,
                    final=final, excused=excused, notes=list(notes))


CLASS = [_standing("101", 7.5, ALICE, notes=("Late by 1 day: 10% taken off",)),
         _standing("102", 10.0, BOB),
         _standing("103", 0.0, handed_in=False)]  # handed in, but not on the roster


def _rows(text: str) -> list[list[str]]:
    assert not text.startswith("\ufeff"), "every LMS here reads UTF-8 without a byte-order mark"
    return list(csv.reader(io.StringIO(text, newline="")))


def _one_per_student(rows: list[list[str]], key: int, width: int) -> None:
    seen = set()
    for row in rows:
        assert len(row) == width, f"row {row} has {len(row)} cells, the header {width}"
        assert row[key], f"row {row} has no student key"
        assert row[key] not in seen, f"{row[key]} has two rows"
        seen.add(row[key])


# --- Each format's rules, as its importer applies them ---------------------------------------------

def parse_canvas(text: str, column: str, points: str) -> dict[str, str]:
    """Canvas's gradebook import: the student columns, one assignment column, the Points Possible row,
    then one row per student keyed by ID, each grade a score or EX."""
    rows = _rows(text)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column], rows[0]
    assert "Points Possible" in rows[1][0] and rows[1][1:] == ["", "", "", "", points], \
        f"the second row must be Canvas's Points Possible row with {points} points: {rows[1]}"
    students = rows[2:]
    _one_per_student(students, key=1, width=6)
    for row in students:
        assert SCORE.fullmatch(row[5]) or row[5] == "EX", f"Canvas cannot import grade {row[5]!r}"
    return {row[1]: row[5] for row in students}


MOODLE_WORKSHEET = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                    "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
                    "Feedback comments"]


def parse_moodle_worksheet(text: str, points: str) -> dict[str, dict[str, str]]:
    """Moodle's worksheet upload: its columns; Identifier "Participant <n>"; Grade a score or empty
    (skipped); Last modified (grade) a time strtotime reads whatever the server's zone; feedback HTML-safe."""
    rows = _rows(text)
    assert rows[0] == MOODLE_WORKSHEET, rows[0]
    _one_per_student(rows[1:], key=0, width=len(MOODLE_WORKSHEET))
    read = {}
    for row in rows[1:]:
        cells = dict(zip(MOODLE_WORKSHEET, row))
        number = re.fullmatch(r"Participant ([0-9]+)", cells["Identifier"])
        assert number, f"Moodle cannot match Identifier {cells['Identifier']!r}"
        assert SCORE.fullmatch(cells["Grade"]) or cells["Grade"] == "", f"Moodle cannot import {cells['Grade']!r}"
        assert cells["Maximum Grade"] == points, cells["Maximum Grade"]
        assert datetime.fromisoformat(cells["Last modified (grade)"]).tzinfo is not None, \
            f"a time without its offset is read in the Moodle server's zone: {cells['Last modified (grade)']}"
        assert "\n" not in cells["Feedback comments"] and "<" not in cells["Feedback comments"], \
            f"feedback is one line of text, stored by Moodle as HTML: {cells['Feedback comments']!r}"
        assert not re.search(r"&(?!amp;|lt;|gt;)", cells["Feedback comments"]), "a bare & in HTML feedback"
        read[number.group(1)] = cells
    return read


def parse_moodle_grades(text: str, match_by: str, item: str) -> dict[str, str]:
    """Moodle's gradebook CSV import: a user column and a grade column; no row without its user."""
    rows = _rows(text)
    assert rows[0] == [match_by, item], rows[0]
    _one_per_student(rows[1:], key=0, width=2)
    for row in rows[1:]:
        assert SCORE.fullmatch(row[1]) or row[1] == "-", f"Moodle cannot import grade {row[1]!r}"
    return {row[0]: row[1] for row in rows[1:]}


def parse_blackboard(text: str, column: str) -> dict[str, str]:
    """Blackboard's upload: every value in quotes, Username and the column, one row per username."""
    quoted = re.compile(r'"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*')
    for line in text.splitlines():
        assert quoted.fullmatch(line), f"Blackboard needs every value of a .csv in quotes: {line}"
    rows = _rows(text)
    assert rows[0] == ["Username", column], rows[0]
    _one_per_student(rows[1:], key=0, width=2)
    for row in rows[1:]:
        assert SCORE.fullmatch(row[1]) or row[1] == "", f"Blackboard would not read {row[1]!r} as a score"
    return {row[0]: row[1] for row in rows[1:]}


def _finals(standings: list[Standing]) -> dict[str, float]:
    return {s.student: s.final for s in standings}


def _as_floats(grades: dict[str, str]) -> dict[str, float]:
    return {student: float(grade) for student, grade in grades.items()}


# --- Canvas --------------------------------------------------------------------------------------------

def test_canvas_export_reads_back_as_each_students_final():
    grades = parse_canvas(canvas_csv(CLASS, "Lab 1", 10.0, canvas_assignment_id="4567"), "Lab 1 (4567)", "10")
    assert _as_floats(grades) == _finals(CLASS)


def test_canvas_rows_carry_the_roster_and_name_an_unrostered_student_by_id():
    rows = {row[1]: row for row in _rows(canvas_csv(CLASS, "Lab 1", 10.0))[2:]}
    assert rows["101"][:5] == ["Liddell, Alice", "101", "S101", "alice", "Section 1"]
    assert rows["103"][:5] == ["103", "103", "", "", ""]


def test_canvas_column_without_an_id_is_the_assignment_name_alone():
    assert parse_canvas(canvas_csv(CLASS, "Lab 1", 10.0), "Lab 1", "10")
    assert parse_canvas(canvas_csv(CLASS, "Lab (2)", 10.0, "88"), "Lab (2) (88)", "10")


def test_canvas_excused_students_get_EX():
    standings = [_standing("101", 0.0, ALICE, excused=True), _standing("102", 4.25, BOB)]
    assert parse_canvas(canvas_csv(standings, "Lab 1", 12.5), "Lab 1", "12.5") == {"101": "EX", "102": "4.25"}


def test_canvas_refuses_an_assignment_id_that_is_not_a_number():
    with pytest.raises(LmsExportError) as error:
        canvas_csv(CLASS, "Lab 1", 10.0, canvas_assignment_id="abc")
    assert str(error.value).startswith("canvas_assignment_id 'abc' is not a number"), str(error.value)


# --- Moodle grading worksheet --------------------------------------------------------------------------

def test_moodle_worksheet_reads_back_as_each_students_final():
    read = parse_moodle_worksheet(moodle_worksheet_csv(CLASS, "Lab 1", 10.0), "10")
    assert {n: float(cells["Grade"]) for n, cells in read.items()} == _finals(CLASS)
    assert read["101"]["Full name"] == "Liddell, Alice" and read["101"]["Email address"] == "alice@example.org"
    assert read["103"]["Status"] == "No submission" and read["101"]["Status"] == "Submitted for grading"


def test_moodle_worksheet_feedback_is_the_notes_then_the_final_score_as_safe_text():
    standing = _standing("101", 6.0, ALICE, notes=("Late by 2 days: 20% taken off", "Override by <TA> & co."))
    read = parse_moodle_worksheet(moodle_worksheet_csv([standing], "Lab 1", 10.0), "10")
    assert read["101"]["Feedback comments"] == ("Late by 2 days: 20% taken off. Override by &lt;TA&gt; &amp; co. "
                                                "Final score: 6 / 10.")


def test_moodle_worksheet_leaves_an_excused_grade_empty():
    read = parse_moodle_worksheet(moodle_worksheet_csv([_standing("101", 0.0, ALICE, excused=True)], "L", 10), "10")
    assert read["101"]["Grade"] == "" and read["101"]["Feedback comments"] == "Excused: no grade counts."


def test_moodle_worksheet_dates_the_grades_at_graded_at():
    when = datetime(2024, 3, 1, 10, 0, tzinfo=timezone.utc)
    read = parse_moodle_worksheet(moodle_worksheet_csv(CLASS, "Lab 1", 10.0, graded_at=when), "10")
    assert {datetime.fromisoformat(cells["Last modified (grade)"]) for cells in read.values()} == {when}


def test_moodle_worksheet_leaves_out_and_names_ids_that_are_not_participant_numbers():
    standings = CLASS + [_standing("alice", 5.0), _standing("²", 5.0)]
    read = parse_moodle_worksheet(moodle_worksheet_csv(standings, "Lab 1", 10.0), "10")
    assert list(read) == ["101", "102", "103"]
    assert moodle.left_out_of_moodle_worksheet(standings) == ["alice", "²"]


# --- Moodle gradebook import ---------------------------------------------------------------------------

@pytest.mark.parametrize("match_by, key", [("Email address", "email"), ("ID number", "sis_id"),
                                           ("Username", "login")])
def test_moodle_grades_read_back_by_each_user_field(match_by, key):
    excused = _standing("104", 3.0, Person("104", "", "c@example.org", "S104", "c"), excused=True)
    standings = CLASS + [excused]
    grades = parse_moodle_grades(moodle_grades_csv(standings, "Lab 1", 10.0, match_by=match_by), match_by, "Lab 1")
    rostered = [s for s in standings if s.person]
    assert grades == {getattr(s.person, key): "-" if s.excused else format_score(s.final) for s in rostered}


def test_moodle_grades_leave_out_and_name_students_with_no_user_field():
    standings = CLASS + [_standing("105", 1.0, Person("105", "No Mail"))]
    grades = parse_moodle_grades(moodle_grades_csv(standings, "Lab 1", 10.0), "Email address", "Lab 1")
    assert list(grades) == ["alice@example.org", "bob@example.org"]
    assert moodle.left_out_of_moodle_grades(standings) == ["103", "105"]
    assert moodle.left_out_of_moodle_grades(standings, "Username") == ["103", "105"]


def test_moodle_grades_refuse_an_unknown_user_field():
    with pytest.raises(LmsExportError) as error:
        moodle_grades_csv(CLASS, "Lab 1", 10.0, match_by="email")
    assert str(error.value) == moodle.UNKNOWN_MATCH.format(
        value="email", fields="'Email address', 'ID number', 'Username'")


# --- Blackboard ----------------------------------------------------------------------------------------

def test_blackboard_export_reads_back_as_each_students_final():
    text = blackboard_csv(CLASS, "Lab 1", 10.0, column_id="1702852")
    grades = parse_blackboard(text, "Lab 1 [Total Pts: 10 Score] |1702852")
    assert _as_floats(grades) == _finals(CLASS)


def test_blackboard_column_without_an_id_is_new_and_excused_cells_are_empty():
    grades = parse_blackboard(blackboard_csv([_standing("alice", 1.0, excused=True)], "Lab 1", 10.0), "Lab 1")
    assert grades == {"alice": ""}


# --- Every writer --------------------------------------------------------------------------------------

WRITERS = [canvas_csv, moodle_worksheet_csv, moodle_grades_csv, blackboard_csv]


@pytest.mark.parametrize("value, text", [(7.5, "7.5"), (7.0, "7"), (7.456, "7.46"), (0.1 + 0.2, "0.3"),
                                         (-0.0, "0"), (10, "10"), (0.05, "0.05"), (123.4, "123.4")])
def test_a_score_has_at_most_two_decimals(value, text):
    assert format_score(value) == text


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_refuses_two_standings_for_one_student(writer):
    with pytest.raises(LmsExportError) as error:
        writer([CLASS[0], CLASS[0]], "Lab 1", 10.0)
    assert str(error.value) == grade_import.DUPLICATE_STUDENT.format(student="101", count=2)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_refuses_a_final_that_is_not_a_number(writer):
    with pytest.raises(LmsExportError) as error:
        writer([_standing("101", math.nan, ALICE)], "Lab 1", 10.0)
    assert str(error.value) == grade_import.NOT_A_SCORE.format(student="101", score=math.nan)


# --- The roster ----------------------------------------------------------------------------------------

def _file(tmp_path: Path, text: str, name: str = "roster.csv", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_a_plain_roster_needs_only_ids_and_takes_its_columns_in_any_order(tmp_path):
    path = _file(tmp_path, "section,name,id,email\nS1,Alice Liddell,101,alice@example.org\n,,102,\n")
    assert read_roster(path) == {"101": Person("101", "Alice Liddell", "alice@example.org", section="S1"),
                                 "102": Person("102")}


CANVAS_EXPORT = ('Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (4567),Current Score\n'
                 ',,,,,Manual Posting,\n'
                 '    Points Possible,,,,,10,(read only)\n'
                 '"Liddell, Alice",101,S101,alice,Section 1,7.5,75\n'
                 '"Builder, Bob",102,S102,bob,Section 2,,0\n')


def test_a_canvas_export_is_read_as_it_was_downloaded(tmp_path):
    students = read_roster(_file(tmp_path, CANVAS_EXPORT))
    # Canvas's export has no email column.
    assert students == {"101": Person("101", "Liddell, Alice", "", "S101", "alice", "Section 1"),
                        "102": Person("102", "Builder, Bob", "", "S102", "bob", "Section 2")}


def test_a_canvas_export_round_trips_into_canvas_import(tmp_path):
    students = read_roster(_file(tmp_path, CANVAS_EXPORT))
    standings = [_standing(student, 5.0, person) for student, person in students.items()]
    rows = _rows(canvas_csv(standings, "Lab 1", 10.0, "4567"))
    assert [row[:5] for row in rows[2:]] == [row[:5] for row in _rows(CANVAS_EXPORT)[3:]]


def test_a_canvas_export_with_first_and_last_names_joins_them(tmp_path):
    path = _file(tmp_path, "LastName,FirstName,ID,SIS Login ID,Section,Lab 1 (1)\nLiddell,Alice,101,alice,S,1\n")
    assert read_roster(path)["101"] == Person("101", "Alice Liddell", login="alice", section="S")


def test_a_moodle_grading_worksheet_is_keyed_by_participant_number(tmp_path):
    worksheet = ("Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
                 "Last modified (submission),Last modified (grade),Feedback comments\n"
                 "Participant 12345,Alice Liddell,alice@example.org,No submission,,10.00,Yes,-,-,\n"
                 "Participant 12346,Bob Builder,bob@example.org,Submitted for grading,,10.00,Yes,-,-,\n")
    students = read_roster(_file(tmp_path, worksheet))
    assert students["12345"] == Person("12345", "Alice Liddell", "alice@example.org")
    assert list(students) == ["12345", "12346"]


MOODLE_GRADES = ("First name,Last name,ID number,Institution,Department,Email address,Assignment: Lab 1 (Real)\n"
                 "Alice,Liddell,S101,,,alice@example.org,7.50\n"
                 "Bob,Builder,{bob_id},,,bob@example.org,-\n")


def test_a_moodle_grades_export_is_keyed_by_id_number_when_every_row_has_one(tmp_path):
    students = read_roster(_file(tmp_path, MOODLE_GRADES.format(bob_id="S102")))
    assert students["S101"] == Person("S101", "Alice Liddell", "alice@example.org", "S101")


def test_a_moodle_grades_export_falls_back_to_email_when_id_numbers_have_gaps(tmp_path):
    students = read_roster(_file(tmp_path, MOODLE_GRADES.format(bob_id="")))
    assert list(students) == ["alice@example.org", "bob@example.org"]


def test_a_moodle_export_with_no_complete_id_column_says_to_use_the_worksheet(tmp_path):
    path = _file(tmp_path, "First name,Surname,ID number,Email address\nAlice,Liddell,S101,\nBob,Builder,,b@x.org\n")
    with pytest.raises(RosterError) as error:
        read_roster(path)
    assert str(error.value) == moodle.NO_COMPLETE_ID.format(
        file=path, columns="'ID number', 'Email address'",
        gaps="'ID number' is empty on line 3; 'Email address' is empty on line 2")


def test_excel_bom_semicolons_and_blank_lines_are_read(tmp_path):
    text = "id;name;email\r\n\r\n101;Liddell, Alice;alice@example.org\r\n;;\r\n102;Builder, Bob;\r\n"
    students = read_roster(_file(tmp_path, text, encoding="utf-8-sig"))
    assert students == {"101": Person("101", "Liddell, Alice", "alice@example.org"),
                        "102": Person("102", "Builder, Bob")}


def test_a_canvas_export_in_a_semicolon_locale_is_read(tmp_path):
    # Canvas writes ";" and a byte-order mark when the user's export settings ask for them.
    text = CANVAS_EXPORT.replace(",", ";").replace('"Liddell; Alice"', '"Liddell, Alice"')
    text = text.replace('"Builder; Bob"', '"Builder, Bob"').replace(";7.5;", ";7,5;")
    students = read_roster(_file(tmp_path, text, encoding="utf-8-sig"))
    assert students["101"] == Person("101", "Liddell, Alice", "", "S101", "alice", "Section 1")
    assert list(students) == ["101", "102"]


def test_a_utf16_tab_separated_file_is_read(tmp_path):
    assert list(read_roster(_file(tmp_path, "id\tname\n101\tAlice\n", encoding="utf-16"))) == ["101"]


def test_id_column_chooses_where_ids_come_from(tmp_path):
    students = read_roster(_file(tmp_path, CANVAS_EXPORT), id_column="sis login id")
    assert list(students) == ["alice", "bob"] and students["alice"].sis_id == "S101"


# --- The roster's errors, each naming the file, the line and what to do ------------------------------------

def _error(path: Path, **kwargs) -> str:
    with pytest.raises(RosterError) as error:
        read_roster(path, **kwargs)
    return str(error.value)


def test_a_duplicate_id_names_both_lines(tmp_path):
    path = _file(tmp_path, "id,name\n101,Alice\n\n102,Bob\n101,Alice again\n")
    assert _error(path) == roster.DUPLICATE_ID.format(file=path, first=2, second=5, id="101")


def test_a_missing_id_column_names_the_columns_found_and_accepted(tmp_path):
    path = _file(tmp_path, "student_number,name\n101,Alice\n")
    message = _error(path)
    assert message == roster.NO_ID_COLUMN.format(file=path, found="'student_number', 'name'",
                                               accepted=roster.accepted())
    assert "Canvas's gradebook export" in message and "Moodle's grading worksheet" in message


def test_an_empty_id_names_the_line_and_column(tmp_path):
    path = _file(tmp_path, "Student,ID,Section\n\"Liddell, Alice\",101,S\n\"Builder, Bob\",,S\n")
    assert _error(path) == roster.EMPTY_ID.format(file=path, line=3, column="ID")


def test_a_worksheet_identifier_without_a_number_names_the_line(tmp_path):
    path = _file(tmp_path, "Identifier,Full name\nParticipant 1,Alice\nParticipant,Bob\n")
    assert _error(path) == moodle.NO_PARTICIPANT.format(file=path, line=3, value="Participant")


def test_an_empty_file_says_what_a_roster_holds(tmp_path):
    path = _file(tmp_path, "\n\n")
    assert _error(path) == roster.NO_HEADER.format(file=path, accepted=roster.accepted())


def test_a_file_that_is_not_utf8_says_how_to_save_it(tmp_path):
    path = _file(tmp_path, "id,name\n101,Zoë\n", encoding="latin-1")
    message = _error(path)
    assert message.startswith(f"{path}: not UTF-8 text ("), message
    assert message.endswith("Save it as 'CSV UTF-8' and pass it again"), message


def test_an_unknown_id_column_names_the_columns_found(tmp_path):
    path = _file(tmp_path, "id,name\n101,Alice\n")
    assert _error(path, id_column="login") == roster.NO_SUCH_COLUMN.format(file=path, column="login",
                                                                          found="'id', 'name'")


def test_the_roster_and_exports_import_without_torch():
    # The batch's parent process never imports torch; these modules run in it.
    code = ("import sys, graders.frontends.grade.term.roster, graders.frontends.grade.lms; "
            "sys.exit('torch' in sys.modules)")
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0, "importing them imported torch"
