"""What an LMS module says about a class download: each student's hand-ins, in the LMS's own order.

A student chooses the names of their files, never the LMS's part of a path, so a student's id is taken
from that part only. A layout is recognised only when every answer-like file (a notebook, a .py file, or
a link where a folder of them could be) fits it, so a student's own file cannot switch a class to
another layout (`relevant` says which files count). Several hand-ins for one student are all kept, each
with the layout's own clock (`HandIn.order`); intake/hand_ins.py chooses the one graded.

Files reach a layout as listed by intake/handed_in.py, never read: `ListedFile` is what a layout may
look at, so an LMS module needs nothing from intake to recognise its download.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import PurePosixPath
from typing import Protocol

ANSWER_SUFFIXES = (".ipynb", ".py")


class ListedFile(Protocol):
    """A file of a download as listed (intake/handed_in.py's Entry): its name and times, never its bytes."""

    @property
    def path(self) -> PurePosixPath: ...  # relative to the download's root

    @property
    def mtime(self) -> float: ...  # the file's modification time, or its zip entry's time

    @property
    def refused(self) -> str: ...  # why it will not be read (a link), or ""

    @property
    def folder(self) -> bool: ...

    def unreadable(self, limit: int) -> str: ...


@dataclass(frozen=True)
class HandIn:
    """One file a layout gives to a student."""

    entry: ListedFile
    name: str  # the file's name as the student gave it (the LMS's part taken off)
    order: tuple  # the layout's own order of hand-ins, latest last
    when: str  # that order, said: "attempt of 2024-05-01 10:00:00", "Canvas file 4567"
    # When the LMS received it, on the LMS's own clock and without a zone (zip entries and Blackboard's names
    # carry none; the term's lms_time_zone places it): None where the layout is no LMS's.
    arrived: datetime | None = None


@dataclass
class Layout:
    """A class's hand-ins by student, as one LMS's download lays them out."""

    name: str  # what the batch says it found: "Moodle download"
    rule: str  # how the latest of several hand-ins is told, for the problems
    clock: str = ""  # where a hand-in's `arrived` comes from, for the late policy's notes; "" if nowhere
    file_times: bool = False  # `arrived` is a file's time: a zip entry's (exact), or an unzipped file's (approximate)
    students: dict[str, list[HandIn]] = field(default_factory=dict)  # everyone it names, hand-ins or not
    unnamed: list[ListedFile] = field(default_factory=list)  # notebooks no id was found for (--student-pattern only)
    others: dict[str, list[str]] = field(default_factory=dict)  # a student's files that are no answer (a note)


def relevant(entry: ListedFile) -> bool:
    """A file a layout would grade, or a link where a folder of them could be."""
    if entry.folder:
        return False
    return entry.path.suffix in ANSWER_SUFFIXES or (bool(entry.refused) and not entry.path.suffix)


def by_file_time(entry: ListedFile, name: str, *, lms_clock: bool = False,
                 unzipped_in: tzinfo | None = None) -> HandIn:
    """A hand-in ordered by its file's modification time (or its zip entry's time); with `lms_clock`, that time
    is when an LMS received it (a Moodle download's)."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.mtime))
    return HandIn(entry, name, (entry.mtime,), f"modified {when}",
                  wall_clock(entry.mtime, unzipped_in) if lms_clock else None)


def wall_clock(seconds: float, unzipped_in: tzinfo | None = None) -> datetime | None:
    """The time as the LMS wrote it (Moodle's, Canvas's): a zip entry's date and time, which this machine read as its
    own local time (so reading it back in that zone gives it exactly). Unzip set a file's modification time from
    the same date and time read in the unzipping machine's zone: `unzipped_in` gives it back (default: this
    machine's, which is right only where the folder was unzipped here)."""
    try:
        if seconds <= 0:
            return None
        return datetime.fromtimestamp(seconds, unzipped_in).replace(tzinfo=None) if unzipped_in else (
            datetime.fromtimestamp(seconds))
    except (OverflowError, OSError, ValueError):
        return None
