"""The grader's side of a worker: fork it, send it requests, bound the wait, read the answers.

Every way a worker can fail (a timeout, a crash, `os._exit`, a message that does not
parse, an answer too large) becomes an `Outcome` with a status; the grader never waits
longer than the limit and never loads anything but plain data.
"""

from __future__ import annotations

import atexit
import os
import select
import shutil
import signal
import socket
import struct
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from graders import memory_guard, wire, worker
from graders.tracing import TraceEvent, events_from_wire

_live_workers: set["Worker"] = set()
_killed: list[int] = []  # killed workers not yet waited for


@dataclass(frozen=True)
class StudentError:
    """An exception raised by student code, as the worker described it."""

    type: str
    message: str
    frames: list[tuple[str, int, str, str]]  # (file name, line, function, source line)
    not_implemented: bool

    @classmethod
    def from_wire(cls, data: Any) -> "StudentError":
        data = data if isinstance(data, dict) else {}
        frames = [tuple(f) for f in data.get("frames", []) if isinstance(f, list) and len(f) == 4]
        return cls(str(data.get("type", "?")), str(data.get("message", "")), frames, data.get("not_implemented") is True)


@dataclass
class Outcome:
    """What came of one request: returned, raised, missing, timeout, died, unreadable or broken."""

    status: str
    value: Any = None
    args: list | None = None
    error: StudentError | None = None
    detail: str = ""
    trace: list[TraceEvent] = field(default_factory=list)
    output: str = ""
    output_dropped: int = 0
    seconds: float = 0.0
    public: list[str] = field(default_factory=list)
    request_id: int | None = None  # echoed by the worker: which request this answers


@dataclass(frozen=True)
class Budget:
    call_seconds: float
    import_seconds: float
    memory_mb: int
    output_kb: int
    message_mb: int


class Worker:
    """One forked process that holds one imported student module."""

    def __init__(self, module_path: Path, module_name: str, budget: Budget,
                 warm_up: Callable[[], object] | None = None) -> None:
        self.module_path = module_path
        self.module_name = module_name
        self.budget = budget
        self.warm_up = warm_up  # run in the child before the import (see worker.run)
        self.pid = 0
        self.sock: socket.socket | None = None
        self.scratch: Path | None = None
        self.requests = 0
        self.spawned_at = 0.0

    def spawn(self) -> None:
        """Fork; the child imports the module while the grader goes on with other work."""
        self.scratch = Path(tempfile.mkdtemp(prefix="graders-worker-"))
        memory_guard.protect_this_process()  # before the fork: see memory_guard
        parent_end, child_end = socket.socketpair()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            parent_end.close()
            worker.run(child_end, self.module_path, self.module_name, self.scratch,
                       worker.WorkerLimits(self.budget.memory_mb, self.budget.output_kb), self.warm_up)
        child_end.close()
        self.pid, self.sock = pid, parent_end
        self.spawned_at = time.monotonic()
        _live_workers.add(self)

    def start(self) -> Outcome:
        """Spawn (unless done already) and wait for the child to say the module is imported;
        the import's time limit counts from the fork."""
        if not self.pid:
            self.spawn()
        left = self.budget.import_seconds - (time.monotonic() - self.spawned_at)
        reply = self._read(max(left, 0.0), "importing the module")
        if reply.status == "ready":
            return reply
        self.stop()
        return reply

    def request(self, message: dict, seconds: float | None = None) -> Outcome:
        assert self.sock is not None, "start() the worker first"
        limit = self.budget.call_seconds if seconds is None else seconds
        self.requests += 1
        data = wire.pack({**message, "id": self.requests})
        try:
            self.sock.settimeout(limit)
            self.sock.sendall(struct.pack("!Q", len(data)) + data)
        except OSError:
            return self._died("before the call")
        outcome = self._read(limit, "the call")
        if outcome.status in ("returned", "raised", "missing", "unreadable") and outcome.request_id != self.requests:
            self.stop()
            return Outcome("broken", detail="the answer did not belong to this call (it was forged or stale)")
        return outcome

    def stop(self) -> None:
        if self.pid:
            for kill in (os.killpg, os.kill):
                try:
                    kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass
            # The kernel takes milliseconds to tear down a torch-sized process: reap it later,
            # while grading goes on (SIGKILL cannot be caught, so it can do nothing meanwhile).
            _killed.append(self.pid)
            self.pid = 0
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
        _live_workers.discard(self)

    @property
    def alive(self) -> bool:
        return self.pid != 0

    def _read(self, seconds: float, during: str) -> Outcome:
        deadline = time.monotonic() + seconds
        header = self._exactly(8, deadline)
        if isinstance(header, Outcome):
            return header if header.status != "died" else self._died(during)
        (length,) = struct.unpack("!Q", header)
        if length > self.budget.message_mb * 2**20:
            self.stop()
            return Outcome("broken", detail=f"the answer was {length / 2**20:.0f} MiB, over the "
                                            f"{self.budget.message_mb} MiB limit")
        body = self._exactly(length, deadline)
        if isinstance(body, Outcome):
            return body if body.status != "died" else self._died(during)
        try:
            reply = wire.unpack(body)
            return outcome_from_reply(reply)
        except (wire.WireError, ValueError, TypeError, KeyError, RecursionError) as error:
            self.stop()
            return Outcome("broken", detail=f"the worker sent a message that is not plain data ({error})")

    def _exactly(self, size: int, deadline: float) -> bytes | Outcome:
        assert self.sock is not None
        chunks, remaining = [], size
        while remaining:
            left = deadline - time.monotonic()
            # Poll even when the time is up: an answer that is already waiting still counts.
            ready = select.select([self.sock], [], [], max(left, 0.0))[0]
            if not ready:
                self.stop()
                return Outcome("timeout", seconds=deadline - time.monotonic())
            try:
                chunk = self.sock.recv(min(remaining, 1 << 20))
            except OSError:
                chunk = b""
            if not chunk:
                return Outcome("died")
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def _died(self, during: str) -> Outcome:
        status = _reap(self.pid, wait=1.0) if self.pid else None
        self.pid = 0
        self.stop()
        return Outcome("died", detail=f"the process running it ended during {during}: {_explain_status(status)}")


