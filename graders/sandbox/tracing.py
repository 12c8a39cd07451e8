"""Which torch calls a student's function made, and on which of its lines.

Runs in the worker. A `TorchFunctionMode` sees every torch function and Tensor method,
property reads such as `.data` and `.grad`, and entering or leaving `torch.no_grad()`
(as `_set_grad_enabled`). Each call is attributed to the innermost frame of the
student's file, so a check can say "line 12 uses .data", or "this must call backward".
The trace is data sent to the grader; deciding what it means happens there.

torch's function modes are per thread, so a thread the traced code starts would compute out of
the trace's sight: while a trace is on, every thread started through Python's threading (and so
concurrent.futures) runs under the same recorder (`Recorder.__enter__`). A module that starts
threads is flagged by the grader's reader anyway (graders/engine/source_evidence.py): this keeps
the record whole for what it is worth.
"""

from __future__ import annotations

import _thread
import sys
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from torch.overrides import TorchFunctionMode, resolve_name

_MAX_EVENTS = 5000  # distinct (name, line) pairs kept; a long loop repeats the same few


@dataclass(frozen=True)
class TraceEvent:
    """One kind of torch call, where the student's code made it, and how often."""

    name: str  # e.g. "torch.Tensor.backward", "torch.autograd.grad", "torch.Tensor.data.__get__"
    line: int  # line in the student's file; 0 if no student frame was on the stack
    count: int
    grad_enabled: bool  # whether autograd was recording at the first such call


_NAMES: dict[object, str] = {}  # call_name's answers: resolve_name takes 4 us, and a training loop repeats a few calls


def call_name(func: object) -> str:
    try:
        return _NAMES[func]
    except KeyError:
        name = _NAMES[func] = _resolved(func)
        return name
    except TypeError:  # an unhashable callable
        return _resolved(func)


def _resolved(func: object) -> str:
    name = resolve_name(func)
    if name:
        return name
    module = getattr(func, "__module__", None) or "?"
    return f"{module}.{getattr(func, '__qualname__', repr(func))}"


class Recorder(TorchFunctionMode):
    """Counts torch calls by name and student line while it is active."""

    def __init__(self, student_file: str) -> None:
        super().__init__()
        self.student_file = student_file
        self.counts: Counter[tuple[str, int]] = Counter()
        self.grad_enabled: dict[tuple[str, int], bool] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        import torch

        # Every torch call of a traced run passes here (5,000 in a 200-step fit): kept to dict lookups.
        key = (call_name(func), self._student_line())
        if key in self.counts:
            self.counts[key] += 1
        elif len(self.counts) < _MAX_EVENTS:
            self.counts[key] = 1
            self.grad_enabled[key] = torch.is_grad_enabled()
        return func(*args, **(kwargs or {}))

    def __enter__(self) -> "Recorder":
        self._thread_starts = (threading._start_new_thread, _thread.start_new_thread)  # type: ignore[attr-defined]
        start, recorder = self._thread_starts[1], self

        def start_traced(function: Callable[..., Any], args: tuple, kwargs: dict | None = None) -> int:
            def traced(*inner_args: Any, **inner_kwargs: Any) -> Any:
                TorchFunctionMode.__enter__(recorder)  # on this new thread's own stack of modes
                try:
                    return function(*inner_args, **inner_kwargs)
                finally:
                    TorchFunctionMode.__exit__(recorder, None, None, None)
            return start(traced, args, kwargs or {})

        threading._start_new_thread = _thread.start_new_thread = start_traced  # type: ignore[attr-defined]
        return super().__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        threading._start_new_thread, _thread.start_new_thread = self._thread_starts  # type: ignore[attr-defined]
        super().__exit__(*exc_info)

    def _student_line(self) -> int:
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == self.student_file:
                return frame.f_lineno
            frame = frame.f_back
        return 0

    def events(self) -> list[list]:
        """The trace as plain data: [name, line, count, grad_enabled] rows."""
        return [[name, line, count, self.grad_enabled[(name, line)]] for (name, line), count in self.counts.items()]


def events_from_wire(rows: object) -> list[TraceEvent]:
    """Rebuild a trace on the grader side, dropping rows that are not of the expected shape."""
    events = []
    for row in rows if isinstance(rows, list) else []:
        if (isinstance(row, list) and len(row) == 4 and type(row[0]) is str and type(row[1]) is int
                and type(row[2]) is int and type(row[3]) is bool):
            events.append(TraceEvent(*row))
    return events
