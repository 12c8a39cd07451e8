"""The term's file: the settings of one assignment (its due date and late policy, where its roster and ledger
live), their schema, and `read_term_file`, which checks them; class_term.py applies them to a class.

They are kept in a TOML file beside the class's records, not in course_config.py: a course's
exercises and checks stay the same from term to term, its dates and students do not.

    # term.toml (python -m graders grade SOURCE --out DIR --term term.toml)
    roster = "roster.csv"            # relative to this file; the LMS's own export works as it is
    roster_id_column = "SIS Login ID"  # optional: the roster's column holding the download's ids
    decisions = "decisions.csv"      # the ledger of the instructor's decisions (python -m graders decide)
    canvas_assignment_id = "4711"    # optional: names the column of the Canvas import

    [deadline]
    due = 2026-12-01T23:59:00+01:00  # a TOML date-time with its UTC offset
    grace_minutes = 15               # hand-ins this late are on time (uploads that crossed midnight)
    percent_per_day = 10             # of the score, for each day or part of a day after due + grace
    max_percent = 50                 # the penalty never takes more than this
    zero_after_days = 7              # optional: later than this scores 0 (a hand-in after the solutions)
    lms_time_zone = "Europe/Berlin"  # optional: the zone of LMS times that carry none (zip entries, Blackboard
                                     # file names); default: this machine's
    unzipped_in = "Europe/Berlin"    # optional: where a download graded as a folder was unzipped (its files'
                                     # times depend on it; a zip's do not); default: this machine's zone
    term_start = 2026-10-05T00:00:00+02:00  # optional: no hand-in can be older; default: half a year before due
    unknown_time = "needs decision"  # optional: how an unknown or impossible hand-in time counts (UNKNOWN_TIME)

A hand-in's time is *unknown* when its source records none (a folder without git history, a timestamp.txt
that is no time), and *impossible* when it is before the term's start or after the grading run (a commit
dated 1970 or 2300: the student's clock, which they can set). Either is never taken as on time silently: by
default the student needs a decision (in the ledger: a hand_in_time, waive_late, an override of the total or
an excuse), and is held back from the LMS's files until then. An extension moves one student's due date.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from graders.engine.toml_schema import convert, read_toml


NEEDS_DECISION, ON_TIME, LATE = "needs decision", "on time", "late"
UNKNOWN_TIME = {
    NEEDS_DECISION: "graded, held back from lms/ and listed first in the report until the ledger decides (default)",
    ON_TIME: "taken as on time, and the outputs say so",
    LATE: "taken as late as the policy goes: its largest penalty (0 points with zero_after_days)",
}
# A hand-in is never older than its term: where the term's file gives no start, half a year before the due date
# (the longest term) bounds it, so a commit of 1970 or of an earlier term is impossible.
TERM_DAYS = 183


class TermError(ValueError):
    """The term's file cannot be used; the message names the file, the key and what to write."""


