"""A fork that may be refused: the helpers forked beside the grading (the drawing helper, the batch's template)
are worth having but not needed, so where the system refuses a process they are simply done without."""

from __future__ import annotations

import os
import socket


def fork_or_close(*ends: socket.socket) -> int | None:
    """`os.fork()`'s answer; or, where the system refuses a new process, None with `ends` (the helper's channel)
    closed, so that the caller goes on without its helper."""
    try:
        return os.fork()
    except OSError:
        for end in ends:
            end.close()
        return None
