"""A student's feedback as one HTML page: every exercise, every check, each failure's message, its plots.

It shows what the student may see: a hidden check as course_config.HIDDEN_CHECKS_SHOW says
(its `shown` text; its plots only where its whole message is shown), and never a check's code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import course_config
from graders.frontends.grade.html_page import escape, page, png, section_links


def feedback_html(record: dict[str, Any], lesson: course_config.Lesson, out: Path) -> str:
    """The page for one stored record; `out` is the batch's folder (plots are stored beneath it)."""
    parts = [f"<h1>Lesson {lesson.number}: {escape(lesson.title)}</h1>",
             f"<p><b>{escape(record['student'])}</b>: {record.get('score', 0):g} / {lesson.points:g} points</p>"]
    if record.get("error"):
        parts.append(f'<p class="note">Your work could not be graded: {escape(record["error"])}</p>')
    parts += [f'<p class="note">Note: {escape(problem)}</p>' for problem in record.get("problems", [])]
    graded = {e["slug"]: e for e in record.get("exercises", [])}
    for index, exercise in enumerate(lesson.exercises, start=1):
        result = graded.get(exercise.slug)
        score = f"{result['score']:g} / {result['max_score']:g}" if result else f"0 / {exercise.points:g}"
        parts.append(f'<h2 id="{escape(exercise.slug)}">{index}. {escape(exercise.title)}: {score} points</h2>')
        parts.append(f"<p>In the lesson: {section_links(exercise.section)}</p>")
        if result is None:
            parts.append("<p>Not graded.</p>")
            continue
        if result.get("not_implemented") and result["score"] == 0:
            parts.append(f"<p>Not implemented yet: every function of {escape(exercise.slug)} still raises "
                         f"NotImplementedError.</p>")
            continue
        parts.append(_checks_table(result))
        parts += [_failure(check, out) for check in result.get("checks", []) if not check.get("passed")]
    return page(f"{record['student']}: lesson {lesson.number} feedback", "\n".join(parts))


def _checks_table(exercise: dict[str, Any]) -> str:
    rows = []
    for check in exercise.get("checks", []):
        mark = '<span class="pass">PASS</span>' if check.get("passed") else '<span class="fail">FAIL</span>'
        hidden = " [hidden]" if check.get("hidden") else ""
        rows.append(f"<tr><td>{mark}</td><td>{escape(check['id'])}{hidden}</td>"
                    f"<td>{check['score']:g} / {check['points']:g}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def _failure(check: dict[str, Any], out: Path) -> str:
    shown = check.get("shown", check.get("message", "")) or ""
    pictures = ""
    if not check.get("hidden") or shown == check.get("message"):  # a hidden check's plot shows its inputs
        pictures = "".join(png(out / name, f"plot for {check['id']}") for name in check.get("files", [])
                           if str(name).endswith(".png"))
    return f"<h3>{escape(check['id'])}</h3><pre>{escape(shown)}</pre>{pictures}"
