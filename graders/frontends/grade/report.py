"""report.html: what the class got wrong, on one page, so the instructor sees what to reteach.

At the top, the students to look at before anything else: those whose submission reached for the
grader's internals (integrity flags, with the evidence), and those whose hand-in had a problem or
could not be graded; then the mistakes that most of the class made, across every exercise; then the score
distribution; then, per exercise, its mean, a chart of each check's pass rate, and each
check's named mistakes with their counts and share of the class. Every figure comes from
the stored results (tables.class_stats), so the page and mistakes.csv agree. Drawing a figure
costs about 0.1 s, so the page's figures are shared out among the cores. Student ids, problems and
evidence lines are the students' own text (folder and file names, quoted source): all escaped.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
from typing import Any
from urllib.parse import quote

import course_config
from graders.frontends.grade.html_page import escape, figure_png, page
from graders.frontends.grade.store import file_name
from graders.frontends.grade.tables import NOT_NAMED, NOT_STARTED, CheckStats

TOP_MISTAKES = 10


def report_html(records: list[dict[str, Any]], lesson: course_config.Lesson, stats: list[CheckStats]) -> str:
    size = len(records)
    scores = [float(r.get("score", 0.0)) for r in records]
    not_graded = [r["student"] for r in records if r.get("error")]
    parts = [f"<h1>Lesson {lesson.number}: {escape(lesson.title)}: the class</h1>",
             f"<p>{size} students; mean {statistics.fmean(scores):.1f}, median {statistics.median(scores):g} of "
             f"{lesson.points:g} points.</p>" if scores else "<p>No students.</p>"]
    if not_graded:
        parts.append(f'<p class="note">Not graded: {len(not_graded)} (see "Hand-in problems").</p>')
    parts += [_integrity_flags(records), _hand_in_problems(records)]
    by_exercise = [[s for s in stats if s.exercise == exercise.slug] for exercise in lesson.exercises]
    histogram, *pass_rates = _draw_all([("histogram", scores, lesson.points)]
                                       + [("pass_rates", _bars(entries)) for entries in by_exercise])
    parts += [_top_mistakes(stats, size), "<h2>Scores</h2>", histogram]
    for exercise, entries, chart in zip(lesson.exercises, by_exercise, pass_rates):
        parts.append(_exercise(exercise, entries, chart, records, size))
    return page(f"Lesson {lesson.number}: class report", "\n".join(parts))


def _integrity_flags(records: list[dict[str, Any]]) -> str:
    """Each student whose record carries integrity evidence (a reach into the grader's internals),
    with its lines; '' when none does (records stored before the field existed have no key)."""
    flagged = [r for r in records if _lines(r.get("integrity"))]
    if not flagged:
        return ""
    items = "".join(f"<li>{_feedback_link(r['student'])}<ul>"
                    + "".join(f"<li><code>{escape(line)}</code></li>" for line in _lines(r.get("integrity")))
                    + "</ul></li>" for r in flagged)
    return (f'<h2 id="integrity">Integrity flags ({len(flagged)})</h2><p>These submissions reached for the '
            f"grader's internals. The evidence, from what each handed in:</p><ul>{items}</ul>")


def _hand_in_problems(records: list[dict[str, Any]]) -> str:
    """Each student whose hand-in had a problem (two notebooks for one id, a refused symlink, ...)
    or who could not be graded, and why; '' when there is none."""
    listed = [r for r in records if _lines(r.get("problems")) or r.get("error")]
    if not listed:
        return ""
    items = []
    for record in listed:
        lines = [f"not graded: {record['error']}"] if record.get("error") else []
        lines += _lines(record.get("problems"))
        items.append(f"<li>{_feedback_link(record['student'])}<ul>"
                     + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul></li>")
    return (f'<h2 id="hand-in-problems">Hand-in problems ({len(listed)})</h2><p>Decide for these students: '
            f"their record in students/ says what was graded.</p><ul>{''.join(items)}</ul>")


def _lines(value: object) -> list[str]:
    """A stored list of text lines (absent or empty: none)."""
    return [str(line) for line in value] if isinstance(value, list) else []


def _feedback_link(student: str) -> str:
    """The student's id, linked to their feedback page (feedback/<file name>.html, beside this report)."""
    return f'<a href="feedback/{escape(quote(file_name(student)))}.html">{escape(student)}</a>'


def _top_mistakes(stats: list[CheckStats], size: int) -> str:
    named = sorted(((count, entry, mistake) for entry in stats for mistake, count in entry.mistakes.items()
                    if mistake not in (NOT_NAMED, NOT_STARTED)), key=lambda item: -item[0])[:TOP_MISTAKES]
    if not named:
        return "<h2>What to reteach</h2><p>No named mistake was made.</p>"
    rows = "".join(f"<tr><td>{escape(mistake)}</td><td>{escape(entry.exercise)}: {escape(entry.check)}</td>"
                   f"<td>{count}</td><td>{count / size:.0%}</td></tr>" for count, entry, mistake in named)
    return ("<h2>What to reteach</h2><p>The named mistakes made by the most students.</p><table>"
            "<tr><th>mistake</th><th>where</th><th>students</th><th>share</th></tr>" + rows + "</table>")


def _exercise(exercise: course_config.Exercise, stats: list[CheckStats], chart: str, records: list[dict[str, Any]],
              size: int) -> str:
    scores = [e["score"] for r in records for e in r.get("exercises", []) if e["slug"] == exercise.slug]
    mean = f"mean {statistics.fmean(scores):.2f} of {exercise.points:g} points" if scores else "not graded"
    rows = []
    for entry in stats:
        mistakes = "; ".join(f"{escape(m)}: {c} ({c / size:.0%})" for m, c in entry.mistakes.most_common())
        hidden = " [hidden]" if entry.hidden else ""
        rows.append(f"<tr><td>{escape(entry.check)}{hidden}</td><td>{entry.pass_rate:.0%}</td>"
                    f"<td>{mistakes or '&ndash;'}</td></tr>")
    return (f'<h2 id="{escape(exercise.slug)}">{escape(exercise.title)}</h2><p>{mean}</p>'
            + chart
            + "<table><tr><th>check</th><th>passed</th><th>mistakes (students, share of the class)</th></tr>"
            + "".join(rows) + "</table>")


def _bars(stats: list[CheckStats]) -> list[tuple[str, float]]:
    return [(e.check + (" [hidden]" if e.hidden else ""), e.pass_rate * 100) for e in stats]


def _draw_all(figures: list[tuple]) -> list[str]:
    """Each figure (its kind and data) as an inline picture, in order; drawn by forked processes,
    which inherit matplotlib from this one (nothing here runs torch, so forking is safe)."""
    if not figures:
        return []
    first = _drawn(figures[0])  # here, before the fork: matplotlib's imports and font caches are shared
    processes = min(len(figures) - 1, os.cpu_count() or 1)
    if processes < 2:
        return [first, *(_drawn(f) for f in figures[1:])]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        return [first, *pool.map(_drawn, figures[1:], chunksize=1)]


def _drawn(figure: tuple) -> str:
    kind, *data = figure
    return _histogram(*data) if kind == "histogram" else _pass_rates(*data)


def _histogram(scores: list[float], points: float) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 3), dpi=90)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.hist(scores, bins=20, range=(0, points), color="#4c72b0")
    axes.set_xlabel("points")
    axes.set_ylabel("students")
    figure.tight_layout()
    return figure_png(figure)


def _pass_rates(bars: list[tuple[str, float]]) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 0.35 * len(bars) + 0.8), dpi=90)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.barh([label for label, _ in bars][::-1], [rate for _, rate in bars][::-1], color="#55a868")
    axes.set_xlim(0, 100)
    axes.set_xlabel("students who passed (%)")
    axes.tick_params(axis="y", labelsize=8)
    figure.tight_layout()
    return figure_png(figure)
