"""Moodle: its assignment download, its roster exports and its two grade imports.

Download (Moodle 3.1 and later, as folders): `Full Name_<participant id>_assignsubmission_file_/<the
student's files>` (`_onlinetext_` likewise), or the same prefix on flat files (older downloads). The id is
the participant id. The latest of several hand-ins is told by the time Moodle's zip gives each file, which
is when that content reached the Moodle server (unzip makes it the file's modification time, read in the
unzipping machine's zone, which `unzipped_in` gives back).

Rosters: the grading worksheet, Identifier ("Participant 12345"), Full name, Email address, ...: id = the
participant number, the number a Moodle assignment download puts in its folder names (Moodle numbers both
with assign's get_uniqueid_for_user: mod/assign/gradingtable.php col_recordid, mod/assign/locallib.php
download_submissions; "Participant " and "Identifier" are the strings 'hiddenuser' and 'recordid' of
mod/assign/lang/en/assign.php). The grades or participants export: First name, Last name (Surname in older
Moodle) or Full name, ID number, Email address, Username (Moodle's English labels). These name no
participant number, so their ids cannot match a Moodle assignment download: id = the first of ID number,
Username, Email address that every row fills in (for sources named by those, e.g. --student-pattern).

Grades, assignment > Upload grading worksheet (mod/assign/feedback/offline/importgradeslib.php and
locallib.php): the columns Identifier, Grade and "Last modified (grade)" are required, the others are
read by name ("Feedback comments", the comments plugin's field) or ignored. Identifier is
"Participant " + the participant number; Grade is read with unformat_float and skipped when empty,
negative or above the assignment's maximum; a grade changed in Moodle more than 60 s after
"Last modified (grade)" (read with PHP's strtotime) is kept unless the upload allows overwriting it.
Feedback comments are stored as HTML, so &, < and > are escaped.

Grades, gradebook > Import > CSV file (grade/import/csv/classes/load_data.php): the user maps one
column to a user field (ID number, Email address or Username here) and another to a grade item, new
or existing. A row whose user is not found fails the whole import, and a row whose user field is empty
is given the previous row's user (the import does not reset it), so no row is written without its
key; "-" is no grade.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from datetime import datetime, timezone, tzinfo

from graders.frontends.grade.lms.download import Layout, ListedFile, by_file_time, relevant
from graders.frontends.grade.lms.grade_import import (NUMBER, Graded, LmsExportError, csv_text, final_score,
                                                      format_score, rows_to_write)
from graders.frontends.grade.lms.platform import GradeImport, Lms, RosterLayout
from graders.frontends.grade.spreadsheet import text_cell

_MOODLE = re.compile(r"^(?P<name>[^_]*)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<rest>.*)$", re.DOTALL)
WORKSHEET_HEADER = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                    "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
                    "Feedback comments"]
PARTICIPANT = "Participant "
NO_GRADE = "-"
MATCH_FIELDS = {"Email address": "email", "ID number": "sis_id", "Username": "login"}
UNKNOWN_MATCH = "match_by {value!r} is not one of {fields}"
NO_PARTICIPANT = ("{file}, line {line}: Identifier {value!r} holds no participant number (Moodle writes "
                  "'Participant 12345'). Download the grading worksheet again, or correct the line")
NO_COMPLETE_ID = ("{file}: none of the columns {columns} is filled in on every line ({gaps}). This file "
                  "names no Moodle participant number: give the assignment's grading worksheet instead, "
                  "or fill the gaps")
_PARTICIPANT_NUMBER = re.compile(r"([0-9]+)\s*$")
_EXPORT_IDS = ("id number", "username", "email address")


def download(entries: list[ListedFile], unzipped_in: tzinfo | None) -> Layout | None:
    """A Moodle assignment download, or None."""
    layout = Layout("Moodle download", "the time Moodle's zip gives each file (when it reached Moodle)",
                    clock="Moodle's time for the file", file_times=True)
    for entry in entries:
        match = _MOODLE.match(entry.path.parts[0])
        if match is None:
            if relevant(entry):
                return None
            continue
        hand_ins = layout.students.setdefault(match["id"], [])
        # Inside a participant folder, whatever the student named a file, it is that participant's.
        name = "/".join(entry.path.parts[1:]) or match["rest"] or entry.path.name
        if relevant(entry):
            hand_ins.append(by_file_time(entry, name, lms_clock=True, unzipped_in=unzipped_in))
        elif not entry.folder:  # a note to the grader, an online text: the instructor reads it, the grader cannot
            layout.others.setdefault(match["id"], []).append(name)
    return layout if layout.students else None


def _participant_number(cell: str) -> str | None:
    number = _PARTICIPANT_NUMBER.search(cell)
    return number.group(1) if number else None


WORKSHEET = RosterLayout(
    "Moodle grading worksheet", "Moodle's grading worksheet (Identifier, Full name, Email address)",
    fits=lambda columns: "identifier" in columns, id_columns=("identifier",), id_in_cell=_participant_number,
    no_id=NO_PARTICIPANT, fields={"name": ("full name",), "email": ("email address",)})
EXPORT = RosterLayout(
    "Moodle grades or participants export",
    "Moodle's grades or participants export (ID number, Username or Email address)",
    fits=lambda columns: "identifier" not in columns and "id" not in columns and any(c in columns for c in _EXPORT_IDS),
    id_columns=_EXPORT_IDS, no_complete_id=NO_COMPLETE_ID,
    fields={"name": ("full name",), "email": ("email address",), "sis_id": ("id number",), "login": ("username",)})


def moodle_worksheet_csv(standings: list[Graded], assignment: str, max_score: float,
                         graded_at: datetime | None = None) -> str:
    """Moodle's grading worksheet, for the assignment's "Upload grading worksheet" (`assignment` names
    no column: the file is uploaded into the assignment). `graded_at` (default now) is written as the
    grades' last modification, so grades edited in Moodle after it are not overwritten. Students whose
    id is no participant number are left out (left_out_of_moodle_worksheet names them): Moodle looks
    the number up in an integer column, and a non-number there can fail the whole upload."""
    # ISO 8601 with its offset: strtotime reads it the same whatever the server's time zone.
    modified = (graded_at or datetime.now(timezone.utc)).astimezone().isoformat(timespec="seconds")
    rows = [WORKSHEET_HEADER]
    for standing in rows_to_write(standings):
        if not NUMBER.fullmatch(standing.student):
            continue
        submitted = _iso(standing.submitted_at)
        rows.append([PARTICIPANT + standing.student, text_cell(standing.name),
                     text_cell(standing.person.email if standing.person else ""),
                     "Submitted for grading" if standing.handed_in else "No submission",
                     "" if standing.excused else final_score(standing),  # empty: Moodle leaves the grade as it is
                     format_score(max_score), "Yes", submitted, modified, _feedback(standing, max_score)])
    return csv_text(rows)


def left_out_of_moodle_worksheet(standings: list[Graded]) -> list[str]:
    """The students moodle_worksheet_csv leaves out: their ids are no Moodle participant numbers (those held back
    are named by held_back)."""
    return [s.student for s in standings if not NUMBER.fullmatch(s.student) and not s.needs_decision]


def moodle_grades_csv(standings: list[Graded], assignment: str, max_score: float,
                      match_by: str = "Email address") -> str:
    """Moodle's gradebook CSV import: the `match_by` column (Email address, ID number or Username, from
    the roster) to map to that user field, and a column named `assignment` to map to its grade item.
    Students the roster gives no `match_by` are left out (left_out_of_moodle_grades names them): a row
    without its user would be given the previous row's user by Moodle's import."""
    field = _match_field(match_by)
    rows = [[match_by, assignment]]
    for standing in rows_to_write(standings):
        key = getattr(standing.person, field) if standing.person else ""
        if key:
            rows.append([text_cell(key), NO_GRADE if standing.excused else final_score(standing)])
    return csv_text(rows)


def left_out_of_moodle_grades(standings: list[Graded], match_by: str = "Email address") -> list[str]:
    """The students moodle_grades_csv leaves out: the roster gives them no `match_by` (those held back are named
    by held_back)."""
    field = _match_field(match_by)
    return [s.student for s in standings if not (s.person and getattr(s.person, field)) and not s.needs_decision]


def _iso(moment: datetime | None) -> str:
    """A hand-in's time for Moodle's column, "-" where it is unknown or unusable."""
    try:
        return moment.astimezone().isoformat(timespec="seconds") if moment else "-"
    except (ValueError, OverflowError):
        return "-"


def _feedback(standing: Graded, max_score: float) -> str:
    """The term's notes and the final score, on one line of plain text."""
    sentences = [" ".join(note.split()) for note in standing.notes if note.strip()]
    sentences = [s if s.endswith((".", "!", "?")) else s + "." for s in sentences]
    if standing.excused:
        sentences.append("Excused: no grade counts.")
    else:
        sentences.append(f"Final score: {final_score(standing)} / {format_score(max_score)}.")
    return html.escape(" ".join(sentences), quote=False)


def _match_field(match_by: str) -> str:
    if match_by not in MATCH_FIELDS:
        raise LmsExportError(UNKNOWN_MATCH.format(value=match_by, fields=", ".join(map(repr, MATCH_FIELDS))))
    return MATCH_FIELDS[match_by]


def _worksheet(standings: list[Graded], assignment: str, max_score: float, term: Mapping[str, str | None]) -> str:
    return moodle_worksheet_csv(standings, assignment, max_score)


def _gradebook(standings: list[Graded], assignment: str, max_score: float, term: Mapping[str, str | None]) -> str:
    return moodle_grades_csv(standings, assignment, max_score)


LMS = Lms("Moodle", download=download, rosters=(WORKSHEET, EXPORT), grade_imports=(
    GradeImport("moodle_worksheet.csv", _worksheet, left_out_of_moodle_worksheet,
                "their id is not a Moodle participant id"),
    GradeImport("moodle_grades.csv", _gradebook, left_out_of_moodle_grades, "the roster gives no e-mail address",
                when_empty_with_roster="the roster gives none of the {students} an e-mail address; add the roster's "
                "e-mail column (Moodle's participants export has it), or upload lms/moodle_worksheet.csv in the "
                "assignment instead"),
))
