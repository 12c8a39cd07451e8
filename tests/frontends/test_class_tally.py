"""The class counted for the report (graders/frontends/grade/outputs/class_tally.py): students who did not try an
exercise counted by why (no file, the stub untouched, a file that did not import), a timeout apart from a
failure, pass rates of those who tried, and each concept's students counted once."""

from __future__ import annotations

from typing import Any

import course_config
from graders.frontends.grade.outputs.class_tally import OTHER, concept_tallies, exercise_tally
from graders.frontends.grade.store import StudentRecord

VIEWS = course_config.LESSON_01.exercise("views")
FIRST, SECOND = VIEWS.checks[0].id, VIEWS.checks[1].id


def _student(student: str, **failures: dict[str, Any]) -> StudentRecord:
    """A record of views where every check passed but those named (check id -> the failure's fields), or, with
    `every`, where every check failed with those fields."""
    every = failures.pop("every", None)
    checks = []
    for check in VIEWS.checks:
        failure = every if every is not None else failures.get(check.id)
        checks.append({"id": check.id, "points": check.points, "passed": failure is None, "hidden": check.hidden,
                       "score": check.points if failure is None else 0.0, "message": "" if failure is None else "no",
                       **(failure or {})})
    return StudentRecord.from_dict({"student": student, "score": 0.0, "max_score": VIEWS.points, "exercises": [
        {"slug": "views", "score": sum(c["score"] for c in checks), "max_score": VIEWS.points, "checks": checks}]})


CLASS = [_student("ann"),
         _student("bob", **{FIRST: {"mistake": "copies", "concept": "views"}}),
         _student("cat", **{FIRST: {"cause": "timeout of as_grid"}}),
         _student("dan", every={"cause": "missing file"}),
         _student("eve", every={"not_implemented": True}),
         _student("fay", every={"cause": "import"})]


def test_students_who_did_not_try_are_counted_by_why_and_a_timeout_apart() -> None:
    tally = exercise_tally(VIEWS, CLASS)
    assert (tally.no_file, tally.not_started, tally.did_not_import, tally.timed_out) == (1, 1, 1, 1)
    assert len(tally.scores) == len(CLASS)
    # Only ann and bob tried without timing out: bob failed one check of six each.
    checks = len(VIEWS.checks)
    assert (tally.passed, tally.tried) == (2 * checks - 1, 2 * checks) and tally.rate == (2 * checks - 1) / (2 * checks)
    first = tally.checks[FIRST]
    assert (first.passed, first.failed, first.timed_out, first.not_written, first.did_not_import) == (1, 1, 1, 2, 1)
    assert first.rate == 0.5 and first.unnamed == 0, "bob's failure is named; cat's timeout is no failure"
    assert tally.checks[SECOND].rate == 1.0


def test_scores_fall_in_bands_of_the_exercises_points() -> None:
    assert exercise_tally(VIEWS, CLASS).bands() == [3, 0, 0, 0, 2, 1], "three zeros, bob and cat at 75%, ann full"
    assert exercise_tally(VIEWS, []).mean is None and exercise_tally(VIEWS, []).rate is None


def test_each_concept_counts_a_student_once_most_students_first_and_other_last() -> None:
    records = [_student("ann", **{FIRST: {"mistake": "copies", "concept": "views"},
                                  SECOND: {"mistake": "copies", "concept": "views"}}),
               _student("bob", **{FIRST: {"mistake": "transposed"}}),
               _student("cat", **{FIRST: {"mistake": "transposed"}}),
               _student("dan", **{SECOND: {"mistake": "reshape copies", "concept": "views"}}),
               _student("eve", **{FIRST: {"cause": "import"}})]
    tallies = concept_tallies(records)
    assert [(concept, sorted(students)) for concept, students, _ in tallies] == [
        ("views", ["ann", "dan"]), (OTHER, ["bob", "cat"])], "ann made two views mistakes: counted once"
    views = tallies[0][2]
    assert [(m.name, sorted(m.students), sorted(m.where)) for m in views] == [
        ("copies", ["ann"], [("views", FIRST), ("views", SECOND)]), ("reshape copies", ["dan"], [("views", SECOND)])]
