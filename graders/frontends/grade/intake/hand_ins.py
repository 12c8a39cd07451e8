"""Which of a student's hand-ins is graded, and hand-ins found by the --student-pattern when no LMS's layout fits.

Several hand-ins for one student are all reported, and the latest by the layout's own clock is graded
(lms/<name>.py says what each LMS's clock is; a file's modification time where the names carry no LMS
time). A tie is said as a tie, with the file picked and why.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from graders.frontends.grade.intake.handed_in import Entry, problem
from graders.frontends.grade.lms.download import HandIn, Layout, by_file_time

# Said to the instructor, in the problems grades.csv and the report list; a student's page leaves it out.
TO_GRADE_ANOTHER = "To grade another one, remove the others and grade again"


def by_pattern(entries: list[Entry], pattern: re.Pattern) -> Layout:
    """Notebooks anywhere, each student's id found in the file name by `pattern` (group 'student')."""
    layout = Layout("notebooks", "file modification time (these file names carry no LMS time)")
    for entry in entries:
        if entry.folder or entry.path.suffix != ".ipynb":
            continue
        match = pattern.search(entry.path.name)
        if match and match.group("student"):
            layout.students.setdefault(match.group("student"), []).append(by_file_time(entry, entry.path.name))
        else:
            layout.unnamed.append(entry)
    return layout


def choose(hand_ins: list[HandIn], limit: int, rule: str, preferred: str) -> tuple[HandIn | None, list[str]]:
    """The hand-in to grade, and the sentences for the student's problems: one per file that is
    not read, and, when several could be graded, one naming them all, which was graded and why."""
    problems = [problem(h.entry.path, h.entry.unreadable(limit)) for h in hand_ins if h.entry.unreadable(limit)]
    readable = [h for h in hand_ins if not h.entry.unreadable(limit)]
    if not readable:
        return None, problems
    latest = max(h.order for h in readable)
    tied = [h for h in readable if h.order == latest]
    chosen = min(tied, key=lambda h: (base_name(h) != preferred, str(h.entry.path)))
    if len(readable) > 1:
        listing = "; ".join(f"{h.entry.path} ({h.when})" for h in sorted(readable, key=lambda h: (h.order, h.name)))
        if len(tied) == 1:
            why = f"the latest by {rule}"
        else:
            tie_break = f"it is named {preferred}" if base_name(chosen) == preferred else "it comes first by name"
            why = f"{len(tied)} of them tie as the latest by {rule}, and {tie_break}: check it is the one meant"
        problems.append(f"{len(readable)} hand-ins for this student: {listing}. Graded {chosen.entry.path}, {why}. "
                        f"{TO_GRADE_ANOTHER}")
    return chosen, problems


def for_students(problem: str) -> str:
    """A hand-in's problem as its student reads it: without what only the instructor can do about it."""
    return problem.replace(f" {TO_GRADE_ANOTHER}", "").replace(TO_GRADE_ANOTHER, "").rstrip()


def base_name(hand_in: HandIn) -> str:
    """The student's own file name without its folders: what `<slug>.py` and `<lesson>.ipynb` are matched on."""
    return PurePosixPath(hand_in.name).name