@dataclass(frozen=True)
class LatePolicy:
    """How much lateness costs: a share of the score per started day past the due date and its grace."""

    due: datetime | None = None  # None: no deadline, nothing is late
    grace: timedelta = timedelta(0)
    percent_per_day: float = 0.0
    max_percent: float = 100.0
    zero_after_days: float | None = None
    zone: tzinfo | None = None  # the LMS's time zone, where "+N days" of an extension are counted on its clock
    term_start: datetime | None = None  # no hand-in can be older; None: TERM_DAYS before the due date
    unknown_time: str = NEEDS_DECISION  # how an unknown or impossible time counts: a key of UNKNOWN_TIME

    def penalty(self, submitted: datetime | None, due: datetime | None) -> tuple[int, float]:
        """(days late, share of the score taken) for a hand-in at `submitted` against the due date `due`
        (the policy's own, or an extension). A day is counted as soon as it is started: 1 minute past the
        grace costs one day, as LMSs count it."""
        if submitted is None or due is None:
            return 0, 0.0
        late = submitted - (due + self.grace)
        if late <= timedelta(0):
            return 0, 0.0
        days = math.ceil(late / timedelta(days=1))
        if self.zero_after_days is not None and late > timedelta(days=self.zero_after_days):
            return days, 1.0
        return days, min(days * self.percent_per_day, self.max_percent) / 100.0

    def largest_penalty(self) -> float:
        """The share of the score the policy takes from the latest hand-in there can be."""
        if self.zero_after_days is not None:
            return 1.0
        return min(self.max_percent, 100.0) / 100.0 if self.percent_per_day else 0.0

    def earliest(self) -> datetime | None:
        """The oldest time a hand-in of this term can have: its start, else TERM_DAYS before the due date."""
        if self.term_start is not None or self.due is None:
            return self.term_start
        return self.due - timedelta(days=TERM_DAYS)

    def impossible(self, submitted: datetime, now: datetime) -> str:
        """Why `submitted` cannot be when the hand-in arrived ("" if it can): before the term's start, or after
        `now`, the grading run's own clock."""
        earliest = self.earliest()
        if earliest is not None and submitted < earliest:
            said = "term_start" if self.term_start is not None else f"{TERM_DAYS} days before the due date"
            return f"before the term's start ({earliest.isoformat(timespec='minutes')}, {said})"
        if submitted > now:
            return f"after this grading run ({now.isoformat(timespec='minutes')})"
        return ""


@dataclass(frozen=True)
class TermFile:
    """Everything a term's file sets; paths are resolved against the file's folder."""

    policy: LatePolicy = LatePolicy()
    roster: Path | None = None
    roster_id_column: str | None = None  # the roster's column that holds the download's ids (default: its id)
    decisions: Path | None = None
    canvas_assignment_id: str | None = None
    lms_zone: tzinfo | None = None  # None: this machine's local zone
    unzipped_in: tzinfo | None = None  # where a download given as a folder was unzipped; None: this machine's zone


# The file's schema: a key is a field here, its description and example the advice an error about it gives.
_NUMBER_ADVICE = "a number, 0 or more (and not infinite)"


def _number(description: str, example: float, most: float = 1e6) -> Any:
    return Annotated[float, Meta(ge=0, **({"le": most} if most < 1e6 else {"lt": most}),
                                 description=description, examples=[example])]


def _moment(description: str, example: str) -> Any:
    return Annotated[datetime, Meta(tz=True, description=description, examples=[datetime.fromisoformat(example)])]


def _zone_name(description: str) -> Any:
    return Annotated[str, Meta(description=description, examples=["Europe/Berlin"])]


class _Deadline(msgspec.Struct, forbid_unknown_fields=True):
    """The [deadline] table: the due date and the late policy."""

    due: _moment("the due date, a TOML date-time with its UTC offset (a time without one would depend on this "
                 "machine's time zone)", "2026-12-01T23:59:00+01:00") | None = None
    grace_minutes: _number(f"minutes after due that are still on time: {_NUMBER_ADVICE}", 15) = 0.0
    percent_per_day: _number(f"the share of the score taken per started day late: {_NUMBER_ADVICE}", 10) = 0.0
    max_percent: _number("the most a penalty takes, in percent: a penalty cannot exceed 100%", 50, most=100) = 100.0
    zero_after_days: _number(f"days after which a hand-in scores 0: {_NUMBER_ADVICE}", 7) | None = None
    lms_time_zone: _zone_name("the time zone of LMS times that carry none") | None = None
    unzipped_in: _zone_name("where a download graded as a folder was unzipped") | None = None
    term_start: _moment("no hand-in can be older, a TOML date-time with its UTC offset",
                        "2026-10-05T00:00:00+02:00") | None = None
    unknown_time: Annotated[Literal[NEEDS_DECISION, ON_TIME, LATE], Meta(
        description="how an unknown or impossible hand-in time counts: "
                    + "; ".join(f'"{name}" {what}' for name, what in UNKNOWN_TIME.items()),
        examples=[NEEDS_DECISION])] = NEEDS_DECISION


