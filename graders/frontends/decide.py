"""`python -m graders decide LEDGER ...`: write one decision into the term's ledger, or show what is in force.

    python -m graders decide decisions.csv 12345 override 8.5 --exercise micrograd --reason "tolerance fixed"
    python -m graders decide decisions.csv 12345 extension "+2 days" --reason "medical note"
    python -m graders decide decisions.csv 12345 hand_in_time 2026-12-01T22:10:00+01:00 --reason "LMS log"
    python -m graders decide decisions.csv 12345 regrade_request "my views pass locally" --exercise views \\
        --reason "e-mail of 2026-12-04"
    python -m graders decide decisions.csv --show

The next `python -m graders grade ... --decisions decisions.csv` (or a term file naming it) applies it to
every output without grading anyone again (graders/frontends/grade/term/decisions.py says how).
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

import course_config
from graders.frontends.wording import counted
from graders.frontends.grade.term.decisions import (ACTIONS, Decision, LedgerError, append, check, in_force, read_ledger,
                                               utc_now_to_the_second)


def main(ledger: Path, student: str | None = None, action: str | None = None, value: str = "", *,
         exercise: str = "", reason: str = "", by: str | None = None, lesson: str = "lesson01",
         show: bool = False) -> int:
    """Append one decision (or, with `show`, print the decisions in force); returns 0, or raises SystemExit
    with what was wrong."""
    chosen = next((l for l in course_config.LESSONS if l.folder == lesson), None)
    if chosen is None:
        raise SystemExit(f"--lesson {lesson}: course_config.py has no such lesson")
    slugs = {"": chosen.points, **{e.slug: e.points for e in chosen.exercises}}
    try:
        if show or student is None:
            if student is not None or action is not None:
                raise SystemExit("give either --show, or STUDENT ACTION [VALUE] --reason WHY")
            _show(read_ledger(ledger, slugs), ledger)
            return 0
        if student.startswith("Participant "):
            raise SystemExit(f"python -m graders decide: {student!r}: give the id alone, "
                             f"{student.removeprefix('Participant ')!r}, as the outputs name the student")
        if action is None:
            raise SystemExit(f"what is decided for {student}? give an ACTION: {', '.join(ACTIONS)}")
        decision = Decision(when=utc_now_to_the_second(), who=by or _who(), student=student, action=action,
                            exercise=exercise, value=value, reason=reason)
        check(decision, slugs, "the decision")
        read_ledger(ledger, slugs)  # never append to a file that is not a ledger
        append(ledger, decision)
    except LedgerError as error:
        raise SystemExit(f"python -m graders decide: {error}") from None
    print(f"{ledger}: {decision.student}: {decision.said()}")
    return 0


def _who() -> str:
    """Who is deciding: the login name (SUDO_USER first: an instructor who became root is still themselves)."""
    return os.environ.get("SUDO_USER") or getpass.getuser()


def _show(decisions: list[Decision], ledger: Path) -> None:
    if not decisions:
        print(f"{ledger}: no decisions yet")
        return
    for student, forced in sorted(in_force(decisions).items()):
        lines = [d.said() for d in forced.overrides.values()]
        lines += [d.said() for d in (forced.extension, forced.excused, forced.waive_late, forced.hand_in_time)
                  if d is not None]
        lines += [f"{request.said()} -> " + (answer.said() if answer else "OPEN") for request, answer in forced.requests]
        if lines:
            print(f"{student}:\n" + "\n".join(f"  {line}" for line in lines))
    open_requests = sum(1 for f in in_force(decisions).values() for _, answer in f.requests if answer is None)
    print(f"{counted(len(decisions), 'decision')} in {ledger}; "
          f"{counted(open_requests, 'open regrade request')}")
