"""The ledger of the instructor's decisions: one CSV file, every decision a row saying who, when and why.

    when,who,student,action,exercise,value,reason
    2026-12-03T09:12:00+00:00,dr.lee,12345,extension,,2026-12-04T23:59:00+01:00,medical note
    2026-12-05T14:02:11+00:00,dr.lee,12345,override,micrograd,8.5,regrade: the check's tolerance was too tight

Actions (ACTIONS says what each value means): override, extension, excuse, waive_late, hand_in_time,
regrade_request, regrade_answer. Rows are only ever appended (`python -m graders decide` writes them; an instructor may
too, by hand): the latest row for one (student, action, exercise) is the one in force, and an empty value
withdraws it, so the file is the whole history. Every output of the batch and, with --gradebook, nbgrader's
gradebook follow the ledger; scores an instructor set in nbgrader's formgrader are copied into it
(who: "nbgrader formgrader"), so there is one source of truth.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from graders.frontends.grade.spreadsheet import FORMULA_STARTS, guarded_writer, text_cell

COLUMNS = ("when", "who", "student", "action", "exercise", "value", "reason")
ACTIONS = {
    "override": "points: the exercise's score (with --exercise) or, without, the final score (no late penalty "
                "then applies)",
    "extension": "the student's own due date: a date-time with its UTC offset, or +N days after the term's",
    "excuse": "yes: the student is excused, no grade counts (Canvas: EX); no: withdrawn",
    "waive_late": "yes: no late penalty for this student; no: withdrawn",
    "hand_in_time": "the time you accept for a hand-in whose own is unknown or impossible: a date-time with its UTC "
                    "offset; lateness is counted from it",
    "regrade_request": "what the student asks for, in their words (with --exercise when it is about one)",
    "regrade_answer": "accepted or declined, with the reason; an accepted request comes with an override",
}
YES_NO = ("yes", "no")
MOST_DAYS = 366  # an extension of more than a year is a typo

ANSWERS = ("accepted", "declined")


class LedgerError(ValueError):
    """The ledger cannot be read, or a decision is not one; the message names the row and what to write."""


@dataclass(frozen=True)
class Decision:
    """One row of the ledger."""

    when: datetime
    who: str
    student: str
    action: str
    exercise: str = ""
    value: str = ""
    reason: str = ""
    row: int = 0  # its line in the file (the header is line 1), for messages

    def said(self) -> str:
        """The decision in one sentence, for the outputs."""
        where = f" on {self.exercise}" if self.exercise else ""
        return f"{self.action}{where}: {self.value or '(withdrawn)'} ({self.who}, {self.when:%Y-%m-%d}: {self.reason})"


@dataclass
class InForce:
    """One student's decisions in force: the latest of each kind."""

    overrides: dict[str, Decision] = field(default_factory=dict)  # exercise slug, or "" for the total
    extension: Decision | None = None
    excused: Decision | None = None
    waive_late: Decision | None = None
    hand_in_time: Decision | None = None
    requests: list[tuple[Decision, Decision | None]] = field(default_factory=list)  # request, its answer if any


