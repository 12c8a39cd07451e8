"""Moodle (graders/frontends/grade/lms/moodle.py): its grading worksheet and gradebook imports read back by parsers
that hold them to Moodle's documented rules, and its exports read as a roster."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from graders.frontends.grade.lms import moodle
from graders.frontends.grade.lms.grade_import import LmsExportError, format_score
from graders.frontends.grade.lms.moodle import moodle_grades_csv, moodle_worksheet_csv
from graders.frontends.grade.term.roster import RosterError, read_roster
from graders.frontends.grade.term.standing import Person
from lms_rows import ALICE, CLASS, SCORE, csv_rows, finals, one_per_student, roster_error, roster_file, standing_of

MOODLE_WORKSHEET = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                    "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
                    "Feedback comments"]


def parse_moodle_worksheet(text: str, points: str) -> dict[str, dict[str, str]]:
    """Moodle's worksheet upload: its columns; Identifier "Participant <n>"; Grade a score or empty
    (skipped); Last modified (grade) a time strtotime reads whatever the server's zone; feedback HTML-safe."""
    rows = csv_rows(text)
    assert rows[0] == MOODLE_WORKSHEET, rows[0]
    one_per_student(rows[1:], key=0, width=len(MOODLE_WORKSHEET))
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
    rows = csv_rows(text)
    assert rows[0] == [match_by, item], rows[0]
    one_per_student(rows[1:], key=0, width=2)
    for row in rows[1:]:
        assert SCORE.fullmatch(row[1]) or row[1] == "-", f"Moodle cannot import grade {row[1]!r}"
    return {row[0]: row[1] for row in rows[1:]}


def test_moodle_worksheet_reads_back_as_each_students_final():
    read = parse_moodle_worksheet(moodle_worksheet_csv(CLASS, "Lab 1", 10.0), "10")
    assert {n: float(cells["Grade"]) for n, cells in read.items()} == finals(CLASS)
    assert read["101"]["Full name"] == "Liddell, Alice" and read["101"]["Email address"] == "alice@example.org"
    assert read["103"]["Status"] == "No submission" and read["101"]["Status"] == "Submitted for grading"


def test_moodle_worksheet_feedback_is_the_notes_then_the_final_score_as_safe_text():
    standing = standing_of("101", 6.0, ALICE, notes=("Late by 2 days: 20% taken off", "Override by <TA> & co."))
    read = parse_moodle_worksheet(moodle_worksheet_csv([standing], "Lab 1", 10.0), "10")
    assert read["101"]["Feedback comments"] == ("Late by 2 days: 20% taken off. Override by &lt;TA&gt; &amp; co. "
                                                "Final score: 6 / 10.")


def test_moodle_worksheet_leaves_an_excused_grade_empty():
    read = parse_moodle_worksheet(moodle_worksheet_csv([standing_of("101", 0.0, ALICE, excused=True)], "L", 10), "10")
    assert read["101"]["Grade"] == "" and read["101"]["Feedback comments"] == "Excused: no grade counts."


def test_moodle_worksheet_dates_the_grades_at_graded_at():
    when = datetime(2024, 3, 1, 10, 0, tzinfo=timezone.utc)
    read = parse_moodle_worksheet(moodle_worksheet_csv(CLASS, "Lab 1", 10.0, graded_at=when), "10")
    assert {datetime.fromisoformat(cells["Last modified (grade)"]) for cells in read.values()} == {when}


def test_moodle_worksheet_leaves_out_and_names_ids_that_are_not_participant_numbers():
    standings = CLASS + [standing_of("alice", 5.0), standing_of("²", 5.0)]
    read = parse_moodle_worksheet(moodle_worksheet_csv(standings, "Lab 1", 10.0), "10")
    assert list(read) == ["101", "102", "103"]
    assert moodle.left_out_of_moodle_worksheet(standings) == ["alice", "²"]


