"""The term's settings for one assignment: its due date and late policy, where its roster and ledger live.

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
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any


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


_TOP_KEYS = {"roster", "roster_id_column", "decisions", "canvas_assignment_id", "deadline"}
_DEADLINE_KEYS = {"due", "grace_minutes", "percent_per_day", "max_percent", "zero_after_days", "lms_time_zone",
                  "unzipped_in", "term_start", "unknown_time"}


def load_term(path: Path) -> TermFile:
    """Read a term's file; every missing, unknown or mistyped key is a TermError naming it."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise TermError(f"--term {path}: cannot read it ({error.strerror or error})") from None
    except tomllib.TOMLDecodeError as error:
        raise TermError(f"{path}: not valid TOML ({error})") from None
    _only(data, _TOP_KEYS, str(path))
    deadline = data.get("deadline", {})
    if not isinstance(deadline, dict):
        raise TermError(f"{path}: `deadline` must be a table ([deadline]) with {', '.join(sorted(_DEADLINE_KEYS))}")
    _only(deadline, _DEADLINE_KEYS, f"{path} [deadline]")
    due = deadline.get("due")
    if due is not None and (not isinstance(due, datetime) or due.tzinfo is None):
        raise TermError(f"{path} [deadline] due = {due!r}: write a date-time with its UTC offset, e.g. "
                        f"due = 2026-12-01T23:59:00+01:00 (a time without offset would depend on this machine's "
                        f"time zone)")
    policy = LatePolicy(due=due, grace=timedelta(minutes=_number(deadline, "grace_minutes", 0.0, path)),
                        percent_per_day=_number(deadline, "percent_per_day", 0.0, path),
                        max_percent=_number(deadline, "max_percent", 100.0, path),
                        zero_after_days=_optional_number(deadline, "zero_after_days", path),
                        zone=_zone(deadline, "lms_time_zone", path),
                        term_start=_term_start(deadline, due, path), unknown_time=_unknown_time(deadline, path))
    if policy.max_percent > 100:
        raise TermError(f"{path} [deadline] max_percent = {policy.max_percent:g}: a penalty cannot exceed 100%")
    if due is None and (deadline.keys() - {"due", "lms_time_zone", "unzipped_in"}):
        raise TermError(f"{path} [deadline]: a late policy without `due`; add due = <date-time with offset>")
    folder = path.parent
    return TermFile(policy=policy, roster=_path(data, "roster", folder, path),
                roster_id_column=_text(data, "roster_id_column", path),
                decisions=_path(data, "decisions", folder, path),
                canvas_assignment_id=_canvas_id(data, path), lms_zone=policy.zone,
                unzipped_in=_zone(deadline, "unzipped_in", path))


def _term_start(deadline: dict[str, Any], due: datetime | None, path: Path) -> datetime | None:
    start = deadline.get("term_start")
    if start is None:
        return None
    if not isinstance(start, datetime) or start.tzinfo is None:
        raise TermError(f"{path} [deadline] term_start = {start!r}: write a date-time with its UTC offset, e.g. "
                        f"term_start = 2026-10-05T00:00:00+02:00")
    if due is not None and start >= due:
        raise TermError(f"{path} [deadline] term_start = {start.isoformat()} is not before due = {due.isoformat()}")
    return start


def _unknown_time(deadline: dict[str, Any], path: Path) -> str:
    rule = deadline.get("unknown_time", NEEDS_DECISION)
    if rule not in UNKNOWN_TIME:
        raise TermError(f"{path} [deadline] unknown_time = {rule!r}: write one of "
                        + "; ".join(f'"{name}" ({what})' for name, what in UNKNOWN_TIME.items()))
    return str(rule)


def _canvas_id(table: dict[str, Any], path: Path) -> str | None:
    value = _text(table, "canvas_assignment_id", path)
    if value is not None and not value.isdigit():
        raise TermError(f"{path}: canvas_assignment_id = {value!r}: Canvas's assignment ids are digits (the number "
                        f"at the end of the assignment's address, .../assignments/4711)")
    return value


def _zone(table: dict[str, Any], key: str, path: Path) -> tzinfo | None:
    name = table.get(key)
    if name is None:
        return None
    zone = time_zone(str(name))
    if zone is None:
        raise TermError(f"{path} [deadline] {key} = {name!r}: not a time zone name; write one like "
                        f"\"Europe/Berlin\" or \"America/New_York\"")
    return zone


def time_zone(name: str) -> tzinfo | None:
    """The IANA time zone of that name ("Europe/Berlin", "UTC"), or None."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def _only(table: dict[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise TermError(f"{where}: unknown key {unknown[0]!r}; the keys are {', '.join(sorted(known))}")


def _number(table: dict[str, Any], key: str, default: float, path: Path) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e6:
        raise TermError(f"{path} [deadline] {key} = {value!r}: give a number, 0 or more (and not infinite)")
    return float(value)


def _optional_number(table: dict[str, Any], key: str, path: Path) -> float | None:
    return None if key not in table else _number(table, key, 0.0, path)


def _text(table: dict[str, Any], key: str, path: Path) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, (str, int)):
        raise TermError(f"{path}: {key} = {value!r}: give text, e.g. {key} = \"4711\"")
    return None if value is None else str(value)


def _path(table: dict[str, Any], key: str, folder: Path, path: Path) -> Path | None:
    value = _text(table, key, path)
    return None if value is None else (folder / value).resolve()
