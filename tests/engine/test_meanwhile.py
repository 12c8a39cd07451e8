"""`student.call(..., meanwhile=...)`: the grader computes an expected value while a real worker runs the
student's call. The two overlap; the grader's time is neither charged to the student nor able to turn a call
that answered in time into a timeout; a computation that fails leaves the worker in step; where the call never
reaches a worker, the value is computed all the same."""

from __future__ import annotations

import select
import time
from pathlib import Path

import pytest

from graders import sandbox
from graders.engine.allowance import Allowance
from graders.engine.feedback import CheckFailed
from graders.engine.student import Meanwhile, Student
from graders.sandbox import Budget
from graders.sandbox.in_process import InProcess
from graders.sandbox.shared import SubmissionWorker

MODULE = """
calls = 0


def run(x):
    global calls
    calls += 1
    while x == 5:  # a call that never ends
        pass
    return {"x": x, "calls": calls}
"""
CALL_SECONDS = 1.0


@pytest.fixture
def module(tmp_path: Path) -> Path:
    (tmp_path / "lesson01").mkdir()
    path = tmp_path / "lesson01" / "counting.py"
    path.write_text(MODULE)
    return path


@pytest.fixture
def student(module: Path):
    budget = Budget(call_seconds=CALL_SECONDS, import_seconds=10, memory_mb=1024, output_kb=64, message_mb=16)
    sandbox.prepare()
    shared = SubmissionWorker(module.parent, budget, sandbox.Settings())
    allowance = Allowance(2.0, "this exercise", "exercise_seconds")
    handle = Student(module, "counting.py", budget, [], lambda: shared.lease(module), allowance=allowance)
    yield handle
    handle.close()
    shared.close()  # its worker too: a worker left running would be another test's "process left behind"


def _answer_waiting(student: Student, seconds: float) -> bool:
    """Whether the worker's answer is ready to read within `seconds`: the call is running, or ran, by now."""
    socket = student._backend.worker.sock  # type: ignore[union-attr]  # the lease's worker, as the grader reads it
    return bool(select.select([socket], [], [], seconds)[0])


def test_the_expected_value_is_computed_while_the_worker_runs_the_call(student: Student) -> None:
    student.call("run", 1)  # the module loaded, so that the next call is a call alone
    seen: list[bool] = []
    # Had the call been sent only after the computation, its answer could never come during it.
    want = Meanwhile(lambda: seen.append(_answer_waiting(student, 30.0)) or "expected")
    returned = student.call("run", 2, meanwhile=want)
    assert seen == [True]
    assert returned.value == {"x": 2, "calls": 2} and want.value == "expected"


def test_the_graders_time_is_not_the_students(student: Student) -> None:
    student.call("run", 1)

    def slow_work() -> None:
        assert _answer_waiting(student, 30.0)
        time.sleep(2.5 * CALL_SECONDS)

    slow = Meanwhile(slow_work)
    returned = student.call("run", 2, meanwhile=slow)  # answered at once, read after 2.5 s of the grader's work
    assert returned.value == {"x": 2, "calls": 2}  # no timeout: the call itself took far less than its limit
    assert slow.seconds >= 2.5 * CALL_SECONDS
    assert student.allowance.used_up() is None  # 2 s for the exercise: the grader's 2.5 s were not counted
    assert student.call("run", 3).value["calls"] == 3


def test_a_call_that_runs_past_its_limit_is_stopped_though_the_grader_was_busy(student: Student) -> None:
    student.call("run", 1)
    busy = Meanwhile(lambda: time.sleep(0.3))
    with pytest.raises(CheckFailed, match="did not return"):
        student.call("run", 5, meanwhile=busy)
    assert busy.seconds >= 0.3


def test_a_computation_that_fails_is_raised_after_the_answer_is_taken(student: Student) -> None:
    student.call("run", 1)

    def broken() -> None:
        raise ValueError("the grader's own bug")

    with pytest.raises(ValueError, match="the grader's own bug"):
        student.call("run", 2, meanwhile=Meanwhile(broken))
    # The answer to run(2) was read, so the next call gets its own answer, from the same worker.
    assert student.call("run", 3).value == {"x": 3, "calls": 3}


def test_the_value_is_computed_where_no_worker_ran_the_call(student: Student, module: Path) -> None:
    student.call("run", 2, reuse=True)
    kept = Meanwhile(lambda: "expected")
    assert student.call("run", 2, reuse=True, meanwhile=kept).value["calls"] == 1  # the reused answer
    assert kept.value == "expected"

    in_process = Student(module, "counting.py", student.budget, [], lambda: InProcess(module))
    try:
        ran: list[str] = []
        beside = Meanwhile(lambda: ran.append("computed") or "expected")
        assert in_process.call("run", 2, meanwhile=beside).value == {"x": 2, "calls": 1}
        assert ran == ["computed"] and beside.value == "expected" and ran == ["computed"]  # once, after the call
    finally:
        in_process.close()
