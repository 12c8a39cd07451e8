"""The worker's trace of torch calls (graders/sandbox/tracing.py) sees the threads the traced code starts: torch's
function modes are per thread, and a thread would otherwise compute out of the trace's sight (issue 42)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import torch

from graders.sandbox.tracing import Recorder


def _backward_in(out: list) -> None:
    leaf = torch.ones(3, requires_grad=True)
    (leaf * 2).sum().backward()  # the line the trace must place
    out.append(leaf.grad)


BACKWARD_LINE = _backward_in.__code__.co_firstlineno + 2


def _in_a_thread_and_a_pool() -> list:
    out: list = []
    worker = threading.Thread(target=_backward_in, args=(out,))
    worker.start()
    worker.join()
    with ThreadPoolExecutor(1) as pool:
        pool.submit(_backward_in, out).result()
    return out


def test_a_thread_and_a_pool_started_by_traced_code_are_traced_on_the_students_line() -> None:
    recorder = Recorder(__file__)
    with recorder:
        assert len(_in_a_thread_and_a_pool()) == 2
    backward = [event for event in recorder.events() if event[0] == "torch.Tensor.backward"]
    assert backward == [["torch.Tensor.backward", BACKWARD_LINE, 2, True]], recorder.events()


def test_threads_started_after_the_trace_are_not_traced_and_threading_is_put_back() -> None:
    starts = (threading._start_new_thread,)  # type: ignore[attr-defined]
    recorder = Recorder(__file__)
    with recorder:
        pass
    _in_a_thread_and_a_pool()
    assert recorder.events() == []
    assert (threading._start_new_thread,) == starts  # type: ignore[attr-defined]
