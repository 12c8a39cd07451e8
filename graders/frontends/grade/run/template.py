"""One torch import for every grading service of a batch on this machine.

A grading service (service.py) started with `subprocess` imports torch itself: with two
services on two cores, the two imports run no faster than one after the other. So, when the
batch grades on this machine, `python -m graders grade` forks a **template** first thing, before
it reads any answer or loads the course: a process that imports torch, pytest and matplotlib
(public code) and nothing of the grading, then forks a grading service whenever a Dask worker
of this process asks (dask_worker.py). Each service is a copy of that clean moment, exactly as a
fresh one would be at its start, and forks its own zygote from itself as service.py says; the
template never reads a request, an answer or a result. Remote Dask workers have no template:
they start their services afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import threading
from pathlib import Path

from graders import sandbox

_MESSAGE_BYTES = 1 << 16


class Template:
    """The client's handle on its template process."""

    def __init__(self) -> None:
        self.control: socket.socket | None = None
        self.pid = 0
        self.lock = threading.Lock()  # one request at a time: each Dask worker's thread may ask

    def start(self) -> None:
        """Fork the template, unless this process has loaded anything of the grading (then there is none,
        and services start afresh)."""
        from graders.sandbox import nothing_of_the_grading

        if self.control is not None or not nothing_of_the_grading():
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = sandbox.fork_or_close(ours, theirs)
        if pid is None:
            return
        if pid == 0:
            ours.close()
            _serve(theirs)
        theirs.close()
        self.control, self.pid = ours, pid

    def stop(self) -> None:
        """End the template now: the run has nothing to grade (a rerun where no answer changed, to write the
        outputs again after a decision), so the imports it is still busy with would only cost a core: about
        2 CPU-s of a no-op rerun's 4.7 (measured). Nothing reads from it after this; fork_service finds none."""
        if self.control is None:
            return
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        self.control.close()
        self.control, self.pid = None, 0

    def fork_service(self, log: Path, draws: list[str]) -> tuple[int, int, int] | None:
        """A new grading service: its pid, the fd to write its requests to and the fd to read its replies
        from; None when there is no template (or it has gone: the caller starts one afresh)."""
        if self.control is None:
            return None
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        try:
            with self.lock:
                socket.send_fds(self.control, [json.dumps({"log": str(log), "draws": draws}).encode()],
                                [requests_read, replies_write])
                answer = self.control.recv(_MESSAGE_BYTES)
            pid = int(json.loads(answer)["pid"]) if answer else 0
        except (OSError, ValueError, KeyError):
            pid = 0
        finally:
            os.close(requests_read)
            os.close(replies_write)
        if pid <= 0:
            os.close(requests_write)
            os.close(replies_read)
            return None
        return pid, requests_write, replies_read


TEMPLATE = Template()


def _serve(control: socket.socket) -> None:
    """The template's life: load what every service needs that is public, then fork services on request."""
    try:
        sandbox.die_with_parent()  # it goes with the batch, even by kill -9
        os.setpgid(0, 0)  # the terminal's ^C is the batch's to handle, not the template's
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # its services are reaped by the kernel
        with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as score:
            score.write("0")  # never the batch's protection from the OOM killer (the batch alone holds results)
        import matplotlib
        import pytest  # noqa: F401
        import torch  # noqa: F401

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except BaseException:  # noqa: BLE001 - without a template, services start afresh
        os._exit(1)
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, _MESSAGE_BYTES, 2)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)  # the batch has gone
        try:
            request = json.loads(message)
            pid = os.fork()
        except (OSError, ValueError):
            pid = -1
        if pid == 0:
            _become_service(control, fds, request)
        for fd in fds:
            os.close(fd)
        with contextlib.suppress(OSError):
            control.send(json.dumps({"pid": pid}).encode())


def _become_service(control: socket.socket, fds: list[int], request: dict) -> None:
    """In a child of the template: a grading service, as `python -m graders.frontends.grade.run.service` would be."""
    code = 70
    try:
        control.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # it waits for its own zygote
        os.setpgid(0, 0)  # its own group: killed with its zygote and workers as one
        requests, replies = fds
        os.dup2(requests, 0)
        os.dup2(replies, 1)
        os.close(requests)
        os.close(replies)
        os.environ[_draw_variable()] = ",".join(request.get("draws") or [])
        from graders.frontends.grade.run import service

        service.main(str(request["log"]))
        code = 0
    except BaseException:  # noqa: BLE001 - the Dask worker sees its pipe close, and starts another
        pass
    os._exit(code)


def _draw_variable() -> str:
    from graders.frontends.grade.run.service import DRAW_VARIABLE

    return DRAW_VARIABLE
