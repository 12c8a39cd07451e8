"""The grading process a notebook's test cells talk to.

    python -I server.py LOG [PATH ...]            one notebook's, over stdin and stdout
    python -I server.py --listen SOCKET LOG       a whole autograde run's (shared_server.py)

Importing torch and pytest costs seconds, so one process serves many test cells: it reads one
JSON request per line (the pytest arguments of one exercise, and optionally the file its output
goes to), runs `pytest.main` on them and answers `{"exit": code}`. Pytest's own output goes to
the request's log, else to LOG.

The first form serves one notebook and ends when stdin closes, that is when the kernel goes
away. The second serves every notebook of one `nbgrader autograde` run, one kernel connection
after another on a Unix socket, and ends when stdin closes (nbgrader has gone) or when no kernel
came for IDLE_SECONDS.

Copied into each student bundle beside runtime.py; it imports only the standard library
and pytest. `-I` keeps the notebook's folder (and any file a student put there) off
sys.path; the PATHs given are the only additions (the bundle, for students).
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import select
import socket
import sys
from typing import IO, Callable, Iterable

# With no kernel for this long, the autograde run has ended: a formgrader's, whose process stays, leaves no grading
# process behind (a later run, maybe of a changed course, starts its own).
IDLE_SECONDS = 120.0


def main(argv: list[str]) -> int:
    _die_with_parent()
    listen = argv[:1] == ["--listen"]
    if listen:
        socket_path, log_path, *paths = argv[1:]
    else:
        log_path, *paths = argv
    sys.path[:0] = paths
    reply = os.fdopen(os.dup(1), "w", encoding="utf-8")
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)  # pytest writes to fds 1 and 2; keep them off the reply channel
    os.dup2(log, 2)
    import pytest

    # A session makes some hundred thousand objects: collecting the young ones every 700 allocations cost a
    # batch's grading service 5.5% of its CPU (graders/frontends/grade/run/service.py sets the same).
    gc.set_threshold(10_000, 10, 10)
    if not listen:
        _serve(sys.stdin, reply, pytest.main, log)
        return 0
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(socket_path)  # in a folder only its owner can open (shared_server.py)
        listener.listen(1)
        reply.write("ready\n")
        reply.flush()
        while True:
            readable, _, _ = select.select([listener, sys.stdin], [], [], IDLE_SECONDS)
            if not readable or (sys.stdin in readable and not sys.stdin.readline()):
                return 0  # nbgrader has gone, or has graded all it will in this run
            if listener in readable:
                connection, _ = listener.accept()
                with connection, connection.makefile("r", encoding="utf-8") as requests, \
                        connection.makefile("w", encoding="utf-8") as answers:
                    _serve(requests, answers, pytest.main, log)


def _serve(requests: Iterable[str], answers: IO[str], run: Callable[..., object], log: int) -> None:
    """Run each request's pytest session and answer its exit code, until the requests end. A request's
    "plugins" are handed to pytest as modules: where the process was started with PYTEST_DISABLE_PLUGIN_AUTOLOAD,
    pytest then looks through no installed package's entry points, and a `-p` name would send it to them all."""
    for line in requests:
        request = json.loads(line)
        plugins = [importlib.import_module(name) for name in request.get("plugins", [])]
        target = request.get("log")
        session_log = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600) if target else log
        os.dup2(session_log, 1)  # this session's output goes to the log its kernel reads, and no other's
        os.dup2(session_log, 2)
        try:
            code = run(list(request["args"]), plugins=plugins)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(log, 1)
            os.dup2(log, 2)
            if session_log != log:
                os.close(session_log)
        answers.write(json.dumps({"exit": int(code)}) + "\n")  # type: ignore[call-overload]
        answers.flush()


def _die_with_parent() -> None:
    """Linux: go when the kernel (or nbgrader) goes, even while a session runs (its workers then go with us)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
