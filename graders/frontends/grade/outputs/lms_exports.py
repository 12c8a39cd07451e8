"""Grades back to the LMS: one assignment's final scores, as each LMS's grade import reads them.

Each writer takes (standings, assignment, max_score) and returns the CSV text, one row per standing
(but the rows a Moodle import cannot match: left_out_of_moodle_* names those students; and the students
held back, whose hand-in time needs a decision: held_back names them), its score
`final` (at most 2 decimals, "." as the decimal separator). Write the text as UTF-8
without a byte-order mark: Canvas reads UTF-8, Moodle asks for the encoding (UTF-8 is its default)
and drops a mark anyway, and a mark would stick to Canvas's first header. Rows end in "\\n", so
`Path.write_text` is safe on every system.

Canvas, gradebook Import (canvas-lms lib/gradebook_importer.rb; lib/gradebook_exporter.rb writes the
same layout): the header is Student, ID, SIS User ID, SIS Login ID, Section, then an assignment column
"<name> (<assignment id>)" (Assignment#title_with_id). A header without " (<id>)" is matched to the
assignment of exactly that title, else Canvas creates a new assignment of that title (a name that
itself ends in " (<digits>)" is read as title and id, so a new one would lose that end). Students are
matched by ID (the Canvas user id), then SIS User ID, SIS Login ID, then name. A row whose first cell
holds "Points Possible" gives the points; "EX" is excused; "" and "-" are no score.

Moodle, assignment > Upload grading worksheet (mod/assign/feedback/offline/importgradeslib.php and
locallib.php): the columns Identifier, Grade and "Last modified (grade)" are required, the others are
read by name ("Feedback comments", the comments plugin's field) or ignored. Identifier is
"Participant " + the participant number; Grade is read with unformat_float and skipped when empty,
negative or above the assignment's maximum; a grade changed in Moodle more than 60 s after
"Last modified (grade)" (read with PHP's strtotime) is kept unless the upload allows overwriting it.
Feedback comments are stored as HTML, so &, < and > are escaped.

Moodle, gradebook > Import > CSV file (grade/import/csv/classes/load_data.php): the user maps one
column to a user field (ID number, Email address or Username here) and another to a grade item, new
or existing. A row whose user is not found fails the whole import, and a row whose user field is empty
is given the previous row's user (the import does not reset it), so no row is written without its
key; "-" is no grade.

Blackboard Grade Center, Work Offline > Upload (Blackboard Learn help, "Uploading External Grade Center
Items", library.blackboard.com): students are matched by Username; a column by the Column ID after
"|" in its header (downloads name it "<name> [Total Pts: <points> Score] |<id>"), and a column with
none is created as a text column worth 0 points; in a .csv every value is in quotes. How it reads an
empty cell, and whether it can excuse, is not documented: excused students get an empty cell.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from datetime import datetime, timezone

from graders.frontends.grade.spreadsheet import guarded_writer, text_cell
from graders.frontends.grade.term.standing import Standing

CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS_POSSIBLE = "    Points Possible"  # as Canvas's own export writes it
CANVAS_EXCUSED = "EX"
MOODLE_WORKSHEET_HEADER = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                           "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
                           "Feedback comments"]
MOODLE_PARTICIPANT = "Participant "
MOODLE_NO_GRADE = "-"
MOODLE_MATCH_FIELDS = {"Email address": "email", "ID number": "sis_id", "Username": "login"}
BLACKBOARD_USERNAME = "Username"

DUPLICATE_STUDENT = "student {student!r} has {count} standings: an export has one row per student"
NOT_A_SCORE = "student {student!r}: final score {score!r} is not a number an LMS can import"
NOT_AN_ID = "{what} {value!r} is not a number: {hint}"
UNKNOWN_MATCH = "match_by {value!r} is not one of {fields}"
_NUMBER = re.compile(r"[0-9]+")  # ASCII only: str.isdigit() also takes "²"


class LmsExportError(ValueError):
    """Standings that cannot be written in an LMS's format; the message says which and what to do."""


def canvas_csv(standings: list[Standing], assignment: str, max_score: float,
               canvas_assignment_id: str | None = None) -> str:
    """Canvas's gradebook import CSV: one assignment column, its Points Possible row, "EX" for excused."""
    if canvas_assignment_id is not None:
        _digits(canvas_assignment_id, "canvas_assignment_id", "take it from the assignment's URL, /assignments/<id>")
        column = f"{assignment} ({canvas_assignment_id})"
    else:
        column = assignment
    rows = [CANVAS_HEADER + [column], [CANVAS_POINTS_POSSIBLE, "", "", "", "", format_score(max_score)]]
    for standing in _unique(standings):
        person = standing.person
        grade = CANVAS_EXCUSED if standing.excused else _final(standing)
        rows.append([*map(text_cell, (standing.name, standing.student, person.sis_id if person else "",
                                      person.login if person else "", person.section if person else "")), grade])
    return _csv(rows)


