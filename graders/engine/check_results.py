"""The results of a run's checks: each check's pytest report turned into a `CheckResult`, per exercise.

Its one owner of state is `CheckResults`, which the session feeds a report at a time with what it
needs beside it (what the student's code printed during the check, the lines that reach for the
grader's internals), passed in: it reads no fixture and no other object's fields.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import course_config
import pytest
from graders.engine.causes import Causes, cause_of, said_again
from graders.engine.collection import ExerciseModule
from graders.engine.feedback import CheckFailed, Feedback
from graders.engine.mistakes import FORGOTTEN, Mistake, catalogued, concept_of
from graders.engine.results import (CheckResult, ExerciseResult, SubmissionResult, hidden_text, mistake_told,
                                    tally)
from graders.engine.sandbox_words import confinement_summary
from graders.sandbox import Confinement

DISTRUSTED = ("{file} holds code the grader cannot follow ({reach}), so what its process says of how your code works "
              "is not credited: this check of how scores 0 and is left for your instructor's review. Write it "
              "without that code to be graded on it.")
INTERNAL_ERROR = "internal error in the grader (not your fault; please report it): {error!r}"


class CheckResults:
    """Every check's result of one run, by exercise, and what the terminal needs to show them in short."""

    def __init__(self, hidden_show: str, answer_cells: bool) -> None:
        self.hidden_show = hidden_show  # course_config.HIDDEN_CHECKS_SHOW
        self.answer_cells = answer_cells  # plots go below a notebook's message
        self.exercises: dict[str, ExerciseResult] = {}
        self.lesson_number = 1
        self.causes = Causes()  # per exercise: the causes already explained in full, and by which check
        self.not_started: dict[str, list[str]] = {}  # per exercise: node ids of "not implemented yet" failures
        self.told_once: list[str] = []  # node ids failed by a whole-exercise cause already shown above
        self.not_judged: set[tuple[str, str]] = set()  # (slug, check id): failed on a value an earlier check failed on
        self.printed_in_passing: dict[tuple[str, str], str] = {}  # (slug, check id) -> what the student's code printed

    def record(self, item: pytest.Item, module: ExerciseModule, points: float, report: pytest.TestReport,
               call: pytest.CallInfo, printed: str, reaches: list[str] | None, file: str) -> None:
        """One check's report. `printed`: what the student's code printed during it; `reaches`: the lines of its
        module that reach for the grader's internals (None: no handle was made, they are as they were); `file`:
        how messages name the exercise's file."""
        lesson, exercise = module.lesson, module.exercise
        self.lesson_number = lesson.number
        result = self.exercises.setdefault(exercise.slug, ExerciseResult(exercise.slug, exercise.title, 0, 0, False))
        check = CheckResult(id=item.name.removeprefix("test_"), points=points, score=0.0, passed=report.passed,
                            message="", hidden=item.get_closest_marker("hidden") is not None)
        if report.passed:
            check.score = float(points)
            if printed.strip():  # shown under the check with -s, else the table says where it went
                self.printed_in_passing[(exercise.slug, check.id)] = printed
        elif report.skipped:
            return
        elif call.excinfo is not None and isinstance(call.excinfo.value, CheckFailed):
            self._failed(check, exercise.slug, call.excinfo.value.feedback, printed, module.mistakes, report)
        else:
            error = call.excinfo.value if call.excinfo is not None else None
            check.message = INTERNAL_ERROR.format(error=error)
            check.shown = check.message
        result.integrity = reaches if reaches is not None else result.integrity
        if result.integrity and exercise.check(check.id).how:
            _distrust(check, report, result.integrity, file)
        result.checks.append(check)
        tally(result)

    def _failed(self, check: CheckResult, slug: str, feedback: Feedback, printed: str,
                catalogue: Callable[[], list[Mistake]], report: pytest.TestReport) -> None:
        feedback = self._with_pictures(slug, feedback, check.hidden)
        feedback = dataclasses.replace(feedback, plots_below=self.answer_cells)
        if feedback.mistake and feedback.mistake in FORGOTTEN:  # a test of the grouping of unnamed failures
            feedback = dataclasses.replace(feedback, mistake=None, meaning="", hint="", concept="")
        check.message, check.mistake, check.cause = feedback.text(), feedback.mistake, feedback.cause
        # A check that names a mistake by its name alone (to reword its explanation) leaves its concept to the
        # exercise's catalogue.
        check.concept = feedback.concept or (concept_of(feedback.mistake, catalogue()) if feedback.mistake else "")
        check.not_implemented, check.files = feedback.not_implemented, list(feedback.files)
        cause = cause_of(feedback)
        check.same_cause_as = self.causes.explained_by(slug, cause)
        if check.same_cause_as:  # explained above: every front end shows the headline and says so
            same_value = self.causes.same_value(slug, feedback)
            check.message = said_again(feedback, same_value)
            if same_value:
                self.not_judged.add((slug, check.id))
        elif printed and (not check.hidden or self.hidden_show == "full"):  # a hidden check's prints show its inputs
            feedback = dataclasses.replace(feedback, printed=printed)
            check.message = feedback.text()
        if not check.hidden or self.hidden_show == "full":
            check.shown = check.message
        else:
            check.shown = hidden_text(_in_catalogue_words(feedback, catalogue()), self.hidden_show,
                                      said_above=bool(check.same_cause_as))
        mistake_told(check, feedback if check.shown == check.message
                     else _in_catalogue_words(feedback, catalogue()), self.hidden_show)
        if check.shown == check.message and not check.same_cause_as:  # not a hidden check shown in part
            self.causes.explain(slug, cause, check.id, feedback.summary)
        report.longrepr = self._terminal_text(slug, report.nodeid, feedback, check)

    def _with_pictures(self, slug: str, feedback: Feedback, hidden: bool) -> Feedback:
        """Draw a failure's plots only where someone will see them: not for a hidden check shown by
        its outcome, nor for a check whose cause an earlier one explained (see _terminal_text)."""
        if not feedback.pictures:
            return feedback
        if (hidden and self.hidden_show != "full") or self.causes.explained_by(slug, cause_of(feedback)):
            return dataclasses.replace(feedback, pictures=())
        drawn = tuple(path for path in (picture.draw() for picture in feedback.pictures) if path)
        return dataclasses.replace(feedback, files=feedback.files + drawn, pictures=())

    def _terminal_text(self, slug: str, nodeid: str, feedback: Feedback, check: CheckResult) -> str:
        """What the terminal shows of a failed check: its message, which says "same cause as above" in short
        where an earlier check explained its cause (graders/engine/causes.py)."""
        if feedback.not_implemented:
            self.not_started.setdefault(slug, []).append(nodeid)
            return feedback.summary  # an untouched function fails every check the same way
        if feedback.cause and check.same_cause_as:  # an import, a timeout: one message, the table lists the rest
            self.told_once.append(nodeid)
        return check.shown

    def ordered(self) -> list[ExerciseResult]:
        """The exercises graded, in the order the lesson teaches them."""
        order = [e.slug for lesson in course_config.LESSONS for e in lesson.exercises]
        return sorted(self.exercises.values(), key=lambda r: order.index(r.slug))

    def ran(self) -> int:
        return sum(len(result.checks) for result in self.exercises.values())

    def untouched(self, holds_code: Callable[[str], bool]) -> list[ExerciseResult]:
        """Exercises whose every function is still a stub: nothing of theirs ran, and their file holds no code
        (a run that -x stopped at a stub's function may not have reached the functions written)."""
        return [r for r in self.ordered() if r.score == 0 and r.checks and
                all(c.not_implemented for c in r.checks if not c.passed) and not holds_code(r.slug)]

    def quiet_failures(self, holds_code: Callable[[str], bool]) -> set[str]:
        """Node ids whose failure pytest need not list: the checks of untouched exercises, and the
        later checks of an exercise that failed to import or of a function that ran out of time."""
        untouched = {nodeid for r in self.untouched(holds_code) for nodeid in self.not_started.get(r.slug, [])}
        return untouched | set(self.told_once)

    def submission_result(self, where: str, *, trusted: bool, complete: bool, confinement: Confinement,
                          seconds: dict[str, float]) -> SubmissionResult:
        """The whole run's result; `seconds`: the time each exercise's code took."""
        exercises = self.ordered()
        for exercise in exercises:
            exercise.seconds = seconds.get(exercise.slug, exercise.seconds)
        return SubmissionResult(where, self.lesson_number, sum(e.score for e in exercises),
                                sum(e.max_score for e in exercises), trusted, complete, confinement.confined,
                                confinement_summary(confinement), exercises,
                                [f"{e.slug}: {line}" for e in exercises for line in e.integrity])


