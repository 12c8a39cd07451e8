"""What one LMS is to the batch: how its download is laid out, how its roster export reads, how its grades go back.

An LMS module (lms/moodle.py, lms/canvas.py, ...) builds one `Lms` of these three parts; lms/__init__.py
keeps them in one ordered registry, which intake, the term and the outputs read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import tzinfo

from graders.frontends.grade.lms.download import Layout, ListedFile
from graders.frontends.grade.lms.grade_import import Graded


def _every_cell_a_student(cells: list[str], columns: Mapping[str, int]) -> bool:
    return False


def _the_cell(cell: str) -> str | None:
    return cell


@dataclass(frozen=True)
class RosterLayout:
    """One roster file an LMS exports, told by its headers (casefolded, spaces trimmed)."""

    name: str  # "Canvas gradebook export"
    accepted: str  # the layout in a few words, for the message listing what a roster may be
    fits: Callable[[Mapping[str, int]], bool]  # these headers (-> column index) are this layout's
    # The columns ids may be taken from, in order: the first one every row fills in is used.
    id_columns: tuple[str, ...]
    # The student's id in an id cell (Moodle's "Participant 12345" gives "12345"); None: no id, said by `no_id`.
    id_in_cell: Callable[[str], str | None] = _the_cell
    no_id: str = ""  # "{file}, line {line}: ... {value!r} ...": an id cell `id_in_cell` finds no id in
    no_complete_id: str = ""  # "{file}: ... {columns} ... {gaps}": no candidate column is filled on every row
    # A row the LMS adds that is no student (Canvas's Points Possible row): skipped.
    not_a_student: Callable[[list[str], Mapping[str, int]], bool] = _every_cell_a_student
    # Person field -> this layout's headers for it (casefolded), the first present wins.
    fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class GradeImport:
    """One file the LMS's grade import reads, written into the batch's lms/ folder."""

    file: str  # its name in lms/: "canvas.csv"
    # (standings, assignment, max_score, term settings) -> the file's text. The term settings are the term file's
    # keys an LMS may need (canvas_assignment_id), None where the term gives none.
    write: Callable[[list[Graded], str, float, Mapping[str, str | None]], str]
    # The graded students this file leaves out (those held back aside: outputs says them once), and why.
    left_out: Callable[[list[Graded]], list[str]] | None = None
    why_left_out: str = ""
    # Said when a roster was given and the file holds no one: "{students}" is the count of students exported.
    when_empty_with_roster: str = ""


@dataclass(frozen=True)
class Lms:
    """An LMS: its download layout, its roster exports and its grade imports."""

    name: str  # "Canvas"
    # The class download as this LMS lays it out, or None when any answer-like file does not fit it. The zone is
    # the one the download was unzipped in (file times of an unzipped folder), None for this machine's.
    download: Callable[[list[ListedFile], tzinfo | None], Layout | None] | None = None
    rosters: tuple[RosterLayout, ...] = ()
    grade_imports: tuple[GradeImport, ...] = ()
