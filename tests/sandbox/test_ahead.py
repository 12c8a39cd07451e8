"""Loads and requests sent ahead from the run before's plan (graders/sandbox/ahead.py) change when the worker
computes an answer, never what the answer is: each is what its request gets after exactly the checks' own
earlier requests, whatever the plan foresaw, and a call or load is judged by its own time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import mistake_catalogue as catalogue
import torch
from conftest import ROOT

from graders import sandbox
from graders.engine import kept_values, request_plans
from graders.engine.feedback import CheckFailed
from graders.engine.student import Student
from graders.sandbox import Budget
from graders.sandbox.shared import SubmissionWorker
from graders.sandbox.zygote import ZYGOTE

COUNTING = """
calls = 0


def run(x):
    global calls
    calls += 1
    while x == 5:  # a call that never ends
        pass
    return {"x": x, "calls": calls}


def count(x):
    return {"x": x, "calls": calls}


def slow(seconds):
    import time
    time.sleep(seconds)
    return seconds


first_stamp = None


def stamp(x):
    import time
    global first_stamp
    first_stamp = first_stamp or time.time_ns()
    return first_stamp
"""
SLOW_IMPORT = "import time\n\ntime.sleep(3)\n\n\ndef double(x):\n    return 2 * x\n"
OTHER = "def double(x):\n    return 2 * x\n"
LARGE = "import torch\n\n\ndef filled(x, size, padding):\n    return torch.full((size,), float(x))\n"
BUDGET = Budget(call_seconds=2, import_seconds=10, memory_mb=1024, output_kb=64, message_mb=16)


def _submission(tmp_path: Path) -> Path:
    folder = tmp_path / "lesson01"
    folder.mkdir(exist_ok=True)
    (folder / "counting.py").write_text(COUNTING)
    (folder / "other.py").write_text(OTHER)
    return folder


def _worker(folder: Path, plans: dict | None = None, budget: Budget = BUDGET) -> SubmissionWorker:
    """The folder's submission worker, sent ahead what `plans` hold."""
    sandbox.prepare()
    return SubmissionWorker(folder, budget, sandbox.Settings(), plans)


def _student(shared: SubmissionWorker, module: str = "counting", budget: Budget = BUDGET) -> Student:
    """An exercise's handle on one module of the folder, as a check holds it."""
    path = shared.code_folder / f"{module}.py"
    return Student(path, path.name, budget, [], lambda: shared.lease(path))


def _asked(folder: Path, calls: list[int], plans: dict | None = None) -> tuple[list, SubmissionWorker, Student]:
    """Ask counting.run(x) for each x (count(x) for a negative x), in a fresh submission worker given `plans`;
    the answers, or the failure a check would get."""
    shared = _worker(folder, plans)
    student = _student(shared)
    answers = []
    for x in calls:
        try:
            answers.append(student.call("run", x).value if x >= 0 else student.call("count", x).value)
        except Exception as failed:  # noqa: BLE001 - a timeout fails the check: here it is an answer too
            answers.append(type(failed).__name__)
    return answers, shared, student


def _plan_of(folder: Path, calls: list[int]) -> dict:
    """The plan a run that asked counting.run(x) for each x leaves the next."""
    _, shared, student = _asked(folder, calls)
    student.close()
    shared.close()
    return shared.asked


