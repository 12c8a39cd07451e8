"""A student's standing in the term: who they are (the roster), what the grader gave, and what the term
made of it (lateness, the instructor's decisions), down to the final score that goes back to the LMS.

A hand-in whose time is unknown or impossible (term.py) is graded like any other, but its lateness is the
instructor's to decide: until the ledger holds a decision for the student, `needs_decision` says so and how
to decide, and the LMS's files hold the student back (lms/grade_import.py).

The grader's stored result (students/<id>.json) is never changed by the term: a late penalty, an
extension or an override is applied when the outputs are written, so changing the term's settings or
the ledger of decisions rewrites the outputs without grading anyone again.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from graders.frontends.wording import counted
from graders.frontends.grade.person import Person
from graders.frontends.grade.term.decisions import Decision, InForce, accepted_time, extended_due, in_force
from graders.frontends.grade.term.term import LATE, ON_TIME, LatePolicy

if TYPE_CHECKING:
    from graders.frontends.grade.store import StudentRecord


@dataclass
class Standing:
    """Everything the outputs say about one student beyond the grader's own result."""

    student: str
    person: Person | None  # None: no roster was given, or the student is not on it
    handed_in: bool  # False: on the roster, nothing handed in (scores 0 unless excused)
    raw: float  # the grader's score, before the term
    max_score: float
    submitted_at: datetime | None = None  # when the graded hand-in arrived, if its source says
    submitted_how: str = ""  # where that time came from: "Blackboard attempt time", "nbgrader timestamp", ...
    due: datetime | None = None  # the student's due date (an extension moves it)
    late_days: int = 0  # started days past the due date and the grace period
    penalty: float = 0.0  # the share of the score taken for lateness, 0..1
    overrides: dict[str, float] = field(default_factory=dict)  # exercise slug, or "total" -> points set by a decision
    excused: bool = False  # the instructor excused the student: no grade counts
    final: float = 0.0  # what goes back to the LMS
    notes: list[str] = field(default_factory=list)  # what the term changed, as the student is told (no reasons)
    private: list[str] = field(default_factory=list)  # the same with who decided and why, and the instructor's notes
    graded: bool = True  # False: handed in, but not graded by this run (a machine failed): no grade is exported
    # Why the hand-in's lateness waits for the instructor (its time unknown or impossible), and the command that
    # decides it; "" when nothing waits. Such a student's final is the score as if on time, exported to no LMS.
    needs_decision: str = ""

    @property
    def all_notes(self) -> list[str]:
        """Everything the instructor's outputs say: the student's lines, then the instructor's."""
        return [*self.notes, *self.private]

    @property
    def name(self) -> str:
        return self.person.name if self.person and self.person.name else self.student


def build_standings(records: list[StudentRecord], max_score: float, *, policy: LatePolicy | None = None,
                    roster: dict[str, Person] | None = None, decisions: list[Decision] | None = None,
                    times: dict[str, tuple[datetime | None, str]] | None = None,
                    pending: set[str] | None = None, now: datetime | None = None,
                    ledger: Path | str = "decisions.csv") -> dict[str, Standing]:
    """Every student's standing: each graded record, each hand-in not graded yet (`pending`), and each roster
    student who handed nothing in. `now` is the grading run's clock (a hand-in time after it is impossible);
    `ledger` the file the commands to decide write to.

    The order of the term's steps: exercise overrides replace those exercises' points; the late penalty
    (unless waived) takes its share of that; an override of the total sets the final score as it is (no
    penalty then); an excused student's grade does not count."""
    policy = policy or LatePolicy()
    roster = roster or {}
    forced = in_force(decisions or [])
    times = times or {}
    pending = pending or set()
    now = now or datetime.now(timezone.utc)
    graded = {r.student: r for r in records}
    standings = {}
    everyone = [*graded, *sorted(pending - graded.keys())]
    for student in [*everyone, *(s for s in roster if s not in graded.keys() | pending)]:
        record = graded.get(student)
        standing = Standing(student, roster.get(student), handed_in=record is not None or student in pending,
                            raw=record.score if record else 0.0, max_score=max_score,
                            graded=student not in pending or record is not None)
        if roster and student not in roster:
            standing.private.append("not on the roster: check the id, or add the student to the roster")
        if not standing.handed_in:
            standing.notes.append("nothing handed in")
        if not standing.graded:
            standing.private.append("handed in, but not graded by this run: run the same command again")
        standing.submitted_at, standing.submitted_how = times.get(student, (None, ""))
        _apply(standing, record, policy, forced.get(student, InForce()), now, str(ledger))
        standings[student] = standing
    return standings


