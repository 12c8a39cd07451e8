"""What every LMS's grade-import writer shares: the rows it may write, the score's form, the CSV text.

A writer (lms/<name>.py) takes (standings, assignment, max_score) and returns the CSV text, one row per
standing, but for the students held back, whose hand-in time needs a decision (held_back names them),
and the rows its LMS cannot match (the writer's left_out function names those). The score is `final`, at
most 2 decimals, "." as the decimal separator. Write the text as UTF-8 without a byte-order mark: Canvas
reads UTF-8, Moodle asks for the encoding (UTF-8 is its default) and drops a mark anyway, and a mark would
stick to Canvas's first header. Rows end in "\\n", so `Path.write_text` is safe on every system.
"""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import datetime
from typing import Protocol

from graders.frontends.grade.person import Person
from graders.frontends.grade.spreadsheet import guarded_writer

DUPLICATE_STUDENT = "student {student!r} has {count} standings: an export has one row per student"
NOT_A_SCORE = "student {student!r}: final score {score!r} is not a number an LMS can import"
NOT_AN_ID = "{what} {value!r} is not a number: {hint}"
NUMBER = re.compile(r"[0-9]+")  # ASCII only: str.isdigit() also takes "²"


class LmsExportError(ValueError):
    """Standings that cannot be written in an LMS's format; the message says which and what to do."""


class Graded(Protocol):
    """What a writer reads of a student's standing (term/standing.py's Standing)."""

    student: str
    person: Person | None
    handed_in: bool
    final: float
    excused: bool
    submitted_at: datetime | None
    notes: list[str]
    needs_decision: str

    @property
    def name(self) -> str: ...


def held_back(standings: list[Graded]) -> list[str]:
    """The students no writer exports: their lateness waits for the instructor's decision (their hand-in time is
    unknown or impossible), so an import leaves their grade in the LMS as it is until the ledger decides."""
    return [s.student for s in standings if s.needs_decision]


def rows_to_write(standings: list[Graded]) -> list[Graded]:
    """The standings to write: each student once, and none held back."""
    counts: dict[str, int] = {}
    for standing in standings:
        counts[standing.student] = counts.get(standing.student, 0) + 1
    for student, count in counts.items():
        if count > 1:
            raise LmsExportError(DUPLICATE_STUDENT.format(student=student, count=count))
    return [s for s in standings if not s.needs_decision]


def format_score(value: float) -> str:
    """A score with at most 2 decimals and no trailing zeros: 7.5, not 7.500000; 7, not 7.0."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def final_score(standing: Graded) -> str:
    """The standing's final score as an import reads it; LmsExportError where it is no number."""
    if not math.isfinite(standing.final):
        raise LmsExportError(NOT_A_SCORE.format(student=standing.student, score=standing.final))
    return format_score(standing.final)


def check_digits(value: str, what: str, hint: str) -> None:
    """LmsExportError unless `value` is an LMS's numeric id (ASCII digits)."""
    if not NUMBER.fullmatch(value):
        raise LmsExportError(NOT_AN_ID.format(what=what, value=value, hint=hint))


def csv_text(rows: list[list[str]], quoting: int = csv.QUOTE_MINIMAL) -> str:
    """The rows as CSV text, every cell guarded against spreadsheet formulas."""
    out = io.StringIO()
    guarded_writer(out, quoting=quoting, lineterminator="\n").writerows(rows)
    return out.getvalue()
