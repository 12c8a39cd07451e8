"""The zygote's own program: a fresh interpreter that loads torch and forks workers on request.

It is started with exec, never forked from the grader (zygote.py starts it): its memory then
holds what this module imports, torch, the worker's code and the drivers (graders/<lesson>/<slug>/drivers.py,
public by design), and nothing the grader held: no submission, no reference, no checks module,
no hidden input, seed, check name or expected value, no frame of the grader's. Every worker is a
fork of it, so every worker starts as clean. What a worker needs to know arrives by message.

What a worker would load on first use for an exercise (torch.func's decompositions) is loaded
here once, before the first fork that needs it (`_warm`), so a class pays it once per zygote.
The zygote reaps its workers and reports how each ended; it kills a worker only while it is its
own unreaped child, so a reused pid is never hit. It dies with the grader, its workers with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import json
import os
import re
import select
import signal
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import NoReturn

from graders.sandbox.cgroups import NoCgroups, NoCgroupsReason

MESSAGE_BYTES = 1 << 16
_warmed: set[str] = set()  # the warm-ups this zygote has run (see _warm)
# cgroups.Groups where this zygote may make them, else why not (cgroups.NoCgroups)
_groups: object = NoCgroups(NoCgroupsReason.NOT_LOOKED_FOR)


def main(control_fd: int, parent: int) -> NoReturn:
    """The zygote's whole life: load, say ready, fork workers on request, reap them."""
    control = socket.socket(fileno=control_fd)
    try:
        from graders.sandbox.forking import die_with_parent

        die_with_parent()
        if os.getppid() != parent:  # the grader died before the line above took effect
            os._exit(1)
        # A terminal's ^C reaches the grader's whole process group, this process too: the
        # interruption is the grader's to handle (it says so and stops us), not a zygote that died.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _load()
        control.send(json.dumps({"ready": True}).encode())
    except BaseException:  # noqa: BLE001 - say why, so the grader can tell the instructor
        with contextlib.suppress(OSError):
            control.send(json.dumps({"failed": traceback.format_exc(limit=4)[-3000:]}).encode())
        os._exit(1)
    try:
        _serve(control)
    except BaseException:  # noqa: BLE001 - the zygote must end here, whatever happened
        pass
    with contextlib.suppress(BaseException):
        if not isinstance(_groups, NoCgroups):
            _groups.close()  # type: ignore[attr-defined]
    os._exit(0)


def main_forked(control_fd: int, parent: int, environment: dict[str, str]) -> NoReturn:
    """The zygote's life when forked from a grader that has loaded nothing of the grading (zygote.py):
    first shed what it inherited that a worker needs not have (every other open file, the grader's
    environment), then as `main`."""
    try:
        os.closerange(3, control_fd)
        os.closerange(control_fd + 1, 1 << 16)
        quiet = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(quiet, fd)
        os.close(quiet)
        _scrub_environment()
        os.environ.update(environment)
    except BaseException:  # noqa: BLE001 - never back into the grader's code
        os._exit(1)
    main(control_fd, parent)


def _scrub_environment() -> None:
    """Zero the grader's environment out of this forked process's memory, not only out of os.environ: a
    worker can read its whole memory (its bytes, freed or not), so the values (a token, a key) must not
    be there to find. Three copies exist: os.environ, the bytes of posix.environ it was made from, and
    the block the kernel wrote when the grader started (/proc/self/environ). Only this process's copy of
    each page is written: the grader keeps its own."""
    import posix

    os.environ.clear()  # unsetenv each: the C library's table no longer points into the block
    payload = sys.getsizeof(b"") - 1  # where a bytes object's characters start, after its header
    for key, value in list(posix.environ.items()):
        for text in (key, value):
            if len(text) > 1:  # one-character bytes are shared singletons: nothing secret fits in them
                ctypes.memset(id(text) + payload, 0, len(text))
    posix.environ.clear()
    with contextlib.suppress(OSError, ValueError, IndexError):
        fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # env_start and env_end, fields 50 and 51
        if 0 < start < end:
            ctypes.memset(start, 0, end - start)


