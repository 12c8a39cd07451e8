"""One grading process for a whole `nbgrader autograde` run, started by nbgrader's own process.

Each notebook's kernel used to start its own grading process (server.py): torch imported again,
a new zygote, and the reference's expected values computed again, for every student. Under
autograde the BlankStudentCells step (preprocessors.py), which nbgrader runs in its own process
before each notebook, calls `ensure()`: the first call starts `server.py --listen` on a Unix
socket in a folder only this user can open, and every kernel started after it finds that socket
in the environment (SERVER_ENV) and grades its exercises there, one connection per kernel.

It is as clean as a batch's grading service (graders/frontends/grade/run/service.py), which grades
one student after another the same way: workers are forked from a zygote that was forked before
anything of the grading was loaded, so no classmate's answer is ever in a worker's memory.
Student code runs only in those workers, which cannot open this folder. A kernel whose exercise
runs out of time kills the process (as it killed its own); the next notebook gets a new one.
It ends when nbgrader does (its stdin is a pipe from this process), or after two idle minutes
(server.py's IDLE_SECONDS) where nbgrader's process lives on, as the formgrader's does; there a
course that changed in between (its digest, graders/engine/course_version.py) gets a new process
and new values.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

SERVER_ENV = "GRADERS_AUTOGRADE_SERVER"  # {"socket", "pid", "values"} of the running process, for the kernels
SERVER_FILE = Path(__file__).resolve().parent / "server.py"
START_SECONDS = 60.0  # for pytest to load and the socket to listen: seconds, unless the machine is swamped


class SharedServer:
    """The grading process of this nbgrader run, started on first need and again after it was killed."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.folder: Path | None = None
        # The reference's expected values, graded by the first notebook: kept for the whole run, past a process
        # killed after a timeout. Only grading processes write here (the plugin's --expected-cache).
        self.values: Path | None = None
        self.course = ""  # the digest of the course that process grades, and those values are of

    def ensure(self) -> dict[str, object] | None:
        """The running process's address (started now if none runs), or None if it could not be started: the
        kernels then start their own, as they did before."""
        from graders.engine.course_version import course_digest  # no torch: the checks' and reference's files

        # A formgrader's process lives on between autograde runs: a course changed since (a check mended) gets a new
        # process, which loads it, and new values.
        course = course_digest()
        if self.process is not None and self.process.poll() is None and course == self.course:
            return self.address()
        self.stop()
        if self.values is None or not self.values.is_dir() or course != self.course:
            if self.values is not None:
                shutil.rmtree(self.values, ignore_errors=True)
            self.values = Path(tempfile.mkdtemp(prefix="graders-autograde-values-"))  # mode 0700: this user's only
        self.course = course
        self.folder = Path(tempfile.mkdtemp(prefix="graders-autograde-"))
        socket_path = self.folder / "socket"
        self.process = subprocess.Popen(
            [sys.executable, "-I", str(SERVER_FILE), "--listen", str(socket_path), str(self.folder / "server.log")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.folder,
            env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # the kernels name the plugin to load
            text=True, start_new_session=True)
        assert self.process.stdout is not None
        if not select.select([self.process.stdout], [], [], START_SECONDS)[0] or \
                self.process.stdout.readline().strip() != "ready":
            self.stop()
            return None
        return self.address()

    def address(self) -> dict[str, object]:
        assert self.process is not None and self.folder is not None
        return {"socket": str(self.folder / "socket"), "pid": self.process.pid, "values": str(self.values)}

    def stop(self) -> None:
        """Tell the process to end (its stdin closes), as a finished nbgrader would; kill what is left after a few
        seconds; remove its folder."""
        if self.process is not None:
            with contextlib.suppress(OSError):
                if self.process.stdin is not None:
                    self.process.stdin.close()
            try:
                self.process.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            with contextlib.suppress(OSError):
                if self.process.stdout is not None:
                    self.process.stdout.close()
            self.process = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


    def close(self) -> None:
        """At the end of the run: the process stopped, its values removed."""
        self.stop()
        if self.values is not None:
            shutil.rmtree(self.values, ignore_errors=True)
            self.values = None


SHARED = SharedServer()
atexit.register(SHARED.close)


def offer_to_kernels() -> None:
    """Before a notebook's kernel starts: make sure the process runs, and tell the kernel where it is."""
    address = SHARED.ensure()
    if address is None:
        os.environ.pop(SERVER_ENV, None)
    else:
        os.environ[SERVER_ENV] = json.dumps(address)


def withdraw_from_kernels() -> None:
    os.environ.pop(SERVER_ENV, None)
