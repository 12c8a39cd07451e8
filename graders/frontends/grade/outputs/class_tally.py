"""The class counted for the report: each exercise and check across the class, and each concept's mistakes.

A check a student did not write (not implemented, or its file not handed in), whose file did not import
(a syntax error, an error at its top level: every check of the exercise fails for it, and no mistake of any
check is the cause) or that timed out (its cause a timeout or a spent allowance) is counted apart from one
they failed: a pass rate is of those who tried. An exercise's students who did not try it are counted by why:
no file handed in, the stub untouched, a file that did not import. Students are counted once per concept,
however many of its mistakes or checks they fell into.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import course_config

if TYPE_CHECKING:
    from graders.engine.results import CheckResult
    from graders.frontends.grade.store import StudentRecord

OTHER = "other"  # the concept of a named mistake whose check names none
BANDS = ("0", "<25%", "<50%", "<75%", "<100%", "full")  # of the exercise's points


@dataclass
class CheckTally:
    """One check across the class: who passed, failed, had not written the function, or timed out."""

    check: course_config.Check
    passed: int = 0
    failed: int = 0
    not_written: int = 0
    did_not_import: int = 0
    timed_out: int = 0
    unnamed: int = 0  # failures that no named mistake explains

    @property
    def rate(self) -> float | None:
        """Passed over passed and failed: a function not written, or one that timed out, is no failure of this check."""
        tried = self.passed + self.failed
        return self.passed / tried if tried else None


@dataclass
class ExerciseTally:
    """One exercise across the class, over the students graded on it."""

    exercise: course_config.Exercise
    checks: dict[str, CheckTally]
    scores: list[float] = field(default_factory=list)
    not_started: int = 0  # the untouched stub: every check failed as not implemented
    no_file: int = 0  # no file handed in for it
    did_not_import: int = 0  # its file did not import (a syntax error, an error at its top level)
    timed_out: int = 0  # a check failed for a timeout or a spent allowance
    passed: int = 0  # checks passed by the students who started and did not time out
    tried: int = 0  # and all their checks

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.scores) / self.exercise.points if self.scores else None

    @property
    def median(self) -> float | None:
        return statistics.median(self.scores) / self.exercise.points if self.scores else None

    @property
    def rate(self) -> float | None:
        return self.passed / self.tried if self.tried else None

    def bands(self) -> list[int]:
        counts = [0] * len(BANDS)
        for score in self.scores:
            share = score / self.exercise.points
            counts[0 if share <= 0 else 5 if share >= 1 else 1 + min(3, int(share * 4))] += 1
        return counts

    def bars(self) -> list[tuple[str, float | None, int]]:
        return [(c.check.id + (" [hidden]" if c.check.hidden else ""), c.rate, c.passed + c.failed)
                for c in self.checks.values()]


def check_timed_out(check: CheckResult) -> bool:
    return check.cause.startswith("timeout of") or check.cause == "allowance spent"


def did_not_import(check: CheckResult) -> bool:
    return check.cause == "import"


def not_written(check: CheckResult) -> bool:
    """A check failed only because its function is not written yet, or its file was not handed in."""
    return check.not_implemented or check.cause == "missing file"


def exercise_tally(exercise: course_config.Exercise, records: list[StudentRecord]) -> ExerciseTally:
    tally = ExerciseTally(exercise, {c.id: CheckTally(c) for c in exercise.checks})
    for record in records:
        result = record.exercise(exercise.slug)
        if result is None:
            continue
        checks = result.checks
        tally.scores.append(result.score)
        no_file = result.not_handed_in()
        stub = bool(checks) and not no_file and all(not_written(c) for c in checks)
        broken = any(did_not_import(c) for c in checks)
        started = not (no_file or stub or broken)
        timed_out = any(check_timed_out(c) for c in checks)
        tally.no_file += no_file
        tally.not_started += stub
        tally.did_not_import += broken
        tally.timed_out += timed_out
        if started and not timed_out:
            tally.tried += len(checks)
            tally.passed += sum(c.passed for c in checks)
        for check in checks:
            entry = tally.checks.get(check.id)
            if entry is None:
                continue
            if check.passed:
                entry.passed += 1
            elif not_written(check):
                entry.not_written += 1
            elif did_not_import(check):
                entry.did_not_import += 1
            elif check_timed_out(check):
                entry.timed_out += 1
            else:
                entry.failed += 1
                entry.unnamed += not check.mistake
    return tally


@dataclass
class MistakeTally:
    name: str
    where: set[tuple[str, str]] = field(default_factory=set)  # (exercise, check)
    students: set[str] = field(default_factory=set)


def concept_tallies(records: list[StudentRecord]) -> list[tuple[str, set[str], list[MistakeTally]]]:
    """Each concept with the students who made any of its named mistakes, and those mistakes; most students first,
    "other" (mistakes no concept is named for) last."""
    students: dict[str, set[str]] = defaultdict(set)
    mistakes: dict[str, dict[str, MistakeTally]] = defaultdict(dict)
    for record in records:
        for exercise, check in record.checks():
            name = check.mistake
            if check.passed or not name:
                continue
            concept = check.concept or OTHER
            students[concept].add(record.student)
            mistake = mistakes[concept].setdefault(name, MistakeTally(name))
            mistake.where.add((exercise.slug, check.id))
            mistake.students.add(record.student)
    ranked = sorted(students, key=lambda c: (c == OTHER, -len(students[c]), c))
    return [(c, students[c], sorted(mistakes[c].values(), key=lambda m: (-len(m.students), m.name))) for c in ranked]
