"""What runs in a Dask worker: a plugin that keeps warm grading services, and the tasks that use them.

A Dask worker never grades itself: it is daemonic, multi-threaded and holds every answer it was
sent. The plugin starts grading services (service.py), clean processes (forked from the batch's
template where this machine has one, else started afresh), one per thread of the worker, and a task
hands a service one submission's answers and waits for its result within a deadline. A service that
misses the deadline is killed with its zygote and workers (its own process group) and the student is
told so; a service that dies is replaced and the student graded once more by a fresh one; a second death
is the submission's doing and is reported as such.

This module is imported by every Dask worker: it loads nothing of the grading (no torch).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import itertools
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker

from graders.frontends.grade.run.template import TEMPLATE

PLUGIN = "graders-grading-services"
ZYGOTE_GONE = 70  # graders.engine.session.EXIT_ZYGOTE_GONE, not imported here: that module loads torch
DRAW_VARIABLE = "GRADERS_SERVICE_DRAWS"  # the generated inputs a service draws at its start (service.py)
START_SECONDS = 300.0  # a service's start-up (torch, the checks) on a busy machine, before it answers hello
FORK_PATIENCE = 60.0  # seconds a worker waits for the machine to allow a new grading service (EAGAIN, ENOMEM)
WAITING = ("graders: the machine refuses a new grading service ({error}); waiting up to {seconds:g} s for it to "
           "free some")


class ServiceDied(Exception):
    """The grading service ended without a reply (it was killed, or it crashed)."""


class MachineRefused(Exception):
    """The machine would not start a grading service (no PID or memory to spare) for FORK_PATIENCE seconds."""


class _Service:
    """One running grading service, spoken to by one task at a time: forked by this process's template
    (template.py) where it has one, else started afresh."""

    def __init__(self, log: Path, draws: list[str]) -> None:
        self.log = log
        self.buffer = b""
        self.hello: dict[str, Any] | None = None
        self.popen: subprocess.Popen | None = None
        forked = TEMPLATE.fork_service(log, draws)
        if forked is not None:
            self.pid, requests, self.replies = forked
        else:
            environment = {**os.environ, DRAW_VARIABLE: ",".join(draws)} if draws else None
            self.popen = subprocess.Popen([sys.executable, "-m", "graders.frontends.grade.run.service", str(log)],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, process_group=0,
                                          env=environment)
            assert self.popen.stdin is not None and self.popen.stdout is not None
            self.pid, requests, self.replies = self.popen.pid, os.dup(self.popen.stdin.fileno()), os.dup(
                self.popen.stdout.fileno())
            self.popen.stdin.close()
            self.popen.stdout.close()
        self.requests = os.fdopen(requests, "wb")
        try:
            self.ended = os.pidfd_open(self.pid)  # readable once the service has ended, whoever its parent is
        except ProcessLookupError:  # ended already, and reaped by the template: the first question finds it so
            self.ended = os.open(os.devnull, os.O_RDONLY)  # always readable: not alive

    def ask(self, request: dict[str, Any], seconds: float) -> dict[str, Any] | None:
        """The service's reply, or None when it did not come within `seconds` (the service is then killed)."""
        try:
            self.requests.write((json.dumps(request) + "\n").encode())
            self.requests.flush()
        except OSError:
            self.stop()
            raise ServiceDied(self._said()) from None
        deadline = time.monotonic() + seconds
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.replies], [], [], left)[0]:
                self.stop()
                return None
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                self.stop()
                raise ServiceDied(self._said())
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def alive(self) -> bool:
        return self.ended >= 0 and not select.select([self.ended], [], [], 0)[0]

    def close(self, seconds: float = 10.0) -> None:
        """End the service as it ends itself (its stdin closed): its zygote then removes its workers' cgroups.
        One that has not ended within `seconds` is killed."""
        with contextlib.suppress(OSError):
            self.requests.close()
        if self.ended >= 0:
            select.select([self.ended], [], [], seconds)
        self.stop()

    def stop(self) -> None:
        """Kill the service with its zygote and workers (its process group), and reap it (its parent does,
        when that is the template)."""
        if self.ended < 0:
            return
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self.ended, signal.SIGKILL)
        select.select([self.ended], [], [], 5.0)
        if self.popen is not None:
            self.popen.wait()
        for stream in (self.requests,):
            with contextlib.suppress(OSError):
                stream.close()
        for fd in (self.replies, self.ended):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.ended = -1

    def note(self, line: str) -> None:
        """Add a line to the service's log (it has ended, or is stopped: nothing else writes there now), on a line
        of its own: a service stopped mid-line (pytest's row of dots) leaves no newline."""
        with contextlib.suppress(OSError), open(self.log, "ab+") as log:
            size = log.seek(0, os.SEEK_END)
            if size:
                log.seek(size - 1)
            ended = not size or log.read(1) == b"\n"
            log.write(("" if ended else "\n").encode() + line.encode("utf-8", "backslashreplace") + b"\n")

    def _said(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-1500:]
        except OSError:
            return ""


