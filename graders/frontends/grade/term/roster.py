"""The class roster, read from a plain CSV or from the LMS's own export as it was downloaded.

Headers match whatever their case and surrounding spaces. The first layout that fits is used:

    Moodle grading worksheet   Identifier ("Participant 12345"), Full name, Email address, ...
        id = the participant number: the number a Moodle assignment download puts in its folder
        names (Moodle numbers both with assign's get_uniqueid_for_user: mod/assign/gradingtable.php
        col_recordid, mod/assign/locallib.php download_submissions; "Participant " and
        "Identifier" are the strings 'hiddenuser' and 'recordid' of mod/assign/lang/en/assign.php).
    Canvas gradebook export    Student (or LastName, FirstName), ID, SIS User ID, SIS Login ID,
        Section, then one column per assignment. id = ID, the Canvas user id a Canvas download
        names files by. Not students, so skipped: the "    Points Possible" row, and the row Canvas
        adds when an assignment is posted manually or muted, whose cells are empty, "Manual
        Posting..." or "Muted" (canvas-lms lib/gradebook_exporter.rb, and the same rules in
        lib/gradebook_importer.rb check_for_non_student_row). Canvas writes ";" and a byte-order
        mark when the user's export settings ask for them (CSVWithI18n), hence the sniffing below.
    plain CSV                  id (required), name, email, sis_id, login, section, in any order.
    Moodle grades or participants export   First name, Last name (Surname in older Moodle) or
        Full name, ID number, Email address, Username (Moodle's English labels). These name no
        participant number, so their ids cannot match a Moodle assignment download: id = the first
        of ID number, Username, Email address that every row fills in (for sources named by those,
        e.g. --student-pattern). Give the worksheet to match a Moodle download.

`id_column` names the column to take ids from instead, in any layout.
Files are UTF-8 (with or without Excel's byte-order mark) or UTF-16 with its mark; the delimiter
is the one of `,` `;` tab that splits the header row into the most columns.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from pathlib import Path

from graders.frontends.grade.term.standing import Person

ACCEPTED = ("a plain roster with an 'id' column (and any of name, email, sis_id, login, section); "
            "Canvas's gradebook export (Student, ID, SIS User ID, SIS Login ID, Section); "
            "Moodle's grading worksheet (Identifier, Full name, Email address); "
            "Moodle's grades or participants export (ID number, Username or Email address)")
NOT_TEXT = "{file}: not UTF-8 text ({reason}). Save it as 'CSV UTF-8' and pass it again"
NO_HEADER = "{file}: empty: a roster's first line names its columns. Accepted: " + ACCEPTED
NO_ID_COLUMN = "{file}: no id column. Columns found: {found}. Accepted: " + ACCEPTED
NO_SUCH_COLUMN = "{file}: no column {column!r} to take ids from. Columns found: {found}"
EMPTY_ID = ("{file}, line {line}: no id in column {column!r}. "
            "Fill it in, or delete the line if it is not a student")
DUPLICATE_ID = ("{file}, lines {first} and {second}: both have id {id!r}. "
                "A student is listed once: delete one of the lines")
NO_PARTICIPANT = ("{file}, line {line}: Identifier {value!r} holds no participant number (Moodle writes "
                  "'Participant 12345'). Download the grading worksheet again, or correct the line")
NO_COMPLETE_ID = ("{file}: none of the columns {columns} is filled in on every line ({gaps}). This file "
                  "names no Moodle participant number: give the assignment's grading worksheet instead, "
                  "or fill the gaps")

# Person field -> the headers (casefolded) that fill it, across the layouts; the first present wins.
_FIELDS = {
    "name": ("name", "student", "full name"),
    "email": ("email", "email address"),
    "sis_id": ("sis_id", "sis user id", "id number"),
    "login": ("login", "sis login id", "username"),
    "section": ("section",),
}
_FIRST_NAMES, _LAST_NAMES = ("first name", "firstname"), ("last name", "lastname", "surname")
_MOODLE_IDS = ("id number", "username", "email address")
_CANVAS_HIDDEN_ROW = re.compile(r"^\s*(muted|manual posting.*)?\s*$", re.IGNORECASE)
_PARTICIPANT = re.compile(r"([0-9]+)\s*$")


class RosterError(ValueError):
    """A roster that cannot be read; the message names the file, the line and what to do."""


def read_roster(path: Path, id_column: str | None = None) -> dict[str, Person]:
    """The roster's students by Person.id, in the file's order."""
    header, rows = _rows(path)
    columns = {name.strip().casefold(): i for i, name in reversed(list(enumerate(header)))}
    layout = _layout(columns)
    if layout == "Canvas":
        rows = [(line, cells) for line, cells in rows if not _canvas_extra(cells, columns["id"])]
    key = _id_key(path, header, columns, layout, rows, id_column)
    roster: dict[str, Person] = {}
    first_line: dict[str, int] = {}
    for line, cells in rows:
        student = _cell(cells, columns[key])
        if not student:
            raise RosterError(EMPTY_ID.format(file=path, line=line, column=header[columns[key]].strip()))
        if key == "identifier":
            number = _PARTICIPANT.search(student)
            if number is None:
                raise RosterError(NO_PARTICIPANT.format(file=path, line=line, value=student))
            student = number.group(1)
        if student in roster:
            raise RosterError(DUPLICATE_ID.format(file=path, first=first_line[student], second=line, id=student))
        first_line[student] = line
        roster[student] = _person(student, cells, columns)
    return roster


def _rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the non-blank rows, each with the line it ends on."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise RosterError(f"{path}: cannot read the roster ({error.strerror or error}); give the CSV file the LMS "
                          f"exported") from None
    try:
        # UTF-16 only with its mark (Blackboard's downloads); utf-8-sig drops Excel's mark.
        utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        text = data.decode("utf-16" if utf16 else "utf-8-sig")
    except UnicodeDecodeError as error:
        raise RosterError(NOT_TEXT.format(file=path, reason=error)) from None
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        raise RosterError(NO_HEADER.format(file=path))
    # The header decides: a name with a comma in a ";" file cannot fool it, as names are not in it.
    delimiter = max((",", ";", "\t"), key=lambda d: len(next(csv.reader([first], delimiter=d))))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        rows = [(reader.line_num, [cell.strip() for cell in cells]) for cells in reader]
    except csv.Error as error:
        raise RosterError(f"{path} line {reader.line_num}: not CSV a roster can be read from ({error})") from None
    rows = [(line, cells) for line, cells in rows if any(cells)]
    return rows[0][1], rows[1:]


def _layout(columns: dict[str, int]) -> str:
    if "identifier" in columns:
        return "Moodle worksheet"
    if "id" in columns and ("student" in columns or {"lastname", "firstname"} <= columns.keys()):
        return "Canvas"
    if "id" in columns:
        return "plain"
    return "Moodle export"


def _id_key(path: Path, header: list[str], columns: dict[str, int], layout: str,
            rows: list[tuple[int, list[str]]], id_column: str | None) -> str:
    """The (casefolded) header of the column ids are taken from."""
    found = ", ".join(repr(name) for name in header)
    if id_column is not None:
        if id_column.strip().casefold() not in columns:
            raise RosterError(NO_SUCH_COLUMN.format(file=path, column=id_column, found=found))
        return id_column.strip().casefold()
    if layout == "Moodle worksheet":
        return "identifier"
    if layout in ("Canvas", "plain"):
        return "id"
    candidates = tuple(c for c in _MOODLE_IDS if c in columns)
    if not candidates:
        raise RosterError(NO_ID_COLUMN.format(file=path, found=found))
    return _complete_column(path, header, columns, candidates, rows)


def _canvas_extra(cells: list[str], id_index: int) -> bool:
    """Canvas's Points Possible row, or its row for manually posted (muted) assignments."""
    if cells and "Points Possible" in cells[0]:
        return True
    return not _cell(cells, id_index) and all(_CANVAS_HIDDEN_ROW.match(cell) for cell in cells)


