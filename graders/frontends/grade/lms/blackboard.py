"""Blackboard: its assignment download and its Grade Center upload (its rosters read as plain CSV).

Download: `<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<the student's file name>`, flat, beside a
`.txt` receipt per attempt. The id is the username. The latest of several hand-ins is told by the attempt
time in the file names.

Grades, Grade Center, Work Offline > Upload (Blackboard Learn help, "Uploading External Grade Center
Items", library.blackboard.com): students are matched by Username; a column by the Column ID after
"|" in its header (downloads name it "<name> [Total Pts: <points> Score] |<id>"), and a column with
none is created as a text column worth 0 points; in a .csv every value is in quotes. How it reads an
empty cell, and whether it can excuse, is not documented: excused students get an empty cell.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from datetime import datetime, tzinfo

from graders.frontends.grade.lms.download import HandIn, Layout, ListedFile, relevant
from graders.frontends.grade.lms.grade_import import Graded, check_digits, csv_text, final_score, format_score, \
    rows_to_write
from graders.frontends.grade.lms.platform import GradeImport, Lms
from graders.frontends.grade.spreadsheet import text_cell

# The first `_<username>_attempt_<time>` is Blackboard's; a username is taken up to its last `_`.
_BLACKBOARD = re.compile(r"^(?P<assignment>.+?)_(?P<id>[^_]+)_attempt_(?P<when>\d{4}(?:-\d{2}){5})"
                         r"(?:_(?P<original>.+)|\.txt)$", re.DOTALL)
USERNAME = "Username"


def download(entries: list[ListedFile], unzipped_in: tzinfo | None) -> Layout | None:
    """A Blackboard assignment download, or None (its times are in its names: `unzipped_in` changes nothing)."""
    layout = Layout("Blackboard download", "the attempt time in Blackboard's file names",
                    clock="Blackboard's attempt time")
    for entry in entries:
        match = _BLACKBOARD.match(entry.path.name)
        if match is not None and _attempt_time(match["when"]) is None:
            match = None  # no time Blackboard writes: a student's own name that looks like one
        if match is None or len(entry.path.parts) > 1 or entry.folder:
            if relevant(entry):
                return None
            continue
        hand_ins = layout.students.setdefault(match["id"], [])  # a receipt alone names a student too
        if match["original"] and relevant(entry):
            day, clock = match["when"][:10], match["when"][11:].replace("-", ":")
            hand_ins.append(HandIn(entry, match["original"], (match["when"],), f"attempt of {day} {clock}",
                                   _attempt_time(match["when"])))
    return layout if layout.students else None


def _attempt_time(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, "%Y-%m-%d-%H-%M-%S")
    except ValueError:
        return None


def blackboard_csv(standings: list[Graded], assignment: str, max_score: float,
                   column_id: str | None = None) -> str:
    """Blackboard Grade Center's upload: Username and the assignment's column, every value in quotes.
    Without `column_id` (Column ID in the column's Quick Column Information) Blackboard creates a new
    text column worth 0 points, to be made a score column by hand."""
    column = assignment
    if column_id is not None:
        check_digits(column_id, "column_id", "take it from the column's Quick Column Information")
        column = f"{assignment} [Total Pts: {format_score(max_score)} Score] |{column_id}"
    rows = [[USERNAME, column]]
    for standing in rows_to_write(standings):
        rows.append([text_cell(standing.student), "" if standing.excused else final_score(standing)])
    return csv_text(rows, quoting=csv.QUOTE_ALL)


def _grade_center(standings: list[Graded], assignment: str, max_score: float, term: Mapping[str, str | None]) -> str:
    return blackboard_csv(standings, assignment, max_score)


LMS = Lms("Blackboard", download=download, grade_imports=(GradeImport("blackboard.csv", _grade_center),))