@pytest.mark.parametrize("match_by, key", [("Email address", "email"), ("ID number", "sis_id"),
                                           ("Username", "login")])
def test_moodle_grades_read_back_by_each_user_field(match_by, key):
    excused = standing_of("104", 3.0, Person("104", "", "c@example.org", "S104", "c"), excused=True)
    standings = CLASS + [excused]
    grades = parse_moodle_grades(moodle_grades_csv(standings, "Lab 1", 10.0, match_by=match_by), match_by, "Lab 1")
    rostered = [s for s in standings if s.person]
    assert grades == {getattr(s.person, key): "-" if s.excused else format_score(s.final) for s in rostered}


def test_moodle_grades_leave_out_and_name_students_with_no_user_field():
    standings = CLASS + [standing_of("105", 1.0, Person("105", "No Mail"))]
    grades = parse_moodle_grades(moodle_grades_csv(standings, "Lab 1", 10.0), "Email address", "Lab 1")
    assert list(grades) == ["alice@example.org", "bob@example.org"]
    assert moodle.left_out_of_moodle_grades(standings) == ["103", "105"]
    assert moodle.left_out_of_moodle_grades(standings, "Username") == ["103", "105"]


def test_moodle_grades_refuse_an_unknown_user_field():
    with pytest.raises(LmsExportError) as error:
        moodle_grades_csv(CLASS, "Lab 1", 10.0, match_by="email")
    assert str(error.value) == moodle.UNKNOWN_MATCH.format(
        value="email", fields="'Email address', 'ID number', 'Username'")


def test_a_moodle_grading_worksheet_is_keyed_by_participant_number(tmp_path):
    worksheet = ("Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
                 "Last modified (submission),Last modified (grade),Feedback comments\n"
                 "Participant 12345,Alice Liddell,alice@example.org,No submission,,10.00,Yes,-,-,\n"
                 "Participant 12346,Bob Builder,bob@example.org,Submitted for grading,,10.00,Yes,-,-,\n")
    students = read_roster(roster_file(tmp_path, worksheet))
    assert students["12345"] == Person("12345", "Alice Liddell", "alice@example.org")
    assert list(students) == ["12345", "12346"]


MOODLE_GRADES = ("First name,Last name,ID number,Institution,Department,Email address,Assignment: Lab 1 (Real)\n"
                 "Alice,Liddell,S101,,,alice@example.org,7.50\n"
                 "Bob,Builder,{bob_id},,,bob@example.org,-\n")


def test_a_moodle_grades_export_is_keyed_by_id_number_when_every_row_has_one(tmp_path):
    students = read_roster(roster_file(tmp_path, MOODLE_GRADES.format(bob_id="S102")))
    assert students["S101"] == Person("S101", "Alice Liddell", "alice@example.org", "S101")


def test_a_moodle_grades_export_falls_back_to_email_when_id_numbers_have_gaps(tmp_path):
    students = read_roster(roster_file(tmp_path, MOODLE_GRADES.format(bob_id="")))
    assert list(students) == ["alice@example.org", "bob@example.org"]


def test_a_moodle_export_with_no_complete_id_column_says_to_use_the_worksheet(tmp_path):
    path = roster_file(tmp_path, "First name,Surname,ID number,Email address\nAlice,Liddell,S101,\nBob,Builder,,b@x.org\n")
    with pytest.raises(RosterError) as error:
        read_roster(path)
    assert str(error.value) == moodle.NO_COMPLETE_ID.format(
        file=path, columns="'ID number', 'Email address'",
        gaps="'ID number' is empty on line 3; 'Email address' is empty on line 2")


def test_a_worksheet_identifier_without_a_number_names_the_line(tmp_path):
    path = roster_file(tmp_path, "Identifier,Full name\nParticipant 1,Alice\nParticipant,Bob\n")
    assert roster_error(path) == moodle.NO_PARTICIPANT.format(file=path, line=3, value="Participant")
