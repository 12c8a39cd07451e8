"""One worker process seen from the grader (graders/sandbox/process.py), with real workers forked by the zygote: it
reports its confinement, loads a module and answers its calls; a call past its limit is a timeout and the worker
is stopped; a worker that exits is a death that says how; an answer over the message limit is refused unread."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders import sandbox
from graders.sandbox import Budget, Kind, Settings, Status, Worker

MODULE = """
import os

def add(a, b):
    return a + b

def spin():
    while True:
        pass

def leave():
    os._exit(3)

def huge():
    return "x" * (3 * 2**20)
"""
BUDGET = Budget(call_seconds=2, import_seconds=20, memory_mb=1024, output_kb=64, message_mb=1)


@pytest.fixture
def worker(tmp_path: Path):
    (tmp_path / "lesson01").mkdir()
    module = tmp_path / "lesson01" / "calls.py"
    module.write_text(MODULE)
    sandbox.prepare()
    started = Worker(module.parent, BUDGET, Settings())
    assert started.start().status == Status.READY
    assert started.load(module).status == Status.READY
    yield started
    started.stop()


def _call(worker: Worker, function: str, *args: object):
    return worker.request({"op": "call", "function": function, "args": list(args)})


def test_a_started_worker_reports_its_confinement_and_answers_calls_in_turn(worker: Worker) -> None:
    assert worker.confinement is not None and worker.alive
    first, second = _call(worker, "add", 2, 3), _call(worker, "add", "a", "b")
    assert (first.status, first.value) == (Status.RETURNED, 5) and second.value == "ab"
    assert second.request_id == first.request_id + 1


def test_a_call_past_its_limit_is_a_timeout_and_the_worker_is_stopped(worker: Worker) -> None:
    outcome = _call(worker, "spin")
    assert outcome.status == Status.TIMEOUT and not worker.alive
    assert _call(worker, "add", 1, 1).status == Status.DIED  # nothing is sent to a stopped worker


def test_a_worker_that_exits_is_a_death_with_its_exit_status(worker: Worker) -> None:
    outcome = _call(worker, "leave")
    assert outcome.status == Status.DIED
    assert outcome.fact is not None and outcome.fact.kind == Kind.ENDED and outcome.fact.exit_status == 3


def test_an_answer_over_the_message_limit_is_refused_unread(worker: Worker) -> None:
    outcome = _call(worker, "huge")
    assert outcome.status == Status.BROKEN and outcome.fact is not None
    assert outcome.fact.kind == Kind.ANSWER_TOO_LARGE and outcome.fact.limit_mb == 1 and outcome.fact.size_mb > 1