def moodle_worksheet_csv(standings: list[Standing], assignment: str, max_score: float,
                         graded_at: datetime | None = None) -> str:
    """Moodle's grading worksheet, for the assignment's "Upload grading worksheet" (`assignment` names
    no column: the file is uploaded into the assignment). `graded_at` (default now) is written as the
    grades' last modification, so grades edited in Moodle after it are not overwritten. Students whose
    id is no participant number are left out (left_out_of_moodle_worksheet names them): Moodle looks
    the number up in an integer column, and a non-number there can fail the whole upload."""
    # ISO 8601 with its offset: strtotime reads it the same whatever the server's time zone.
    modified = (graded_at or datetime.now(timezone.utc)).astimezone().isoformat(timespec="seconds")
    rows = [MOODLE_WORKSHEET_HEADER]
    for standing in _unique(standings):
        if not _NUMBER.fullmatch(standing.student):
            continue
        submitted = _iso(standing.submitted_at)
        rows.append([MOODLE_PARTICIPANT + standing.student, text_cell(standing.name),
                     text_cell(standing.person.email if standing.person else ""),
                     "Submitted for grading" if standing.handed_in else "No submission",
                     "" if standing.excused else _final(standing),  # empty: Moodle leaves the grade as it is
                     format_score(max_score), "Yes", submitted, modified, _feedback(standing, max_score)])
    return _csv(rows)


def left_out_of_moodle_worksheet(standings: list[Standing]) -> list[str]:
    """The students moodle_worksheet_csv leaves out: their ids are no Moodle participant numbers (those held back
    are named by held_back)."""
    return [s.student for s in standings if not _NUMBER.fullmatch(s.student) and not s.needs_decision]


def moodle_grades_csv(standings: list[Standing], assignment: str, max_score: float,
                      match_by: str = "Email address") -> str:
    """Moodle's gradebook CSV import: the `match_by` column (Email address, ID number or Username, from
    the roster) to map to that user field, and a column named `assignment` to map to its grade item.
    Students the roster gives no `match_by` are left out (left_out_of_moodle_grades names them): a row
    without its user would be given the previous row's user by Moodle's import."""
    field = _match_field(match_by)
    rows = [[match_by, assignment]]
    for standing in _unique(standings):
        key = getattr(standing.person, field) if standing.person else ""
        if key:
            rows.append([text_cell(key), MOODLE_NO_GRADE if standing.excused else _final(standing)])
    return _csv(rows)


def left_out_of_moodle_grades(standings: list[Standing], match_by: str = "Email address") -> list[str]:
    """The students moodle_grades_csv leaves out: the roster gives them no `match_by` (those held back are named
    by held_back)."""
    field = _match_field(match_by)
    return [s.student for s in standings if not (s.person and getattr(s.person, field)) and not s.needs_decision]


def blackboard_csv(standings: list[Standing], assignment: str, max_score: float,
                   column_id: str | None = None) -> str:
    """Blackboard Grade Center's upload: Username and the assignment's column, every value in quotes.
    Without `column_id` (Column ID in the column's Quick Column Information) Blackboard creates a new
    text column worth 0 points, to be made a score column by hand."""
    column = assignment
    if column_id is not None:
        _digits(column_id, "column_id", "take it from the column's Quick Column Information")
        column = f"{assignment} [Total Pts: {format_score(max_score)} Score] |{column_id}"
    rows = [[BLACKBOARD_USERNAME, column]]
    for standing in _unique(standings):
        rows.append([text_cell(standing.student), "" if standing.excused else _final(standing)])
    return _csv(rows, quoting=csv.QUOTE_ALL)


def _iso(moment: datetime | None) -> str:
    """A hand-in's time for Moodle's column, "-" where it is unknown or unusable."""
    try:
        return moment.astimezone().isoformat(timespec="seconds") if moment else "-"
    except (ValueError, OverflowError):
        return "-"


def format_score(value: float) -> str:
    """A score with at most 2 decimals and no trailing zeros: 7.5, not 7.500000; 7, not 7.0."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _final(standing: Standing) -> str:
    if not math.isfinite(standing.final):
        raise LmsExportError(NOT_A_SCORE.format(student=standing.student, score=standing.final))
    return format_score(standing.final)


def _feedback(standing: Standing, max_score: float) -> str:
    """The term's notes and the final score, on one line of plain text."""
    sentences = [" ".join(note.split()) for note in standing.notes if note.strip()]
    sentences = [s if s.endswith((".", "!", "?")) else s + "." for s in sentences]
    if standing.excused:
        sentences.append("Excused: no grade counts.")
    else:
        sentences.append(f"Final score: {_final(standing)} / {format_score(max_score)}.")
    return html.escape(" ".join(sentences), quote=False)


def held_back(standings: list[Standing]) -> list[str]:
    """The students no writer exports: their lateness waits for the instructor's decision (their hand-in time is
    unknown or impossible), so an import leaves their grade in the LMS as it is until the ledger decides."""
    return [s.student for s in standings if s.needs_decision]


def _unique(standings: list[Standing]) -> list[Standing]:
    """The standings to write: each student once, and none held back."""
    counts: dict[str, int] = {}
    for standing in standings:
        counts[standing.student] = counts.get(standing.student, 0) + 1
    for student, count in counts.items():
        if count > 1:
            raise LmsExportError(DUPLICATE_STUDENT.format(student=student, count=count))
    return [s for s in standings if not s.needs_decision]


def _match_field(match_by: str) -> str:
    if match_by not in MOODLE_MATCH_FIELDS:
        raise LmsExportError(UNKNOWN_MATCH.format(value=match_by, fields=_list(MOODLE_MATCH_FIELDS)))
    return MOODLE_MATCH_FIELDS[match_by]


def _digits(value: str, what: str, hint: str) -> None:
    if not _NUMBER.fullmatch(value):
        raise LmsExportError(NOT_AN_ID.format(what=what, value=value, hint=hint))


def _list(items) -> str:
    return ", ".join(repr(item) for item in items)


def _csv(rows: list[list[str]], quoting: int = csv.QUOTE_MINIMAL) -> str:
    out = io.StringIO()
    guarded_writer(out, quoting=quoting, lineterminator="\n").writerows(rows)
    return out.getvalue()
