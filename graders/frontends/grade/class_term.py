"""The term of one grading run: its files read and checked before anyone is graded, then applied to the class.

A typo in the ledger or the roster should stop the run in its first second, not after an hour of
grading; so `the_term` reads everything the term names up front (TermError on any problem), and
`TermSetting.applied` later turns the stored results into every student's standing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import course_config
from graders.frontends.wording import counted
from graders.frontends.grade import decisions as ledger
from graders.frontends.grade.standing import Person, Standing, build_standings
from graders.frontends.grade.term import Term, TermError, load_term


@dataclass
class ClassTerm:
    """What the outputs need of the term: every student's standing and the LMS's names for things."""

    standings: dict[str, Standing]
    roster_given: bool
    canvas_assignment_id: str | None = None
    ledger: Path | None = None
    open_requests: list[ledger.Decision] = field(default_factory=list)


@dataclass
class TermSetting:
    """The term's files as read at the start of a run."""

    term: Term
    roster: dict[str, Person]
    roster_given: bool
    ledger: Path
    exercises: tuple[str, ...]
    compare: Path | None

    def decisions(self) -> list[ledger.Decision]:
        """The ledger as it is now (read again: nbgrader's manual scores may have been added)."""
        try:
            return ledger.read_ledger(self.ledger, self.exercises)
        except ledger.LedgerError as error:
            raise TermError(str(error)) from None

    def applied(self, records: list[dict[str, Any]], submissions: list[Any], lesson: course_config.Lesson) -> ClassTerm:
        """Every student's standing, from their stored result, their hand-in's time and the term."""
        times = {s.student: (self._placed(s.submitted_at), s.submitted_how) for s in submissions}
        found = self.decisions()
        standings = build_standings(records, lesson.points, policy=self.term.policy, roster=self.roster,
                                    decisions=found, times=times)
        waiting = [request for forced in ledger.in_force(found).values() for request, answer in forced.requests
                   if answer is None]
        return ClassTerm(standings, self.roster_given, self.term.canvas_assignment_id, self.ledger, waiting)

    def _placed(self, when: datetime | None) -> datetime | None:
        """A time on an LMS's own clock (naive) placed in the LMS's zone (this machine's where none is set)."""
        if when is None or when.tzinfo is not None:
            return when
        return when.astimezone() if self.term.lms_zone is None else when.replace(tzinfo=self.term.lms_zone)


def the_term(term: Path | None, roster: Path | None, decisions: Path | None, out: Path, exercises: tuple[str, ...],
             compare: Path | None) -> TermSetting:
    """Read and check every file of the term; SystemExit naming the file and the problem."""
    from graders.frontends.grade.regrade import CompareError, previous_records
    from graders.frontends.grade.roster import RosterError, read_roster

    try:
        setting = load_term(term) if term is not None else Term()
        roster_file = roster or setting.roster
        people = read_roster(roster_file) if roster_file is not None else {}
        ledger_file = decisions or setting.decisions or out / "decisions.csv"
        ledger.read_ledger(ledger_file, exercises)
        if compare is not None:
            previous_records(compare, out)
    except (TermError, RosterError, ledger.LedgerError, CompareError) as error:
        raise SystemExit(f"graders grade: {error}") from None
    return TermSetting(setting, people, roster_file is not None, ledger_file, exercises, compare)


def synced_from_nbgrader(course: Path, assignment: str, setting: TermSetting) -> int:
    """Copy the scores an instructor set in nbgrader's formgrader into the ledger, where they differ from the
    override in force: the ledger stays the one source of truth, and --gradebook writes it back. Returns how
    many decisions were added."""
    from graders.frontends.grade.gradebook import GradebookError, manual_scores

    try:
        manual = manual_scores(course, assignment)
    except GradebookError:
        return 0  # no gradebook yet: nothing was set by hand
    history: dict[tuple[str, str], list[str]] = {}  # each (student, exercise)'s override values, oldest first
    for decision in setting.decisions():
        if decision.action == "override":
            history.setdefault((decision.student, decision.exercise), []).append(decision.value)
    added = 0
    for (student, slug), points in sorted(manual.items()):
        values = history.get((student, slug), [])
        if values and values[-1] and float(values[-1]) == points:
            continue  # the ledger already says so
        if values and not values[-1] and any(v and float(v) == points for v in values):
            continue  # withdrawn in the ledger; the gradebook still holds what --gradebook last wrote
        ledger.append(setting.ledger, ledger.Decision(
            when=ledger.now(), who="nbgrader formgrader", student=student, action="override", exercise=slug,
            value=f"{points:g}", reason=f"manual score in {course.name}/gradebook.db"))
        added += 1
    if added:
        print(f"graders grade: {counted(added, 'manual score')} from nbgrader's formgrader "
              f"copied into {setting.ledger}", flush=True)
    return added
