"""Which files a worker may reach (graders/sandbox/reach.py): the Python installation without this project, its own
submission's folder, a few facts of the machine and its own /proc entry to read; its scratch folder alone to write."""

from __future__ import annotations

import os
from pathlib import Path

import course_config
import torch

from graders.sandbox.reach import installation, project_files, without, worker_reach


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def test_a_worker_reads_its_submission_and_python_and_writes_its_scratch_alone(tmp_path: Path) -> None:
    submission, scratch = tmp_path / "submission", tmp_path / "scratch"
    submission.mkdir()
    scratch.mkdir()
    reach = worker_reach(submission, scratch, os.getpid())
    assert _inside(submission.resolve(), reach.readable) and _inside(Path(torch.__file__).resolve(), reach.readable)
    assert Path(f"/proc/{os.getpid()}") in reach.readable
    assert reach.writable == (scratch.resolve(),)
    assert Path("/dev/null") in reach.devices and not _inside(Path("/etc/passwd"), reach.readable)


def test_this_project_is_out_of_a_workers_reach() -> None:
    readable = worker_reach(Path("/nonexistent"), Path("/nonexistent"), os.getpid()).readable
    for path in (course_config.ROOT / "course_config.py", course_config.ROOT / "reference",
                 course_config.ROOT / "graders" / "lesson01", *project_files()):
        assert not _inside(path.resolve(), readable), path
    assert set(installation()) <= set(readable)


def test_a_folder_holding_an_excluded_path_is_split_into_its_other_entries(tmp_path: Path) -> None:
    for name in ("keep.py", "deep/secret/x.py", "deep/other.py", "shown/y.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    kept = without([tmp_path], [tmp_path / "deep" / "secret"])
    assert sorted(kept) == [tmp_path / "deep" / "other.py", tmp_path / "keep.py", tmp_path / "shown"]
    assert without([tmp_path / "shown"], [tmp_path / "deep"]) == [tmp_path / "shown"]
