"""`student.call(..., meanwhile=...)`: the grader computes an expected value on a thread of its own while a
real worker runs the student's call. The two overlap; the call's time limit and the time charged to the student
are those of the call alone, however long the grader computes; what the computation raises is raised by `value`
and leaves the worker in step; where no worker runs the call (a reused answer, `--in-process`), the value is
computed on its own, after the call."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import pytest

from graders import sandbox
from graders.engine.allowance import Allowance
from graders.engine.feedback import CheckFailed
from graders.engine.student import Meanwhile, Student
from graders.sandbox import Budget
from graders.sandbox.in_process import InProcess
from graders.sandbox.shared import SubmissionWorker

MODULE = """
import time

calls = 0


def run(x):
    global calls
    calls += 1
    while x == 5:  # a call that never ends
        pass
    return {"x": x, "calls": calls}


def sleep_for(seconds):
    started = time.time()
    time.sleep(seconds)
    return started, time.time()


def big(n):
    return list(range(n))
"""
CALL_SECONDS = 1.0
BUSY_GRADER = 2.5 * CALL_SECONDS  # the grader's computation: longer than a call may take


@pytest.fixture
def module(tmp_path: Path) -> Path:
    (tmp_path / "lesson01").mkdir()
    path = tmp_path / "lesson01" / "timing.py"
    path.write_text(MODULE)
    return path


def _student(module: Path, call_seconds: float) -> tuple[Student, SubmissionWorker]:
    budget = Budget(call_seconds=call_seconds, import_seconds=30, memory_mb=1024, output_kb=64, message_mb=16)
    sandbox.prepare()
    shared = SubmissionWorker(module.parent, budget, sandbox.Settings())
    allowance = Allowance(600.0, "this exercise", "exercise_seconds")
    handle = Student(module, "timing.py", budget, [], lambda: shared.lease(module), allowance=allowance)
    handle.call("run", 1)  # the worker started and the module loaded: later calls are calls alone
    return handle, shared


@pytest.fixture
def student(module: Path) -> Iterator[Student]:
    handle, shared = _student(module, CALL_SECONDS)
    yield handle
    handle.close()
    shared.close()  # its worker too: a worker left running would be another test's "process left behind"


def _sleeper(seconds: float) -> Meanwhile:
    def compute() -> tuple[float, float]:
        started = time.time()
        time.sleep(seconds)
        return started, time.time()

    return Meanwhile(compute)


def test_the_expected_value_is_computed_while_the_worker_runs_the_call(module: Path) -> None:
    handle, shared = _student(module, call_seconds=60.0)
    try:
        grader = _sleeper(2.0)
        call_start, call_end = handle.call("sleep_for", 2.0, meanwhile=grader).value
        grader_start, grader_end = grader.value
        # One after the other, either way round, the two spans could not overlap.
        assert max(call_start, grader_start) < min(call_end, grader_end)
    finally:
        handle.close()
        shared.close()


def test_the_graders_time_is_neither_the_call_limit_nor_the_students_allowance(student: Student) -> None:
    spent = student.allowance.spent
    grader = _sleeper(BUSY_GRADER)
    # A long answer, sent at once in many pieces, each read as it comes: none of them is judged late.
    returned = student.call("big", 200_000, meanwhile=grader)
    assert returned.value == list(range(200_000))  # within its limit, though the grader computed for 2.5 limits
    grader_start, grader_end = grader.value
    assert grader_end - grader_start >= BUSY_GRADER
    assert student.allowance.spent - spent < BUSY_GRADER - CALL_SECONDS  # the call's time, not the grader's


def test_a_call_that_runs_past_its_limit_is_stopped_however_long_the_grader_computes(student: Student) -> None:
    with pytest.raises(CheckFailed, match="did not return"):
        student.call("sleep_for", 1.6 * CALL_SECONDS, meanwhile=_sleeper(BUSY_GRADER))
    with pytest.raises(CheckFailed, match="did not return"):
        student.call("run", 5, meanwhile=_sleeper(0.3))


def test_what_the_computation_raises_is_raised_by_its_value_and_the_worker_stays_in_step(student: Student) -> None:
    def broken() -> None:
        raise ValueError("the grader's own bug")

    failing = Meanwhile(broken)
    assert student.call("run", 2, meanwhile=failing).value == {"x": 2, "calls": 2}
    with pytest.raises(ValueError, match="the grader's own bug"):
        failing.value
    assert student.call("run", 3).value == {"x": 3, "calls": 3}


def test_the_value_is_computed_on_its_own_where_no_worker_runs_the_call(student: Student, module: Path) -> None:
    student.call("run", 2, reuse=True)
    kept = Meanwhile(lambda: "expected")
    assert student.call("run", 2, reuse=True, meanwhile=kept).value["calls"] == 2  # the reused answer
    assert kept.value == "expected"

    in_process = Student(module, "timing.py", student.budget, [], lambda: InProcess(module))
    try:
        ran: list[str] = []
        beside = Meanwhile(lambda: ran.append("computed") or "expected")
        assert in_process.call("run", 2, meanwhile=beside).value == {"x": 2, "calls": 1}
        assert ran == []  # nothing of the grader's runs beside student code in the grader's own process
        assert beside.value == "expected" and beside.value == "expected" and ran == ["computed"]  # once
    finally:
        in_process.close()
