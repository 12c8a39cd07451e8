"""The grader's side of a worker: have it forked, send it requests, bound the wait, read the answers.

Every way a worker can fail (a timeout, a crash, `os._exit`, a message that does not
parse, an answer too large, a sandbox that could not be set up) becomes an `Outcome` with
a status; the grader never waits longer than the limit and never loads anything but plain data.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import os
import select
import shutil
import signal
import socket
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graders.sandbox import scratch
from graders.sandbox import wire
from graders.sandbox.confinement import Confinement, WorkerFolder
from graders.sandbox.tracing import TraceEvent, events_from_wire
from graders.sandbox.zygote import ZYGOTE

SETUP_SECONDS = 60.0  # for the zygote's loading (torch._dynamo: ~3.5 s) and the sandbox's set-up, never student code
UNCONFINED = ("the sandbox could not be set up on this machine, so your code was not run (not your fault; "
              "your instructor has been told): {missing}")

_live_workers: set["Worker"] = set()
_ANSWERS = ("returned", "raised", "missing", "unreadable", "broken", "ready", "import_failed")  # replies to a request


@dataclass(frozen=True)
class StudentError:
    """An exception raised by student code, as the worker described it."""

    type: str
    message: str
    frames: list[tuple[str, int, str, str]]  # (file name, line, function, source line)
    not_implemented: bool
    # The qualified names of its class and its bases, in method resolution order ("builtins.ValueError"), as the
    # worker read them (worker.exception_lineage); empty when it could not.
    mro: tuple[str, ...] = ()

    @classmethod
    def from_wire(cls, data: Any) -> "StudentError":
        data = data if isinstance(data, dict) else {}
        frames = [tuple(f) for f in data.get("frames", []) if isinstance(f, list) and len(f) == 4]
        mro = data.get("mro")
        names = tuple(name for name in mro if type(name) is str) if type(mro) is list else ()
        return cls(str(data.get("type", "?")), str(data.get("message", "")), frames, data.get("not_implemented") is True,
                   names)

    def is_a(self, kind: type[BaseException]) -> bool:
        """Whether `except kind` catches it: `kind` is its class or one of its bases (a subclass of ValueError is a
        ValueError). With no names of its bases, its own type's name decides."""
        if not self.mro:
            return self.type == kind.__name__
        return f"{kind.__module__}.{kind.__qualname__}" in self.mro

    def shown_type(self) -> str:
        """Its type's name for messages; qualified where a class of the student's own takes a built-in's name (a
        ValueError of one's own is no ValueError to `except ValueError`, and "raised ValueError" would not say so)."""
        own = self.mro[0] if self.mro else ""
        return own if own and hasattr(builtins, self.type) and not own.startswith("builtins.") else self.type


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
    confinement: Confinement | None = None  # what the worker reported before any student code ran
    replied: bool = False  # the worker's own answer (not an outcome the grader gave a failed read)
    # Characters the call had written to stdout/stderr as the worker last said (worker.PRINTING_STEP), also of a
    # call stopped by its timeout: printing costs time, and a timeout's message says so. The student's word only.
    written: int = 0


@dataclass(frozen=True)
class Budget:
    call_seconds: float
    import_seconds: float
    memory_mb: int
    output_kb: int
    message_mb: int
    tasks: int = 64  # threads and processes at once (cgroups.py)
    cpus: float = 1.0  # cores at most
    scratch_mb: int = 64  # the size of its scratch tmpfs


@dataclass(frozen=True)
class Settings:
    """How workers are confined: the user a root grader's workers become, the confinement
    steps left out (for tests of the fallbacks), and whether a worker that is not fully
    confined must stop before running student code."""

    worker_user: str = "nobody"
    without: frozenset[str] = frozenset()
    require_confinement: bool = False
    worker_uids: int = 200_000  # the first of the user ids of workers that no cgroup caps (confinement.py)


