"""The class roster, read from a plain CSV or from an LMS's own export as it was downloaded.

Headers match whatever their case and surrounding spaces. The first layout that fits is used: each
LMS's roster exports, in the registry's order (lms/<name>.py says which columns each holds and which
gives the ids), then a plain CSV: id (required), name, email, sis_id, login, section, in any order.
Canvas writes ";" and a byte-order mark when the user's export settings ask for them (CSVWithI18n),
hence the sniffing below.

`id_column` names the column to take ids from instead, in any layout.
Files are UTF-8 (with or without Excel's byte-order mark) or UTF-16 with its mark; the delimiter
is the one of `,` `;` tab that splits the header row into the most columns.
"""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

from graders.frontends.grade import lms
from graders.frontends.grade.lms.platform import RosterLayout
from graders.frontends.grade.person import Person

PLAIN = "a plain roster with an 'id' column (and any of name, email, sis_id, login, section)"
NOT_TEXT = "{file}: not UTF-8 text ({reason}). Save it as 'CSV UTF-8' and pass it again"
NO_HEADER = "{file}: empty: a roster's first line names its columns. Accepted: {accepted}"
NO_ID_COLUMN = "{file}: no id column. Columns found: {found}. Accepted: {accepted}"
NO_SUCH_COLUMN = "{file}: no column {column!r} to take ids from. Columns found: {found}"
EMPTY_ID = ("{file}, line {line}: no id in column {column!r}. "
            "Fill it in, or delete the line if it is not a student")
DUPLICATE_ID = ("{file}, lines {first} and {second}: both have id {id!r}. "
                "A student is listed once: delete one of the lines")

# A plain roster's Person field -> its header; each LMS's roster layout adds its own headers after these.
_PLAIN_FIELDS = {"name": ("name",), "email": ("email",), "sis_id": ("sis_id",), "login": ("login",),
                 "section": ("section",)}
_FIRST_NAMES, _LAST_NAMES = ("first name", "firstname"), ("last name", "lastname", "surname")
_PLAIN = RosterLayout("plain CSV", PLAIN, fits=lambda columns: "id" in columns, id_columns=("id",),
                      fields=_PLAIN_FIELDS)


class RosterError(ValueError):
    """A roster that cannot be read; the message names the file, the line and what to do."""


def read_roster(path: Path, id_column: str | None = None) -> dict[str, Person]:
    """The roster's students by Person.id, in the file's order."""
    header, rows = _rows(path)
    columns = {name.strip().casefold(): i for i, name in reversed(list(enumerate(header)))}
    layout = next((found for found in [*lms.roster_layouts(), _PLAIN] if found.fits(columns)), None)
    if layout is not None:
        rows = [(line, cells) for line, cells in rows if not layout.not_a_student(cells, columns)]
    key = _id_key(path, header, columns, layout, rows, id_column)
    fields = _fields()
    roster: dict[str, Person] = {}
    first_line: dict[str, int] = {}
    for line, cells in rows:
        student = _cell(cells, columns[key])
        if not student:
            raise RosterError(EMPTY_ID.format(file=path, line=line, column=header[columns[key]].strip()))
        if layout is not None and key in layout.id_columns:
            found = layout.id_in_cell(student)
            if found is None:
                raise RosterError(layout.no_id.format(file=path, line=line, value=student))
            student = found
        if student in roster:
            raise RosterError(DUPLICATE_ID.format(file=path, first=first_line[student], second=line, id=student))
        first_line[student] = line
        roster[student] = _person(student, cells, columns, fields)
    return roster


def accepted() -> str:
    """The rosters that can be read, for the messages: a plain CSV, then every LMS's exports."""
    return "; ".join([PLAIN, *(layout.accepted for layout in lms.roster_layouts())])


def _fields() -> dict[str, tuple[str, ...]]:
    """Person field -> every header that fills it: a plain roster's first, then each LMS's in the registry's order."""
    fields = {name: list(headers) for name, headers in _PLAIN_FIELDS.items()}
    for layout in lms.roster_layouts():
        for name, headers in layout.fields.items():
            fields.setdefault(name, [])
            fields[name] += [h for h in headers if h not in fields[name]]
    return {name: tuple(headers) for name, headers in fields.items()}


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
        raise RosterError(NO_HEADER.format(file=path, accepted=accepted()))
    # The header decides: a name with a comma in a ";" file cannot fool it, as names are not in it.
    delimiter = max((",", ";", "\t"), key=lambda d: len(next(csv.reader([first], delimiter=d))))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        rows = [(reader.line_num, [cell.strip() for cell in cells]) for cells in reader]
    except csv.Error as error:
        raise RosterError(f"{path} line {reader.line_num}: not CSV a roster can be read from ({error})") from None
    rows = [(line, cells) for line, cells in rows if any(cells)]
    return rows[0][1], rows[1:]


def _id_key(path: Path, header: list[str], columns: dict[str, int], layout: RosterLayout | None,
            rows: list[tuple[int, list[str]]], id_column: str | None) -> str:
    """The (casefolded) header of the column ids are taken from."""
    found = ", ".join(repr(name) for name in header)
    if id_column is not None:
        if id_column.strip().casefold() not in columns:
            raise RosterError(NO_SUCH_COLUMN.format(file=path, column=id_column, found=found))
        return id_column.strip().casefold()
    candidates = tuple(c for c in layout.id_columns if c in columns) if layout is not None else ()
    if not candidates:
        raise RosterError(NO_ID_COLUMN.format(file=path, found=found, accepted=accepted()))
    if len(layout.id_columns) == 1:
        return candidates[0]
    return _complete_column(path, header, columns, candidates, rows, layout.no_complete_id)


def _complete_column(path: Path, header: list[str], columns: dict[str, int], candidates: tuple[str, ...],
                     rows: list[tuple[int, list[str]]], no_complete_id: str) -> str:
    """The first candidate column every row fills in."""
    gaps = []
    for candidate in candidates:
        empty = [line for line, cells in rows if not _cell(cells, columns[candidate])]
        if not empty:
            return candidate
        gaps.append(f"{header[columns[candidate]].strip()!r} is empty on line {empty[0]}")
    names = ", ".join(repr(header[columns[c]].strip()) for c in candidates)
    raise RosterError(no_complete_id.format(file=path, columns=names, gaps="; ".join(gaps)))


def _person(student: str, cells: list[str], columns: dict[str, int], fields: dict[str, tuple[str, ...]]) -> Person:
    values = {}
    for field, headers in fields.items():
        present = [columns[h] for h in headers if h in columns]
        values[field] = _cell(cells, present[0]) if present else ""
    if not values["name"]:
        parts = [next((_cell(cells, columns[h]) for h in names if h in columns), "")
                 for names in (_FIRST_NAMES, _LAST_NAMES)]
        values["name"] = " ".join(part for part in parts if part)
    return Person(id=student, **values)


def _cell(cells: list[str], index: int) -> str:
    return cells[index] if index < len(cells) else ""