def _apply(standing: Standing, record: StudentRecord | None, policy: LatePolicy, forced: InForce, now: datetime,
           ledger: str) -> None:
    points = {e.slug: e.score for e in record.exercises} if record else {}
    adjusted = standing.raw
    for slug, decision in sorted(forced.overrides.items()):
        if slug:
            value = float(decision.value)
            adjusted += value - points.get(slug, 0.0)
            standing.overrides[slug] = value
            standing.notes.append(f"{slug} set to {value:g} points by your instructor")
            standing.private.append(decision.said())
    standing.due = policy.due
    if forced.extension is not None:
        # "+2 days" are two days on the LMS's clock: across a change to summer time, still 23:59
        base = policy.due.astimezone(policy.zone) if policy.due is not None and policy.zone is not None else policy.due
        standing.due = extended_due(forced.extension.value, base) or policy.due
        if standing.due is not None:
            standing.notes.append(f"your due date is {shown_in_due_zone(standing.due, policy.due)}")
        standing.private.append(forced.extension.said())
    submitted, ruled = _judged_time(standing, policy, forced, now, ledger, adjusted)
    days, penalty = policy.penalty(submitted, standing.due)
    penalty = max(penalty, ruled)
    total = forced.overrides.get("")
    if days and forced.waive_late is not None:
        standing.notes.append(f"{counted(days, 'day')} late; no penalty")
        standing.private.append(forced.waive_late.said())
        penalty = 0.0
    elif days and total is not None:
        standing.notes.append(f"{counted(days, 'day')} late; the final score was set by your instructor")
        penalty = 0.0
    elif days:
        grace = f" and its {policy.grace.total_seconds() / 60:g}-minute grace" if policy.grace else ""
        standing.notes.append(f"handed in {shown_in_due_zone(standing.submitted_at, standing.due)} "
                              f"({standing.submitted_how}), after the due date "
                              f"{shown_in_due_zone(standing.due, standing.due)}{grace}: "
                              f"{counted(days, 'started day')} late, {penalty:.0%} of the score taken")
    standing.late_days, standing.penalty = days, penalty
    standing.final = round(max(adjusted, 0.0) * (1.0 - penalty), 2)
    if total is not None:
        standing.final = float(total.value)
        standing.overrides["total"] = standing.final
        standing.notes.append(f"final score set to {standing.final:g} by your instructor")
        standing.private.append(total.said())
    if forced.excused is not None:
        standing.excused = True
        standing.notes.append("excused: no grade counts")
        standing.private.append(forced.excused.said())
    for request, answer in forced.requests:
        about = f" on {request.exercise}" if request.exercise else ""
        standing.notes.append(f"regrade request{about} of {request.when:%Y-%m-%d}: "
                              + (f"{answer.value}: {answer.reason}" if answer else "open"))
        standing.private.append(f"regrade request{about}: {request.value!r} ({request.reason})"
                                + (f" -> {answer.said()}" if answer else " -> OPEN"))