def test_a_plan_that_holds_sends_every_request_ahead_and_changes_no_answer(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    before, shared, student = _asked(folder, [1, 2, 3])
    student.close()
    shared.close()
    assert before == [{"x": 1, "calls": 1}, {"x": 2, "calls": 2}, {"x": 3, "calls": 3}]
    plans = shared.asked
    again = _worker(folder, plans)
    student = _student(again)
    try:
        assert student.call("run", 1).value == before[0]
        assert len(again.ahead.sent) == 2  # the other two went with the first, before its answer was read
        assert [student.call("run", x).value for x in (2, 3)] == before[1:]
        assert again.asked == plans  # what the next run will send ahead
    finally:
        student.close()
        again.close()


def _two_modules_asked(folder: Path, plans: dict | None, counting_calls: list[int]) -> tuple[list, SubmissionWorker]:
    shared = _worker(folder, plans)
    counting = _student(shared)
    answers = [counting.call("run", x).value for x in counting_calls]
    counting.close()  # the exercise ends; the next begins
    other = _student(shared, "other")
    answers.append(other.call("double", 21).value)
    answers.append(shared.ahead.current)  # "other" where its load and request came from the plan
    other.close()
    shared.close()
    return answers, shared


def test_the_next_modules_load_and_requests_go_ahead_once_this_ones_plan_is_out(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    before, shared = _two_modules_asked(folder, None, [1, 2])
    assert list(shared.asked) == ["counting", "other"]  # the run's order: the next run's plan
    spawned = ZYGOTE.count
    again, _ = _two_modules_asked(folder, shared.asked, [1, 2])
    assert before == [{"x": 1, "calls": 1}, {"x": 2, "calls": 2}, 42, None]
    assert again == before[:3] + ["other"]  # other.py's load and request went ahead when counting's exercise ended
    assert ZYGOTE.count == spawned + 1  # one worker for both, as without a plan


def test_an_exercise_that_ends_sooner_than_its_plan_leaves_the_next_one_its_own(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    _, shared = _two_modules_asked(folder, None, [1, 2, 3])
    spawned = ZYGOTE.count
    answers, again = _two_modules_asked(folder, shared.asked, [1])  # run(2) and run(3) went ahead, unasked
    assert answers == [{"x": 1, "calls": 1}, 42, "other"]  # other.py still followed its own plan
    assert ZYGOTE.count == spawned + 2  # the worker that ran them ahead was stopped; other.py loaded in a fresh one
    assert list(again.asked["counting"]) == shared.asked["counting"][:1]


def test_a_request_after_all_the_plan_held_goes_on_in_the_same_worker(tmp_path: Path) -> None:
    """stamp() keeps the time of its first call: a worker asked the first call again would give another. The plan
    goes on with other.py, whose load must not have gone ahead while counting's checks still ask."""
    folder = _submission(tmp_path)

    def ask(plans: dict | None, stamps: list[int]) -> tuple[list, SubmissionWorker]:
        shared = _worker(folder, plans)
        counting = _student(shared)
        answers = [counting.call("stamp", x).value for x in stamps]
        counting.close()
        other = _student(shared, "other")
        answers.append(other.call("double", 21).value)
        other.close()
        shared.close()
        return answers, shared

    _, shared = ask(None, [1])
    answers, _ = ask(shared.asked, [1, 2])  # stamp(2): a request the run before did not make
    assert answers[0] == answers[1] and answers[2] == 42, answers


def test_a_load_sent_ahead_that_runs_past_its_time_limit_is_a_timeout_as_without_a_plan(tmp_path: Path) -> None:
    """other.py sleeps 3 s on import, its limit is 2 s; its load goes ahead when counting's exercise ends, and the
    grader takes 2.5 s more before the next exercise asks for it."""
    folder = _submission(tmp_path)
    (folder / "other.py").write_text(SLOW_IMPORT)
    budget = Budget(call_seconds=2, import_seconds=2, memory_mb=1024, output_kb=64, message_mb=16)

    def ask(plans: dict | None) -> tuple[str, SubmissionWorker]:
        shared = _worker(folder, plans, budget)
        counting = _student(shared, budget=budget)
        counting.call("run", 1)
        counting.close()
        time.sleep(2.5)  # the grader setting up the next exercise
        other = _student(shared, "other", budget)
        try:
            other.call("double", 21)
            result = "returned"
        except CheckFailed as failed:
            result = failed.feedback.got or failed.feedback.summary
        other.close()
        shared.close()
        return result, shared

    without, shared = ask(None)
    assert "did not finish within 2 s" in without, without
    assert ask(shared.asked)[0] == without


def test_a_request_the_plan_did_not_foresee_gets_the_answer_it_would_have_got_without_one(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    again = _worker(folder, _plan_of(folder, [1, 2, 3]))
    student = _student(again)
    try:
        assert student.call("run", 1).value == {"x": 1, "calls": 1}
        time.sleep(0.5)  # run(2) and run(3), sent ahead, have run by now
        # Only run(1) was asked before: a worker asked run(7) next would have counted 2 calls, not 4.
        assert student.call("run", 7).value == {"x": 7, "calls": 2}
        assert student.call("run", 8).value == {"x": 8, "calls": 3}
    finally:
        student.close()
        again.close()


def test_a_planned_call_that_never_ends_costs_nothing_when_it_is_not_asked(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    first, shared, student = _asked(folder, [1, 5])
    assert first[0] == {"x": 1, "calls": 1} and first[1] == "CheckFailed"  # run(5) timed out
    student.close()
    shared.close()
    again = _worker(folder, shared.asked)
    student, other = _student(again), _student(again, "other")
    try:
        assert student.call("run", 1).value == {"x": 1, "calls": 1}
        student.close()  # the exercise ends; run(5) went ahead and is still looping
        started, spawned = time.monotonic(), ZYGOTE.count
        assert other.call("double", 21).value == 42
        assert ZYGOTE.count == spawned + 1  # in a fresh worker: the looping one was stopped
        assert time.monotonic() - started < BUDGET.call_seconds  # nothing waited for the loop's time limit
    finally:
        other.close()
        again.close()


def test_a_planned_call_that_times_out_when_asked_is_a_timeout_as_before(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    first, shared, student = _asked(folder, [1, 5, -1])
    student.close()
    shared.close()
    again, shared_again, student_again = _asked(folder, [1, 5, -1], shared.asked)
    student_again.close()
    shared_again.close()
    # count() comes after the timeout, in a fresh worker in both runs: nothing is counted there yet.
    assert first == [{"x": 1, "calls": 1}, "CheckFailed", {"x": -1, "calls": 0}], first
    assert again == first, again


def test_a_call_sent_ahead_that_runs_past_its_time_limit_is_a_timeout_as_without_a_plan(tmp_path: Path) -> None:
    """Sent ahead, slow(2.6) starts while the grader still judges run(1) for a second, so its answer comes within
    two seconds of being asked for; but it ran 2.6 s, past the 2 s a call is given."""
    folder = _submission(tmp_path)

    def ask(plans: dict | None) -> tuple[list, SubmissionWorker]:
        shared = _worker(folder, plans)
        student = _student(shared)
        answers: list = [student.call("run", 1).value]
        time.sleep(1.0)  # the grader judging
        try:
            answers.append(student.call("slow", 2.6).value)
        except CheckFailed as failed:
            answers.append(failed.feedback.summary)
        student.close()
        shared.close()
        return answers, shared

    without, shared = ask(None)
    assert "did not return" in without[1], without
    assert ask(shared.asked)[0] == without


def test_an_exercise_that_starts_while_another_has_requests_ahead_loads_in_a_fresh_worker(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    again = _worker(folder, _plan_of(folder, [1, 2, 3]))
    counting, other = _student(again), _student(again, "other")
    try:
        assert counting.call("run", 1).value == {"x": 1, "calls": 1}  # run(2) and run(3) went ahead
        assert other.call("double", 21).value == 42  # while counting's checks are not done
        assert counting.call("run", 2).value == {"x": 2, "calls": 1}  # its module loaded again, as without a plan
    finally:
        counting.close()
        other.close()
        again.close()


def test_many_requests_ahead_with_answers_larger_than_the_sockets_buffer_never_wait_on_each_other(tmp_path: Path) -> None:
    """The grader sends ahead while the worker is blocked sending answers it has not read yet: what went ahead
    fits in the socket's buffer, so neither waits for the other (else both would until the call's time limit)."""
    folder = tmp_path / "lesson01"
    folder.mkdir()
    (folder / "large.py").write_text(LARGE)
    # 120 requests of 20 KB each (2.4 MB in all, ten socket buffers), answers of 12 bytes and 800 KB.
    calls = [(x, size) for x in range(60) for size in (3, 200_000)]
    padding = torch.zeros(5_000)

    def ask(plans: dict | None) -> tuple[list[float], SubmissionWorker]:
        shared = _worker(folder, plans)
        student = _student(shared, "large")
        try:
            return [float(student.call("filled", x, size, padding).value.sum()) for x, size in calls], shared
        finally:
            student.close()
            shared.close()

    without, shared = ask(None)
    # Two writes waiting on each other would end in the calls' time limit: a failed check, not these answers.
    assert ask(shared.asked)[0] == without == [float(x * size) for x, size in calls]


def _grade(folder: Path, cache: Path, out: Path, *extra: str) -> dict:
    env = {**os.environ, kept_values.FOLDER_VARIABLE: str(cache)}
    subprocess.run([sys.executable, "-m", "pytest", "exercises", "--submission", str(folder), "--json", str(out), "-q",
                    "-p", "no:cacheprovider", *extra], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    result = json.loads(out.read_text())
    return {(e["slug"], c["id"]): (c["passed"], c["message"], c["mistake"]) for e in result["exercises"] for c in e["checks"]}


def test_a_students_run_after_an_edit_grades_as_a_run_with_no_plan(tmp_path: Path) -> None:
    """The run before answered with the reference; this one with catalogued mistakes, which make the checks
    ask otherwise (fail early, diagnose): every check's verdict and message is the one a run without plans
    gives."""
    folder = tmp_path / "submission"
    shutil.copytree(ROOT / "reference", folder)
    cache = tmp_path / "cache"
    assert all(verdict[0] for verdict in _grade(folder, cache, tmp_path / "first.json").values())
    (plans,) = cache.glob(f"{request_plans.PREFIX}*.json")
    assert str((folder / "lesson01").resolve()) in request_plans.load(plans)  # a plan per folder of modules
    for slug, name in (("grad_accumulation", "kept_grad_tensor"), ("learning_rate", "never_zeroed"),
                       ("micrograd", "assigned")):
        (folder / "lesson01" / f"{slug}.py").write_text(catalogue.submission(slug, name))
    planned = _grade(folder, cache, tmp_path / "planned.json")
    unplanned = _grade(folder, cache, tmp_path / "unplanned.json", "--no-expected-cache")
    assert planned == unplanned
    assert not all(verdict[0] for verdict in planned.values())
