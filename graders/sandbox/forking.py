"""A fork that may be refused: the helpers forked beside the grading (the drawing helper, the batch's template)
are worth having but not needed, so where the system refuses a process they are simply done without. And the
tie of a helper to the process that started it: it goes when that one goes, even by kill -9."""

from __future__ import annotations

import ctypes
import os
import signal
import socket

_PR_SET_PDEATHSIG = 1


def fork_or_close(*ends: socket.socket) -> int | None:
    """`os.fork()`'s answer; or, where the system refuses a new process, None with `ends` (the helper's channel)
    closed, so that the caller goes on without its helper."""
    try:
        return os.fork()
    except OSError:
        for end in ends:
            end.close()
        return None


def die_with_parent() -> None:
    """Have Linux kill this process (SIGKILL) when the thread that started it ends."""
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
