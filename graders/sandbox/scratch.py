"""Temporary folders that name the process they belong to, so that a later run can clear what a killed one left.

A grader killed with `kill -9` (or by a batch's deadline) never runs its clean-up, and its
workers' folders and a batch's staging stay in the temporary folder. Each folder's name
carries its owner's pid and start time (`graders-worker-<pid>-<start>-xxxx`); the next process
to make one removes those of its kind whose owner is no longer alive and that belong to the same
user. "No longer alive" includes a zombie: where pid 1 does not reap orphans (some containers and
micro-VMs), a killed grader stays a zombie for good. The start time tells a reused pid from the owner.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

_OWNED = re.compile(r"^(?P<kind>graders-[a-z]+)-(?P<pid>\d+)-(?P<start>\d+)-")
_swept: set[str] = set()  # the kinds this process has cleared already: once is enough


def make(kind: str) -> Path:
    """A new folder `<tmp>/<kind>-<our pid>-<our start>-xxxx`, after clearing (once per process) the
    abandoned ones of `kind`."""
    if kind not in _swept:
        _swept.add(kind)
        sweep(kind)
    pid = os.getpid()
    return Path(tempfile.mkdtemp(prefix=f"{kind}-{pid}-{_start_time(pid)}-"))


def sweep(kind: str) -> list[Path]:
    """Remove the folders of `kind` whose owner process has ended; returns those removed."""
    removed = []
    root = Path(tempfile.gettempdir())
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED.match(entry.name)
        if match is None or match["kind"] != kind or not _abandoned(entry, int(match["pid"]), int(match["start"])):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def _abandoned(entry: os.DirEntry, pid: int, start: int) -> bool:
    try:
        if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != os.getuid():
            return False  # another user's folder, or not a folder at all: never ours to remove
    except OSError:
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, as another user
    state = _stat_fields(pid)
    if state is None:
        return Path("/proc/self/stat").exists()  # ended between the two looks (unless there is no /proc to look in)
    # dead but unreaped, or the pid now names a process started after the owner
    return state[0] in "ZX" or (start != 0 and int(state[19]) != start)


def _start_time(pid: int) -> int:
    """The process's start, in clock ticks after boot (field 22 of /proc/<pid>/stat); 0 where /proc is missing."""
    fields = _stat_fields(pid)
    return int(fields[19]) if fields else 0


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat's fields after the command name (which may hold spaces): state first."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


make_scratch, sweep_scratch = make, sweep  # the names the sandbox's door gives them
