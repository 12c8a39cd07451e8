"""The roster (graders/frontends/grade/term/roster.py): read_roster on a plain CSV in any column order, encoding and
separator Excel or an LMS writes, and each of its refusals naming the file, the line and what to do. The LMSs'
own exports read as rosters are tested with their LMS (test_canvas.py, test_moodle.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from graders.frontends.grade.term import roster
from graders.frontends.grade.term.roster import read_roster
from graders.frontends.grade.term.standing import Person
from lms_rows import CANVAS_EXPORT, roster_error, roster_file


def test_a_plain_roster_needs_only_ids_and_takes_its_columns_in_any_order(tmp_path):
    path = roster_file(tmp_path, "section,name,id,email\nS1,Alice Liddell,101,alice@example.org\n,,102,\n")
    assert read_roster(path) == {"101": Person("101", "Alice Liddell", "alice@example.org", section="S1"),
                                 "102": Person("102")}


def test_excel_bom_semicolons_and_blank_lines_are_read(tmp_path):
    text = "id;name;email\r\n\r\n101;Liddell, Alice;alice@example.org\r\n;;\r\n102;Builder, Bob;\r\n"
    students = read_roster(roster_file(tmp_path, text, encoding="utf-8-sig"))
    assert students == {"101": Person("101", "Liddell, Alice", "alice@example.org"),
                        "102": Person("102", "Builder, Bob")}


def test_a_utf16_tab_separated_file_is_read(tmp_path):
    assert list(read_roster(roster_file(tmp_path, "id\tname\n101\tAlice\n", encoding="utf-16"))) == ["101"]


def test_id_column_chooses_where_ids_come_from(tmp_path):
    students = read_roster(roster_file(tmp_path, CANVAS_EXPORT), id_column="sis login id")
    assert list(students) == ["alice", "bob"] and students["alice"].sis_id == "S101"


# --- The roster's errors, each naming the file, the line and what to do ------------------------------------

def test_a_duplicate_id_names_both_lines(tmp_path):
    path = roster_file(tmp_path, "id,name\n101,Alice\n\n102,Bob\n101,Alice again\n")
    assert roster_error(path) == roster.DUPLICATE_ID.format(file=path, first=2, second=5, id="101")


def test_a_missing_id_column_names_the_columns_found_and_accepted(tmp_path):
    path = roster_file(tmp_path, "student_number,name\n101,Alice\n")
    message = roster_error(path)
    assert message == roster.NO_ID_COLUMN.format(file=path, found="'student_number', 'name'",
                                               accepted=roster.accepted())
    assert "Canvas's gradebook export" in message and "Moodle's grading worksheet" in message


def test_an_empty_id_names_the_line_and_column(tmp_path):
    path = roster_file(tmp_path, "Student,ID,Section\n\"Liddell, Alice\",101,S\n\"Builder, Bob\",,S\n")
    assert roster_error(path) == roster.EMPTY_ID.format(file=path, line=3, column="ID")


def test_an_empty_file_says_what_a_roster_holds(tmp_path):
    path = roster_file(tmp_path, "\n\n")
    assert roster_error(path) == roster.NO_HEADER.format(file=path, accepted=roster.accepted())


def test_a_file_that_is_not_utf8_says_how_to_save_it(tmp_path):
    path = roster_file(tmp_path, "id,name\n101,Zoë\n", encoding="latin-1")
    message = roster_error(path)
    assert message.startswith(f"{path}: not UTF-8 text ("), message
    assert message.endswith("Save it as 'CSV UTF-8' and pass it again"), message


def test_an_unknown_id_column_names_the_columns_found(tmp_path):
    path = roster_file(tmp_path, "id,name\n101,Alice\n")
    assert roster_error(path, id_column="login") == roster.NO_SUCH_COLUMN.format(file=path, column="login",
                                                                          found="'id', 'name'")


def test_the_roster_and_exports_import_without_torch():
    # The batch's parent process never imports torch; these modules run in it.
    code = ("import sys, graders.frontends.grade.term.roster, graders.frontends.grade.lms; "
            "sys.exit('torch' in sys.modules)")
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0, "importing them imported torch"
