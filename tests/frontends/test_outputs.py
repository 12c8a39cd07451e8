"""Every output of a batch written from stored results (graders/frontends/grade/outputs/outputs.py), with no
grading run: each student's pages and platform files, the answers and the student's own modules, the tables, the
report, similarity and every LMS's import; a student whose lateness waits for a decision held back from lms/ and
said so; and a regrade's changes against an earlier run's folder."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import course_config
from graders.frontends.grade import lms, store
from graders.frontends.grade.outputs.outputs import write_all, write_changes
from graders.frontends.grade.outputs.similarity_run import Similarity
from graders.frontends.grade.store import StudentRecord
from graders.frontends.grade.term.class_term import AppliedTerm
from graders.frontends.grade.term.standing import build_standings

LESSON = course_config.LESSON_01
VIEWS = LESSON.exercise("views")


def _record(student: str, passed: bool) -> StudentRecord:
    checks = [{"id": c.id, "points": c.points, "score": c.points if passed else 0.0, "passed": passed,
               "hidden": c.hidden, "message": "" if passed else "no"} for c in VIEWS.checks]
    score = VIEWS.points if passed else 0.0
    return StudentRecord.from_dict({"student": student, "score": score, "max_score": LESSON.points,
                                    "exercises": [{"slug": "views", "score": score, "max_score": VIEWS.points,
                                                   "checks": checks}], "problems": [], "error": ""})


def _written(out: Path, records: list[StudentRecord], term: AppliedTerm | None = None) -> list[str]:
    answers = {r.student: {"views": f"# {r.student}'s own views\n"} for r in records}
    with Similarity(answers, LESSON) as similarity:
        return write_all(out, records, LESSON, similarity, term=term, modules={"ann": {"helpers": "x = 1\n"}})


def test_every_output_is_written_for_every_student(tmp_path: Path) -> None:
    records = [_record("ann", True), _record("bob", False)]
    written = _written(tmp_path, records)
    for student in ("ann", "bob"):
        for path in (f"feedback/{student}.html", f"instructor/{student}.html", f"gradescope/{student}/results.json",
                     f"classroom/{student}.json", f"answers/{student}/views.py"):
            assert (tmp_path / path).is_file(), path
    assert (tmp_path / "answers" / "ann" / "helpers.py").read_text() == "x = 1\n", "a student's own module"
    for name in ("grades.csv", "mistakes.csv", "report.html", "unnamed_groups.json", "similarity.html"):
        assert name in written and (tmp_path / name).is_file(), name
    assert sorted(p.name for p in (tmp_path / "lms").iterdir()) == sorted(g.file for g in lms.grade_imports())
    gradescope = json.loads((tmp_path / "gradescope" / "bob" / "results.json").read_text())
    assert gradescope["score"] == 0.0 and len(gradescope["tests"]) == len(VIEWS.checks)


def test_a_student_whose_lateness_waits_for_a_decision_is_held_back_from_lms_and_said(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [_record("ann", True), _record("bob", True)]
    standings = build_standings(records, LESSON.points)
    standings["bob"].needs_decision = "the hand-in time is unknown"
    _written(tmp_path, records, AppliedTerm(standings, roster_given=False, ledger=Path("decisions.csv")))
    said = capsys.readouterr().out
    assert "1 student held back from lms/, their hand-in time unknown or impossible: 'bob'" in said, said
    assert "python -m graders decide decisions.csv ID hand_in_time WHEN --reason WHY" in said
    with (tmp_path / "lms" / "blackboard.csv").open() as exported:
        assert [row[0] for row in csv.reader(exported)][1:] == ["ann"]
    grades = {row["student"]: row["score"] for row in csv.DictReader((tmp_path / "grades.csv").open())}
    assert grades == {"ann": f"{VIEWS.points:g}", "bob": ""}, "no final score until the ledger decides"


def test_changes_against_an_earlier_run_are_written_and_said(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    before, now = tmp_path / "before", tmp_path / "now"
    _written(before, [_record("ann", False)])
    store.store(before, _record("ann", False))
    records = [_record("ann", True)]
    _written(now, records)
    assert write_changes(now, before, records) == ["changes.csv", "changes.html"]
    assert "1 student with a new total from the checks, 1 student with a new final grade" in capsys.readouterr().out
    assert len(list(csv.DictReader((now / "changes.csv").open()))) == len(VIEWS.checks)