class _TermToml(msgspec.Struct, forbid_unknown_fields=True):
    """The whole file."""

    roster: Annotated[str, Meta(description="the roster's CSV file, relative to the term's file",
                                examples=["roster.csv"])] | None = None
    roster_id_column: Annotated[str | int, Meta(description="the roster's column holding the download's ids",
                                                examples=["SIS Login ID"])] | None = None
    decisions: Annotated[str, Meta(description="the ledger of decisions, relative to the term's file",
                                   examples=["decisions.csv"])] | None = None
    canvas_assignment_id: Annotated[str | int, Meta(description="Canvas's assignment id, the number at the end of "
                                                                "the assignment's address", examples=["4711"])
                                    ] | None = None
    deadline: Annotated[_Deadline, Meta(description="a [deadline] table")] = msgspec.field(default_factory=_Deadline)


def read_term_file(path: Path) -> TermFile:
    """The term's file at `path`, checked: every missing, unknown or mistyped key is a TermError naming the file, the
    key and what to write."""
    read = convert(read_toml(path, TermError, "the term's file"), _TermToml, path, TermError)
    deadline = read.deadline
    if deadline.due is None and any(getattr(deadline, key) != getattr(_Deadline(), key)
                                    for key in deadline.__struct_fields__ if key not in _WITHOUT_DUE):
        raise TermError(f"{path}: key deadline.due is missing: a late policy without `due` takes nothing; add "
                        f"due = <a date-time with its UTC offset>, e.g. due = 2026-12-01T23:59:00+01:00")
    if deadline.term_start is not None and deadline.due is not None and deadline.term_start >= deadline.due:
        raise TermError(f"{path}: key deadline.term_start = {deadline.term_start.isoformat()} is not before due = "
                        f"{deadline.due.isoformat()}: write the first day of the term")
    canvas = None if read.canvas_assignment_id is None else str(read.canvas_assignment_id)
    if canvas is not None and not canvas.isdigit():
        raise TermError(f"{path}: key canvas_assignment_id = {canvas!r}: Canvas's assignment ids are digits (the "
                        f"number at the end of the assignment's address, .../assignments/4711)")
    zone = _zone(deadline.lms_time_zone, "lms_time_zone", path)
    policy = LatePolicy(due=deadline.due, grace=timedelta(minutes=deadline.grace_minutes),
                        percent_per_day=deadline.percent_per_day, max_percent=deadline.max_percent,
                        zero_after_days=deadline.zero_after_days, zone=zone, term_start=deadline.term_start,
                        unknown_time=deadline.unknown_time)
    return TermFile(policy=policy, roster=_beside(read.roster, path),
                    roster_id_column=None if read.roster_id_column is None else str(read.roster_id_column),
                    decisions=_beside(read.decisions, path), canvas_assignment_id=canvas, lms_zone=zone,
                    unzipped_in=_zone(deadline.unzipped_in, "unzipped_in", path))


# The keys of [deadline] that mean something without a due date.
_WITHOUT_DUE = {"due", "lms_time_zone", "unzipped_in"}


def _zone(name: str | None, key: str, path: Path) -> tzinfo | None:
    if name is None:
        return None
    zone = time_zone(name)
    if zone is None:
        raise TermError(f"{path}: key deadline.{key} = {name!r} is not a time zone name; write one like "
                        f"\"Europe/Berlin\" or \"America/New_York\"")
    return zone


def _beside(name: str | None, path: Path) -> Path | None:
    """A file the term's file names, relative to its folder."""
    return None if name is None else (path.parent / name).resolve()


def time_zone(name: str) -> tzinfo | None:
    """The IANA time zone of that name ("Europe/Berlin", "UTC"), or None."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
