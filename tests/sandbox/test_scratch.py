"""Temporary folders left by a killed grader are cleared by the next run, and only those."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from graders.sandbox import scratch


def _dead_pid() -> int:
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    return finished.pid


def _start(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])


def test_only_the_folders_of_ended_processes_are_removed() -> None:
    root = Path(tempfile.gettempdir())
    dead, alive = _dead_pid(), os.getppid()
    abandoned = Path(tempfile.mkdtemp(prefix=f"graders-test-{dead}-1-"))
    (abandoned / "scratch").mkdir()
    (abandoned / "scratch" / "left.txt").write_text("left by a killed worker")
    in_use = Path(tempfile.mkdtemp(prefix=f"graders-test-{alive}-{_start(alive)}-"))
    reused = Path(tempfile.mkdtemp(prefix=f"graders-test-{alive}-{_start(alive) - 1}-"))  # an earlier owner's pid
    ours = Path(tempfile.mkdtemp(prefix=f"graders-test-{os.getpid()}-{_start(os.getpid())}-"))
    other_kind = Path(tempfile.mkdtemp(prefix=f"graders-other-{dead}-1-"))
    try:
        removed = scratch.sweep("graders-test")
        assert sorted(removed) == sorted([root / abandoned.name, root / reused.name])
        assert not abandoned.exists()
        assert in_use.is_dir() and ours.is_dir() and other_kind.is_dir()
    finally:
        for folder in (abandoned, in_use, reused, ours, other_kind):
            subprocess.run(["rm", "-rf", str(folder)], check=True)


def test_the_folder_of_a_killed_process_that_stays_a_zombie_is_removed() -> None:
    # Nobody waits for this child while the sweep runs: it is a zombie, as an orphan is where pid 1 reaps nothing.
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    while Path(f"/proc/{zombie.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.01)
    left = Path(tempfile.mkdtemp(prefix=f"graders-test-{zombie.pid}-{_start(zombie.pid)}-"))
    try:
        assert scratch.sweep("graders-test") == [Path(tempfile.gettempdir()) / left.name]
    finally:
        zombie.wait()
        subprocess.run(["rm", "-rf", str(left)], check=True)


def test_a_new_folder_names_its_owner() -> None:
    folder = scratch.make("graders-test")
    try:
        assert folder.name.startswith(f"graders-test-{os.getpid()}-{_start(os.getpid())}-")
    finally:
        folder.rmdir()
