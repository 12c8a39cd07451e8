"""report.html: what the class got wrong and what to reteach, on one page, for the instructor.

In order: the headline (who handed in; the mean and median of the final scores when the term's
standings are given, else of the raw ones); the students to look at first (hand-in times that need a
decision, integrity flags, hand-in problems, pairs of similar answers: a list to review, never a verdict);
what to reteach: the named mistakes grouped by the lesson idea each breaks (a check's `concept`, described
by course_config.CONCEPTS), ranked by how many students made any of them; the exercises ranked by mean,
with who handed no file in, left the stub untouched, handed in a file that did not import, or timed out
counted apart from who failed;
the score histogram; per exercise, each check's pass rate and named mistakes; the roster, each student linked
to their feedback and to the instructor's view of it.

Named mistakes per check come from tables.class_stats, so the page and mistakes.csv agree. Every number
a reader (or a test) may check is in an element with data-key, with data-exercise, data-concept or
data-student saying whose, and its exact value in data-value where the text rounds it. Drawing a figure
costs about 0.1 s, so the figures are shared out among the cores. Everything a student controls (ids,
problems, evidence, mistake and concept names, the roster's text, the term's notes) is escaped.
"""

from __future__ import annotations

import statistics
from typing import Any
from urllib.parse import quote

import course_config
from graders.frontends.grade.outputs.html_page import escape, page
from graders.frontends.wording import counted
from graders.frontends.grade.outputs.class_tally import BANDS, OTHER, ExerciseTally, concept_tallies, exercise_tally
from graders.frontends.grade.outputs.report_charts import histogram, pass_rates
from graders.frontends.grade.outputs.similarity import alike_groups
from graders.frontends.grade.term.standing import Standing
from graders.frontends.grade.store import StudentRecord, file_name
from graders.frontends.grade.outputs.tables import DID_NOT_IMPORT, NOT_HANDED_IN, NOT_NAMED, NOT_STARTED, CheckStats


def report_html(records: list[StudentRecord], lesson: course_config.Lesson, stats: list[CheckStats], *,
                standings: dict[str, Standing] | None = None, similar: list[dict[str, Any]] | None = None,
                unnamed: dict[str, list[dict[str, Any]]] | None = None,
                requests: list[dict[str, str]] | None = None) -> str:
    """The page; `unnamed` is each exercise's groups of alike unnamed failures, as unnamed_groups.json holds them;
    `requests` the regrade requests still open in the ledger (student, exercise, value: the student's words,
    when)."""
    standings = standings or {}
    scores, basis = _class_scores(records, standings)
    tallies = [exercise_tally(exercise, records) for exercise in lesson.exercises]
    by_check = {(s.exercise, s.check): s for s in stats}
    parts = [f"<h1>Lesson {lesson.number}: {escape(lesson.title)}: the class</h1>",
             _headline(records, standings, scores, basis, lesson.points),
             _look_first(records, similar or [], lesson, standings)
             + _open_requests(requests or [], {r.student for r in records}),
             _reteach(records, lesson),
             _unnamed(unnamed or {}, lesson, len(records)),
             _ranked(tallies),
             f'<h2 id="scores">Scores</h2><p>{basis.capitalize()} scores, in points.</p>'
             f'{histogram(scores, lesson.points, basis)}']
    parts += [_exercise(t, by_check, pass_rates(t.exercise.slug, t.bars()) if t.scores else "", len(records))
              for t in tallies]
    parts.append(_roster(records, standings))
    return page(f"Lesson {lesson.number}: class report", "\n".join(parts))


def _class_scores(records: list[StudentRecord], standings: dict[str, Standing]) -> tuple[list[float], str]:
    """The scores the headline and histogram are of: every final score that counts (excused students left out,
    and those whose hand-in time waits for a decision: theirs is not final yet; a student on the roster who
    handed nothing in counts with their final), or, with no standings, the raw ones."""
    if not standings:
        return [r.score for r in records], "raw"
    finals = [s.final for s in standings.values() if not s.excused and not s.needs_decision]
    return finals + [r.score for r in records if r.student not in standings], "final"


