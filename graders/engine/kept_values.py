"""What a student's own runs keep from one run to the next: the expected values and drawn inputs.

`pytest exercises/` computes every expected value from the reference and has hypothesis draw
the generated inputs on each run: about a second of the reference's training runs and two
CPU-seconds of drawing, paid again although nothing they depend on changed. So a student's
run keeps what the grader computed in one file per version of the course (a digest of the
engine, the checks and their manifests, the reference and course_config.py: any change
starts a new file), in the user's cache folder, and later runs read it back. The file holds
only values the grader process computed; student code runs in workers that cannot write there.

The instructor's paths do not read the students' file: they replay a recording, use the batch's own
cache (`--expected-cache`), or pass `--no-expected-cache` (the notebooks' grading server). The batch
keeps its own file here too (`batch-expected-<version>.json`, grade/run/main.py): the reference's values,
computed by its grading services, so that a class graded into a new folder starts at once.
`--in-process` keeps nothing: student code shares the grader's memory there and could leave a
forged value for later runs to trust. This module stays light (no torch): the plugin reads
it before it forks the helper that draws.
"""

from __future__ import annotations

import os
from pathlib import Path

from graders.engine.course_version import course_digest  # noqa: F401 - this module's callers read it here

FOLDER_VARIABLE = "GRADERS_CACHE_DIR"  # where the files go; "off" keeps nothing
OFF = "off"
PREFIX = "expected-"  # a student's run's file
BATCH_PREFIX = "batch-expected-"  # the batch's: the reference's values (grade/run/main.py)


def folder() -> Path | None:
    """$GRADERS_CACHE_DIR, else $XDG_CACHE_HOME/course-autograder, else ~/.cache/course-autograder;
    None when GRADERS_CACHE_DIR is "off"."""
    chosen = os.environ.get(FOLDER_VARIABLE, "")
    if chosen.strip().lower() == OFF:
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "course-autograder"


def path(prefix: str = PREFIX, course: str | None = None) -> Path | None:
    """The file of a version of the course (this one's unless `course` names another digest), or None when
    nothing is to be kept. `prefix` tells whose it is: a student's run's (PREFIX) or the batch's (BATCH_PREFIX)."""
    where = folder()
    return None if where is None else where / f"{prefix}{(course or course_digest())[:16]}.json"


def forget_other_versions(kept: Path, prefix: str = PREFIX) -> None:
    """Remove the files of other versions of the course beside `kept` (those of the same `prefix`): nothing reads
    them again."""
    for other in kept.parent.glob(f"{prefix}*.json"):
        if other != kept:
            other.unlink(missing_ok=True)
