"""Scores into an nbgrader course's gradebook, through nbgrader's own API, as autograde would store them.

Each exercise's points go to its test cell's grade (`test-<slug>`), rounded and capped as the
notebook's test cell returns them, so `nbgrader export` and the formgrader show the batch's
grades. The assignment must exist in the gradebook (nbgrader generate_assignment).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class GradebookError(RuntimeError):
    """The course's gradebook cannot take the grades; the message says what to do."""


def write_gradebook(course: Path, assignment: str, records: list[dict[str, Any]]) -> int:
    """Store every record's scores; returns how many students were written."""
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.utils import parse_utc

    database = course / "gradebook.db"
    if not database.is_file():
        raise GradebookError(f"{database} does not exist: run `nbgrader generate_assignment {assignment}` in {course}")
    with Gradebook(f"sqlite:///{database}", course_id=_course_id(course)) as gradebook:
        try:
            notebooks = [n.name for n in gradebook.find_assignment(assignment).notebooks]
        except MissingEntry:
            raise GradebookError(f"the gradebook has no assignment {assignment!r}: run "
                                 f"`nbgrader generate_assignment {assignment}` in {course}") from None
        for record in records:
            student = record["student"]
            stamp = course / "submitted" / student / assignment / "timestamp.txt"
            extra = {"timestamp": parse_utc(stamp.read_text().strip())} if stamp.is_file() else {}
            gradebook.update_or_create_student(student)
            gradebook.update_or_create_submission(assignment, student, **extra)
            points = {e["slug"]: e for e in record.get("exercises", [])}
            for notebook in notebooks:
                for grade in gradebook.find_submission_notebook(notebook, assignment, student).grades:
                    slug = grade.name.removeprefix("test-")
                    earned = points.get(slug, {}).get("score", 0.0)
                    grade.auto_score = round(min(float(earned), float(grade.max_score)), 6)
                    grade.needs_manual_grade = grade.manual_score is not None
            gradebook.db.commit()
    return len(records)


def _course_id(course: Path) -> str:
    """The course id its nbgrader_config.py sets (nbgrader's default where it sets none)."""
    from traitlets.config.loader import PyFileConfigLoader

    config_file = course / "nbgrader_config.py"
    if not config_file.is_file():
        return "default_course"
    config = PyFileConfigLoader(config_file.name, path=str(course)).load_config()
    return str(config.get("CourseDirectory", {}).get("course_id", "default_course"))
