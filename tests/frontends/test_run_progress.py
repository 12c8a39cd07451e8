"""What a long batch shows while it runs (graders/frontends/grade/run/progress.py), where its output is no
terminal: one line per student as each finishes, counted, with the score or why it was not graded."""

from __future__ import annotations

import io

from graders.frontends.grade.run.progress import Progress
from graders.frontends.grade.store import StudentRecord
from graders.frontends.grade.run import cluster


def _record(score: float, *, error: str = "", problems: tuple[str, ...] = ()) -> StudentRecord:
    return StudentRecord.from_dict({"student": "s", "score": score, "max_score": 100.0, "exercises": [],
                                    "problems": list(problems), "error": error})


def test_each_student_is_one_counted_line_with_the_score_or_why_not() -> None:
    log = io.StringIO()  # no terminal: lines, not a bar
    progress = Progress(12, log)
    progress.done("ann", _record(87.5))
    progress.done("bob", _record(0.0, error="the notebook is not JSON"))
    progress.done("cat", _record(40.0, problems=("two notebooks",)))
    progress.close()
    assert log.getvalue().splitlines() == [
        "[ 1/12] ann: 87.5 / 100",
        "[ 2/12] bob: not graded: the notebook is not JSON",
        "[ 3/12] cat: 40 / 100 (1 problem)",
    ]
    assert (progress.count, progress.failed, progress.problems) == (3, 1, 1)


def test_a_term_that_changed_the_score_shows_it_beside_the_checks() -> None:
    log = io.StringIO()
    Progress(1, log).done("ann", _record(90.0), term="81 after 1 late day")
    assert log.getvalue() == "[1/1] ann: 81 after 1 late day (90 from the checks)\n"


def test_counts_read_one_problem_and_two_problems() -> None:
    stream = io.StringIO()
    progress = Progress(3, stream)
    for student, problems in (("ann", []), ("gus", ["one"]), ("hal", ["one", "two"])):
        progress.done(student, StudentRecord.from_dict({"score": 1.0, "max_score": 2.0, "exercises": [],
                                                        "problems": problems, "error": ""}))
    assert stream.getvalue().splitlines() == ["[1/3] ann: 1 / 2", "[2/3] gus: 1 / 2 (1 problem)",
                                              "[3/3] hal: 1 / 2 (2 problems)"]
    assert "ran it once (" in cluster.killed_worker_message(1) and "ran it twice (" in cluster.killed_worker_message(2)
    assert "ran it 4 times (" in cluster.killed_worker_message(4)
