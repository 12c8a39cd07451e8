"""Every output of a batch, written from the stored results of the class being graded and the term.

    DIR/students/<id>.json           the result model, with the student, key, origin, problems, error
    DIR/answers/<id>/<slug>.py       what each student handed in, per exercise (for review and later terms)
    DIR/feedback/<id>.html           the student's feedback page (with the term's lines: lateness, decisions)
    DIR/instructor/<id>.html         the instructor's view of it: hidden checks in full, problems, evidence
    DIR/grades.csv, mistakes.csv     the class in tables
    DIR/report.html                  what the class got wrong, who to look at, the roster
    DIR/similarity.csv, .html        answers alike enough to review (never a verdict)
    DIR/unnamed_groups.json          per exercise, the groups of alike failures no named mistake explains
    DIR/lms/canvas.csv               Canvas's gradebook import
    DIR/lms/moodle_worksheet.csv     Moodle's assignment grading worksheet (matched on participant id)
    DIR/lms/moodle_grades.csv        Moodle's gradebook CSV import (matched on e-mail address)
    DIR/lms/blackboard.csv           Blackboard's Grade Center upload (matched on username)
    DIR/gradescope/<id>/results.json Gradescope's format
    DIR/classroom/<id>.json          GitHub Classroom's runner results, one per exercise
    and, with --gradebook on an nbgrader course, its gradebook.db; with --compare, changes.csv and .html
"""

from __future__ import annotations

import json
from pathlib import Path

import course_config
from graders.frontends.wording import counted
from graders.frontends.grade import lms
from graders.frontends.grade.lms.grade_import import held_back
from graders.frontends.grade.outputs import tables
from graders.frontends.grade.term.class_term import AppliedTerm
from graders.frontends.grade.outputs.feedback_html import feedback_html
from graders.frontends.grade.outputs.similarity_run import Similarity, similarity_written
from graders.frontends.grade.outputs.report import report_html
from graders.frontends.grade.term.standing import build_standings
from graders.frontends.grade.store import StudentRecord, file_name, previous_records, write_atomically
from graders.frontends.grade.outputs.unnamed_groups import members, references, unnamed_groups
from graders.frontends.platforms import classroom_runners, gradescope_results


def write_all(out: Path, records: list[StudentRecord], lesson: course_config.Lesson, similarity: Similarity, *,
              gradebook_course: Path | None = None, assignment: str = "lesson01",
              term: AppliedTerm | None = None, modules: dict[str, dict[str, str]] | None = None) -> list[str]:
    """Write every output; returns what was written, for the summary line. `similarity` is the comparison of the
    class's answers, started before grading (answers/ is written from its answers, and from `modules`: each
    student's own modules, graded beside them)."""
    term = term or AppliedTerm(build_standings(records, lesson.points), roster_given=False)
    standings, answers = term.standings, similarity.answers
    for record in records:
        name = file_name(record.student)
        standing = standings.get(record.student)
        write_atomically(out / "feedback" / f"{name}.html", feedback_html(record, lesson, out, standing=standing))
        write_atomically(out / "instructor" / f"{name}.html",
                         feedback_html(record, lesson, out, standing=standing, instructor=True))
        write_atomically(out / "gradescope" / name / "results.json",
                         json.dumps(gradescope_results(record, standing, error=record.error,
                                                       problems=record.problems), indent=2) + "\n")
        write_atomically(out / "classroom" / f"{name}.json",
                         json.dumps(classroom_runners(record, standing, error=record.error), indent=2) + "\n")
    for student, sources in answers.items():
        for slug, source in sources.items():
            write_atomically(out / "answers" / file_name(student) / f"{slug}.py", source)
    for student, own in (modules or {}).items():
        for name, source in own.items():
            write_atomically(out / "answers" / file_name(student) / f"{name}.py", source)
    slugs = [e.slug for e in lesson.exercises]
    groups = unnamed_groups(records, slugs, answers, references(course_config.ROOT, lesson.folder, slugs))
    unnamed = {slug: [g.as_json(len(records)) for g in listed] for slug, listed in groups.items()}
    write_atomically(out / "unnamed_groups.json", json.dumps(unnamed, indent=2) + "\n")
    stats = tables.class_stats(records, lesson, members(groups))
    everyone = sorted((s for s in standings.values() if s.graded), key=lambda s: s.student)
    waiting = sorted(s.student for s in standings.values() if not s.graded)
    if waiting:  # an LMS import would zero them
        print(f"graders grade: {counted(len(waiting), 'student')} left out of lms/ (handed in, not graded by this run: "
              f"{', '.join(map(repr, waiting[:5]))}{', ...' if len(waiting) > 5 else ''}); run again to grade them",
              flush=True)
    undecided = held_back(everyone)
    if undecided:  # an LMS import would publish a lateness no one decided
        ledger = term.ledger or "decisions.csv"
        print(f"graders grade: {counted(len(undecided), 'student')} held back from lms/, their hand-in time unknown or "
              f"impossible: {', '.join(map(repr, undecided[:10]))}{', ...' if len(undecided) > 10 else ''}; decide "
              f"each (grades.csv's needs_decision and the report say how: python -m graders decide {ledger} ID "
              f"hand_in_time WHEN --reason WHY), then run the same command again", flush=True)
    exported = [s for s in everyone if not s.needs_decision]
    write_atomically(out / "grades.csv", tables.grades_csv(records, lesson, standings))
    write_atomically(out / "mistakes.csv", tables.mistakes_csv(stats, len(records)))
    similar = similarity_written(out, similarity)
    write_atomically(out / "report.html", report_html(records, lesson, stats, standings=standings, similar=[
        {"exercise": p.exercise, "first": p.first, "second": p.second, "similarity": p.similarity} for p in similar],
        unnamed=unnamed, requests=[{"student": d.student, "exercise": d.exercise, "value": d.value,
                                    "when": f"{d.when:%Y-%m-%d}"} for d in term.open_requests]))
    lms_settings = {"canvas_assignment_id": term.canvas_assignment_id}  # the term file's keys an LMS reads
    for grade_import in lms.grade_imports():
        write_atomically(out / "lms" / grade_import.file,
                         grade_import.write(everyone, assignment, lesson.points, lms_settings))
        left_out = grade_import.left_out(exported) if grade_import.left_out else []
        # Everyone left out of a file is said only where a roster should have given them (a class not from Moodle
        # is left out of Moodle's worksheet whole, which needs no word); a file that leaves out some says so.
        if left_out and len(left_out) < len(exported):
            print(f"graders grade: lms/{grade_import.file} leaves out {counted(len(left_out), 'student')} "
                  f"({', '.join(map(repr, left_out[:5]))}{', ...' if len(left_out) > 5 else ''}): "
                  f"{grade_import.why_left_out}", flush=True)
        elif (left_out and grade_import.when_empty_with_roster and term.roster_given
              and len(left_out) == len(exported)):
            print(f"graders grade: lms/{grade_import.file} holds no student: "
                  + grade_import.when_empty_with_roster.format(students=counted(len(exported), 'student')), flush=True)
    written = ["students/", "answers/", "feedback/", "instructor/", "grades.csv", "mistakes.csv", "report.html",
               "unnamed_groups.json",
               "similarity.html", "lms/", "gradescope/", "classroom/"]
    if term.open_requests:
        print(f"graders grade: {counted(len(term.open_requests), 'regrade request')} "
              f"still open in {term.ledger} (python -m graders decide {term.ledger} --show)", flush=True)
    if gradebook_course is not None:
        written += _gradebook(gradebook_course, assignment, records, standings)
    return written


