"""The grader's side of a worker: have it forked, send it requests, bound the wait, read the answers.

Every way a worker can fail (a timeout, a crash, `os._exit`, a message that does not
parse, an answer too large, a sandbox that could not be set up) becomes an `Outcome` with
a status and the facts known (outcome.py); the grader never waits longer than the limit and never
loads anything but plain data.
"""

from __future__ import annotations

import atexit
import dataclasses
import select
import shutil
import socket
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graders.sandbox import scratch
from graders.sandbox import wire
from graders.sandbox.budget import Budget
from graders.sandbox.confinement import Confinement, WorkerFolder
from graders.sandbox.outcome import ANSWERS, Fact, Kind, Outcome, Stage, Status, ended, outcome_from_reply, refused
from graders.sandbox.zygote import ZYGOTE

SETUP_SECONDS = 60.0  # for the zygote's loading (torch._dynamo: ~3.5 s) and the sandbox's set-up, never student code

_live_workers: set["Worker"] = set()


@dataclass(frozen=True)
class Settings:
    """How workers are confined beyond their budget: the confinement steps left out (for tests of the
    fallbacks), and whether a worker that is not fully confined must stop before running student code."""

    without: frozenset[str] = frozenset()
    require_confinement: bool = False


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
        request = spawn_request(self.code_folder, self.folder, self.budget, self.settings, self.warm_ups)
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
            report = self._read(SETUP_SECONDS, Stage.SETUP)
            if report.status != Status.CONFINED:
                self.stop()
                return report
            self.confinement = report.confinement
            if self.settings.require_confinement and not report.confinement.confined:  # type: ignore[union-attr]
                self.stop()
                return Outcome(Status.UNCONFINED, fact=Fact(Kind.UNCONFINED, confinement=report.confinement))
        reply = self._read(SETUP_SECONDS, Stage.SETUP)
        if reply.status == Status.READY:
            self.ready = reply
            return reply
        self.stop()
        return reply

    def load(self, module_path: Path) -> Outcome:
        """Import a module in this (started) worker, in place of the one it held, within the
        import's limit: the sandbox's set-up and the zygote's warm-ups are no time of the student's."""
        return self.request(load_request(module_path), self.budget.import_seconds, during=Stage.IMPORT)

    def request(self, message: dict, seconds: float | None = None, during: Stage = Stage.CALL) -> Outcome:
        limit = self.budget.call_seconds if seconds is None else seconds
        sent = self.send([wire.pack(message)], limit, during)
        return sent if isinstance(sent, Outcome) else self.receive(sent[0], limit, during)

    def send(self, bodies: list[bytes], seconds: float | None = None, during: Stage = Stage.CALL) -> list[int] | Outcome:
        """Send packed requests, in one write, without waiting for their answers; returns their numbers, which
        `receive` takes. The worker answers its requests one after another, in the order they were sent
        (ahead.RunAhead sends some ahead of the checks that make them)."""
        if self.sock is None:  # stopped (a timeout, a death) since it was started
            return self._died(during, before=True)
        numbers = list(range(self.requests + 1, self.requests + 1 + len(bodies)))
        self.requests += len(bodies)
        frames = b"".join(struct.pack("!QQ", len(body), number) + body for body, number in zip(bodies, numbers))
        try:
            self.sock.settimeout(self.budget.call_seconds if seconds is None else seconds)
            self.sock.sendall(frames)
        except OSError:
            return self._died(during, before=True)
        return numbers

    @property
    def send_buffer(self) -> int:
        """The bytes the socket holds on its way to the worker before a write waits for it to read."""
        assert self.sock is not None, "start() the worker first"
        return self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)

    def receive(self, request_id: int, seconds: float | None = None, during: Stage = Stage.CALL) -> Outcome:
        """The answer to request `request_id`, which must be the oldest one not yet answered, waiting at most
        `seconds` from now."""
        if self.sock is None:
            return self._died(during)
        outcome = self._read(self.budget.call_seconds if seconds is None else seconds, during)
        if outcome.replied and outcome.status in ANSWERS and outcome.request_id != request_id:
            self.stop()
            return Outcome(Status.BROKEN, fact=Fact(Kind.FORGED_ANSWER))
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

    def _read(self, seconds: float, during: Stage) -> Outcome:
        deadline = time.monotonic() + seconds
        written = 0
        while True:  # a call that prints much says so on the way (worker.PRINTING_STEP), before its answer
            outcome = self._read_one(deadline, during)
            if outcome.status != Status.PRINTING:
                return dataclasses.replace(outcome, written=max(written, outcome.written))
            written = max(written, outcome.written)

    def _read_one(self, deadline: float, during: Stage) -> Outcome:
        header = self._exactly(8, deadline)
        if isinstance(header, Outcome):
            return header if header.status != Status.DIED else self._died(during)
        (length,) = struct.unpack("!Q", header)
        if length > self.budget.message_mb * 2**20:
            self.stop()
            return Outcome(Status.BROKEN, fact=Fact(Kind.ANSWER_TOO_LARGE, size_mb=length / 2**20,
                                                    limit_mb=self.budget.message_mb))
        body = self._exactly(length, deadline)
        if isinstance(body, Outcome):
            return body if body.status != Status.DIED else self._died(during)
        try:
            reply = wire.unpack(body, deadline)
            return outcome_from_reply(reply)
        except wire.DecodeTimeout:
            self.stop()
            return Outcome(Status.TIMEOUT, fact=Fact(Kind.SLOW_DECODING), seconds=deadline - time.monotonic())
        except (wire.WireError, ValueError, TypeError, KeyError, RecursionError) as error:
            self.stop()
            return Outcome(Status.BROKEN, fact=refused(error))

    def _exactly(self, size: int, deadline: float) -> bytes | Outcome:
        assert self.sock is not None
        chunks, remaining = [], size
        while remaining:
            left = deadline - time.monotonic()
            # Poll even when the time is up: an answer that is already waiting still counts.
            ready = select.select([self.sock], [], [], max(left, 0.0))[0]
            if not ready:
                self.stop()
                return Outcome(Status.TIMEOUT, seconds=deadline - time.monotonic())
            try:
                chunk = self.sock.recv(min(remaining, 1 << 20))
            except OSError:
                chunk = b""
            if not chunk:
                return Outcome(Status.DIED)
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def _died(self, during: Stage, before: bool = False) -> Outcome:
        status = ZYGOTE.status(self.number, seconds=1.0) if self.number else None
        if self.number in ZYGOTE.out_of_memory:
            self.stop()
            return Outcome(Status.DIED, fact=Fact(Kind.OUT_OF_MEMORY, during, before, limit_mb=self.budget.memory_mb))
        self.stop()
        return Outcome(Status.DIED, fact=ended(status, during, before))


def spawn_request(code_folder: Path, folder: Path, budget: Budget, settings: Settings,
                  warm_ups: tuple[str, ...]) -> dict[str, Any]:
    """What the zygote is asked to fork a worker with (worker.run reads it): the budget goes whole."""
    return {"code_folder": str(code_folder), "folder": str(folder), "budget": budget.to_wire(),
            "without": sorted(settings.without), "require_confinement": settings.require_confinement,
            "warm_ups": list(warm_ups)}


def load_request(module_path: Path) -> dict:
    """The request that imports a module in a worker, in place of the one it held."""
    return {"op": "load", "module_path": str(module_path.resolve()), "module_name": module_path.stem}


def reap_killed() -> None:
    """Wait for every killed worker to be gone (the end of a session)."""
    ZYGOTE.drain()


@atexit.register
def _stop_all() -> None:
    # Ctrl-C or an error can end pytest before fixtures tear down: leave no worker behind.
    for live in list(_live_workers):
        live.stop()
    reap_killed()