class Worker:
    """One process, forked by the zygote, confined to read one submission's folder, that imports
    the student modules it is asked to `load`, one after another (shared.py leases it out)."""

    def __init__(self, code_folder: Path, budget: Budget, settings: Settings = Settings(),
                 warm_ups: tuple[str, ...] = ()) -> None:
        self.code_folder = code_folder.resolve()
        self.budget = budget
        self.settings = settings
        self.warm_ups = warm_ups  # drivers' "module:function"s the zygote runs once before forking (fork_server._warm)
        self.number = 0  # the zygote's number for this worker; 0 when none runs
        self.sock: socket.socket | None = None
        self.folder: Path | None = None
        self.requests = 0
        self.confinement: Confinement | None = None
        self.ready: Outcome | None = None  # its "ready", once it came

    def spawn(self) -> None:
        """Have the zygote fork the worker, which sets up its sandbox while the grader goes on."""
        self.folder = scratch.make("graders-worker")
        WorkerFolder(self.folder).make()
        parent_end, child_end = socket.socketpair()
        request = {"code_folder": str(self.code_folder), "folder": str(self.folder), "memory_mb": self.budget.memory_mb,
                   "output_kb": self.budget.output_kb, "tasks": self.budget.tasks, "cpus": self.budget.cpus,
                   "scratch_mb": self.budget.scratch_mb, "worker_user": self.settings.worker_user,
                   "worker_uids": self.settings.worker_uids,
                   "without": sorted(self.settings.without),
                   "require_confinement": self.settings.require_confinement,
                   "warm_ups": list(self.warm_ups)}
        try:
            self.number = ZYGOTE.spawn(request, child_end)
        finally:
            child_end.close()
        self.sock = parent_end
        _live_workers.add(self)

    def start(self) -> Outcome:
        """Spawn (unless done already) and wait for the child to say how it is confined and that
        it is ready for its first module. Once ready, says so again at once."""
        if self.ready is not None and self.alive:
            return self.ready
        if not self.number:
            self.spawn()
        if self.confinement is None:
            report = self._read(SETUP_SECONDS, "setting up its sandbox")
            if report.status != "confined":
                self.stop()
                return report
            self.confinement = report.confinement
            if self.settings.require_confinement and not report.confinement.confined:  # type: ignore[union-attr]
                self.stop()
                return Outcome("unconfined", detail=UNCONFINED.format(missing="; ".join(report.confinement.missing)))
        reply = self._read(SETUP_SECONDS, "setting up its sandbox")
        if reply.status == "ready":
            self.ready = reply
            return reply
        self.stop()
        return reply

    def load(self, module_path: Path) -> Outcome:
        """Import a module in this (started) worker, in place of the one it held, within the
        import's limit: the sandbox's set-up and the zygote's warm-ups are no time of the student's."""
        return self.request(load_request(module_path), self.budget.import_seconds, during="importing the module")

    def request(self, message: dict, seconds: float | None = None, during: str = "the call") -> Outcome:
        limit = self.budget.call_seconds if seconds is None else seconds
        sent = self.send([wire.pack(message)], limit, during)
        return sent if isinstance(sent, Outcome) else self.receive(sent[0], limit, during)

    def send(self, bodies: list[bytes], seconds: float | None = None, during: str = "the call") -> list[int] | Outcome:
        """Send packed requests, in one write, without waiting for their answers; returns their numbers, which
        `receive` takes. The worker answers its requests one after another, in the order they were sent
        (ahead.RunAhead sends some ahead of the checks that make them)."""
        if self.sock is None:  # stopped (a timeout, a death) since it was started
            return self._died(f"before {during}")
        numbers = list(range(self.requests + 1, self.requests + 1 + len(bodies)))
        self.requests += len(bodies)
        frames = b"".join(struct.pack("!QQ", len(body), number) + body for body, number in zip(bodies, numbers))
        try:
            self.sock.settimeout(self.budget.call_seconds if seconds is None else seconds)
            self.sock.sendall(frames)
        except OSError:
            return self._died(f"before {during}")
        return numbers

    @property
    def send_buffer(self) -> int:
        """The bytes the socket holds on its way to the worker before a write waits for it to read."""
        assert self.sock is not None, "start() the worker first"
        return self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)

    def receive(self, request_id: int, seconds: float | None = None, during: str = "the call") -> Outcome:
        """The answer to request `request_id`, which must be the oldest one not yet answered, waiting at most
        `seconds` from now."""
        if self.sock is None:
            return self._died(during)
        outcome = self._read(self.budget.call_seconds if seconds is None else seconds, during)
        if outcome.replied and outcome.status in _ANSWERS and outcome.request_id != request_id:
            self.stop()
            return Outcome("broken", detail="the answer did not belong to this call (it was forged or stale)")
        return outcome

    def stop(self) -> None:
        self.ready = None
        if self.number:
            ZYGOTE.kill(self.number)
            self.number = 0
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        _live_workers.discard(self)

    @property
    def alive(self) -> bool:
        return self.number != 0

    def _read(self, seconds: float, during: str) -> Outcome:
        deadline = time.monotonic() + seconds
        written = 0
        while True:  # a call that prints much says so on the way (worker.PRINTING_STEP), before its answer
            outcome = self._read_one(deadline, during)
            if outcome.status != "printing":
                return dataclasses.replace(outcome, written=max(written, outcome.written))
            written = max(written, outcome.written)

    def _read_one(self, deadline: float, during: str) -> Outcome:
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
            reply = wire.unpack(body, deadline)
            return outcome_from_reply(reply)
        except wire.DecodeTimeout:
            self.stop()
            return Outcome("timeout", detail="its answer took too long to decode", seconds=deadline - time.monotonic())
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
        status = ZYGOTE.status(self.number, seconds=1.0) if self.number else None
        if self.number in ZYGOTE.out_of_memory:
            self.stop()
            return Outcome("died", detail=f"the process running it ran out of memory during {during}: it held more "
                                          f"than {self.budget.memory_mb} MiB, counting its files in scratch")
        self.stop()
        return Outcome("died", detail=f"the process running it ended during {during}: {_explain_status(status)}")


def load_request(module_path: Path) -> dict:
    """The request that imports a module in a worker, in place of the one it held."""
    return {"op": "load", "module_path": str(module_path.resolve()), "module_name": module_path.stem}


def outcome_from_reply(reply: Any) -> Outcome:
    if not isinstance(reply, dict):
        raise wire.WireError("an answer must be a dict")
    if reply.get("status") == "printing":
        return Outcome("printing", written=reply["written"] if type(reply.get("written")) is int else 0)
    status = reply.get("status") or ("ready" if reply.get("ready") is True else "import_failed")
    if status != "confined" and status not in _ANSWERS:
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
        confinement=Confinement.from_wire(reply.get("confinement")) if status == "confined" else None,
        replied=True,
    )


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
    ZYGOTE.drain()


@atexit.register
def _stop_all() -> None:
    # Ctrl-C or an error can end pytest before fixtures tear down: leave no worker behind.
    for live in list(_live_workers):
        live.stop()
    reap_killed()