def _complete_column(path: Path, header: list[str], columns: dict[str, int], candidates: tuple[str, ...],
                     rows: list[tuple[int, list[str]]]) -> str:
    """The first candidate column every row fills in."""
    gaps = []
    for candidate in candidates:
        empty = [line for line, cells in rows if not _cell(cells, columns[candidate])]
        if not empty:
            return candidate
        gaps.append(f"{header[columns[candidate]].strip()!r} is empty on line {empty[0]}")
    names = ", ".join(repr(header[columns[c]].strip()) for c in candidates)
    raise RosterError(NO_COMPLETE_ID.format(file=path, columns=names, gaps="; ".join(gaps)))


def _person(student: str, cells: list[str], columns: dict[str, int]) -> Person:
    values = {}
    for field, headers in _FIELDS.items():
        present = [columns[h] for h in headers if h in columns]
        values[field] = _cell(cells, present[0]) if present else ""
    if not values["name"]:
        parts = [next((_cell(cells, columns[h]) for h in names if h in columns), "")
                 for names in (_FIRST_NAMES, _LAST_NAMES)]
        values["name"] = " ".join(part for part in parts if part)
    return Person(id=student, **values)


def _cell(cells: list[str], index: int) -> str:
    return cells[index] if index < len(cells) else ""
