"""What came of one request to a worker: a status, the student's value or error, and facts, never sentences.

Every way a worker can fail (a timeout, a crash, `os._exit`, a message that does not parse, an
answer too large, a sandbox that could not be set up) is an `Outcome` whose `Status` says which,
with a `Fact` (a kind and its numbers and names) where more is known. The engine words them for the
student (graders/engine/sandbox_words.py): nothing here writes a sentence a student reads.
"""

from __future__ import annotations

import builtins
import enum
import os
import signal
from dataclasses import dataclass, field
from typing import Any

from graders.sandbox import wire
from graders.sandbox.confinement import Confinement
from graders.sandbox.tracing import TraceEvent, events_from_wire


class Status(enum.StrEnum):
    """How a request ended. A str, so that it reads, compares and is written (JSON, wire) as its value."""

    RETURNED = "returned"  # the student's function gave a value
    RAISED = "raised"  # it raised (the error says what)
    MISSING = "missing"  # the module has no such function
    UNREADABLE = "unreadable"  # the answer could not be sent back as plain data
    BROKEN = "broken"  # the worker could not answer this request at all
    READY = "ready"  # the module is imported
    IMPORT_FAILED = "import_failed"  # the import ended without an error the worker could describe
    CONFINED = "confined"  # the worker's report of its sandbox, before any student code
    PRINTING = "printing"  # a call says how much it printed so far (worker.PRINTING_STEP)
    TIMEOUT = "timeout"  # no answer within the limit: the worker was stopped
    DIED = "died"  # the worker's process ended
    UNCONFINED = "unconfined"  # confinement was required and did not hold: no student code ran


# The replies a worker gives to a request (the others are the grader's own findings, or reports on the way).
ANSWERS = frozenset({Status.RETURNED, Status.RAISED, Status.MISSING, Status.UNREADABLE, Status.BROKEN,
                     Status.READY, Status.IMPORT_FAILED})


class Stage(enum.StrEnum):
    """What a worker was doing when it failed."""

    SETUP = "setup"  # setting up its sandbox
    IMPORT = "import"  # importing the student's module
    CALL = "call"  # running a request


class Kind(enum.StrEnum):
    """The facts a failed request may carry; the fields of `Fact` each one fills are named beside it."""

    UNCONFINED = "unconfined"  # confinement: what held, and the gaps that keep it from counting
    FORGED_ANSWER = "forged answer"  # an answer to another request than the one waited for
    ANSWER_TOO_LARGE = "answer too large"  # size_mb, limit_mb
    SLOW_DECODING = "slow decoding"  # the answer's decoding ran past the call's time
    NOT_PLAIN_DATA = "not plain data"  # refusal: why the decoder refused it; text, count, limit: what it found
    OUT_OF_MEMORY = "out of memory"  # stage, before, limit_mb
    ENDED = "ended"  # stage, before, and signal or exit_status (neither: it could not be waited for)
    NOT_LOADED_AGAIN = "not loaded again"  # status: how the module's second load ended
    NOT_REPLAYED = "not replayed"  # status and cause: how a call made again in a fresh worker ended
    THREAD_LEFT = "thread left"  # an earlier module's thread still runs (worker side: baseline.py)
    LIMIT_CHANGED = "limit changed"  # an earlier module changed a resource limit (worker side: baseline.py)
    MODULE_NOT_LOADED = "module not loaded"  # names: the module a request named (worker side)
    UNSENDABLE = "unsendable"  # text: the error met in packing the answer ("TypeError: ...", the worker's word)


# The kinds a worker itself may report in its reply (the others are the grader's side's own findings).
_WORKER_KINDS = frozenset({Kind.THREAD_LEFT, Kind.LIMIT_CHANGED, Kind.MODULE_NOT_LOADED, Kind.UNSENDABLE})


