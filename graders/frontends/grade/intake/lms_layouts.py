"""Who handed in what, from the names an LMS gives its downloads, and which of several hand-ins is graded.

A student chooses the names of their files, never the LMS's part of a path, so a student's id
is taken from that part only:

    Moodle      Full Name_<participant id>_assignsubmission_file_/<the student's files>
                (download as folders, Moodle 3.1 and later; `_onlinetext_` likewise), or the
                same prefix on flat files (older downloads). The id is the participant id.
    Canvas      <name>_<user id>_<file id>_<the student's file name>, flat; `<name>_LATE_...`
                when late, `anon_<id>_...` under anonymous grading. The id is the Canvas user id.
    Blackboard  <assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<the student's file name>,
                flat, beside a `.txt` receipt per attempt. The id is the username.

A layout is recognised only when every answer-like file (a notebook, a .py file, or a link
where a folder of them could be) fits it, so a student's own file cannot switch a class to
another layout. Else the documented --student-pattern finds ids in notebook names.

Several hand-ins for one student are all reported, and the latest by the layout's own clock
is graded: Blackboard's attempt time; Canvas's file id (Canvas numbers files as they are
uploaded); for Moodle, the time its zip gives each file, which is when that content reached the
Moodle server (unzip makes it the file's modification time, read in the unzipping machine's zone,
which `unzipped_in` gives back); a file's modification time where the names carry no LMS time.
A tie is said as a tie, with the file picked and why.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import PurePosixPath

from graders.frontends.grade.intake.handed_in import Entry, problem

_MOODLE = re.compile(r"^(?P<name>[^_]*)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<rest>.*)$", re.DOTALL)
# Canvas's own names cannot hold `_<digits>_` (it strips them from user names), so the first
# `_<user id>_<file id>_` is Canvas's, whatever digits the student's file name holds.
_CANVAS = re.compile(r"^(?P<name>.*?)_(?:LATE_)?(?P<id>\d+)_(?P<file>\d+)_(?P<original>.+)$", re.DOTALL)
_CANVAS_ANONYMOUS = re.compile(r"^(?:LATE_)?(?P<id>anon_[A-Za-z0-9]+)_(?P<file>\d+)_(?P<original>.+)$", re.DOTALL)
# The first `_<username>_attempt_<time>` is Blackboard's; a username is taken up to its last `_`.
_BLACKBOARD = re.compile(r"^(?P<assignment>.+?)_(?P<id>[^_]+)_attempt_(?P<when>\d{4}(?:-\d{2}){5})"
                         r"(?:_(?P<original>.+)|\.txt)$", re.DOTALL)
ANSWER_SUFFIXES = (".ipynb", ".py")
# Said to the instructor, in the problems grades.csv and the report list; a student's page leaves it out.
TO_GRADE_ANOTHER = "To grade another one, remove the others and grade again"


@dataclass(frozen=True)
class HandIn:
    """One file a layout gives to a student."""

    entry: Entry
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
    unnamed: list[Entry] = field(default_factory=list)  # notebooks no id was found for (--student-pattern only)
    others: dict[str, list[str]] = field(default_factory=dict)  # a student's files that are no answer (a note)


def recognise(entries: list[Entry], unzipped_in: tzinfo | None = None) -> Layout | None:
    """The LMS download these entries are, or None. `unzipped_in`: for the files of an unzipped folder, the zone
    of the machine that unzipped them (default: this machine's), which turned the zip's times into theirs."""
    for layout in (_moodle, _canvas, _blackboard):
        found = layout(entries, unzipped_in)
        if found is not None:
            return found
    return None


def by_pattern(entries: list[Entry], pattern: re.Pattern) -> Layout:
    """Notebooks anywhere, each student's id found in the file name by `pattern` (group 'student')."""
    layout = Layout("notebooks", "file modification time (these file names carry no LMS time)")
    for entry in entries:
        if entry.folder or entry.path.suffix != ".ipynb":
            continue
        match = pattern.search(entry.path.name)
        if match and match.group("student"):
            layout.students.setdefault(match.group("student"), []).append(by_file_time(entry, entry.path.name))
        else:
            layout.unnamed.append(entry)
    return layout


def choose(hand_ins: list[HandIn], limit: int, rule: str, preferred: str) -> tuple[HandIn | None, list[str]]:
    """The hand-in to grade, and the sentences for the student's problems: one per file that is
    not read, and, when several could be graded, one naming them all, which was graded and why."""
    problems = [problem(h.entry.path, h.entry.unreadable(limit)) for h in hand_ins if h.entry.unreadable(limit)]
    readable = [h for h in hand_ins if not h.entry.unreadable(limit)]
    if not readable:
        return None, problems
    latest = max(h.order for h in readable)
    tied = [h for h in readable if h.order == latest]
    chosen = min(tied, key=lambda h: (base_name(h) != preferred, str(h.entry.path)))
    if len(readable) > 1:
        listing = "; ".join(f"{h.entry.path} ({h.when})" for h in sorted(readable, key=lambda h: (h.order, h.name)))
        if len(tied) == 1:
            why = f"the latest by {rule}"
        else:
            tie_break = f"it is named {preferred}" if base_name(chosen) == preferred else "it comes first by name"
            why = f"{len(tied)} of them tie as the latest by {rule}, and {tie_break}: check it is the one meant"
        problems.append(f"{len(readable)} hand-ins for this student: {listing}. Graded {chosen.entry.path}, {why}. "
                        f"{TO_GRADE_ANOTHER}")
    return chosen, problems


def for_students(problem: str) -> str:
    """A hand-in's problem as its student reads it: without what only the instructor can do about it."""
    return problem.replace(f" {TO_GRADE_ANOTHER}", "").replace(TO_GRADE_ANOTHER, "").rstrip()


def _relevant(entry: Entry) -> bool:
    """A file a layout would grade, or a link where a folder of them could be."""
    if entry.folder:
        return False
    return entry.path.suffix in ANSWER_SUFFIXES or (bool(entry.refused) and not entry.path.suffix)


def _moodle(entries: list[Entry], unzipped_in: tzinfo | None) -> Layout | None:
    layout = Layout("Moodle download", "the time Moodle's zip gives each file (when it reached Moodle)",
                    clock="Moodle's time for the file", file_times=True)
    for entry in entries:
        match = _MOODLE.match(entry.path.parts[0])
        if match is None:
            if _relevant(entry):
                return None
            continue
        hand_ins = layout.students.setdefault(match["id"], [])
        # Inside a participant folder, whatever the student named a file, it is that participant's.
        name = "/".join(entry.path.parts[1:]) or match["rest"] or entry.path.name
        if _relevant(entry):
            hand_ins.append(by_file_time(entry, name, lms_clock=True, unzipped_in=unzipped_in))
        elif not entry.folder:  # a note to the grader, an online text: the instructor reads it, the grader cannot
            layout.others.setdefault(match["id"], []).append(name)
    return layout if layout.students else None


def _canvas(entries: list[Entry], unzipped_in: tzinfo | None) -> Layout | None:
    layout = Layout("Canvas download", "Canvas's file id (Canvas numbers files in the order they were uploaded)",
                    clock="Canvas's time for the file", file_times=True)
    for entry in entries:
        match = _CANVAS_ANONYMOUS.match(entry.path.name) or _CANVAS.match(entry.path.name)
        if match is None or len(entry.path.parts) > 1 or entry.folder:
            if _relevant(entry):
                return None
            continue
        hand_ins = layout.students.setdefault(match["id"], [])
        if _relevant(entry):
            hand_ins.append(HandIn(entry, match["original"], (int(match["file"]),), f"Canvas file {match['file']}",
                                   _wall_clock(entry.mtime, unzipped_in)))
    return layout if layout.students else None


def _blackboard(entries: list[Entry], unzipped_in: tzinfo | None) -> Layout | None:
    layout = Layout("Blackboard download", "the attempt time in Blackboard's file names",
                    clock="Blackboard's attempt time")
    for entry in entries:
        match = _BLACKBOARD.match(entry.path.name)
        if match is not None and _attempt_time(match["when"]) is None:
            match = None  # no time Blackboard writes: a student's own name that looks like one
        if match is None or len(entry.path.parts) > 1 or entry.folder:
            if _relevant(entry):
                return None
            continue
        hand_ins = layout.students.setdefault(match["id"], [])  # a receipt alone names a student too
        if match["original"] and _relevant(entry):
            day, clock = match["when"][:10], match["when"][11:].replace("-", ":")
            hand_ins.append(HandIn(entry, match["original"], (match["when"],), f"attempt of {day} {clock}",
                                   _attempt_time(match["when"])))
    return layout if layout.students else None


def by_file_time(entry: Entry, name: str, *, lms_clock: bool = False, unzipped_in: tzinfo | None = None) -> HandIn:
    """A hand-in ordered by its file's modification time (or its zip entry's time); with `lms_clock`, that time
    is when an LMS received it (a Moodle download's)."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.mtime))
    return HandIn(entry, name, (entry.mtime,), f"modified {when}",
                  _wall_clock(entry.mtime, unzipped_in) if lms_clock else None)


def _attempt_time(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, "%Y-%m-%d-%H-%M-%S")
    except ValueError:
        return None


def _wall_clock(seconds: float, unzipped_in: tzinfo | None = None) -> datetime | None:
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


def base_name(hand_in: HandIn) -> str:
    """The student's own file name without its folders: what `<slug>.py` and `<lesson>.ipynb` are matched on."""
    return PurePosixPath(hand_in.name).name
