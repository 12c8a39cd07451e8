"""A student's feedback as one HTML page: every exercise, every check, each failure's message, its plots;
and, with the term's standing, what the term made of the score (lateness, decisions, the final score).

The student's page shows what the student may see: a hidden check as course_config.HIDDEN_CHECKS_SHOW says
(its `shown` text; its plots only where its whole message is shown), and never a check's code. The
instructor's view of the same record (instructor/<id>.html, linked from report.html) shows every message
in full, with each failure's named mistake, concept and cause, and where the answers came from and the
integrity evidence.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import course_config
from graders.frontends.grade.outputs.html_page import escape, page, png, section_links
from graders.frontends.grade.intake.hand_ins import for_students
from graders.frontends.grade.term.standing import Standing, shown_in_due_zone

if TYPE_CHECKING:
    from graders.engine.results import CheckResult, ExerciseResult
    from graders.frontends.grade.store import StudentRecord


def feedback_html(record: StudentRecord, lesson: course_config.Lesson, out: Path, *,
                  standing: Standing | None = None, instructor: bool = False) -> str:
    """The page for one stored record; `out` is the batch's folder (plots are stored beneath it)."""
    raw = record.score
    parts = [f"<h1>Lesson {lesson.number}: {escape(lesson.title)}"
             + (": the instructor's view</h1><p><a href=\"../report.html\">Back to the class report</a></p>"
                if instructor else "</h1>")]
    who = escape(record.student)
    if standing is not None and standing.person is not None and standing.person.name:
        who = f"{escape(standing.person.name)} ({who})"
    if standing is None:
        parts.append(f'<p><b>{who}</b>: <span data-key="raw">{raw:g}</span> / {lesson.points:g} points</p>')
    elif standing.excused:
        parts.append(f'<p><b>{who}</b>: <span data-key="final">excused</span>, no grade counts '
                     f'(<span data-key="raw">{raw:g}</span> / {lesson.points:g} from the checks)</p>'
                     + _term(standing, instructor))
    elif standing.needs_decision:  # its lateness is not known: no final score to show until the ledger decides
        parts.append(f'<p><b>{who}</b>: <span data-key="final">no final score yet</span>: the time of the hand-in '
                     f'needs a decision (<span data-key="raw">{raw:g}</span> / {lesson.points:g} from the checks)</p>'
                     + _term(standing, instructor))
    else:
        parts.append(f'<p><b>{who}</b>: <span data-key="final">{standing.final:g}</span> / {lesson.points:g} '
                     f'points (<span data-key="raw">{raw:g}</span> from the checks)</p>' + _term(standing, instructor))
    if instructor:
        parts.append(_about(record))
    if record.error:
        parts.append(f'<p class="note">{"The" if instructor else "Your"} work could not be graded: '
                     f'{escape(record.error)}</p>')
    parts += [f'<p class="note">Note: {escape(problem if instructor else for_students(problem))}</p>'
              for problem in record.problems]
    for index, exercise in enumerate(lesson.exercises, start=1):
        result = record.exercise(exercise.slug)
        score = f"{result.score:g} / {result.max_score:g}" if result else f"0 / {exercise.points:g}"
        overridden = standing.overrides.get(exercise.slug) if standing is not None else None
        if overridden is not None:  # the checks' score stays visible: the decision replaced it
            score = f"{overridden:g} / {exercise.points:g} (set by your instructor; the checks gave {score})"
        parts.append(f'<h2 id="{escape(exercise.slug)}">{index}. {escape(exercise.title)}: {score} points</h2>')
        parts.append(f"<p>In the lesson: {section_links(exercise.section)}</p>")
        if result is None:
            parts.append("<p>Not graded.</p>")
            continue
        if instructor and result.integrity:
            parts.append(_evidence(result.integrity))
        if result.not_handed_in():  # one line, not one per check
            parts.append(f"<p>Not handed in: {escape(result.checks[0].message.split(chr(10), 1)[0])} Every "
                         f"check of {escape(exercise.slug)} scores 0.</p>")
            continue
        if result.not_implemented and result.score == 0:
            parts.append(f"<p>Not implemented yet: every function of {escape(exercise.slug)} still raises "
                         f"NotImplementedError.</p>")
            continue
        parts.append(_checks_table(result))
        parts += [_failure(check, out, instructor) for check in result.checks if not check.passed]
    kind = "instructor's view" if instructor else "feedback"
    return page(f"{record.student}: lesson {lesson.number} {kind}", "\n".join(parts))


