"""Canvas: its assignment download, its gradebook export as a roster, and its gradebook import.

Download: `<name>_<user id>_<file id>_<the student's file name>`, flat; `<name>_LATE_...` when late,
`anon_<id>_...` under anonymous grading. The id is the Canvas user id. The latest of several hand-ins
is told by the file id (Canvas numbers files in the order they were uploaded).

Roster, the gradebook export: Student (or LastName, FirstName), ID, SIS User ID, SIS Login ID, Section,
then one column per assignment. id = ID, the Canvas user id a Canvas download names files by. Not
students, so skipped: the "    Points Possible" row, and the row Canvas adds when an assignment is posted
manually or muted, whose cells are empty, "Manual Posting..." or "Muted" (canvas-lms
lib/gradebook_exporter.rb, and the same rules in lib/gradebook_importer.rb check_for_non_student_row).

Grades, gradebook Import (canvas-lms lib/gradebook_importer.rb; lib/gradebook_exporter.rb writes the
same layout): the header is Student, ID, SIS User ID, SIS Login ID, Section, then an assignment column
"<name> (<assignment id>)" (Assignment#title_with_id). A header without " (<id>)" is matched to the
assignment of exactly that title, else Canvas creates a new assignment of that title (a name that
itself ends in " (<digits>)" is read as title and id, so a new one would lose that end). Students are
matched by ID (the Canvas user id), then SIS User ID, SIS Login ID, then name. A row whose first cell
holds "Points Possible" gives the points; "EX" is excused; "" and "-" are no score.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import tzinfo

from graders.frontends.grade.lms.download import HandIn, Layout, ListedFile, relevant, wall_clock
from graders.frontends.grade.lms.grade_import import Graded, check_digits, csv_text, final_score, format_score, \
    rows_to_write
from graders.frontends.grade.lms.platform import GradeImport, Lms, RosterLayout
from graders.frontends.grade.spreadsheet import text_cell

# Canvas's own names cannot hold `_<digits>_` (it strips them from user names), so the first
# `_<user id>_<file id>_` is Canvas's, whatever digits the student's file name holds.
_CANVAS = re.compile(r"^(?P<name>.*?)_(?:LATE_)?(?P<id>\d+)_(?P<file>\d+)_(?P<original>.+)$", re.DOTALL)
_CANVAS_ANONYMOUS = re.compile(r"^(?:LATE_)?(?P<id>anon_[A-Za-z0-9]+)_(?P<file>\d+)_(?P<original>.+)$", re.DOTALL)
HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "    Points Possible"  # as Canvas's own export writes it
EXCUSED = "EX"
_HIDDEN_ROW = re.compile(r"^\s*(muted|manual posting.*)?\s*$", re.IGNORECASE)


def download(entries: list[ListedFile], unzipped_in: tzinfo | None) -> Layout | None:
    """A Canvas assignment download, or None."""
    layout = Layout("Canvas download", "Canvas's file id (Canvas numbers files in the order they were uploaded)",
                    clock="Canvas's time for the file", file_times=True)
    for entry in entries:
        match = _CANVAS_ANONYMOUS.match(entry.path.name) or _CANVAS.match(entry.path.name)
        if match is None or len(entry.path.parts) > 1 or entry.folder:
            if relevant(entry):
                return None
            continue
        hand_ins = layout.students.setdefault(match["id"], [])
        if relevant(entry):
            hand_ins.append(HandIn(entry, match["original"], (int(match["file"]),), f"Canvas file {match['file']}",
                                   wall_clock(entry.mtime, unzipped_in)))
    return layout if layout.students else None


def _not_a_student(cells: list[str], columns: Mapping[str, int]) -> bool:
    """Canvas's Points Possible row, or its row for manually posted (muted) assignments."""
    if cells and "Points Possible" in cells[0]:
        return True
    student = columns["id"]
    return not (cells[student] if student < len(cells) else "") and all(_HIDDEN_ROW.match(cell) for cell in cells)


GRADEBOOK_EXPORT = RosterLayout(
    "Canvas gradebook export", "Canvas's gradebook export (Student, ID, SIS User ID, SIS Login ID, Section)",
    fits=lambda columns: "id" in columns and ("student" in columns or {"lastname", "firstname"} <= columns.keys()),
    id_columns=("id",), not_a_student=_not_a_student,
    fields={"name": ("student",), "sis_id": ("sis user id",), "login": ("sis login id",), "section": ("section",)})


def canvas_csv(standings: list[Graded], assignment: str, max_score: float,
               canvas_assignment_id: str | None = None) -> str:
    """Canvas's gradebook import CSV: one assignment column, its Points Possible row, "EX" for excused."""
    if canvas_assignment_id is not None:
        check_digits(canvas_assignment_id, "canvas_assignment_id",
                     "take it from the assignment's URL, /assignments/<id>")
        column = f"{assignment} ({canvas_assignment_id})"
    else:
        column = assignment
    rows = [HEADER + [column], [POINTS_POSSIBLE, "", "", "", "", format_score(max_score)]]
    for standing in rows_to_write(standings):
        person = standing.person
        grade = EXCUSED if standing.excused else final_score(standing)
        rows.append([*map(text_cell, (standing.name, standing.student, person.sis_id if person else "",
                                      person.login if person else "", person.section if person else "")), grade])
    return csv_text(rows)


def _gradebook(standings: list[Graded], assignment: str, max_score: float, term: Mapping[str, str | None]) -> str:
    return canvas_csv(standings, assignment, max_score, canvas_assignment_id=term.get("canvas_assignment_id"))


LMS = Lms("Canvas", download=download, rosters=(GRADEBOOK_EXPORT,),
          grade_imports=(GradeImport("canvas.csv", _gradebook),))