def _distrust(check: CheckResult, report: pytest.TestReport, reaches: list[str], file: str) -> None:
    """A check of how, for a module that reaches for the grader's internals: what its own process says of
    how it worked cannot be trusted, so the check scores 0 and says why in one line (the rest of its
    message, if it failed anyway, below)."""
    told = DISTRUSTED.format(file=file, reach=reaches[0].split(": ", 1)[-1])
    check.message = told + (f"\n{check.message}" if check.message else "")
    check.shown = told + (f"\n{check.shown}" if check.shown else "")  # a hidden check's message stays as shown
    check.passed, check.score = False, 0.0
    report.outcome, report.longrepr = "failed", check.shown


def _in_catalogue_words(feedback: Feedback, catalogue: list[Mistake]) -> Feedback:
    """A failure with its named mistake's meaning and hint as the catalogue words them: a check may reword them for
    the case at hand, with values of its inputs, which a hidden check does not show. Without a catalogued mistake,
    neither (the hint of an unnamed failure may be fitted to the values too), but where they speak of the code alone
    (Feedback.about_the_code). A meaning the failure also gave in words without values (a result's shape told as how
    it stands to the answer's, not as the two shapes) is shown in those words."""
    if feedback.about_the_code:
        return feedback
    mistake = catalogued(feedback.mistake, catalogue)
    if mistake is None:
        return dataclasses.replace(feedback, meaning="", hint="")
    return dataclasses.replace(feedback, meaning=feedback.meaning_without_values or mistake.explanation,
                               hint=mistake.hint, section=mistake.section)
