"""The points table: what the terminal shows at the end of a run, an exercise a line and a check under it.

It only reads: the run's check results, how messages name each exercise's file, and the run's settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

import course_config
from graders.engine.check_results import CheckResults
from graders.engine.feedback import printed_text
from graders.engine.progress import started
from graders.engine.results import CheckResult, SubmissionResult

PRINTED_ELSEWHERE = ("graders: your code printed during {count}: the grader keeps what it prints, and a failed "
                     "check shows it under its message; run with -s to see it under each passed check too.")


class PointsTable:
    """The table of one run, written by pytest's terminal summary, and the total's line at the very end."""

    def __init__(self, config: pytest.Config, results: CheckResults, display_paths: dict[str, str],
                 module_paths: dict[str, Path], holds_code: Callable[[str], bool], hidden_show: str) -> None:
        self.config = config
        self.results = results
        self.display_paths = display_paths  # how messages name each exercise's file
        self.module_paths = module_paths  # each graded exercise's file in the submission
        self.holds_code = holds_code
        self.hidden_show = hidden_show
        self.where_to_begin = ""  # said on the last line when exercises are untouched

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        results = self.results
        if not results.exercises:
            return
        tr = terminalreporter
        tr.reportchars = ""  # the table below replaces pytest's short summary of failures
        tr.currentfspath = None  # pytest has ended the progress line: no blank line under the title
        untouched = {r.slug for r in results.untouched(self.holds_code)}
        first = next((r for r in results.ordered() if r.slug in untouched), None)
        where = self.display_paths.get(first.slug, f"{first.slug}.py") if first is not None else ""
        if untouched and len(untouched) == len(results.exercises) and not self._started_elsewhere():
            tr.section(f"Lesson {results.lesson_number}: not started yet. Begin with {where}")
        else:
            tr.section(f"Lesson {results.lesson_number}: points")
            self.where_to_begin = f"Next to start: {where}" if where else ""
        for result in results.ordered():
            status = ""
            if result.slug in untouched:
                status = f"   not implemented yet: open {self.display_paths.get(result.slug, result.slug + '.py')}"
            elif result.not_implemented and result.score == 0:
                status = "   not implemented yet"
            reasons = {c.message.splitlines()[0] for c in result.checks if not c.passed}
            if not status and result.score == 0 and len(reasons) == 1 and len(result.checks) > 1:
                status = f"   every check: {reasons.pop()}"  # e.g. the file could not be imported
            tr.write_line(f"{result.slug}: {_points(result.score)} / {_points(result.max_score)} points{status}")
            if status:
                continue
            quiet = self.config.get_verbosity() < 0  # -q: the failed checks only
            for check in result.checks:
                if quiet and check.passed:
                    continue
                mark = "PASS" if check.passed else "FAIL"
                named = check.mistake and (not check.hidden or self.hidden_show != "outcome")
                extra = f"   ({check.mistake})" if named else _stopped(check)
                if (result.slug, check.id) in results.not_judged:  # its name says what it did not get to judge
                    extra = f"   (not judged: {check.mistake + ', ' if named else ''}as in {check.same_cause_as})"
                hidden = " [hidden]" if check.hidden else ""
                tr.write_line(f"  {mark}  {check.id}{hidden}: {_points(check.score)} / {_points(check.points)}{extra}")
                printed = results.printed_in_passing.get((result.slug, check.id), "") if self._shows_output() else ""
                if printed:
                    tr.write_line(_printed_under(printed, check.hidden and self.hidden_show != "full"))
        if results.printed_in_passing and not self._shows_output():
            count = len(results.printed_in_passing)
            tr.write_line(PRINTED_ELSEWHERE.format(count=f"{count} passed check{'s' if count != 1 else ''}"))

    def total_line(self, total: SubmissionResult) -> str:
        """The run's last line: the lesson's points, and what they leave out."""
        ran = sum(len(e.checks) for e in total.exercises)
        everything = sum(len(e.checks) for lesson in course_config.LESSONS for e in lesson.exercises)
        notes = [f"{ran} of {everything} checks ran"] if ran < everything else []
        notes += [] if total.trusted else ["--in-process: not a grade"]
        note = f"   ({'; '.join(notes)})" if notes else ""
        note += f". {self.where_to_begin}" if self.where_to_begin else ""
        return f"Lesson {total.lesson}: {_points(total.score)} / {_points(total.max_score)} points{note}"

    def _started_elsewhere(self) -> bool:
        """Whether the lesson's exercise files that this run did not grade (a run of one file, or one stopped by
        -x) hold code of the student's."""
        folders = {path.parent for path in self.module_paths.values()}
        number = self.results.lesson_number
        lesson = next(lesson for lesson in course_config.LESSONS if lesson.number == number)
        others = [e.slug for e in lesson.exercises if e.slug not in self.results.exercises]
        return any(started(folder, others) for folder in folders)

    def _shows_output(self) -> bool:
        """Whether the student asked to see their code's output (`-s`): then what it printed in a passed check is
        shown under that check in the table (a failed check's message shows it always)."""
        return self.config.getoption("capture", "fd") == "no"


def _stopped(check: CheckResult) -> str:
    """The table's note on a check that a timeout or the spent time allowance stopped: those after the first
    did not run the student's code at all, and the table is all the terminal shows of them."""
    if check.cause.startswith("timeout of "):
        function = check.cause.removeprefix("timeout of ")
        return f"   (not run: {function} timed out above)" if check.same_cause_as else f"   ({function} timed out)"
    if check.cause == "allowance spent":
        return "   (not run: the time allowance was used up)"
    return ""


def _printed_under(printed: str, hidden: bool) -> str:
    """What a passed check's code printed, as the table shows it under that check: a hidden check's output would
    show its inputs, so only its size is said."""
    lines = printed_text(printed).splitlines() or [""]
    if hidden:
        lines = [f"{len(printed.splitlines())} line(s), not shown: a hidden check's output would show its inputs"]
    return "\n".join([f"        printed:  {lines[0]}", *(f"                  {line}" for line in lines[1:])])


def _points(value: float) -> str:
    return f"{value:g}"
