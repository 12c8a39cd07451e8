"""Whether the student has written code yet: what decides the "not started yet" banner.

The checks that ran cannot say it alone: a run of one file, or one that `-x` stopped at its first
failure, sees a stub's "not implemented yet" where the student has written other functions, other
exercises, or the rest of the same file. The files themselves can: a file holds the student's code
when any function in it is more than a stub's body (graders/engine/stubs.py), or when it no longer
parses (written, not finished). Reading a lesson's files costs a millisecond, once per run.
"""

from __future__ import annotations

from pathlib import Path

from graders.engine.stubs import stub_problem


def holds_code(path: Path) -> bool:
    """Whether the exercise file at `path` holds code of the student's; a missing file holds none."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return stub_problem(text) is not None


def started(folder: Path, slugs: list[str]) -> bool:
    """Whether any exercise file of a lesson, in the folder that holds the submission's files, holds code."""
    return any(holds_code(folder / f"{slug}.py") for slug in slugs)