class GradingServices(WorkerPlugin):
    """Keeps one warm grading service per thread of the worker it is registered on."""

    name = PLUGIN
    idempotent = True

    def __init__(self, course: str, logs: str | None = None, draws: dict[str, list[str]] | None = None) -> None:
        self.course = course  # the client's course digest: a worker with other checks must not grade
        self.logs = logs  # where the services' logs go (a cluster of the client's machine), else the worker's folder
        # By worker address, the generated inputs ("lesson/slug") its first service draws while torch loads:
        # those of the reference's exercises that worker grades (cluster.reference_values).
        self.draws = draws or {}

    def setup(self, worker: Any) -> None:
        self.folder = Path(worker.local_directory) / "graders"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log_folder = Path(self.logs) if self.logs else self.folder
        self.log_folder.mkdir(parents=True, exist_ok=True)
        self.prefix = f"{worker.name}-".replace("/", "_").replace(":", "_")
        self.lock = threading.Lock()
        self.numbers = itertools.count(1)
        # Services are started from this one thread, which lives as long as the plugin: a service dies with the
        # thread that started it (PR_SET_PDEATHSIG), and a task's thread may end before the service should.
        self.starter = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="graders-services")
        # Started now, so that torch loads while the reference is graded; each has read nothing yet.
        self.idle: list[_Service] = []
        draws = self.draws.get(worker.address, [])
        with contextlib.suppress(OSError):  # the machine is short now: a task starts them later, patiently
            for number in range(max(1, worker.state.nthreads)):
                self.idle.append(self._start(draws if number == 0 else []))

    def teardown(self, worker: Any) -> None:
        for service in self.idle:
            service.close()
        self.idle = []
        self.starter.shutdown(wait=False)

    def ask(self, request: dict[str, Any], seconds: float) -> dict[str, Any] | None:
        """Ask an idle service (one is started if none is); see `_Service.ask`. A service that dies or
        misses its deadline is not given back: the next task gets a fresh one."""
        with self.lock:
            service = self.idle.pop() if self.idle else None
        if service is None or not service.alive():
            if service is not None:
                service.stop()
            service = self._start_patiently()
        if service.hello is None:
            service.hello = service.ask({"op": "hello"}, START_SECONDS)
            if service.hello is None:
                raise ServiceDied(f"the grading service did not start within {START_SECONDS:g} s")
            if service.hello["course"] != self.course:
                service.stop()
                raise WrongCourse(f"the worker {get_worker().address} has another version of the course "
                                  f"(checks, reference or course_config.py) than the instructor's: install the "
                                  f"same version on every worker machine")
        try:
            reply = service.ask(request, seconds)
        except ServiceDied:
            service.note(f"graders: {_whose(request)}: the grading service ended without a reply")
            raise
        if reply is None:
            service.note(f"graders: {_whose(request)}: no reply within {seconds:g} s; the grading service was "
                         f"stopped, with its workers")
        if reply is not None and reply.get("exit") != ZYGOTE_GONE:
            with self.lock:
                self.idle.append(service)
        elif reply is not None:
            service.close()  # it ends after saying so: the next task starts a fresh one
        return reply

    def _start(self, draws: list[str] | None = None) -> _Service:
        log = self.log_folder / f"service-{self.prefix}{next(self.numbers)}.log"
        return self.starter.submit(_Service, log, draws or []).result()

    def _start_patiently(self) -> _Service:
        """A new service, waiting while the machine has no process or memory to spare (EAGAIN, ENOMEM):
        that is the machine's moment, not the student's."""
        deadline, pause, said = time.monotonic() + FORK_PATIENCE, 0.05, False
        while True:
            try:
                return self._start()
            except OSError as error:
                why = f"{type(error).__name__}: {error.strerror or error}"
                if time.monotonic() > deadline:
                    raise MachineRefused(f"no grading service could be started for {FORK_PATIENCE:g} s ({why}): "
                                         f"the machine is out of processes or memory; not graded now, a rerun "
                                         f"grades it") from None
                if not said:
                    print(WAITING.format(error=why, seconds=FORK_PATIENCE), file=sys.stderr, flush=True)
                    said = True
                time.sleep(pause)
                pause = min(pause * 2, 1.0)


