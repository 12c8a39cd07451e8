"""The grading process a notebook's test cells talk to: `python -I server.py LOG [PATH ...]`.

Importing torch and pytest costs seconds, so one process serves every test cell of a
notebook: it reads one JSON request per line on stdin (the pytest arguments of one
exercise), runs `pytest.main` on them and answers `{"exit": code}` on stdout. Pytest's
own output goes to LOG. It ends when stdin closes, that is when the kernel goes away.

Copied into each student bundle beside runtime.py; it imports only the standard library
and pytest. `-I` keeps the notebook's folder (and any file a student put there) off
sys.path; the PATHs given are the only additions (the bundle, for students).
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    _die_with_parent()
    log_path, *paths = argv
    sys.path[:0] = paths
    reply = os.fdopen(os.dup(1), "w", encoding="utf-8")
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)  # pytest writes to fds 1 and 2; keep them off the reply channel
    os.dup2(log, 2)
    import pytest

    for line in sys.stdin:
        request = json.loads(line)
        code = pytest.main(list(request["args"]))
        reply.write(json.dumps({"exit": int(code)}) + "\n")
        reply.flush()
    return 0


def _die_with_parent() -> None:
    """Linux: go when the kernel goes, even while a session runs (its workers then go with us)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