# ------------------------------------------------------------------ the sections


def _headline(records: list[StudentRecord], standings: dict[str, Standing], scores: list[float], basis: str,
              points: float) -> str:
    handed_in = {r.student for r in records}
    text = f'<span data-key="students">{len(records)}</span> students handed in'
    if standings:
        nothing = sum(student not in handed_in for student in standings)
        excused = sum(s.excused for s in standings.values())
        text += (f' (<span data-key="in-all">{len(handed_in | set(standings))}</span> in all: '
                 f'<span data-key="nothing-handed-in">{nothing}</span> handed nothing in, '
                 f'<span data-key="excused">{excused}</span> excused)')
    if scores:
        mean, median = statistics.fmean(scores), statistics.median(scores)
        which = (f"Final scores (after lateness and the instructor's decisions) of the {len(scores)} students whose "
                 f"grade counts" if basis == "final" else "Raw scores, from the checks")
        text += (f'. {which}: mean <span data-key="mean" data-basis="{basis}" data-value="{mean!r}">{mean:.1f}</span>, '
                 f'median <span data-key="median" data-basis="{basis}" data-value="{median!r}">{median:g}</span> '
                 f"of {points:g} points")
    not_graded = sum(bool(r.error) for r in records)
    text += f'. Not graded: <span data-key="not-graded">{not_graded}</span>'
    text += ' (see "Hand-in problems").' if not_graded else "."
    return f'<p id="headline">{text}</p>'


def _look_first(records: list[StudentRecord], similar: list[dict[str, Any]], lesson: course_config.Lesson,
                standings: dict[str, Standing]) -> str:
    graded = {r.student for r in records}
    found = (_needing_decisions(standings, graded) + _integrity_flags(records) + _hand_in_problems(records)
             + _similar_pairs(similar, graded, lesson))
    return ('<h2 id="look-first">Students to look at first</h2><p>A list to review, never a verdict: each name '
            "opens the instructor's view of that student's work.</p>"
            + (found or "<p>No one: no integrity flag, hand-in problem or pair of similar answers.</p>"))


def _needing_decisions(standings: dict[str, Standing], graded: set[str]) -> str:
    """The students whose hand-in time is unknown or impossible: graded, held back from lms/ until decided."""
    waiting = sorted((s for s in standings.values() if s.needs_decision), key=lambda s: s.student)
    if not waiting:
        return ""
    items = "".join(f'<li data-key="needs-decision" data-student="{escape(s.student)}">'
                    f"{_student_named(s.student, graded)}: "
                    f"{escape(s.needs_decision)}</li>" for s in waiting)
    return (f'<h3 id="needs-decision">Hand-in times that need a decision (<span data-key="needs-decision-count">'
            f"{len(waiting)}</span>)</h3><p>Their time is unknown, or impossible (before the term's start, after "
            f"this run): a student's own clock can say anything. They are graded, and held back from the LMS's "
            f"files until the ledger decides; each line gives the command.</p><ul>{items}</ul>")


def _student_named(student: str, graded: set[str]) -> str:
    """A student's name: a link to their page where this run graded them, else the name alone."""
    return _student(student) if student in graded else escape(student)


def _open_requests(requests: list[dict[str, str]], graded: set[str]) -> str:
    """The regrade requests no answer in the ledger has answered yet, in the students' words."""
    if not requests:
        return ""
    items = "".join(f"<li>{_student_named(r['student'], graded)}"
                    f"{' on ' + escape(r['exercise']) if r['exercise'] else ''} ({escape(r['when'])}): "
                    f"<q>{escape(r['value'])}</q></li>" for r in requests)
    return (f'<h3 id="requests">Open regrade requests ({len(requests)})</h3><p>Answer each with python -m graders '
            f"decide LEDGER STUDENT regrade_answer accepted|declined --exercise ... --reason ...</p><ul>{items}</ul>")


