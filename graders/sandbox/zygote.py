"""The grader's handle on its zygote: the clean process every worker is forked from.

A worker forked from the grader, or from anything the grader forked, would start with the
grader's memory: the reference modules, the expected values, the checks modules with their
hidden inputs and seeds, pytest's frames, and in a batch every classmate's answers. A student
reaches all of it through `sys._getframe`, `gc.get_objects()` or `sys.modules`. So the zygote is
not forked: it is a fresh interpreter (fork_server.py), started with exec and a bare
environment, that imports torch, the worker's code and the public drivers and nothing else.
It forks each worker on request and hands it the socket the grader will speak to it over.

Started early (the pytest plugin starts it before the grader imports torch), it loads torch
while the grader does. One zygote serves every session of a process (the notebooks' grading
server runs one per exercise; a batch's grading process one per student): it is clean by
construction, so a new one may replace it at any time. A session in which it died still ends
without a result (session.py): its workers died with it, so some answers may be missing.

This module stays light (no torch): the plugin imports it before torch loads.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from graders.sandbox import privileges

_MESSAGE_BYTES = 1 << 16
START_PATIENCE = 30.0  # seconds to wait for the machine to allow the zygote's process (EAGAIN, ENOMEM)
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")  # nothing else of the grader's (tokens, keys)
_PACKAGE = __name__.split(".")[0]  # "graders", or the student bundle's "nbchecks"
_PACKAGE_FOLDER = Path(__file__).resolve().parent.parent
# Loads the package from its folder without putting that folder's parent (the project, with its
# reference and course_config.py) on the zygote's sys.path, then runs the fork server.
_BOOTSTRAP = """import importlib.util, sys
spec = importlib.util.spec_from_file_location({package!r}, {init!r}, submodule_search_locations=[{folder!r}])
package = importlib.util.module_from_spec(spec)
sys.modules[{package!r}] = package
spec.loader.exec_module(package)
from {package}.sandbox import fork_server
fork_server.main(int(sys.argv[1]), int(sys.argv[2]))
"""


class ZygoteError(RuntimeError):
    """The zygote could not be started or has gone away."""


class Zygote:
    """The grader's handle on its zygote process."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.statuses: dict[int, int] = {}  # worker number -> wait status, once the zygote reaped it
        self.out_of_memory: set[int] = set()  # worker numbers its cgroup's OOM killer took
        self.killed: set[int] = set()  # worker numbers killed and not yet reported reaped
        self.count = 0
        self.generation = 0  # how many zygotes this process started: a session notes the one it began with
        self.owner = 0  # the process that started the zygote: a forked copy of it has none
        self.ready = False
        self.failure = ""  # why the zygote could not start, as it said

    @property
    def pid(self) -> int:
        return self.process.pid if self.process is not None and self.owner == os.getpid() else 0

    @property
    def alive(self) -> bool:
        return self.control is not None and self.owner == os.getpid()

    def start(self) -> None:
        """Start the zygote unless one of this process's runs; it loads in the background."""
        if self.alive and self.process is not None and self.process.poll() is None:
            return
        self.close()
        privileges.not_dumpable()  # no worker may open the grader's memory through /proc either
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        bootstrap = _BOOTSTRAP.format(package=_PACKAGE, init=str(_PACKAGE_FOLDER / "__init__.py"),
                                      folder=str(_PACKAGE_FOLDER))
        environment = {name: os.environ[name] for name in KEPT_ENVIRONMENT if name in os.environ}
        # One OpenMP thread from the start: a process with a thread pool must not fork (DESIGN.md).
        environment.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        deadline, pause = time.monotonic() + START_PATIENCE, 0.05
        try:
            while True:
                try:
                    # From the main thread only: PR_SET_PDEATHSIG (fork_server) follows the thread that forked.
                    self.process = subprocess.Popen(
                        [sys.executable, "-I", "-c", bootstrap, str(theirs.fileno()), str(os.getpid())],
                        pass_fds=[theirs.fileno()], env=environment, stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
                    break
                except OSError as error:  # EAGAIN, ENOMEM: the machine is short for a moment; wait for it
                    if time.monotonic() > deadline:
                        ours.close()
                        raise ZygoteError(f"the sandbox's zygote could not be started ({error})") from None
                    time.sleep(pause)
                    pause = min(pause * 2, 1.0)
        finally:
            theirs.close()
        self.control, self.owner = ours, os.getpid()
        self.generation += 1
        self.ready, self.failure = False, ""
        self.statuses.clear()
        self.out_of_memory.clear()
        self.killed.clear()

    def died(self) -> bool:
        """Whether this process's zygote has ended (its workers ended with it)."""
        if self.process is None or self.owner != os.getpid():
            return False
        return self.process.poll() is not None

    def spawn(self, request: dict[str, Any], channel: socket.socket) -> int:
        """Ask for a worker that serves `request` on the other end of `channel`; returns its number."""
        self.start()
        self.count += 1
        self._send({"op": "spawn", "number": self.count, **request}, [channel.fileno()])
        return self.count

    def kill(self, number: int) -> None:
        if self.alive and number not in self.statuses:
            self.killed.add(number)
            self._send({"op": "kill", "number": number})

    def status(self, number: int, seconds: float) -> int | None:
        """The wait status of a worker, waiting up to `seconds` for the zygote to reap it."""
        deadline = time.monotonic() + seconds
        while number not in self.statuses and self._receive(deadline - time.monotonic()):
            pass
        return self.statuses.get(number)

    def drain(self, seconds: float = 30.0) -> None:
        """Wait until every killed worker is gone (the end of a session leaves no process behind)."""
        deadline = time.monotonic() + seconds
        while self.killed - set(self.statuses) and self._receive(deadline - time.monotonic()):
            pass
        self.killed -= set(self.statuses)

    def close(self) -> None:
        """Stop the zygote; its workers die with it (they are tied to it by PR_SET_PDEATHSIG). Told by
        the closed socket, it removes its workers' cgroups and goes; if it does not within a second, it
        is killed (and the next zygote removes what it left)."""
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.process is not None and self.owner == os.getpid():
            try:
                self.process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    self.process.send_signal(signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    self.process.wait()
        self.process = None

    def _send(self, message: dict, fds: list[int] | None = None) -> None:
        assert self.control is not None
        try:
            socket.send_fds(self.control, [json.dumps(message).encode()], fds or [])
        except OSError as error:
            self.close()
            raise ZygoteError(f"the zygote has gone away ({error})") from None

    def _receive(self, seconds: float) -> bool:
        """Read one report from the zygote; False when none came within `seconds`."""
        if self.control is None or not select.select([self.control], [], [], max(seconds, 0.0))[0]:
            return False
        data = self.control.recv(_MESSAGE_BYTES)
        if not data:
            self.control.close()
            self.control = None
            return False
        report = json.loads(data)
        if "ready" in report:
            self.ready = True
        elif "failed" in report:
            self.failure = str(report["failed"])[-3000:]
        else:
            self.statuses[int(report["number"])] = int(report["status"])
            if report.get("oom") is True:
                self.out_of_memory.add(int(report["number"]))
        return True


ZYGOTE = Zygote()
atexit.register(ZYGOTE.close)
