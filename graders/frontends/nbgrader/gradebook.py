"""Scores into an nbgrader course's gradebook, through nbgrader's own API, as autograde would store them.

Each exercise's points go to its test cell's grade (`test-<slug>`), rounded and capped as the
notebook's test cell returns them, so `nbgrader export` and the formgrader show the batch's
grades. The assignment must exist in the gradebook (nbgrader generate_assignment).

The term goes in too, so that nbgrader's own outputs agree with the batch's: an override in the
ledger is the grade's manual score (the formgrader shows it as the instructor's), and a late
penalty is the notebook's late_submission_penalty, in points, which `nbgrader export` subtracts.
Manual scores set in the formgrader are read back into the ledger before (formgrader_decisions): only
those an instructor set there, never what this module wrote itself (it keeps a note of that beside the
gradebook, WRITTEN), so a later change in the ledger is not undone by the gradebook's older copy of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timezone
from pathlib import Path
from typing import TYPE_CHECKING

from graders.frontends.grade.term.decisions import Decision, utc_now_to_the_second
from graders.frontends.grade.term.standing import Standing

if TYPE_CHECKING:
    from graders.frontends.grade.store import StudentRecord


WRITTEN = ".graders-manual-scores.json"  # beside gradebook.db: the manual scores write_gradebook last wrote
CLOSE = 1e-6  # points: scores equal to this are the same score (the formgrader keeps floats)


class GradebookError(RuntimeError):
    """The course's gradebook cannot take the grades; the message says what to do."""


@dataclass
class Written:
    """What write_gradebook did, for the batch to say."""

    students: int = 0
    refused: list[str] = field(default_factory=list)  # students left as they were, each with why
    without_feedback: list[str] = field(default_factory=list)  # written, but with no autograded notebook
    unexpressed: list[str] = field(default_factory=list)  # decisions nbgrader's gradebook has no place for


def write_gradebook(course: Path, assignment: str, records: list[StudentRecord],
                    standings: dict[str, Standing] | None = None) -> Written:
    """Store every record's scores, and the term's overrides and penalties.

    `nbgrader generate_feedback` shows the gradebook's score above the outputs of the student's
    autograded notebook: where that notebook (from an earlier `nbgrader autograde`) scores a test cell
    otherwise than the batch, writing would make the page contradict itself, so that student is left
    as they are and the reason said."""
    from nbgrader.api import Gradebook, MissingEntry

    database = course / "gradebook.db"
    if not database.is_file():
        raise GradebookError(f"{database} does not exist: run `nbgrader generate_assignment {assignment}` in {course}")
    written = Written()
    ours: dict[str, float] = {}  # "student/slug" -> the manual score written from the ledger
    with Gradebook(f"sqlite:///{database}", course_id=_course_id(course)) as gradebook:
        try:
            notebooks = [n.name for n in gradebook.find_assignment(assignment).notebooks]
        except MissingEntry:
            raise GradebookError(f"the gradebook has no assignment {assignment!r}: run "
                                 f"`nbgrader generate_assignment {assignment}` in {course}") from None
        for record in records:
            student = record.student
            points = {e.slug: e.score for e in record.exercises}
            disagreeing = [why for notebook in notebooks
                           for why in _autograded_disagrees(course, assignment, student, notebook, points)]
            if disagreeing:
                written.refused.append(f"{student}: {'; '.join(disagreeing)}")
                continue
            if not all((course / "autograded" / student / assignment / f"{n}.ipynb").is_file() for n in notebooks):
                written.without_feedback.append(student)
            standing = (standings or {}).get(student)
            arrived = standing.submitted_at if standing is not None else None  # read safely (hand_in_times.py)
            extra = {"timestamp": arrived.astimezone(timezone.utc).replace(tzinfo=None)} if arrived else {}
            gradebook.update_or_create_student(student)
            gradebook.update_or_create_submission(assignment, student, **extra)
            overrides = standing.overrides if standing else {}
            if "total" in overrides:
                written.unexpressed.append(f"{student}: the final score set to {overrides['total']:g}")
            for notebook in notebooks:
                submitted = gradebook.find_submission_notebook(notebook, assignment, student)
                raw = 0.0
                for grade in submitted.grades:
                    if not grade.name.startswith("test-"):
                        continue  # a cell the instructor grades by hand is theirs: left as it is
                    slug = grade.name.removeprefix("test-")
                    earned = points.get(slug, 0.0)
                    grade.auto_score = round(min(float(earned), float(grade.max_score)), 6)
                    grade.manual_score = overrides.get(slug)  # the ledger's: withdrawn there, gone here
                    if grade.manual_score is not None:
                        ours[f"{student}/{slug}"] = float(grade.manual_score)
                    grade.needs_manual_grade = False
                    raw += grade.manual_score if grade.manual_score is not None else grade.auto_score
                if standing is not None:  # nbgrader subtracts it, in points, from the notebook's score
                    submitted.late_submission_penalty = round(raw * standing.penalty, 6) if standing.penalty else None
            gradebook.db.commit()
            written.students += 1
    _note_written(course, assignment, ours, [r.student for r in records if r.student not in
                                             {why.split(":", 1)[0] for why in written.refused}])
    return written


