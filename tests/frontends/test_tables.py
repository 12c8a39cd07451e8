"""The class in two tables (graders/frontends/grade/outputs/tables.py): grades.csv, a row per student with the
term's final score, and mistakes.csv, a row per check and mistake, a failure no mistake names counted by its
kind. Both read back with csv, as a spreadsheet would. (Every cell's guard is test_spreadsheet.py's.)"""

from __future__ import annotations

import csv
import io
from typing import Any

import course_config
from graders.frontends.grade.outputs import tables
from graders.frontends.grade.store import StudentRecord
from graders.frontends.grade.term.standing import Person, Standing

LESSON = course_config.LESSON_01
VIEWS = LESSON.exercise("views")
FIRST = VIEWS.checks[0]


def _record(student: str, failure: dict[str, Any] | None = None, **fields: Any) -> StudentRecord:
    """A record of views alone: every check passed, or the first failed with these fields."""
    checks = [{"id": c.id, "points": c.points, "hidden": c.hidden, "message": "",
               "passed": not (failure is not None and c is FIRST),
               "score": 0.0 if failure is not None and c is FIRST else c.points,
               **(failure if failure is not None and c is FIRST else {})} for c in VIEWS.checks]
    score = sum(c["score"] for c in checks)
    return StudentRecord.from_dict({"student": student, "score": score, "max_score": LESSON.points, "exercises": [
        {"slug": "views", "score": score, "max_score": VIEWS.points, "checks": checks}], **fields})


def test_class_stats_count_each_checks_students_and_a_failure_by_its_mistake_or_kind() -> None:
    records = [_record("ann"), _record("bob", {"mistake": "copies"}), _record("cat", {"not_implemented": True}),
               _record("dan", {"cause": "missing file"}), _record("eve", {"cause": "import"}),
               _record("fay", {}), _record("gus", {})]
    stats = {(s.exercise, s.check): s for s in tables.class_stats(records, LESSON, {("gus", "views"): "(group 1)"})}
    assert len(stats) == sum(len(e.checks) for e in LESSON.exercises), "one row per check of the lesson"
    first = stats[("views", FIRST.id)]
    assert (first.students, first.passed, first.pass_rate) == (7, 1, 1 / 7)
    assert dict(first.mistakes) == {"copies": 1, tables.NOT_STARTED: 1, tables.NOT_HANDED_IN: 1,
                                    tables.DID_NOT_IMPORT: 1, tables.NOT_NAMED: 1, "(group 1)": 1}
    untried = stats[("micrograd", LESSON.exercise("micrograd").checks[0].id)]
    assert (untried.students, untried.pass_rate) == (0, 0.0)


def test_mistakes_csv_has_a_row_per_mistake_most_common_first_and_one_for_a_check_nobody_failed() -> None:
    records = [_record("ann"), _record("bob", {"mistake": "copies"}), _record("cat", {"mistake": "copies"}),
               _record("dan", {"mistake": "transposed"})]
    rows = list(csv.DictReader(io.StringIO(tables.mistakes_csv(tables.class_stats(records, LESSON), len(records)))))
    first = [(r["mistake"], r["count"], r["share"], r["pass_rate"]) for r in rows if r["check"] == FIRST.id]
    assert first == [("copies", "2", "0.500", "0.250"), ("transposed", "1", "0.250", "0.250")]
    second = [r for r in rows if r["check"] == VIEWS.checks[1].id]
    assert [(r["mistake"], r["count"], r["passed"]) for r in second] == [("", "0", "4")]


def test_grades_csv_gives_the_final_score_and_the_roster_and_exercise_columns() -> None:
    records = [_record("ann", {"mistake": "copies"}, problems=["two notebooks"]), _record("bob"),
               _record("cat"), _record("dan")]
    ann = Standing(student="ann", person=Person("ann", "Ann Lee", "ann@uni.example", "S1", section="A"),
                   handed_in=True, raw=records[0].score, max_score=LESSON.points, final=2.5, late_days=2,
                   penalty=0.2, overrides={"views": 4.0}, notes=["late by 2 days"])
    standings = {"ann": ann,
                 "bob": Standing(student="bob", person=None, handed_in=True, raw=6.0, max_score=100.0, excused=True),
                 "cat": Standing(student="cat", person=None, handed_in=True, raw=6.0, max_score=100.0, final=6.0,
                                 needs_decision="its hand-in time is unknown"),
                 "eve": Standing(student="eve", person=Person("eve"), handed_in=False, raw=0.0, max_score=100.0)}
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(tables.grades_csv(records, LESSON, standings)))}
    assert list(rows) == ["ann", "bob", "cat", "dan", "eve"], "graded students and roster students, by id"
    assert (rows["ann"]["name"], rows["ann"]["score"], rows["ann"]["raw_score"], rows["ann"]["penalty_percent"],
            rows["ann"]["views"], rows["ann"][f"views.{FIRST.id}"], rows["ann"]["problems"]) == (
        "Ann Lee", "2.5", f"{records[0].score:g}", "20", "4", "0", "two notebooks")
    assert rows["bob"]["score"] == "EX" and rows["cat"]["score"] == "" and rows["cat"]["needs_decision"]
    assert rows["dan"]["score"] == "6" and rows["dan"]["time_source"] == "", "no standing: the checks' score"
    assert rows["eve"]["score"] == "0" and rows["eve"]["views"] == "0"
    assert rows["ann"]["max_score"] == f"{LESSON.points:g}"
