"""The term applied to a class: every file of one grading run's term read and checked before anyone is graded,
then the stored results turned into every student's standing.

A typo in the ledger or the roster should stop the run in its first second, not after an hour of
grading; so `load_term`, the one way in, reads and checks the term's file (term.py: its schema), the roster,
the ledger and the earlier runs named, up front (a SystemExit naming the file and the problem), and
`LoadedTerm.applied` later turns the stored results into every student's standing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import course_config
from graders.frontends.wording import counted
from graders.frontends.grade.term.decisions import Decision, LedgerError, append, in_force, read_ledger
from graders.frontends.grade.intake.hand_in_times import plausible_time
from graders.frontends.grade.term.standing import Person, Standing, build_standings
from graders.frontends.grade.term.term import NEEDS_DECISION, TermError, TermFile, read_term_file

if TYPE_CHECKING:
    from graders.frontends.grade.store import StudentRecord


@dataclass
class AppliedTerm:
    """What the outputs need of the term: every student's standing and the LMS's names for things."""

    standings: dict[str, Standing]
    roster_given: bool
    canvas_assignment_id: str | None = None
    ledger: Path | None = None
    open_requests: list[Decision] = field(default_factory=list)


@dataclass
class LoadedTerm:
    """The term's files as read at the start of a run."""

    term: TermFile
    roster: dict[str, Person]
    roster_given: bool
    ledger: Path
    exercises: dict[str, float]  # each exercise's points, "" the lesson's: what a decision may name and set
    compare: Path | None
    # The grading run's clock: a hand-in time after it is impossible (read once, so every output agrees)
    started: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def check_class(self, students: list[str]) -> None:
        """Before grading: stop when most hand-ins are not on the roster (its ids are not the download's: every
        LMS file would zero the real students), and say who is not on it and which decisions name nobody."""
        if self.roster_given:
            strangers = [s for s in students if s not in self.roster]
            if strangers and len(strangers) * 2 > len(students):
                raise SystemExit(f"graders grade: {len(strangers)} of {counted(len(students), 'hand-in')} have ids "
                                 f"not on the roster ({', '.join(map(repr, strangers[:3]))}, ...; the roster's are "
                                 f"{', '.join(map(repr, list(self.roster)[:3]))}, ...): give the roster column that "
                                 f"holds the download's ids with --roster-id-column (or roster_id_column in the "
                                 f"term's file)")
            if strangers:
                print(f"graders grade: {counted(len(strangers), 'hand-in')} not on the roster: "
                      f"{', '.join(map(repr, strangers[:10]))}{', ...' if len(strangers) > 10 else ''}", flush=True)
        known = set(students) | set(self.roster)
        nobody = sorted({d.student for d in self.decisions()} - known)
        if nobody:
            print(f"graders grade: the ledger {self.ledger} has decisions for {counted(len(nobody), 'id')} neither "
                  f"handed in nor on the roster, which apply to no one: {', '.join(map(repr, nobody[:10]))}",
                  flush=True)

    def decisions(self) -> list[Decision]:
        """The ledger as it is now (read again: nbgrader's manual scores may have been added)."""
        try:
            return read_ledger(self.ledger, self.exercises)
        except LedgerError as error:
            raise TermError(str(error)) from None

    def applied(self, records: list[StudentRecord], submissions: list[Any], lesson: course_config.Lesson,
                pending: set[str] | None = None) -> AppliedTerm:
        """Every student's standing, from their stored result, their hand-in's time and the term; `pending` are
        the students handed in but not graded by this run."""
        times = {s.student: (self._placed(s.submitted_at), s.submitted_how) for s in submissions}
        found = self.decisions()
        standings = build_standings(records, lesson.points, policy=self.term.policy, roster=self.roster,
                                    decisions=found, times=times, pending=pending, now=self.started,
                                    ledger=self.ledger)
        if self.term.policy.due is not None:
            self._say_weak_times(standings)
        waiting = [request for forced in in_force(found).values() for request, answer in forced.requests
                   if answer is None]
        return AppliedTerm(standings, self.roster_given, self.term.canvas_assignment_id, self.ledger, waiting)

    def progress_note(self, lesson: course_config.Lesson,
                      found: list[Decision]) -> Callable[[StudentRecord, Any], str]:
        """For the progress lines: a function of (record, submission) giving what the term makes of the checks'
        score ("80 / 100 after the term"), or "" where it leaves it as it is (`found`: the ledger, read once)."""
        def note(record: StudentRecord, submission: Any) -> str:
            student = record.student
            roster = {student: self.roster[student]} if student in self.roster else {}
            times = {student: (self._placed(submission.submitted_at), submission.submitted_how)}
            standing = build_standings([record], lesson.points, policy=self.term.policy, roster=roster,
                                       decisions=[d for d in found if d.student == student], times=times,
                                       now=self.started, ledger=self.ledger)[student]
            if standing.excused:
                return "excused after the term"
            if standing.needs_decision:
                return "hand-in time unknown or impossible: needs a decision"
            return "" if standing.final == standing.raw else f"{standing.final:g} / {lesson.points:g} after the term"
        return note

    def _say_weak_times(self, standings: dict[str, Standing]) -> None:
        """The late policy is only as good as the times: say whose are unknown, whose are impossible or wait for a
        decision, and whose are the students' own clocks (git commits)."""
        handed = [s for s in standings.values() if s.handed_in]
        by_source: dict[str, list[str]] = {}
        for standing in sorted(handed, key=lambda s: s.student):
            by_source.setdefault(standing.submitted_how if standing.submitted_at else "none", []).append(
                standing.student)
        for source, who in sorted(by_source.items()):  # every student's, in grades.csv's time_source
            print(f"graders grade: lateness from the hand-in time {source!r}: {counted(len(who), 'student')} "
                  f"({', '.join(map(repr, who[:10]))}{', ...' if len(who) > 10 else ''})", flush=True)
        unknown = sorted(s.student for s in handed if s.submitted_at is None)
        own = sorted(s.student for s in handed if s.submitted_how.startswith("last git commit"))
        waiting = sorted(s.student for s in handed if s.needs_decision)
        rule = self.term.policy.unknown_time
        taken = "" if rule == NEEDS_DECISION else f", so taken as {rule}"
        for who, what in ((unknown, f"no known hand-in time{taken}"),
                          (own, "a time from their own git commits (their clock, which they can set)"),
                          (waiting, f"a hand-in time unknown or impossible, who need a decision (held back from "
                                    f"lms/; grades.csv's needs_decision says how: python -m graders decide "
                                    f"{self.ledger} ID hand_in_time WHEN --reason WHY)")):
            if who:
                print(f"graders grade: {counted(len(who), 'student')} with {what}: "
                      f"{', '.join(map(repr, who[:10]))}{', ...' if len(who) > 10 else ''}", flush=True)

    def _placed(self, when: datetime | None) -> datetime | None:
        """A time on an LMS's own clock (naive) placed in the LMS's zone (this machine's where none is set); None
        where it cannot be placed or is no usable time (hand_in_times.plausible_time)."""
        if when is None or when.tzinfo is not None:
            return when
        try:
            placed = when.astimezone() if self.term.lms_zone is None else when.replace(tzinfo=self.term.lms_zone)
        except (ValueError, OverflowError, OSError):
            return None
        return plausible_time(placed)