def _gradebook(course: Path, assignment: str, records: list[StudentRecord], standings: dict) -> list[str]:
    from graders.frontends.nbgrader.gradebook import GradebookError, write_gradebook

    try:
        done = write_gradebook(course, assignment, records, standings)
    except GradebookError as error:
        print(f"graders grade: the gradebook was not written: {error}")
        return []
    except Exception as error:  # SQLAlchemy's: a database locked by an open formgrader, a damaged file
        print(f"graders grade: the gradebook was not written ({type(error).__name__}: {error}); close the "
              f"formgrader and run again: nothing is graded again")
        return []
    for what in done.unexpressed:
        print(f"graders grade: gradebook: {what} has no place in nbgrader's gradebook (it keeps each cell's "
              f"score): set exercises' scores instead (decide ... override --exercise) to reach it", flush=True)
    for why in done.refused:
        print(f"graders grade: gradebook: left {why}: nbgrader generate_feedback would show the gradebook's score "
              f"above outputs that say another; run `nbgrader autograde {assignment} --force` for them (the two "
              f"paths give the same scores) or hand out the batch's feedback pages", flush=True)
    if done.without_feedback:
        print(f"graders grade: gradebook: {counted(len(done.without_feedback), 'student')} without an autograded "
              f"notebook, so "
              f"`nbgrader generate_feedback` makes no page for them: hand out feedback/<id>.html from this folder",
              flush=True)
    return [f"{course / 'gradebook.db'} ({counted(done.students, 'student')})"]


def write_changes(out: Path, previous: Path, records: list[StudentRecord]) -> list[str]:
    """changes.csv and changes.html: what this run changes against `previous`, said on the terminal too."""
    from graders.frontends.grade.outputs import regrade

    before = previous_records(previous, out)
    found = regrade.changes(before, records)
    moved = regrade.totals(before, records)
    write_atomically(out / "changes.csv", regrade.changes_csv(found))
    finals = regrade.published(previous), regrade.published(out)  # this run's grades.csv is written by now
    regraded = sum(1 for s, score in finals[1].items() if s in finals[0] and finals[0][s] != score)
    write_atomically(out / "changes.html", regrade.changes_html(found, moved, str(previous), finals))
    print(f"graders grade: against {previous}: {counted(len(moved), 'student')} with a new total from the checks, "
          f"{counted(regraded, 'student')} with a new final grade, {counted(len(found), 'check result')} moved "
          f"(changes.html); nothing is published until you upload this folder's outputs", flush=True)
    return ["changes.csv", "changes.html"]
