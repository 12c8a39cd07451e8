"""The class in two tables: grades.csv (a row per student) and mistakes.csv (a row per check and mistake).

    grades.csv     student, name, email, sis_id, section (from the roster), score (the final score: after
                   overrides and the late penalty; "EX" when excused), raw_score (the grader's), max_score,
                   submitted_at, time_source (where that time came from: a zip entry, an unzipped file's
                   time, a git commit, nbgrader's timestamp.txt, Blackboard's file name; "none"), late_days,
                   penalty_percent, decisions (what the term changed, in words), needs_decision (why the
                   student's lateness waits for the instructor, with the command that decides it: their hand-in
                   time is unknown or impossible; `score` is empty until then),
                   not_graded, problems, integrity (the lines of the student's code that reach for the
                   grader's internals: graders/engine/source_evidence.py), then one column per exercise (its
                   points, an override's where one is in force) and one per check (`<exercise>.<check>`), in
                   lesson order; one row per graded student and per roster student who handed nothing in
    mistakes.csv   exercise, check, hidden, points, students, passed, pass_rate, mistake, count, share:
                   for every check, one row per named mistake students made there, one for
                   functions not written yet ("(not implemented yet)"), one for files not handed in
                   ("(not handed in)"), one for files that did not import ("(did not import)": a syntax
                   error, an error at the top level), one per group of alike
                   failures the catalogue does not name yet ("(unnamed group 2)" of that exercise:
                   unnamed_groups.py), and one for the other failures no mistake explains ("(not named)")

Both are computed from the stored results alone; `class_stats` serves the HTML report too.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import course_config
from graders.frontends.grade.spreadsheet import GuardedDictWriter, guarded_writer, text_cell
from graders.frontends.grade.term.standing import Standing

if TYPE_CHECKING:
    from graders.engine.results import CheckResult
    from graders.frontends.grade.store import StudentRecord

TEXT_COLUMNS = ("student", "name", "email", "sis_id", "section", "time_source", "decisions", "needs_decision",
                "not_graded", "problems", "integrity")
NOT_NAMED = "(not named)"
NOT_STARTED = "(not implemented yet)"
NOT_HANDED_IN = "(not handed in)"
DID_NOT_IMPORT = "(did not import)"


@dataclass
class CheckStats:
    """How the class did on one check."""

    exercise: str
    check: str
    hidden: bool
    points: float
    students: int = 0  # graded on it
    passed: int = 0
    mistakes: Counter = field(default_factory=Counter)  # named mistake -> students

    @property
    def pass_rate(self) -> float:
        return self.passed / self.students if self.students else 0.0


def class_stats(records: list[StudentRecord], lesson: course_config.Lesson,
                groups: dict[tuple[str, str], str] | None = None) -> list[CheckStats]:
    """One CheckStats per check of the lesson, in lesson order. `groups` puts a failure no mistake names under
    the label of its student's group of unnamed failures (unnamed_groups.py) instead of "(not named)"."""
    groups = groups or {}
    stats = {(e.slug, c.id): CheckStats(e.slug, c.id, c.hidden, c.points) for e in lesson.exercises for c in e.checks}
    for record in records:
        for exercise, check in record.checks():
            entry = stats.get((exercise.slug, check.id))
            if entry is None:
                continue
            entry.students += 1
            if check.passed:
                entry.passed += 1
            else:
                unnamed = groups.get((record.student, exercise.slug), NOT_NAMED)
                entry.mistakes[check.mistake or _not_named(check, unnamed)] += 1
    return list(stats.values())


def grades_csv(records: list[StudentRecord], lesson: course_config.Lesson,
               standings: dict[str, Standing] | None = None) -> str:
    columns = ["student", "name", "email", "sis_id", "section", "score", "raw_score", "max_score", "submitted_at",
               "time_source", "late_days", "penalty_percent", "decisions", "needs_decision", "not_graded", "problems",
               "integrity"]
    columns += [e.slug for e in lesson.exercises]
    columns += [f"{e.slug}.{c.id}" for e in lesson.exercises for c in e.checks]
    buffer = io.StringIO()
    writer = GuardedDictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    standings = standings or {}
    graded = {r.student: r for r in records}
    for student in sorted(graded.keys() | standings.keys()):
        record = graded.get(student)
        standing = standings.get(student)
        person = standing.person if standing else None
        score = _points(record.score if record else 0.0)
        row: dict[str, Any] = {"student": student, "score": score, "raw_score": score,
                               "max_score": _points(lesson.points), "not_graded": record.error if record else "",
                               "problems": " | ".join(record.problems if record else []),
                               "integrity": " | ".join(record.integrity if record else [])}
        if person is not None:
            row.update(name=person.name, email=person.email, sis_id=person.sis_id, section=person.section)
        if standing is not None:
            # no final score while it is not graded, or its lateness waits for a decision: nothing to publish
            final = "EX" if standing.excused else "" if not standing.graded or standing.needs_decision else (
                _points(standing.final))
            row.update(score=final, needs_decision=standing.needs_decision, late_days=standing.late_days,
                       penalty_percent=f"{standing.penalty * 100:g}", decisions=" | ".join(standing.all_notes),
                       submitted_at=standing.submitted_at.isoformat() if standing.submitted_at else "",
                       time_source=(standing.submitted_how or "none") if standing.submitted_at else "none")
        row.update({e.slug: _points(0.0) for e in lesson.exercises})
        row.update({f"{e.slug}.{c.id}": _points(0.0) for e in lesson.exercises for c in e.checks})
        for exercise in record.exercises if record else []:
            if exercise.slug in row:
                row[exercise.slug] = _points(exercise.score)
        for slug, points in (standing.overrides.items() if standing else ()):
            if slug in row:
                row[slug] = _points(points)
        for exercise, check in record.checks() if record else []:
            name = f"{exercise.slug}.{check.id}"
            if name in row:
                row[name] = _points(check.score)
        for column in TEXT_COLUMNS:  # students' own text: ids, file names in problems, quoted source
            row[column] = text_cell(row.get(column, ""))
        writer.writerow(row)
    return buffer.getvalue()


def mistakes_csv(stats: list[CheckStats], class_size: int) -> str:
    buffer = io.StringIO()
    writer = guarded_writer(buffer, lineterminator="\n")
    writer.writerow(["exercise", "check", "hidden", "points", "students", "passed", "pass_rate", "mistake", "count",
                     "share"])
    for entry in stats:
        common = [entry.exercise, entry.check, entry.hidden, _points(entry.points), entry.students, entry.passed,
                  f"{entry.pass_rate:.3f}"]
        if not entry.mistakes:
            writer.writerow([*common, "", 0, "0.000"])
        for mistake, count in entry.mistakes.most_common():
            writer.writerow([*common, mistake, count, f"{count / class_size:.3f}" if class_size else "0.000"])
    return buffer.getvalue()


def _not_named(check: CheckResult, unnamed: str) -> str:
    """Why a check failed with no mistake named: its kind where the whole exercise failed at once, else `unnamed`."""
    if check.not_implemented:
        return NOT_STARTED
    return {"missing file": NOT_HANDED_IN, "import": DID_NOT_IMPORT}.get(check.cause, unnamed)


def _points(value: float) -> str:
    return f"{float(value):g}"
