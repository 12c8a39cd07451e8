"""A small class and the CSV reading shared by the LMS modules' tests (test_canvas.py, test_moodle.py,
test_blackboard.py, test_grade_import.py, test_roster.py): what each LMS's import reads back is held to that
LMS's documented rules there (see the docstrings of graders/frontends/grade/lms/moodle.py, canvas.py,
blackboard.py and term/roster.py for the sources)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from graders.frontends.grade.term.roster import RosterError, read_roster
from graders.frontends.grade.term.standing import Person, Standing

ALICE = Person("101", "Liddell, Alice", "alice@example.org", "S101", "alice", "Section 1")
BOB = Person("102", "Builder, Bob", "bob@example.org", "S102", "bob", "Section 2")
# A score as the formats take it: "." for decimals, at most two of them, no trailing zeros.
SCORE = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]?[1-9])?")


def standing_of(student: str, final: float, person: Person | None = None, *, excused: bool = False,
             handed_in: bool = True, notes: tuple[str, ...] = ()) -> Standing:
    return Standing(student=student, person=person, handed_in=handed_in, raw=final, max_score=10.0,
                    final=final, excused=excused, notes=list(notes))


CLASS = [standing_of("101", 7.5, ALICE, notes=("Late by 1 day: 10% taken off",)),
         standing_of("102", 10.0, BOB),
         standing_of("103", 0.0, handed_in=False)]  # handed in, but not on the roster

# A Canvas gradebook export as downloaded: read as a roster by canvas.py's layout and by term/roster.py.
CANVAS_EXPORT = ('Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (4567),Current Score\n'
                 ',,,,,Manual Posting,\n'
                 '    Points Possible,,,,,10,(read only)\n'
                 '"Liddell, Alice",101,S101,alice,Section 1,7.5,75\n'
                 '"Builder, Bob",102,S102,bob,Section 2,,0\n')


def csv_rows(text: str) -> list[list[str]]:
    assert not text.startswith("\ufeff"), "every LMS here reads UTF-8 without a byte-order mark"
    return list(csv.reader(io.StringIO(text, newline="")))


def one_per_student(table: list[list[str]], key: int, width: int) -> None:
    seen = set()
    for row in table:
        assert len(row) == width, f"row {row} has {len(row)} cells, the header {width}"
        assert row[key], f"row {row} has no student key"
        assert row[key] not in seen, f"{row[key]} has two rows"
        seen.add(row[key])


def finals(standings: list[Standing]) -> dict[str, float]:
    return {s.student: s.final for s in standings}


def as_floats(grades: dict[str, str]) -> dict[str, float]:
    return {student: float(grade) for student, grade in grades.items()}


def roster_file(tmp_path: Path, text: str, name: str = "roster.csv", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def roster_error(path: Path, **kwargs: str) -> str:
    """What read_roster refuses the file with."""
    with pytest.raises(RosterError) as error:
        read_roster(path, **kwargs)
    return str(error.value)
