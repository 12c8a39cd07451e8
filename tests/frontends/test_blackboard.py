"""Blackboard (graders/frontends/grade/lms/blackboard.py): its grade upload read back by a parser that holds it to
Blackboard's documented rules."""

from __future__ import annotations

import re

from graders.frontends.grade.lms.blackboard import blackboard_csv
from lms_rows import CLASS, SCORE, as_floats, csv_rows, finals, one_per_student, standing_of


def parse_blackboard(text: str, column: str) -> dict[str, str]:
    """Blackboard's upload: every value in quotes, Username and the column, one row per username."""
    quoted = re.compile(r'"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*')
    for line in text.splitlines():
        assert quoted.fullmatch(line), f"Blackboard needs every value of a .csv in quotes: {line}"
    rows = csv_rows(text)
    assert rows[0] == ["Username", column], rows[0]
    one_per_student(rows[1:], key=0, width=2)
    for row in rows[1:]:
        assert SCORE.fullmatch(row[1]) or row[1] == "", f"Blackboard would not read {row[1]!r} as a score"
    return {row[0]: row[1] for row in rows[1:]}


def test_blackboard_export_reads_back_as_each_students_final():
    text = blackboard_csv(CLASS, "Lab 1", 10.0, column_id="1702852")
    grades = parse_blackboard(text, "Lab 1 [Total Pts: 10 Score] |1702852")
    assert as_floats(grades) == finals(CLASS)


def test_blackboard_column_without_an_id_is_new_and_excused_cells_are_empty():
    grades = parse_blackboard(blackboard_csv([standing_of("alice", 1.0, excused=True)], "Lab 1", 10.0), "Lab 1")
    assert grades == {"alice": ""}