@dataclass(frozen=True)
class Fact:
    """One thing known of a failure, as data: its kind and the numbers and names it needs."""

    kind: Kind
    stage: Stage | None = None
    before: bool = False  # it failed before the stage began (e.g. before the call was sent)
    size_mb: float = 0.0
    limit_mb: int = 0
    signal: str = ""  # the name of the signal that killed the process
    exit_status: int | None = None
    names: tuple[str, ...] = ()
    text: str = ""
    status: Status | None = None
    cause: "Fact | None" = None
    refusal: wire.Refusal | None = None  # NOT_PLAIN_DATA: why the message was refused
    count: int = 0  # NOT_PLAIN_DATA: how many of what was refused the message held
    limit: int = 0  # NOT_PLAIN_DATA: how many may be
    confinement: Confinement | None = None  # UNCONFINED: what the worker reported

    def to_wire(self) -> dict[str, Any]:
        """How a worker sends one of its own kinds (THREAD_LEFT, ..., UNSENDABLE) in a reply."""
        return {"kind": str(self.kind), "names": list(self.names), "text": self.text}

    @classmethod
    def from_wire(cls, data: Any) -> "Fact":
        if not isinstance(data, dict) or data.get("kind") not in _WORKER_KINDS:
            raise wire.WireError(wire.Refusal.BAD_FACT)
        names = data.get("names", [])
        return cls(Kind(data["kind"]), names=tuple(str(n)[:60] for n in names if type(n) is str)
                   if isinstance(names, list) else (), text=str(data.get("text", ""))[:2000])


def refused(error: BaseException) -> Fact:
    """What the grader's side found in a message it could not rebuild: the decoder's refusal, or the Python
    error that reading the reply met (its text as Python gave it)."""
    if isinstance(error, wire.WireError):
        return Fact(Kind.NOT_PLAIN_DATA, refusal=error.refusal, text=error.found, count=error.count,
                    limit=error.limit)
    return Fact(Kind.NOT_PLAIN_DATA, refusal=wire.Refusal.ERROR_RAISED, text=str(error))


def ended(status: int | None, stage: Stage, before: bool = False) -> Fact:
    """What a process's wait status says of how it ended."""
    if status is not None and os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
        return Fact(Kind.ENDED, stage, before, signal=name)
    return Fact(Kind.ENDED, stage, before, exit_status=None if status is None else os.WEXITSTATUS(status))


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
    """What came of one request: its status, and what the worker sent or the grader's side found."""

    status: Status
    value: Any = None
    args: list | None = None
    error: StudentError | None = None
    fact: Fact | None = None  # what is known of a failure beyond its status
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


def outcome_from_reply(reply: Any) -> Outcome:
    if not isinstance(reply, dict):
        raise wire.WireError(wire.Refusal.NOT_A_DICT)
    if reply.get("status") == Status.PRINTING:
        return Outcome(Status.PRINTING, written=reply["written"] if type(reply.get("written")) is int else 0)
    status = reply.get("status") or (Status.READY if reply.get("ready") is True else Status.IMPORT_FAILED)
    if status != Status.CONFINED and status not in ANSWERS:
        raise wire.WireError(wire.Refusal.UNKNOWN_STATUS, str(status)[:40])
    seconds = reply.get("seconds", 0.0)
    public = reply.get("public", [])
    return Outcome(
        status=Status(status),
        value=reply.get("value"),
        args=reply.get("args") if isinstance(reply.get("args"), list) else None,
        error=StudentError.from_wire(reply["error"]) if "error" in reply else None,
        fact=Fact.from_wire(reply["fact"]) if "fact" in reply else None,
        trace=events_from_wire(reply.get("trace", [])),
        output=reply.get("output", "") if isinstance(reply.get("output"), str) else "",
        output_dropped=reply.get("output_dropped", 0) if type(reply.get("output_dropped")) is int else 0,
        seconds=seconds if type(seconds) is float else 0.0,
        public=[n for n in public if type(n) is str] if isinstance(public, list) else [],
        request_id=reply.get("id") if type(reply.get("id")) is int else None,
        confinement=Confinement.from_wire(reply.get("confinement")) if status == Status.CONFINED else None,
        replied=True,
    )
