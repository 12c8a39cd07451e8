"""What a check's `student.call` gives (graders/engine/student.py), with a real worker: a call made with `reuse` runs once per
exercise and hands each later check a copy of its answer; any other call runs the student's code again."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders import sandbox
from graders.engine.feedback import CheckFailed
from graders.sandbox import Budget
from graders.sandbox.shared import SubmissionWorker
from graders.engine.student import Student

COUNTING = """
calls = 0


def run(x):
    global calls
    calls += 1
    while x == 5:  # a call that never ends
        pass
    print("running")
    return {"x": x, "calls": calls, "losses": [1.0, 0.5]}
"""


def _student(tmp_path: Path) -> tuple[Student, SubmissionWorker]:
    (tmp_path / "lesson01").mkdir()
    module = tmp_path / "lesson01" / "counting.py"
    module.write_text(COUNTING)
    budget = Budget(call_seconds=1, import_seconds=10, memory_mb=1024, output_kb=64, message_mb=16)
    sandbox.prepare()
    shared = SubmissionWorker(module.parent, budget, sandbox.Settings())
    return Student(module, "counting.py", budget, [], lambda: shared.lease(module)), shared


def test_a_reused_call_runs_once_and_each_check_gets_its_own_copy(tmp_path: Path) -> None:
    student, shared = _student(tmp_path)
    try:
        first = student.call("run", 2, reuse=True, shown_as="run(2)")
        first.value["losses"].append(0.0)  # what one check does to its answer is not the next one's
        again = student.call("run", 2, reuse=True, shown_as="run(2), again")
        assert again.value == {"x": 2, "calls": 1, "losses": [1.0, 0.5]} and again.call == "run(2), again"
        assert student.take_printed() == "running\nrunning\n"  # each check is shown what the run printed
        assert student.call("run", 3, reuse=True).value["calls"] == 2  # other arguments: run
        assert student.call("run", 2).value["calls"] == 3  # without reuse: run again, as a check may need
    finally:
        student.close()
        shared.close()  # its worker too: a worker left running would be another test's "process left behind"


def test_a_reused_answer_is_not_given_for_a_function_that_has_timed_out_since(tmp_path: Path) -> None:
    student, shared = _student(tmp_path)
    try:
        assert student.call("run", 2, reuse=True).value["calls"] == 1
        with pytest.raises(CheckFailed, match="did not return"):
            student.call("run", 5)
        with pytest.raises(CheckFailed, match="already ran out of time"):  # as a second run of it would say
            student.call("run", 2, reuse=True)
    finally:
        student.close()
        shared.close()  # its worker too: a worker left running would be another test's "process left behind"
