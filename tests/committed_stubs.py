"""The stubs the project's tests take as untouched: exercises/ as committed, not as a course maintainer's working
copy, where they may have tried an exercise (the handout releases the committed stubs too: graders/engine/stubs.py)."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from pathlib import Path

COPIES = ".committed-stubs"  # the folder of the checkout the copies go in (.gitignore)


def stubs_as_committed(root: Path) -> tuple[Path, list[str]]:
    """A folder laid out as `root`/exercises/ that holds the stubs as committed, and the paths of the working
    copy's exercises/ that differ from them (changed, deleted or untracked). Where nothing differs, or git cannot
    say (a copy without .git, no git), it is `root`/exercises itself and the list is empty."""
    try:
        status = _git(root, "status", "--porcelain", "--untracked-files=all", "--", "exercises")
        tracked = _git(root, "ls-files", "--", "exercises")
    except (OSError, subprocess.TimeoutExpired):
        return root / "exercises", []
    if status.returncode != 0 or tracked.returncode != 0 or not status.stdout.strip():
        return root / "exercises", []
    # Inside the checkout (git ignores the folder), so that a run given these stubs finds the project's
    # pyproject.toml above them and takes its settings, as a run given exercises/ does.
    base = root / COPIES
    base.mkdir(exist_ok=True)
    copy = Path(tempfile.mkdtemp(prefix="committed-", dir=base)) / "exercises"
    atexit.register(_remove, copy.parent, base)
    for name in tracked.stdout.splitlines():
        shown = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=root, capture_output=True, timeout=60)
        if shown.returncode == 0:  # a file added to the index but never committed is no stub of the course
            target = copy.parent / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(shown.stdout)
    return copy, sorted({line[3:].strip().strip('"') for line in status.stdout.splitlines()})


def _remove(folder: Path, base: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    try:
        base.rmdir()  # the last process out takes the folder away
    except OSError:
        pass


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60)
