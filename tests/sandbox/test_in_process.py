"""`--in-process` (graders/sandbox/in_process.py): the student's module is imported into this process and answers
as a worker would, through the wire (copies of plain data, a missing function named, an error described), and is
unloaded when stopped."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from graders.sandbox import InProcess, Kind, Status

MODULE = """
import torch

def double(values):
    values.append(0)  # changes its argument: the caller's own list must not change
    return torch.tensor(values) * 2

def refuse(x):
    raise ValueError(f"no {x}")
"""


@pytest.fixture
def backend(tmp_path: Path):
    path = tmp_path / "inproc_example.py"
    path.write_text(MODULE)
    backend = InProcess(path)
    yield backend
    backend.stop()


def test_the_module_is_imported_here_and_answers_as_a_worker_does(backend: InProcess) -> None:
    assert backend.start().status == Status.READY and backend.alive
    assert "student_inproc_example" in sys.modules
    argument = [1, 2]
    outcome = backend.request({"op": "call", "function": "double", "args": [argument]})
    assert outcome.status == Status.RETURNED and outcome.value.tolist() == [2, 4, 0]
    assert argument == [1, 2]  # the call got a copy, as a worker's would


def test_a_missing_function_and_a_raised_error_are_answers_too(backend: InProcess) -> None:
    backend.start()
    missing = backend.request({"op": "call", "function": "triple", "args": []})
    assert missing.status == Status.MISSING and {"double", "refuse"} <= set(missing.public)
    raised = backend.request({"op": "call", "function": "refuse", "args": [3]})
    assert raised.status == Status.RAISED and raised.error.type == "ValueError" and raised.error.message == "no 3"


def test_an_answer_that_cannot_be_sent_is_unreadable_with_the_error_met(backend: InProcess) -> None:
    backend.start()
    backend.module.no_data = lambda: torch.empty(2, device="meta")  # a tensor with no bytes to send
    outcome = backend.request({"op": "call", "function": "no_data", "args": []})
    assert outcome.status == Status.UNREADABLE
    assert outcome.fact is not None and outcome.fact.kind == Kind.UNSENDABLE
    assert outcome.fact.text.startswith("NotImplementedError: Cannot copy out of meta tensor")


def test_stopping_unloads_the_module(backend: InProcess) -> None:
    backend.start()
    backend.stop()
    assert "student_inproc_example" not in sys.modules and not backend.alive