def _judged_time(standing: Standing, policy: LatePolicy, forced: InForce, now: datetime, ledger: str,
                 score: float) -> tuple[datetime | None, float]:
    """The time lateness is counted from, and the share the term's rule takes where there is none. A time unknown
    or impossible counts only as the ledger (a hand_in_time, or a decision that makes lateness moot) or the term's
    unknown_time rule says: a student's clock set to 1970 or 2300 must not read as on time. Where the score before
    lateness is 0 (nothing that works handed in), no time could change it: there is nothing to decide."""
    doubt = _doubt(standing, policy, now) if standing.handed_in and policy.due is not None else ""
    if forced.hand_in_time is not None:
        accepted = accepted_time(forced.hand_in_time.value)
        standing.notes.append(f"the time of your hand-in was set to {shown_in_due_zone(accepted, policy.due)} by "
                              "your instructor")
        standing.private.append(forced.hand_in_time.said() + (f"; its own time is {doubt}" if doubt else ""))
        return accepted, 0.0
    if not doubt:
        return standing.submitted_at, 0.0
    settled = forced.overrides.get("") or forced.excused or forced.waive_late
    if score <= 0:
        standing.private.append(f"the hand-in's time is {doubt}; no time could change a score of 0")
    elif settled is not None:
        standing.private.append(f"the hand-in's time is {doubt}; lateness is settled by the {settled.action} decision")
    elif policy.unknown_time == ON_TIME:
        standing.private.append(f"the hand-in's time is {doubt}, so it was taken as on time "
                                f'(unknown_time = "on time")')
    elif policy.unknown_time == LATE:
        taken = policy.largest_penalty()
        standing.notes.append(f"the time of your hand-in is {doubt}: counted as late, {taken:.0%} of the score taken")
        standing.private.append(f'the hand-in\'s time is {doubt}, so it was taken as late (unknown_time = "late")')
        return None, taken
    else:
        standing.needs_decision = needs_decision(standing.student, doubt, policy, ledger)
        standing.notes.append(f"the time of your hand-in is {doubt}: your instructor decides how it counts, and "
                              f"no grade goes to the LMS until then")
        standing.private.append(standing.needs_decision)
    return None, 0.0


def _doubt(standing: Standing, policy: LatePolicy, now: datetime) -> str:
    """What is wrong with the hand-in's time ("" if nothing): unknown (and why), or impossible (and why)."""
    moment = standing.submitted_at
    if moment is None:
        return f"unknown ({standing.submitted_how})" if standing.submitted_how else "unknown"
    placed = moment if moment.tzinfo is not None else moment.astimezone()
    why = policy.impossible(placed, now)
    return f"impossible: {shown_in_due_zone(moment, policy.due)} ({standing.submitted_how}) is {why}" if why else ""


def needs_decision(student: str, doubt: str, policy: LatePolicy, ledger: str) -> str:
    """The sentence that says a hand-in's lateness waits for the instructor, with the commands that decide it."""
    decide = f"python -m graders decide {shlex.quote(ledger)} {shlex.quote(student)}"
    example = policy.due.isoformat() if policy.due is not None else "2026-12-01T23:59:00+01:00"
    return (f"NEEDS A DECISION: the hand-in's time is {doubt}, so its lateness is not known; held back from "
            f"lms/ until the ledger decides. Give the time you accept: {decide} hand_in_time WHEN --reason WHY "
            f"(WHEN with its UTC offset, like {example}); or take it as on time: {decide} waive_late yes --reason "
            f"WHY; or set the final score: {decide} override POINTS --reason WHY. Then run the same grade command "
            f"again (nothing is graded again)")


def shown_in_due_zone(moment: datetime | None, due: datetime | None) -> str:
    """A time as the due date's zone shows it, with its offset: one clock for every time a student reads."""
    if moment is None:
        return "(unknown)"
    shown = moment.astimezone(due.tzinfo) if due is not None and due.tzinfo is not None else moment
    offset = shown.strftime("%z")
    return f"{shown:%Y-%m-%d %H:%M} (UTC{offset[:3]}:{offset[3:]})" if offset else f"{shown:%Y-%m-%d %H:%M}"