def _whose(request: dict[str, Any]) -> str:
    """Whose request it is, for the log: `student 'ann'` (an id written with repr: it may hold a newline)."""
    if request.get("op") == "grade":
        return f"student {request.get('student')!r}"
    return "the reference" if request.get("op") == "reference" else f"the request {request.get('op')!r}"


class ExpectedValues(WorkerPlugin):
    """The reference's expected values, written once into each worker's folder, and into every worker that
    joins later or is restarted (a plugin is given to each; data scattered to a worker dies with it)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        self.name = f"graders-expected-{self.digest}"

    def setup(self, worker: Any) -> None:
        path = expected_path(Path(worker.local_directory), self.digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file():
            partial = path.with_name(f".{path.name}.partial")
            partial.write_text(self.text, encoding="utf-8")
            os.replace(partial, path)


def expected_path(local_directory: Path, digest: str) -> Path:
    return local_directory / "graders" / f"expected-{digest}.json"


class WrongCourse(Exception):
    """A worker's installed course differs from the client's: its grades would not be this course's."""


def _services() -> GradingServices:
    return get_worker().plugins[PLUGIN]  # type: ignore[return-value]


def sandbox_here() -> dict[str, Any]:
    """What the sandbox holds on this worker, as its grading service sees it (run with `Client.run`)."""
    return _services().ask({"op": "hello"}, START_SECONDS) or {}


def reference_values(lesson: str, slugs: list[str]) -> dict[str, str]:
    """A task: the reference's expected values for some exercises of a lesson."""
    reply = _services().ask({"op": "reference", "lesson": lesson, "slugs": slugs}, START_SECONDS)
    if reply is None or reply.get("values") is None:
        raise RuntimeError(f"grading the reference of {', '.join(slugs)} failed (exit status "
                           f"{(reply or {}).get('exit')}); the worker's logs are in {_services().log_folder}")
    return reply["values"]


def grade_answers(job: dict[str, Any], expected: str, seconds: float) -> dict[str, Any]:
    """A task: one submission's answers graded with the expected values of digest `expected` (ExpectedValues);
    returns the service's reply (result and plots) or why not."""
    services = _services()
    request = {"op": "grade", **job, "expected": str(expected_path(Path(get_worker().local_directory), expected))}
    for attempt in range(2):
        try:
            reply = services.ask(request, seconds)
        except MachineRefused as refused:
            return {"machine": str(refused)}
        except ServiceDied:
            if attempt == 0:
                continue  # a fresh service grades them once more
            return {"error": "the grading process ended unexpectedly, twice"}
        if reply is None:
            return {"error": f"grading took longer than {seconds:g} s in all and was stopped"}
        if reply.get("result") is None and reply.get("exit") == ZYGOTE_GONE and attempt == 0:
            continue
        return reply
    return {"error": "the grading process's zygote died, twice"}
