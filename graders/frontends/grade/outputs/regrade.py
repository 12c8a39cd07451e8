"""What a regrade changes, before anything is published: `python -m graders grade ... --out NEW --compare OLD`.

After a check is fixed, the class is graded again into a new folder; this compares the new stored
results with the old folder's, student by student and check by check, and writes

    NEW/changes.csv    student, exercise, check, before, after, change, passed_before, passed_after,
                       message_before, message_after   (one row per check whose score or verdict moved,
                       and one per student who appears or disappears)
    NEW/changes.html   the same, grouped by student, with the two messages side by side

The old folder is only read. Nothing is sent anywhere: the instructor reads the changes, then publishes
NEW's outputs (uploads its LMS file) or keeps OLD's.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from graders.engine.results import CheckResult
from graders.frontends.wording import counted
from graders.frontends.grade.spreadsheet import guarded_writer, text_cell
from graders.frontends.grade.outputs.html_page import escape, page
from graders.frontends.grade.store import StudentRecord


@dataclass(frozen=True)
class Change:
    """One check whose result moved between two gradings of one student (check "" : the whole student)."""

    student: str
    exercise: str
    check: str
    before: float | None  # None: not graded before (a new student, a new check)
    after: float | None  # None: not graded now
    passed_before: bool | None
    passed_after: bool | None
    message_before: str
    message_after: str

    @property
    def change(self) -> float:
        return (self.after or 0.0) - (self.before or 0.0)


def changes(before: list[StudentRecord], after: list[StudentRecord]) -> list[Change]:
    """Every check whose score or verdict differs, and every student graded in only one of the two runs."""
    old = {r.student: r for r in before}
    new = {r.student: r for r in after}
    found = []
    for student in sorted(old.keys() | new.keys()):
        if student not in new or student not in old:
            was, now = old.get(student), new.get(student)
            found.append(Change(student, "", "", was.score if was else None, now.score if now else None, None, None,
                                "" if was else "not graded before", "" if now else "not graded now"))
            continue
        checks_before, checks_after = _checks(old[student]), _checks(new[student])
        for key in sorted(checks_before.keys() | checks_after.keys()):
            was, now = checks_before.get(key), checks_after.get(key)
            if was and now and was.score == now.score and was.passed == now.passed:
                continue
            found.append(Change(student, key[0], key[1], was.score if was else None, now.score if now else None,
                                was.passed if was else None, now.passed if now else None,
                                was.message if was else "no such check before",
                                now.message if now else "no such check now"))
    return found


def _checks(record: StudentRecord) -> dict[tuple[str, str], CheckResult]:
    """A record's checks by (exercise, check)."""
    return {(exercise.slug, check.id): check for exercise, check in record.checks()}


def totals(before: list[StudentRecord], after: list[StudentRecord]) -> dict[str, tuple[float, float]]:
    """Each student whose total moved: (before, after)."""
    old = {r.student: r.score for r in before}
    new = {r.student: r.score for r in after}
    return {s: (old.get(s, 0.0), new.get(s, 0.0)) for s in sorted(old.keys() | new.keys())
            if old.get(s) != new.get(s)}


def changes_csv(found: list[Change]) -> str:
    buffer = io.StringIO()
    writer = guarded_writer(buffer, lineterminator="\n")  # messages too: any cell may start like a formula
    writer.writerow(["student", "exercise", "check", "before", "after", "change", "passed_before", "passed_after",
                     "message_before", "message_after"])
    for c in found:
        writer.writerow([text_cell(c.student), c.exercise, c.check, _points(c.before), _points(c.after),
                         f"{c.change:+g}",
                         _verdict(c.passed_before), _verdict(c.passed_after), c.message_before, c.message_after])
    return buffer.getvalue()


def published(folder: Path) -> dict[str, str]:
    """Each student's final score in an output folder's grades.csv (after the term), as written there."""
    try:
        with open(folder / "grades.csv", newline="", encoding="utf-8") as handle:
            return {_plain(row.get("student", "")): row.get("score", "") for row in csv.DictReader(handle)}
    except (OSError, csv.Error, UnicodeDecodeError):
        return {}


def _plain(cell: str) -> str:
    """A cell as the student's id: without the quote text_cell puts before a formula-like one."""
    return cell[1:] if cell[:1] == "'" else cell


def changes_html(found: list[Change], moved: dict[str, tuple[float, float]], compared_with: str,
                 finals: tuple[dict[str, str], dict[str, str]] = ({}, {})) -> str:
    """The page: the students whose score moves (the checks' total, and the final grade the term makes of it
    where both runs wrote one), then each check that moved, its two messages side by side."""
    before, after = finals
    regraded = sorted(s for s in before.keys() & after.keys() if before[s] != after[s])
    parts = [f"<h1>What this regrade changes</h1><p>Compared with {escape(compared_with)}: "
             f"{counted(len(moved), 'student')} with a new total from the checks, "
             f"{counted(len(regraded), 'student')} with a new final grade (after the term's penalties and "
             f"overrides: an override keeps a grade whatever the checks say); "
             f"{counted(len(found), 'check result')} moved. Nothing has been published: "
             f"publish this folder's outputs, or keep the earlier ones.</p>"]
    students = sorted(set(moved) | set(regraded))
    if students:
        rows = "".join(f'<tr><td><a href="#{escape(_anchor(s))}">{escape(s)}</a></td>'
                       f"<td>{_pair(moved.get(s))}</td><td>{escape(before.get(s, ''))} &rarr; "
                       f"{escape(after.get(s, ''))}</td></tr>" for s in students)
        parts.append("<table><tr><th>student</th><th>checks' total</th><th>final grade</th></tr>"
                     f"{rows}</table>")
    for student in sorted({c.student for c in found}):
        parts.append(f'<h2 id="{escape(_anchor(student))}">{escape(student)}</h2>')
        for c in (c for c in found if c.student == student):
            what = f"{c.exercise}: {c.check}" if c.check else "the whole submission"
            head = f"<h3>{escape(what)}: {_points(c.before) or '-'} &rarr; {_points(c.after) or '-'} ({c.change:+g})"
            if c.passed_before is not None and c.passed_before == c.passed_after:  # the check's weight moved
                parts.append(f"{head}, {_verdict(c.passed_after)} both times: its points changed</h3>")
                continue
            parts.append(f"{head}</h3><table><tr><th>before</th><th>after</th></tr><tr>"
                         f"<td><pre>{escape(c.message_before or _verdict(c.passed_before))}</pre></td>"
                         f"<td><pre>{escape(c.message_after or _verdict(c.passed_after))}</pre></td></tr></table>")
    return page("What this regrade changes", "\n".join(parts))


def _pair(scores: tuple[float, float] | None) -> str:
    return "unchanged" if scores is None else f"{scores[0]:g} &rarr; {scores[1]:g} ({scores[1] - scores[0]:+g})"


def _anchor(student: str) -> str:
    return "student-" + "".join(ch if ch.isalnum() else "-" for ch in student)


def _points(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _verdict(passed: bool | None) -> str:
    return "" if passed is None else ("passed" if passed else "failed")