def _integrity_flags(records: list[StudentRecord]) -> str:
    """Each student whose record carries integrity evidence (code the grader cannot follow),
    with its lines; '' when none does."""
    flagged = [r for r in records if r.integrity]
    if not flagged:
        return ""
    items = "".join(f"<li>{_student(r.student)}<ul>"
                    + "".join(f"<li><code>{escape(line)}</code></li>" for line in r.integrity)
                    + "</ul></li>" for r in flagged)
    return (f'<h3 id="integrity">Integrity flags (<span data-key="integrity">{len(flagged)}</span>)</h3><p>These '
            f"submissions hold code the grader cannot follow (code run from strings, names computed at run time, threads "
            f"or modules it does not read, Python's insides), so their checks of how were not credited: read the "
            f"lines and decide (a score override in the ledger). The lines, from what each handed in:</p>"
            f"<ul>{items}</ul>")


def _hand_in_problems(records: list[StudentRecord]) -> str:
    """Each student whose hand-in had a problem (two notebooks for one id, a refused symlink, ...)
    or who could not be graded, and why; '' when there is none."""
    listed = [r for r in records if r.problems or r.error]
    if not listed:
        return ""
    items = []
    for record in listed:
        lines = [f"not graded: {record.error}"] if record.error else []
        lines += record.problems
        items.append(f"<li>{_student(record.student)}<ul>"
                     + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul></li>")
    return (f'<h3 id="hand-in-problems">Hand-in problems (<span data-key="hand-in-problems">{len(listed)}</span>)'
            f"</h3><p>Decide for these students: their record in students/ says what was graded.</p>"
            f"<ul>{''.join(items)}</ul>")


def _similar_pairs(similar: list[dict[str, Any]], graded: set[str], lesson: course_config.Lesson) -> str:
    if not similar:
        return ""
    titles = {e.slug: e.title for e in lesson.exercises}

    def who(student: str) -> str:  # an answer of an earlier term ("<term>/<student>") has no page here
        return _student(student) if student in graded else f"{escape(student)} <small>(an earlier term)</small>"

    groups = alike_groups([(str(p.get("exercise")), str(p.get("first")), str(p.get("second"))) for p in similar])
    crowds = [(exercise, members) for exercise, members in groups if len(members) > 2]
    in_crowd = {(exercise, student) for exercise, members in crowds for student in members}
    rows = "".join(
        f"<tr><td title=\"{escape(titles.get(exercise, ''))}\">{escape(exercise)}</td><td colspan=\"2\">"
        f'<span data-key="alike-group" data-exercise="{escape(exercise)}">{len(members)}</span> students with one '
        f"answer: {', '.join(who(m) for m in members)}</td><td></td>"
        f'<td><a href="similarity.html">side by side</a></td></tr>' for exercise, members in crowds)
    rows += "".join(
        f"<tr><td title=\"{escape(titles.get(str(pair.get('exercise')), ''))}\">{escape(pair.get('exercise'))}</td>"
        f"<td>{who(str(pair.get('first')))}</td><td>{who(str(pair.get('second')))}</td>"
        f'<td class="num" data-key="similarity" data-value="{float(pair.get("similarity", 0))!r}">'
        f'{float(pair.get("similarity", 0)):.0%}</td><td><a href="similarity.html">side by side</a></td></tr>'
        for pair in sorted(similar, key=lambda p: -float(p.get("similarity", 0)))
        if (str(pair.get("exercise")), str(pair.get("first"))) not in in_crowd)
    return (f'<h3 id="similar">Similar answers (<span data-key="similar">{len(similar)}</span> pairs)</h3><p>Answers '
            f"more alike than the threshold; three or more students linked by such pairs are one row. Alike is "
            f"common in short exercises and shared starting points: read them side by side before asking anyone "
            f"about it.</p><table><tr><th>exercise</th><th>one student</th><th>another</th><th>similarity</th>"
            f"<th></th></tr>{rows}</table>")


def _unnamed(groups: dict[str, list[dict[str, Any]]], lesson: course_config.Lesson, size: int) -> str:
    """The groups of alike failures no named mistake explains: mistakes the catalogue should learn."""
    if not groups:
        return ""
    parts = ['<h2 id="unnamed">Mistakes the catalogue does not know yet</h2><p>Students whose failures no named '
             "mistake explains, grouped by what their answers did (the checks failed, the errors, how the values "
             "relate to the reference's): a group is one slip worth a name in the exercise's mistakes.py "
             "(docs/AUTHORING.md). Each shows the answer nearest the group's centre, as it differs from the "
             "reference.</p>"]
    for exercise in lesson.exercises:
        for group in groups.get(exercise.slug, []):
            whose = f'data-exercise="{escape(exercise.slug)}" data-group="{group["group"]}"'
            students = ", ".join(_student(s) for s in group["students"])
            differs = escape("\n".join(group["differs"])) or "(the same text as the reference)"
            parts.append(f"<h3>{escape(exercise.title)}: {escape(group['label'])}</h3>"
                         f'<p><span {whose} data-key="group-size">{len(group["students"])}</span> students '
                         f"({len(group['students']) / size:.0%} of the class) fail together: "
                         f"{escape(', '.join(group['checks']))}.</p><p>Students: {students}.</p>"
                         f"<p>Nearest the centre: {_student(group['representative'])}; its lines that differ from "
                         f"the reference:</p><pre>{differs}</pre>")
    return "\n".join(parts)


def _reteach(records: list[StudentRecord], lesson: course_config.Lesson) -> str:
    concepts = concept_tallies(records)
    if not concepts:
        return '<h2 id="reteach">What to reteach</h2><p>No named mistake was made.</p>'
    described: dict[str, str] = getattr(course_config, "CONCEPTS", None) or {}
    size = len(records)
    bodies = []
    for concept, students, mistakes in concepts:
        whose = f'data-concept="{escape(concept)}"'
        text = "Mistakes no lesson idea is named for." if concept == OTHER else described.get(concept, "")
        share = len(students) / size
        rows = [f'<tr class="concept"><th colspan="2"><b>{escape(concept)}</b>{": " if text else ""}{escape(text)}</th>'
                f'<td class="num" {whose} data-key="students">{len(students)}</td>'
                f'<td class="num" {whose} data-key="share" data-value="{share!r}">{share:.0%}</td></tr>']
        rows += [f'<tr><td class="mistake">{escape(m.name)}</td><td>{_where(m.where, lesson)}</td>'
                 f'<td class="num" {whose} data-mistake="{escape(m.name)}" data-key="students">{len(m.students)}</td>'
                 f'<td class="num">{len(m.students) / size:.0%}</td></tr>' for m in mistakes]
        bodies.append("<tbody>" + "".join(rows) + "</tbody>")
    return ('<h2 id="reteach">What to reteach</h2><p>The named mistakes, grouped by the idea of the lesson each '
            f"breaks; the ideas most students got wrong first. A student counts once per idea and once per "
            f"mistake, however many checks it failed; shares are of the {size} students who handed in.</p>"
            '<table class="reteach"><thead><tr><th>idea, then its mistakes</th><th>where</th><th>students</th>'
            "<th>share</th></tr></thead>" + "".join(bodies) + "</table>")


def _where(where: set[tuple[str, str]], lesson: course_config.Lesson) -> str:
    """The checks a mistake was made in, by exercise, in lesson order."""
    order = {(e.slug, c.id): (i, j) for i, e in enumerate(lesson.exercises) for j, c in enumerate(e.checks)}
    by_exercise: dict[str, list[str]] = {}
    for slug, check in sorted(where, key=lambda w: (order.get(w, (len(order), 0)), w)):
        by_exercise.setdefault(slug, []).append(check)
    return "; ".join(f'<a href="#{escape(quote(slug))}">{escape(slug)}</a>: {escape(", ".join(checks))}'
                     for slug, checks in by_exercise.items())


def _ranked(tallies: list[ExerciseTally]) -> str:
    ranked = sorted(tallies, key=lambda t: (t.mean is None, t.mean or 0.0))  # sorted is stable: lesson order on ties
    rows = []
    for t in ranked:
        slug, points = t.exercise.slug, t.exercise.points
        whose = f'data-exercise="{escape(slug)}"'
        mean = _fraction(t.mean, "mean", whose, f"{t.mean * points:.2f} of {points:g} points" if t.scores else "")
        rows.append(f'<tr><td><a href="#{escape(slug)}" title="{escape(t.exercise.title)}">{escape(slug)}</a></td>'
                    f'{mean}{_fraction(t.median, "median", whose)}<td class="num" {whose} data-key="students">'
                    f'{len(t.scores)}</td><td class="num" {whose} data-key="no-file">{t.no_file}</td>'
                    f'<td class="num" {whose} data-key="not-started">{t.not_started}</td>'
                    f'<td class="num" {whose} data-key="did-not-import">{t.did_not_import}</td>'
                    f'<td class="num" {whose} data-key="timed-out">{t.timed_out}</td>'
                    f'{_fraction(t.rate, "pass-rate", whose)}{_bands(t, whose)}</tr>')
    return ('<h2 id="exercises">Exercises, lowest mean first</h2><p>Means and medians are shares of each '
            "exercise's points. <i>No file</i>: none handed in for it. <i>Untouched stub</i>: every check failed "
            "as not implemented. <i>Did not import</i>: its file failed on import (a syntax error, an error at its "
            "top level), so every check failed for that one cause. <i>Timed out</i>: a "
            "check failed for a timeout or for the time allowance spent. <i>Checks passed</i> is over the "
            "students who tried it (none of these four); each exercise's section below gives each check's pass "
            "rate over the students who wrote its function, handed in a file that imports and did not time out "
            "on it. The last columns count the "
            "students by their share of the exercise's points, shaded by how many.</p><table class=\"ranked\"><tr>"
            "<th>exercise</th>"
            "<th>mean</th><th>median</th><th>students</th><th>no file</th><th>untouched stub</th>"
            "<th>did not import</th><th>timed out</th>"
            "<th>checks passed</th>" + "".join(f'<th class="band">{escape(band)}</th>' for band in BANDS)
            + "</tr>" + "".join(rows) + "</table>")


def _bands(t: ExerciseTally, whose: str) -> str:
    """The exercise's score distribution: a count per band, its cell shaded by its share of the students."""
    counts = t.bands()
    cells = []
    for i, count in enumerate(counts):
        shade = f' style="background: rgba(76, 114, 176, {count / max(len(t.scores), 1) * 0.6:.2f})"' if count else ""
        cells.append(f'<td class="num band"{shade} {whose} data-key="band-{i}">{count}</td>')
    return "".join(cells)


def _fraction(value: float | None, key: str, whose: str, title: str = "") -> str:
    if value is None:
        return f'<td class="num" {whose} data-key="{key}" data-value="">&ndash;</td>'
    said = f' title="{escape(title)}"' if title else ""
    return f'<td class="num" {whose} data-key="{key}" data-value="{value!r}"{said}>{value:.0%}</td>'


def _exercise(t: ExerciseTally, by_check: dict[tuple[str, str], CheckStats], chart: str, size: int) -> str:
    slug = t.exercise.slug
    mean = f"mean {t.mean * t.exercise.points:.2f} of {t.exercise.points:g} points" if t.scores else "not graded"
    rows = []
    for tally in t.checks.values():
        whose = f'data-exercise="{escape(slug)}" data-check="{escape(tally.check.id)}"'
        entry = by_check.get((slug, tally.check.id))
        counted = entry.mistakes.most_common() if entry else []
        named = [(m, c) for m, c in counted if m not in (NOT_NAMED, NOT_STARTED, NOT_HANDED_IN, DID_NOT_IMPORT)]
        grouped = sum(c for m, c in named if m.startswith("(unnamed group"))  # class_stats put them there
        named += [(NOT_NAMED, tally.unnamed - grouped)] if tally.unnamed > grouped else []
        mistakes = "; ".join(f"{escape(m)}: {c} ({c / size:.0%})" for m, c in named)
        hidden = " [hidden]" if tally.check.hidden else ""
        counts = "".join(f'<td class="num" {whose} data-key="{key}">{getattr(tally, key.replace("-", "_"))}</td>'
                         for key in ("passed", "failed", "not-written", "did-not-import", "timed-out"))
        rows.append(f"<tr><td>{escape(tally.check.id)}{hidden}</td>{counts}{_fraction(tally.rate, 'pass-rate', whose)}"
                    f"<td>{mistakes or '&ndash;'}</td></tr>")
    return (f'<h2 id="{escape(slug)}">{escape(t.exercise.title)}</h2><p>{mean}; no file: {t.no_file}, untouched '
            f"stub: {t.not_started}, did not import: {t.did_not_import}, timed out: {t.timed_out}.</p>{chart}"
            "<table><tr><th>check</th><th>passed</th><th>failed</th><th>not written</th><th>did not import</th>"
            "<th>timed out</th>"
            "<th>pass rate</th><th>mistakes (students, share of the class)</th></tr>" + "".join(rows) + "</table>")


def _roster(records: list[StudentRecord], standings: dict[str, Standing]) -> str:
    graded = {r.student: r for r in records}
    students = sorted(set(standings) | set(graded))  # as grades.csv lists them
    roster_given = any(s.person is not None for s in standings.values())
    rows = []
    for student in students:
        record, standing = graded.get(student), standings.get(student)
        whose = f'data-student="{escape(student)}"'
        person = standing.person if standing else None
        raw = standing.raw if standing else record.score if record else 0.0
        final = standing.final if standing else raw
        shown = "EX" if standing and standing.excused else "&ndash;" if standing and standing.needs_decision else (
            f"{final:g}")  # as grades.csv says it to the LMS
        share = standing.penalty if standing else 0.0
        penalty = f"{share:.0%} ({counted(standing.late_days, 'day')} late)" if standing and share else ""
        marks = _marks(record, standing, roster_given)
        shown_id = f'<a href="instructor/{_href(student)}">{escape(student)}</a>' if record else escape(student)
        pages = f'<a href="feedback/{_href(student)}">feedback</a>' if record else ""
        rows.append(f"<tr><td>{shown_id}</td><td>{escape(person.name if person else '')}</td>"
                    f"<td>{escape(person.section if person else '')}</td>"
                    f'<td class="num" {whose} data-key="raw" data-value="{raw!r}">{raw:g}</td>'
                    f'<td class="num" {whose} data-key="penalty" data-value="{share!r}">{penalty}</td>'
                    f'<td class="num" {whose} data-key="final" data-value="{final!r}">{shown}</td>'
                    f"<td>{marks}</td><td>{pages}</td></tr>")
    return (f'<h2 id="roster">Roster (<span data-key="roster">{len(students)}</span>)</h2><p>Every student, by id: '
            f"each id opens the instructor's view of that student's work, <i>feedback</i> the student's own page.</p>"
            + "<table><tr><th>student</th><th>name</th><th>section</th><th>raw</th><th>late penalty</th>"
            "<th>final</th><th></th><th>student's page</th></tr>" + "".join(rows) + "</table>")


def _marks(record: StudentRecord | None, standing: Standing | None, roster_given: bool) -> str:
    marks = ["not on the roster"] if roster_given and (standing is None or standing.person is None) else []
    if standing and standing.excused:
        marks.append("excused")
    if standing and standing.needs_decision:
        marks.append('<a href="#needs-decision">hand-in time needs a decision</a>')
    if standing and standing.overrides:
        marks.append("set by a decision: " + ", ".join(f"{escape(k)} {v:g}" for k, v in standing.overrides.items()))
    if record is None:
        marks.append("nothing handed in")
    elif record.error:
        marks.append("not graded")
    return "; ".join(marks)


def _href(student: str) -> str:
    return f"{escape(quote(file_name(student)))}.html"


def _student(student: str) -> str:
    """The student's id, linked to the instructor's view of their work, and their own feedback page beside it."""
    return (f'<a href="instructor/{_href(student)}">{escape(student)}</a> '
            f'(<a href="feedback/{_href(student)}">feedback</a>)')
