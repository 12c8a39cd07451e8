"""The processes a grading run starts, seen from outside through /proc: for the tests that kill,
interrupt or inspect a grader, its zygote and its workers."""

from __future__ import annotations

import time
from pathlib import Path


def parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def descends(pid: int, ancestor: int) -> bool:
    while pid > 1:
        pid = parent(pid)
        if pid == ancestor:
            return True
    return False


def confined(pid: int) -> bool:
    """A worker: it runs under a seccomp filter (the zygote and the grader do not)."""
    try:
        return "Seccomp:\t2" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def family_once_a_worker_runs(root: int, seconds: float = 120.0) -> list[int]:
    """The processes below `root` (its zygote, its workers), once a confined worker is among them."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = [int(entry.name) for entry in Path("/proc").iterdir()
                 if entry.name.isdigit() and descends(int(entry.name), root)]
        if any(confined(pid) for pid in found):
            return found
        time.sleep(0.1)
    raise AssertionError(f"no worker started below {root} within {seconds:g} s")


def children_of(pid: int) -> list[int]:
    """The running processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and parent(int(entry.name)) == pid and running(int(entry.name)):
            found.append(int(entry.name))
    return found
