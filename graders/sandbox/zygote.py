"""The process every worker is forked from: torch loaded, nothing of the grading yet.

A worker forked straight from the grader would start with the grader's whole memory: the
reference modules it has loaded, the expected values it has computed, pytest's stack with
every fixture. A student could read them from `sys.modules` or the frames above their own.
So the grading process forks one zygote as soon as torch is imported, before any reference
is loaded, and asks it for each worker: the zygote forks it, with no more than torch, the
engine and the checks modules whose drivers the worker runs. What a worker would load on
first use for an exercise (torch.func's decompositions, torch._dynamo) the zygote loads once,
before its first fork that needs it (`_warm`), so a class pays it once per process. The
grader then speaks to the worker directly, over a socket pair whose end the zygote handed on.

The zygote reaps its workers and reports how each ended; it kills a worker only while it is
its own unreaped child, so a reused pid is never hit. It dies with the grader, and its
workers with it. One zygote serves every pytest session of a process (the notebooks'
grading server runs one session per exercise).

Once grading has begun, the process is sealed: it may hold the reference and expected values,
so should its zygote die, no other is forked from it (that one would hand them to every
worker). The session then finds its zygote gone and ends the process without a result, and
the batch or the notebooks' server grades the submission again in a fresh one.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import gc
import importlib
import json
import os
import select
import signal
import socket
import sys
import time
from typing import Any, NoReturn

import torch

from graders.sandbox import privileges, worker

_MESSAGE_BYTES = 1 << 16
_warmed: set[str] = set()  # the warm-ups this zygote has run (see _warm)
_PR_SET_PDEATHSIG = 1


class ZygoteError(RuntimeError):
    """The zygote could not be started or has gone away."""


REFUSED = ("the sandbox's zygote has gone away after grading began; a new one forked from this process could "
           "carry the reference and the expected values into every worker, so none is")


class Zygote:
    """The grader's handle on its zygote process."""

    def __init__(self) -> None:
        self.pid = 0
        self.control: socket.socket | None = None
        self.statuses: dict[int, int] = {}  # worker number -> wait status, once the zygote reaped it
        self.killed: set[int] = set()  # worker numbers killed and not yet reported reaped
        self.count = 0
        self.sealed = False  # grading has begun in this process: see seal()
        self.parent = 0  # the process that forked the zygote: only it may wait for it

    @property
    def alive(self) -> bool:
        return self.control is not None

    def start(self) -> None:
        if self.alive:
            return
        if self.sealed:
            raise ZygoteError(REFUSED)
        privileges.not_dumpable()  # inherited by the zygote and every worker: see privileges
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            ours.close()
            _serve(theirs)
        theirs.close()
        self.pid, self.control, self.parent = pid, ours, os.getpid()
        self.statuses.clear()
        self.killed.clear()

    def seal(self) -> None:
        """Say that this process may from now on hold what no worker may see (the reference, the
        expected values): its zygote, forked before, is the last one it forks (see start)."""
        self.sealed = True

    def gone(self) -> bool:
        """Whether this sealed process's zygote has died, noticed or not: the workers it had died with
        it, so some of their answers may be missing, and no other worker can be had here."""
        if self.sealed and self.pid and self.parent == os.getpid():  # a forked copy's pid is not its child
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(self.pid, os.WNOHANG)[0]:
                    self.pid = 0
                    self.close()
        return self.sealed and not self.alive

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
        """Stop the zygote; its workers die with it (they are tied to it by PR_SET_PDEATHSIG)."""
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0

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
            self.close()
            return False
        report = json.loads(data)
        self.statuses[int(report["number"])] = int(report["status"])
        return True


ZYGOTE = Zygote()
atexit.register(ZYGOTE.close)


# ---------------------------------------------------------------- the zygote's side

def _serve(control: socket.socket) -> NoReturn:
    """The zygote's whole life: fork workers on request, reap them, report how they ended."""
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        os.closerange(3, control.fileno())
        os.closerange(control.fileno() + 1, 1 << 16)
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(wake_write)
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)
        children: dict[int, int] = {}  # pid -> worker number
        while True:
            ready = select.select([control, wake_read], [], [])[0]
            if wake_read in ready:
                os.read(wake_read, 4096)
            _reap(children, control)
            if control in ready:
                message, fds, _, _ = socket.recv_fds(control, _MESSAGE_BYTES, 4)
                if not message:
                    break  # the grader has gone
                _act(json.loads(message), fds, children, control, (wake_read, wake_write))
    except BaseException:  # noqa: BLE001 - the zygote must end here, whatever happened
        pass
    os._exit(0)


def _act(message: dict, fds: list[int], children: dict[int, int], control: socket.socket,
         wake: tuple[int, int]) -> None:
    number = int(message["number"])
    if message["op"] == "kill":
        for pid, child in children.items():
            if child == number:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        return
    if message["op"] != "spawn" or len(fds) != 1:
        for fd in fds:
            os.close(fd)
        return
    for name in (message.get("preload") or []):
        with contextlib.suppress(Exception):
            importlib.import_module(name)  # the checks module whose drivers the worker runs
    for warm_up in (message.get("warm_ups") or []):
        _warm(warm_up)
    # What the imports and warm-ups above made goes to the permanent generation: a worker's
    # collections then never walk it, nor copy its pages by touching their headers.
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        control.close()
        for fd in wake:
            os.close(fd)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        worker.run(socket.socket(fileno=fds[0]), message)
    os.close(fds[0])
    children[pid] = number


def _warm(name: str) -> None:
    """Run a checks module's one-time loading (torch.func's decompositions, torch._dynamo) here,
    once, so that every worker forked after it starts with it done: it counts against no call's
    time limit, and a grading process that serves a whole class pays it once."""
    if not name or name in _warmed:
        return
    _warmed.add(name)
    torch.set_num_threads(1)  # no OpenMP pool may exist before a fork (see worker.run)
    module_name, _, attribute = name.partition(":")
    with contextlib.suppress(Exception):  # a failed warm-up only means that the first call pays
        getattr(importlib.import_module(module_name), attribute)()


def _reap(children: dict[int, int], control: socket.socket) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        number = children.pop(pid, None)
        if number is not None:
            control.send(json.dumps({"number": number, "status": status}).encode())