def load_term(term: Path | None, roster: Path | None, decisions: Path | None, out: Path,
                  exercises: dict[str, float], compare: Path | None, archive: list[Path] | None = None,
                  roster_id_column: str | None = None) -> LoadedTerm:
    """Read and check every file of the term (`exercises`: each slug's points, "" the lesson's); SystemExit
    naming the file and the problem."""
    from graders.frontends.grade.store import CompareError, previous_records
    from graders.frontends.grade.term.roster import RosterError, read_roster

    try:
        setting = read_term_file(term) if term is not None else TermFile()
        roster_file = roster or setting.roster
        id_column = roster_id_column or setting.roster_id_column
        people = read_roster(roster_file, id_column) if roster_file is not None else {}
        ledger_file = decisions or setting.decisions or out / "decisions.csv"
        read_ledger(ledger_file, exercises)
        if compare is not None:
            previous_records(compare, out)
        for folder in archive or []:
            if not (folder / "answers").is_dir():
                raise TermError(f"--archive {folder}: no answers/ folder there; give the --out folder of an "
                                f"earlier term's run")
    except (TermError, RosterError, LedgerError, CompareError) as error:
        raise SystemExit(f"graders grade: {error}") from None
    return LoadedTerm(setting, people, roster_file is not None, ledger_file, exercises, compare)


def synced_from_nbgrader(course: Path, assignment: str, setting: LoadedTerm) -> None:
    """Copy the scores an instructor set in nbgrader's formgrader into the ledger (gradebook.formgrader_decisions
    says which): the ledger stays the one source of truth, and --gradebook writes it back."""
    from graders.frontends.nbgrader.gradebook import GradebookError, formgrader_decisions

    try:
        added = formgrader_decisions(course, assignment, setting.decisions())
    except GradebookError as error:
        raise TermError(f"nbgrader's manual scores could not be read: {error}") from None
    except Exception as error:  # SQLAlchemy's: a database locked by an open formgrader, a damaged file
        raise TermError(f"nbgrader's manual scores could not be read ({type(error).__name__}: {error})") from None
    for decision in added:
        append(setting.ledger, decision)
    if added:
        print(f"graders grade: {counted(len(added), 'manual score')} from nbgrader's formgrader "
              f"copied into {setting.ledger}", flush=True)