def _term(standing: Standing, instructor: bool) -> str:
    """What the term made of the grader's score, field by field, then its notes."""
    rows = []
    if standing.submitted_at is not None:
        how = f" ({escape(standing.submitted_how)})" if standing.submitted_how else ""
        submitted = shown_in_due_zone(standing.submitted_at, standing.due)
        rows.append(("handed in", f'<span data-key="submitted">{escape(submitted)}</span>{how}'))
    if standing.due is not None:
        rows.append(("due", f'<span data-key="due">{escape(shown_in_due_zone(standing.due, standing.due))}</span>'))
    if standing.late_days or standing.penalty:
        rows.append(("late", f'<span data-key="late-days">{standing.late_days}</span> '
                             f'day{"" if standing.late_days == 1 else "s"}: '
                             f'<span data-key="penalty" data-value="{standing.penalty!r}">{standing.penalty:.0%}'
                             f"</span> of the score taken"))
    for target, points in standing.overrides.items():
        rows.append(("set by a decision", f'{escape(target)}: <span data-key="override" data-target="{escape(target)}">'
                                          f"{points:g}</span> points"))
    if standing.excused:
        rows.append(("excused", '<span data-key="excused">yes</span>: no grade counts'))
    table = "".join(f"<tr><th>{label}</th><td>{value}</td></tr>" for label, value in rows)
    notes = "".join(f"<li>{escape(note)}</li>" for note in (standing.all_notes if instructor else standing.notes))
    return (f'<h2 id="term">{"The" if instructor else "Your"} grade this term</h2><table>{table}</table>'
            + (f"<ul>{notes}</ul>" if notes else ""))


def _about(record: StudentRecord) -> str:
    """For the instructor: where the answers came from and what their code reached for."""
    origin = f'<p>Graded from: <code data-key="origin">{escape(record.origin)}</code></p>'
    integrity = record.integrity
    return origin + (f'<h2 id="integrity">Integrity flags</h2>{_evidence(integrity)}' if integrity else "")


def _evidence(lines: list[str]) -> str:
    return '<ul class="integrity">' + "".join(f"<li><code>{escape(line)}</code></li>" for line in lines) + "</ul>"


def _checks_table(exercise: ExerciseResult) -> str:
    rows = []
    for check in exercise.checks:
        mark = '<span class="pass">PASS</span>' if check.passed else '<span class="fail">FAIL</span>'
        hidden = " [hidden]" if check.hidden else ""
        rows.append(f"<tr><td>{mark}</td><td>{escape(check.id)}{hidden}</td>"
                    f"<td>{check.score:g} / {check.points:g}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def _failure(check: CheckResult, out: Path, instructor: bool) -> str:
    shown = check.message if instructor else check.shown
    pictures = ""
    if instructor or not check.hidden or shown == check.message:  # a hidden check's plot shows its inputs
        pictures = "".join(png(out / name, f"plot for {check.id}") for name in check.files
                           if str(name).endswith(".png"))
    about = ""
    if instructor:
        named = [f"{label}: {escape(value)}" for label, value in
                 (("mistake", check.mistake), ("concept", check.concept), ("cause", check.cause)) if value]
        about = f'<p class="note">{"; ".join(named)}</p>' if named else ""
    return f"<h3>{escape(check.id)}</h3>{about}<pre>{escape(shown)}</pre>{pictures}"
