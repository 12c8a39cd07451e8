"""Temporary folders left by a killed grader are cleared by the next run, and only those."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from graders import scratch


def _dead_pid() -> int:
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    return finished.pid


def test_only_the_folders_of_ended_processes_are_removed() -> None:
    root = Path(tempfile.gettempdir())
    dead, alive = _dead_pid(), os.getppid()
    abandoned = Path(tempfile.mkdtemp(prefix=f"graders-test-{dead}-"))
    (abandoned / "scratch").mkdir()
    (abandoned / "scratch" / "left.txt").write_text("left by a killed worker")
    in_use = Path(tempfile.mkdtemp(prefix=f"graders-test-{alive}-"))
    ours = Path(tempfile.mkdtemp(prefix=f"graders-test-{os.getpid()}-"))
    other_kind = Path(tempfile.mkdtemp(prefix=f"graders-other-{dead}-"))
    try:
        removed = scratch.sweep("graders-test")
        assert removed == [root / abandoned.name]
        assert not abandoned.exists()
        assert in_use.is_dir() and ours.is_dir() and other_kind.is_dir()
    finally:
        for folder in (abandoned, in_use, ours, other_kind):
            subprocess.run(["rm", "-rf", str(folder)], check=True)


def test_a_new_folder_names_its_owner() -> None:
    folder = scratch.make("graders-test")
    try:
        assert folder.name.startswith(f"graders-test-{os.getpid()}-")
    finally:
        folder.rmdir()