def _load() -> None:
    """Everything every worker needs, once: torch without a thread pool (see DESIGN.md: a fork
    after a parallel op deadlocks), the eager stand-in for torch._dynamo, the worker, the paths a
    worker may read, and every driver module."""
    from graders.sandbox import privileges

    privileges.not_dumpable()  # a worker of our user may not open our memory through /proc
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as score:
        score.write("0")  # no share of a batch parent's protection from the OOM killer
    import torch

    torch.set_num_threads(1)
    from graders.sandbox import eager_dynamo
    from graders.sandbox import cgroups, confinement, worker  # noqa: F401 - loaded here once, for every fork

    eager_dynamo.install()
    confinement.warm_paths()
    global _groups
    _groups = cgroups.Groups.find(os.getpid())
    package = __name__.split(".")[0]  # graders, or nbchecks in a student bundle
    for driver in sorted(Path(__file__).resolve().parents[1].glob("lesson*/*/drivers.py")):
        importlib.import_module(f"{package}.{driver.parent.parent.name}.{driver.parent.name}.drivers")


def _serve(control: socket.socket) -> None:
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write)
    children: dict[int, int] = {}  # pid -> worker number
    while True:
        ready = select.select([control, wake_read], [], [])[0]
        if wake_read in ready:
            os.read(wake_read, 4096)
        _reap(children, control)
        if control in ready:
            message, fds, _, _ = socket.recv_fds(control, MESSAGE_BYTES, 4)
            if not message:
                break  # the grader has gone
            _act(json.loads(message), fds, children, control, (wake_read, wake_write))


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
        if message["op"] == "warm":  # the run's warm-ups, ahead of its first spawn (zygote.Zygote.warm)
            for warm_up in (message.get("warm_ups") or []):
                _warm(str(warm_up))
        return
    for warm_up in (message.get("warm_ups") or []):
        _warm(str(warm_up))
    # What the imports and warm-ups made goes to the permanent generation: a worker's
    # collections then never walk it, nor copy its pages by touching their headers.
    gc.freeze()
    pid = _fork_patiently()
    if pid == 0:
        from graders.sandbox import worker

        control.close()
        for fd in wake:
            os.close(fd)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        worker.run(socket.socket(fileno=fds[0]), message, _groups)
    os.close(fds[0])
    children[pid] = number


def _fork_patiently(seconds: float = 30.0) -> int:
    """os.fork, tried again while the machine has no process or memory to spare (EAGAIN, ENOMEM): that is
    the machine's moment, not the student's, and a worker that never starts would be blamed on them."""
    deadline, pause = time.monotonic() + seconds, 0.05
    while True:
        try:
            return os.fork()
        except (BlockingIOError, MemoryError, OSError):
            if time.monotonic() > deadline:
                raise  # the zygote ends; the grading session then stops without a result, to be graded again
            time.sleep(pause)
            pause = min(pause * 2, 1.0)


def _warm(name: str) -> None:
    """Run a driver module's one-time loading (torch.func's decompositions) here, once, so that every
    worker forked after it starts with it done: it counts against no call's time limit."""
    if not name or name in _warmed or not re.fullmatch(r"\w+\.lesson\d+\.\w+\.drivers:\w+", name):
        return  # only the drivers' own warm-ups: nothing else is loaded into a worker's ancestor
    _warmed.add(name)
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
            oom = False
            if not isinstance(_groups, NoCgroups):  # the worker's group: read how it ended, then remove it
                oom = _groups.out_of_memory(f"w{number}")  # type: ignore[attr-defined]
                _groups.remove(f"w{number}")  # type: ignore[attr-defined]
            control.send(json.dumps({"number": number, "status": status, "oom": oom}).encode())


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