def outcome_from_reply(reply: Any) -> Outcome:
    if not isinstance(reply, dict):
        raise wire.WireError("an answer must be a dict")
    status = reply.get("status") or ("ready" if reply.get("ready") is True else "import_failed")
    if status not in ("ready", "import_failed", "returned", "raised", "missing", "unreadable"):
        raise wire.WireError(f"unknown status {str(status)[:40]}")
    seconds = reply.get("seconds", 0.0)
    public = reply.get("public", [])
    return Outcome(
        status=status,
        value=reply.get("value"),
        args=reply.get("args") if isinstance(reply.get("args"), list) else None,
        error=StudentError.from_wire(reply["error"]) if "error" in reply else None,
        detail=str(reply.get("detail", "")),
        trace=events_from_wire(reply.get("trace", [])),
        output=reply.get("output", "") if isinstance(reply.get("output"), str) else "",
        output_dropped=reply.get("output_dropped", 0) if type(reply.get("output_dropped")) is int else 0,
        seconds=seconds if type(seconds) is float else 0.0,
        public=[n for n in public if type(n) is str] if isinstance(public, list) else [],
        request_id=reply.get("id") if type(reply.get("id")) is int else None,
    )


def _reap(pid: int, wait: float = 2.0, block: bool = False) -> int | None:
    """The exit status of a child; `block` after SIGKILL, which cannot be ignored."""
    if block:
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None
    deadline = time.monotonic() + wait
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return status
        if time.monotonic() > deadline:
            return None
        time.sleep(0.005)


def _explain_status(status: int | None) -> str:
    if status is None:
        return "it could not be waited for"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        why = " (a crash in native code, or memory exhausted)" if name in ("SIGSEGV", "SIGBUS", "SIGABRT") else ""
        return f"killed by signal {name}{why}"
    code = os.WEXITSTATUS(status)
    if code == 0:
        return "it exited with status 0; does your code call os._exit() or exit the interpreter?"
    return f"it exited with status {code}; does your code call os._exit({code})?"


def reap_killed() -> None:
    """Wait for every killed worker to be gone (the end of a session)."""
    while _killed:
        _reap(_killed.pop(), block=True)


@atexit.register
def _stop_all() -> None:
    # Ctrl-C or an error can end pytest before fixtures tear down: leave no worker behind.
    for live in list(_live_workers):
        live.stop()
    reap_killed()