def read_ledger(path: Path, exercises: dict[str, float] | None = None) -> list[Decision]:
    """Every decision in the file, checked; a missing file is an empty ledger. `exercises` maps each slug a
    decision may name to its points ("" to the lesson's): an override above them is refused (None: any)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as error:
        raise LedgerError(f"{path}: cannot read it as UTF-8 text ({getattr(error, 'strerror', None) or error})") \
            from None
    reader = csv.DictReader(io.StringIO(text))
    try:
        rows = list(reader)
    except csv.Error as error:
        raise LedgerError(f"{path} line {reader.line_num}: not CSV the ledger can read ({error})") from None
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise LedgerError(f"{path}: no column {missing[0]!r}; a ledger's header is {','.join(COLUMNS)}")
    decisions = []
    for number, row in enumerate(rows, start=2):
        cells = {column: _cell(row.get(column)) for column in COLUMNS}
        if not any(cells.values()):
            continue
        where = f"{path} row {number}"
        try:
            when = datetime.fromisoformat(cells["when"])
        except ValueError:
            raise LedgerError(f"{where}: when = {cells['when']!r} is not an ISO date-time "
                              f"(e.g. 2026-12-05T14:02:11+00:00)") from None
        decision = Decision(when=when, who=cells["who"], student=cells["student"], action=cells["action"],
                            exercise=cells["exercise"], value=cells["value"], reason=cells["reason"], row=number)
        check(decision, exercises, where)
        decisions.append(decision)
    return decisions


def _cell(value: object) -> str:
    """A cell as written: a missing one is empty; the quote `append` puts before a formula-like value is not
    part of it."""
    text = (value if isinstance(value, str) else "").strip()
    return text[1:] if text[:1] == "'" and text[1:2] in FORMULA_STARTS else text


def check(decision: Decision, exercises: dict[str, float] | None = None, where: str = "the decision") -> None:
    """Refuse a decision that is not one: every row must say who, for whom, what and why."""
    for name in ("who", "student", "reason"):
        if not getattr(decision, name):
            raise LedgerError(f"{where}: `{name}` is empty; every decision says who made it, for which student "
                              f"and why")
    if decision.action not in ACTIONS:
        raise LedgerError(f"{where}: action {decision.action!r} is not one of {', '.join(ACTIONS)}")
    if decision.exercise and exercises and decision.exercise not in exercises:
        raise LedgerError(f"{where}: exercise {decision.exercise!r} is not one of this lesson's: "
                          f"{', '.join(e for e in exercises if e)}")
    value = decision.value
    if not value and decision.action not in ("regrade_request",):
        return  # withdrawn
    if decision.action == "override":
        try:
            points = float(value)
        except ValueError:
            raise LedgerError(f"{where}: override {value!r} is not a number of points") from None
        most = (exercises or {}).get(decision.exercise)
        if not math.isfinite(points) or points < 0 or (most is not None and points > most):
            bound = f" up to {most:g}, what {decision.exercise or 'the lesson'} is worth" if most is not None else ""
            raise LedgerError(f"{where}: override {value!r}: give points from 0{bound}")
    elif decision.action == "extension":
        extended_due(value, datetime(2000, 1, 1, tzinfo=timezone.utc), where)
    elif decision.action == "hand_in_time":
        accepted_time(value, where)
    elif decision.action in ("excuse", "waive_late") and value not in YES_NO:
        raise LedgerError(f"{where}: {decision.action} takes yes or no, not {value!r}")
    elif decision.action == "regrade_answer" and value not in ANSWERS:
        raise LedgerError(f"{where}: regrade_answer takes {' or '.join(ANSWERS)}, not {value!r}")
    elif decision.action == "regrade_request" and not value:
        raise LedgerError(f"{where}: a regrade_request says what the student asks for")


def extended_due(value: str, due: datetime | None, where: str = "extension") -> datetime | None:
    """The due date an extension gives: an absolute date-time, or +N days after `due` (None if there is none)."""
    if value.startswith("+"):
        try:
            days = float(value[1:].strip().removesuffix("days").removesuffix("day").strip())
        except ValueError:
            days = math.nan
        if not 0 < days <= MOST_DAYS:
            raise LedgerError(f"{where}: extension {value!r}: write +N days with N from 0 to {MOST_DAYS}, e.g. "
                              f"+2 days") from None
        return None if due is None else due + timedelta(days=days)
    return _zoned_time(value, f"{where}: extension {value!r}",
                       "give a date-time with its UTC offset (2026-12-04T23:59:00+01:00) or +N days", "e.g. +01:00")


def accepted_time(value: str, where: str = "hand_in_time") -> datetime:
    """The hand-in time a decision accepts: a date-time with its UTC offset (never "+N days": it replaces a time
    that is unknown or impossible, so there is nothing to count from)."""
    example = "e.g. 2026-12-01T22:10:00+01:00"
    return _zoned_time(value, f"{where}: hand_in_time {value!r}", f"give the time you accept with its UTC offset, "
                       f"{example}", example)


def _zoned_time(value: str, said: str, how: str, example: str) -> datetime:
    """`value` as a date-time with its UTC offset; else a LedgerError that starts with `said` and says `how`."""
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise LedgerError(f"{said}: {how}") from None
    if when.tzinfo is None:
        raise LedgerError(f"{said} has no UTC offset; add one, {example}")
    try:
        when.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        raise LedgerError(f"{said} is no usable time") from None
    return when


def in_force(decisions: list[Decision]) -> dict[str, InForce]:
    """Each student's decisions in force: for each (action, exercise) the latest row; empty values withdraw.
    A regrade answer answers the requests on its exercise still open when it was written."""
    latest: dict[tuple[str, str, str], Decision] = {}
    found: dict[str, InForce] = {}
    waiting: dict[tuple[str, str], list[int]] = {}  # open requests, by their place in found[student].requests
    for decision in decisions:
        if decision.action == "regrade_request":
            standing = found.setdefault(decision.student, InForce())
            waiting.setdefault((decision.student, decision.exercise), []).append(len(standing.requests))
            standing.requests.append((decision, None))
        elif decision.action == "regrade_answer":
            if not decision.value:
                continue
            standing = found.setdefault(decision.student, InForce())
            for place in waiting.pop((decision.student, decision.exercise), []):
                standing.requests[place] = (standing.requests[place][0], decision)
        else:
            latest[(decision.student, decision.action, decision.exercise)] = decision
    for (student, action, exercise), decision in latest.items():
        if not decision.value or decision.value == "no":
            continue
        standing = found.setdefault(student, InForce())
        if action == "override":
            standing.overrides[exercise] = decision
        elif action == "extension":
            standing.extension = decision
        elif action == "excuse":
            standing.excused = decision
        elif action == "waive_late":
            standing.waive_late = decision
        elif action == "hand_in_time":
            standing.hand_in_time = decision
    return found


def append(path: Path, decision: Decision) -> None:
    """Add one decision at the end of the ledger (with a header if the file is new), flushed to disk before
    returning: a decision reported as written is on disk."""
    check(decision)
    new = not path.exists() or path.stat().st_size == 0
    buffer = io.StringIO()
    writer = guarded_writer(buffer, lineterminator="\n")
    if new:
        writer.writerow(COLUMNS)
    writer.writerow([decision.when.isoformat(timespec="seconds"), *(text_cell(cell) for cell in (
        decision.who, decision.student, decision.action, decision.exercise, decision.value, decision.reason))])
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8", newline="") as handle:
        if not new and not _ends_with_newline(path):
            handle.write("\n")
        handle.write(buffer.getvalue())
        handle.flush()
        os.fsync(handle.fileno())


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def utc_now_to_the_second() -> datetime:
    """This moment, in UTC to the second: when a decision is written."""
    return datetime.now(timezone.utc).replace(microsecond=0)