def _note_written(course: Path, assignment: str, ours: dict[str, float], students: list[str]) -> None:
    path = course / WRITTEN
    try:
        notes = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        notes = {}
    kept = {key: value for key, value in notes.get(assignment, {}).items() if key.split("/", 1)[0] not in students}
    notes[assignment] = {**kept, **ours}
    path.write_text(json.dumps(notes, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def formgrader_decisions(course: Path, assignment: str, decisions: list[Decision]) -> list[Decision]:
    """The overrides to add to the ledger for the scores an instructor set in the formgrader: a manual score that
    is neither what write_gradebook last wrote there nor the ledger's latest value for it."""
    manual = manual_scores(course, assignment) if (course / "gradebook.db").is_file() else {}
    try:
        ours = json.loads((course / WRITTEN).read_text(encoding="utf-8")).get(assignment, {})
    except (OSError, ValueError):
        ours = {}
    latest = {(d.student, d.exercise): d.value for d in decisions if d.action == "override"}
    added = []
    for (student, slug), points in sorted(manual.items()):
        written = ours.get(f"{student}/{slug}")
        if written is not None and abs(float(written) - points) <= CLOSE:
            continue  # what this module wrote from the ledger, not a formgrader change
        value = latest.get((student, slug))
        if value and abs(float(value) - points) <= CLOSE:
            continue  # the ledger already says so
        added.append(Decision(when=utc_now_to_the_second(), who="nbgrader formgrader", student=student,
                              action="override", exercise=slug, value=f"{points:.10g}",
                              reason=f"manual score in {course.name}/gradebook.db"))
    return added


def _autograded_disagrees(course: Path, assignment: str, student: str, notebook: str,
                          points: dict[str, float]) -> list[str]:
    """Each test cell of the student's autograded notebook whose outputs score it otherwise than the batch,
    scored by nbgrader's own rule (nbgrader.utils.determine_grade), said in words."""
    import nbformat
    from nbgrader.utils import determine_grade

    path = course / "autograded" / student / assignment / f"{notebook}.ipynb"
    if not path.is_file():
        return []
    try:
        cells = nbformat.read(path, as_version=4).cells
    except (OSError, ValueError) as error:
        return [f"its autograded notebook {path} cannot be read ({error})"]
    found = []
    for cell in cells:
        name = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        if not name.startswith("test-") or name.removeprefix("test-") not in points:
            continue
        shown, most = determine_grade(cell, None)
        batch = round(min(points[name.removeprefix("test-")], float(most)), 6)
        if shown is not None and abs(float(shown) - batch) > 1e-6:
            found.append(f"{name} scores {float(shown):g} in autograded/{student}/{assignment}/{notebook}.ipynb "
                         f"but {batch:g} here")
    return found


def manual_scores(course: Path, assignment: str) -> dict[tuple[str, str], float]:
    """The scores an instructor set by hand in the formgrader: (student, exercise slug) -> points."""
    from nbgrader.api import Gradebook, MissingEntry

    database = course / "gradebook.db"
    if not database.is_file():
        raise GradebookError(f"{database} does not exist")
    found = {}
    with Gradebook(f"sqlite:///{database}", course_id=_course_id(course)) as gradebook:
        try:
            submissions = gradebook.find_assignment(assignment).submissions
        except MissingEntry:
            raise GradebookError(f"the gradebook has no assignment {assignment!r}") from None
        for submission in submissions:
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    if grade.manual_score is not None and grade.name.startswith("test-"):
                        found[(submission.student.id, grade.name.removeprefix("test-"))] = float(grade.manual_score)
    return found


def _course_id(course: Path) -> str:
    """The course id its nbgrader_config.py sets (nbgrader's default where it sets none)."""
    from traitlets.config.loader import PyFileConfigLoader

    config_file = course / "nbgrader_config.py"
    if not config_file.is_file():
        return "default_course"
    config = PyFileConfigLoader(config_file.name, path=str(course)).load_config()
    return str(config.get("CourseDirectory", {}).get("course_id", "default_course"))
