"""Temporary folders that name the process they belong to, so that a later run can clear what a killed one left.

A grader killed with `kill -9` (or by a batch's deadline) never runs its clean-up, and its
workers' folders and a batch's staging stay in the temporary folder. Each folder's name
carries its owner's pid (`graders-worker-<pid>-xxxx`); the next process to make one removes
those of its kind whose owner is no longer alive and that belong to the same user.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

_OWNED = re.compile(r"^(?P<kind>graders-[a-z]+)-(?P<pid>\d+)-")
_swept: set[str] = set()  # the kinds this process has cleared already: once is enough


def make(kind: str) -> Path:
    """A new folder `<tmp>/<kind>-<our pid>-xxxx`, after clearing (once per process) the abandoned ones of `kind`."""
    if kind not in _swept:
        _swept.add(kind)
        sweep(kind)
    return Path(tempfile.mkdtemp(prefix=f"{kind}-{os.getpid()}-"))


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
        if match is None or match["kind"] != kind or not _abandoned(entry, int(match["pid"])):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def _abandoned(entry: os.DirEntry, pid: int) -> bool:
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
    return False
