"""Moodle (graders/frontends/grade/lms/moodle.py), one file for the LMS as the module is: its download (ids from the
participant folder, zipped or not, the latest of two hand-ins by Moodle's time, a link refused), its grading
worksheet and gradebook imports read back by parsers that hold them to Moodle's documented rules, and its exports
read as a roster."""

from __future__ import annotations

import os
import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

from graders.frontends.grade.intake.sources import NOTHING_HANDED_IN
from graders.frontends.grade.lms import moodle
from graders.frontends.grade.lms.grade_import import LmsExportError, format_score
from graders.frontends.grade.lms.moodle import moodle_grades_csv, moodle_worksheet_csv
from graders.frontends.grade.term.roster import RosterError, read_roster
from graders.frontends.grade.term.standing import Person
from lms_rows import ALICE, CLASS, SCORE, csv_rows, finals, one_per_student, roster_error, roster_file, standing_of
from test_sources import ALICE_ONLY, EMPTY, GRADED, MAY_1, MAY_2, MOODLE, REFERENCE, SOLVED, _find, _write

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


def test_moodle_ids_come_from_the_participant_folder_not_the_file_name(tmp_path: Path) -> None:
    layout, found = _find(_write(tmp_path / "download", MOODLE))
    assert layout == "Moodle download"
    assert set(found) == {"12", "17", "20"}
    assert found["12"].sources == GRADED and not found["12"].problems
    assert found["17"].sources == {} and found["17"].origin.endswith("Mallory Evil_17_assignsubmission_file_/"
                                                                      "alice_lesson01.ipynb")
    assert found["20"].problems == [f"{NOTHING_HANDED_IN} (such as views.py); every exercise scores 0",  # online text
                                    "onlinetext.html was handed in too; it is no answer the grader reads: read it "
                                    "yourself"]


def test_a_moodle_zip_is_read_the_same_without_unpacking(tmp_path: Path) -> None:
    archive = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for name, text in MOODLE.items():
            bundle.writestr(name, text)
    layout, found = _find(archive)
    assert layout == "Moodle download" and set(found) == {"12", "17", "20"}
    assert found["12"].sources == GRADED and found["17"].sources == {}


def test_an_older_moodle_download_of_flat_files_is_recognised_too(tmp_path: Path) -> None:
    layout, found = _find(_write(tmp_path, {"Alice Smith_12_assignsubmission_file_lesson01.ipynb": SOLVED,
                                            "Mallory Evil_17_assignsubmission_file_alice_lesson01.ipynb": EMPTY}))
    assert layout == "Moodle download" and set(found) == {"12", "17"}
    assert found["12"].sources == GRADED


def test_two_moodle_hand_ins_are_both_named_and_the_latest_by_moodles_time_is_graded(tmp_path: Path) -> None:
    folder = "Alice Smith_12_assignsubmission_file_"
    source = _write(tmp_path, {f"{folder}/lesson01.ipynb": SOLVED, f"{folder}/lesson01 (1).ipynb": ALICE_ONLY},
                    times={f"{folder}/lesson01.ipynb": MAY_2, f"{folder}/lesson01 (1).ipynb": MAY_1})
    _, found = _find(source)
    assert found["12"].sources == GRADED  # the later one, though it sorts first by name
    told = found["12"].problems[0]
    assert told.startswith(f"2 hand-ins for this student: {folder}/lesson01 (1).ipynb (modified 2024-05-01 10:00:00); "
                           f"{folder}/lesson01.ipynb (modified 2024-05-02 09:00:00). Graded {folder}/lesson01.ipynb, "
                           f"the latest by the time Moodle's zip gives each file"), told


def test_moodle_answers_as_py_files_are_taken_by_their_exercise_name(tmp_path: Path) -> None:
    _, found = _find(_write(tmp_path, {"Alice Smith_12_assignsubmission_file_/views.py": REFERENCE["views"],
                                       "Alice Smith_12_assignsubmission_file_/lesson01/sin_exp_derivative.py": "x\n"}))
    assert found["12"].sources == {"views": REFERENCE["views"], "sin_exp_derivative": "x\n"}


def test_a_linked_notebook_in_a_moodle_folder_is_refused_and_told_to_that_participant(tmp_path: Path) -> None:
    source = _write(tmp_path, {"Alice Smith_12_assignsubmission_file_/lesson01.ipynb": SOLVED})
    (tmp_path / "Mallory Evil_17_assignsubmission_file_").mkdir()
    os.symlink("../Alice Smith_12_assignsubmission_file_/lesson01.ipynb",
               tmp_path / "Mallory Evil_17_assignsubmission_file_" / "lesson01.ipynb")
    _, found = _find(source)
    assert found["17"].sources == {}
    assert found["17"].problems[0].startswith("Mallory Evil_17_assignsubmission_file_/lesson01.ipynb is a symbolic "
                                              "link: it was not read")
    assert found["12"].sources == GRADED and not found["12"].problems
