"""The grader's handle on its zygote: the clean process every worker is forked from.

A worker forked from the grader, or from anything the grader forked, would start with the
grader's memory: the reference modules, the expected values, the checks modules with their
hidden inputs and seeds, pytest's frames, and in a batch every classmate's answers. A student
reaches all of it through `sys._getframe`, `gc.get_objects()`, `sys.modules`, or by reading its
own memory, where even what was freed stays. So the zygote starts from a process that never held
any of it, in one of two ways:

- **forked** from a grading run at its very start (`pytest exercises/`, the notebooks' grading
  server's first exercise, a batch's grading service: graders/frontends/grade/run/service.py): the plugin imports torch and forks it before course_config.py, a
  checks module or the reference is loaded (`nothing_of_the_grading` checks the modules held).
  It then holds torch and pytest's settings of that run, and shares torch's pages with the
  grader: a second import of torch would cost every run as much as the grading itself, since two
  imports at once run no faster here than one after the other. It sheds the grader's open files
  and zeroes its environment out of its memory first (fork_server.py).
- **exec'd**: a fresh interpreter (fork_server.py) with a bare environment, which imports torch,
  the worker's code and the public drivers, and nothing else: wherever the process has loaded
  anything of the grading (a test run in process; a zygote that has to be replaced).

It forks each worker on request and hands it the socket the grader will speak to it over. One
zygote serves every session of a process (the notebooks' grading server runs one per exercise;
a batch's grading service one per student); should it go, the next is exec'd. A session in
which it died still ends without a result (session.py): its workers died with it, so some
answers may be missing.

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
        self.process: subprocess.Popen | _Forked | None = None
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

    def start(self, fork: bool = False) -> None:
        """Start the zygote unless one of this process's runs; it loads in the background. With `fork`,
        and only while this process has loaded nothing of the grading (see `nothing_of_the_grading`),
        it is forked from here, sharing the torch this process has loaded; otherwise it is exec'd."""
        if self.alive and self.process is not None and self.process.poll() is None:
            return
        self.close()
        privileges.not_dumpable()  # no worker may open the grader's memory through /proc either
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        if fork and self.generation == 0 and nothing_of_the_grading():
            self._fork(ours, theirs)
        else:
            self._exec(ours, theirs)
        self.control, self.owner = ours, os.getpid()
        self.generation += 1
        self.ready, self.failure = False, ""
        self.statuses.clear()
        self.out_of_memory.clear()
        self.killed.clear()

    def _fork(self, ours: socket.socket, theirs: socket.socket) -> None:
        """The zygote as a child of this process, which holds torch, pytest and its settings, and
        nothing of the grading yet: its memory is a copy of that."""
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            ours.close()
            from graders.sandbox import fork_server

            fork_server.main_forked(theirs.fileno(), os.getppid(), _bare_environment())
        theirs.close()
        self.process = _Forked(pid)

    def _exec(self, ours: socket.socket, theirs: socket.socket) -> None:
        """The zygote as a fresh interpreter: nothing of this process is in its memory."""
        bootstrap = _BOOTSTRAP.format(package=_PACKAGE, init=str(_PACKAGE_FOLDER / "__init__.py"),
                                      folder=str(_PACKAGE_FOLDER))
        environment = _bare_environment()
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

    def warm(self, warm_ups: tuple[str, ...]) -> None:
        """Have the zygote run these drivers' warm-ups now, while it waits for its first spawn."""
        self.start()
        self._send({"op": "warm", "number": 0, "warm_ups": list(warm_ups)})

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


class _Forked:
    """A forked zygote, seen as subprocess.Popen sees an exec'd one (pid, poll, wait, send_signal)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                done, status = self.pid, 0
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired("zygote", timeout or 0.0)
            time.sleep(0.005)
        return self.returncode  # type: ignore[return-value]

    def send_signal(self, number: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, number)


# The modules of ours a process may hold when its zygote is forked from it: the plugin's light start,
# before any of the grading (course_config, checks, reference, expected values) is loaded; the last four
# are a grading service's start (grade/run/service.py).
_LIGHT = ("", ".frontends", ".frontends.pytest_plugin", ".frontends.quick_exit", ".engine", ".engine.options",
          ".engine.drawing", ".sandbox", ".sandbox.zygote", ".sandbox.privileges", ".sandbox.forking", ".frontends.cli",
          ".__main__", ".frontends.grade", ".frontends.grade.run", ".frontends.grade.run.service",
          ".frontends.grade.run.template")


def nothing_of_the_grading() -> bool:
    """Whether this process has loaded nothing a worker may not see (checked by the modules it holds)."""
    ours = [name[len(_PACKAGE):] for name in sys.modules if name == _PACKAGE or name.startswith(_PACKAGE + ".")]
    return ("course_config" not in sys.modules and not any(name.startswith("reference") for name in sys.modules)
            and all(name in _LIGHT for name in ours))


def _bare_environment() -> dict[str, str]:
    """The zygote's environment: nothing of the grader's (tokens, keys) but the path and the locale, and
    one OpenMP thread from the start (a process with a thread pool must not fork: DESIGN.md)."""
    kept = {name: os.environ[name] for name in KEPT_ENVIRONMENT if name in os.environ}
    return {**kept, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


ZYGOTE = Zygote()
atexit.register(ZYGOTE.close)
