"""Every output of a batch, written from the stored results of the class being graded.

    DIR/students/<id>.json           the result model, with the student, key, origin, problems, error
    DIR/feedback/<id>.html           the student's feedback page
    DIR/grades.csv, mistakes.csv     the class in tables
    DIR/report.html                  what the class got wrong
    DIR/gradescope/<id>/results.json Gradescope's format
    DIR/classroom/<id>.json          GitHub Classroom's runner results, one per exercise
    and, with --gradebook on an nbgrader course, its gradebook.db
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import course_config
from graders.frontends.grade import tables
from graders.frontends.grade.feedback_html import feedback_html
from graders.frontends.grade.report import report_html
from graders.frontends.grade.store import file_name, write_atomically
from graders.frontends.platforms import classroom_runners, gradescope_results


def write_all(out: Path, records: list[dict[str, Any]], lesson: course_config.Lesson, *,
              gradebook_course: Path | None = None, assignment: str = "lesson01") -> list[str]:
    """Write every output; returns what was written, for the summary line."""
    for record in records:
        name = file_name(record["student"])
        write_atomically(out / "feedback" / f"{name}.html", feedback_html(record, lesson, out))
        write_atomically(out / "gradescope" / name / "results.json",
                         json.dumps(gradescope_results(record), indent=2) + "\n")
        write_atomically(out / "classroom" / f"{name}.json", json.dumps(classroom_runners(record), indent=2) + "\n")
    stats = tables.class_stats(records, lesson)
    write_atomically(out / "grades.csv", tables.grades_csv(records, lesson))
    write_atomically(out / "mistakes.csv", tables.mistakes_csv(stats, len(records)))
    write_atomically(out / "report.html", report_html(records, lesson, stats))
    written = ["students/", "feedback/", "grades.csv", "mistakes.csv", "report.html", "gradescope/", "classroom/"]
    if gradebook_course is not None:
        from graders.frontends.grade.gradebook import GradebookError, write_gradebook

        try:
            write_gradebook(gradebook_course, assignment, records)
            written.append(f"{gradebook_course / 'gradebook.db'}")
        except GradebookError as error:
            print(f"graders grade: the gradebook was not written: {error}")
    return written
