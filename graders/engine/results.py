"""The one result model: submission → exercises → checks. Every front end (the pytest
summary, `--json`, nbgrader, CSV and the like) reads this and nothing else: the session
builds it, `write` stores it as JSON, and `SubmissionResult.read` (or `from_dict`) gives it
back, typed, to whoever reads a stored result.

Standard library only at the top: the notebooks' test cells read results with it (as
nbchecks/engine/results.py in a student bundle) and must not load the engine to do so.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graders.engine.result_reading import Model, NotAResult, Readable

if TYPE_CHECKING:
    from graders.engine.feedback import Feedback


@dataclass
class CheckResult(Readable):
    REQUIRED = ("id", "points", "score", "passed")

    id: str  # the check's id in its exercise's manifest (its test is `test_<id>`)
    points: float  # what the check is worth
    score: float  # what the submission earned on it: `points` if passed, else 0
    passed: bool
    message: str  # the feedback text; empty when passed
    hidden: bool  # hidden checks use fresh inputs and are not shown to students before grading
    mistake: str | None = None  # the name of the recognised mistake, if any
    concept: str = ""  # the lesson idea that mistake breaks, a key of course_config.CONCEPTS; "" when none is named
    # What failed the whole exercise at once, if anything: "missing file", "import", "allowance spent" or
    # "timeout of <function>", so that reports count files not handed in and timeouts apart from wrong answers.
    cause: str = ""
    not_implemented: bool = False  # failed only because the function still raises NotImplementedError
    files: list[str] = field(default_factory=list)  # files written for this check (e.g. a plot)
    shown: str = ""  # the feedback students see: the message, or less of it for a hidden check (hidden_text)
    # The id of the earlier check of the same exercise whose message explains this failure's cause in full; this
    # check's message is then its headline and "same cause as above" (graders/engine/causes.py). "" otherwise.
    same_cause_as: str = ""
    # The named mistake as `shown` tells it, in parts a front end can lay out its own way (set by mistake_told):
    mistake_shown: bool = False  # `shown` names `mistake` (a hidden check does only where HIDDEN_CHECKS_SHOW lets it)
    meaning: str = ""  # what the mistake means; for a hidden check, in its catalogue's words (no values of its inputs)
    hint: str = ""  # one thing to try, worded likewise
    section: str = ""  # the lesson section to read again

    @classmethod
    def from_dict(cls, data: Any, where: str = "the check", at: str = "") -> CheckResult:
        check = super().from_dict(data, where, at)
        if "shown" not in data:  # stored before `shown` existed
            check.shown = _shown_of_an_older_record(check)
        if "mistake_shown" not in data:  # stored before the named mistake's parts were: known by the setting alone
            check.mistake_shown = bool(check.mistake) and (not check.hidden or check.shown == check.message
                                                            or _hidden_checks_show() == "mistake")
        return check


@dataclass
class ExerciseResult(Readable):
    REQUIRED = ("slug", "score", "max_score")

    slug: str  # names the stub, reference, checks module and notebook section
    title: str
    score: float  # sum of its checks' scores
    max_score: float  # sum of its checks' points (of the checks that ran)
    not_implemented: bool  # every failed check failed only because nothing is written yet
    checks: list[CheckResult] = field(default_factory=list)
    seconds: float = 0.0  # wall-clock time its code took (imports and calls), against LIMITS.exercise_seconds
    # Lines of its module that reach for the grader's internals (graders/engine/source_evidence.py): its checks of
    # how then score 0, and the instructor's outputs show these lines.
    integrity: list[str] = field(default_factory=list)

    def check(self, check_id: str) -> CheckResult | None:
        return next((c for c in self.checks if c.id == check_id), None)

    def not_handed_in(self) -> bool:
        """Its file was not handed in: every check failed for that one cause."""
        return bool(self.checks) and all(c.cause == "missing file" for c in self.checks)


@dataclass
class SubmissionResult(Readable):
    REQUIRED = ("score", "max_score", "exercises")

    submission: str  # the folder whose modules were graded
    lesson: int
    score: float  # total earned over the exercises that ran
    max_score: float  # total possible over the checks that ran
    trusted: bool  # False when graded with --in-process (student code shared the grader's process)
    complete: bool  # False when the run stopped early (-x, interrupted): some selected checks never ran
    confined: bool  # True when every worker ran under the whole sandbox (docs/security.md)
    confinement: str  # what confined the workers, in words, and what was missing
    exercises: list[ExerciseResult] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)  # every exercise's integrity lines, each "<slug>: <line>"

    @classmethod
    def read(cls: type[Model], path: Path) -> Model:
        """The result stored at `path` (as `write` stores it), typed; NotAResult names the file and what is wrong."""
        text = Path(path).read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except ValueError as error:
            raise NotAResult(f"{path} is not a result of the grader: it is not JSON ({error})") from None
        return cls.from_dict(data, where=str(path))

    def exercise(self, slug: str) -> ExerciseResult | None:
        return next((e for e in self.exercises if e.slug == slug), None)

    def checks(self) -> list[tuple[ExerciseResult, CheckResult]]:
        """Every check with its exercise, in order."""
        return [(exercise, check) for exercise in self.exercises for check in exercise.checks]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def write(self, path: Path) -> None:
        """Write beside the target, then rename over it: a reader never sees half a file, and
        whatever stood at the path before (a stale result, a pipe) is replaced, not opened."""
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        partial.write_text(self.to_json() + "\n")
        os.replace(partial, path)


HIDDEN_OUTCOME = ("Hidden check failed: it uses inputs you were not shown, so its inputs and values stay with your "
                  "instructor.")
SHOW_CHOICES = ("outcome", "mistake", "full")
_CALLED = re.compile(r"\s*([A-Za-z_][\w.]*)\(")  # a call's text that begins with the function it called


def called_function(call: str) -> str:
    """The function a check's call names, without its arguments ("predict(...)"): "" when the call's text does not
    begin with one (it then describes a run, not a call)."""
    found = _CALLED.match(call)
    return f"{found[1]}(...)" if found else ""


def hidden_text(feedback: Feedback, show: str, said_above: bool = False) -> str:
    """What students see of a failed hidden check whose message course_config.HIDDEN_CHECKS_SHOW does not show in
    full: the function it called and, with "mistake", the named mistake's name, meaning, hint and lesson section (a
    fact about the student's code); never its inputs, what came back or was expected, what was printed, or plots.
    `said_above`: an earlier check explained the same cause in full, so this one points there (graders/engine/causes.py)."""
    from graders.engine.causes import SAME_CAUSE  # imported here: reading a result loads no more of the engine
    from graders.engine.feedback import Feedback

    named = feedback.mistake if show == "mistake" else None
    if said_above:
        pointer = SAME_CAUSE.format(named=f" ({named})" if named else "")
        return f"{Feedback(HIDDEN_OUTCOME, call=called_function(feedback.call)).text()}\n  {pointer}"
    # Built from the failure's parts, not cut from its text: the summary and `got` hold the hidden values.
    told = Feedback(HIDDEN_OUTCOME, call=called_function(feedback.call), mistake=named,
                    meaning=feedback.meaning if named else "", hint=feedback.hint if named else "",
                    section=feedback.section if named else "")
    return told.text()


def mistake_told(check: CheckResult, told: Feedback, show: str) -> None:
    """Give a failed check its named mistake's parts, as typed fields, where its `shown` names the mistake. `told`
    is the failure as students may read it: for a hidden check not shown in full, in its catalogue's words."""
    if told.mistake and (not check.hidden or show in ("mistake", "full")):
        check.mistake_shown = True
        check.meaning, check.hint, check.section = told.meaning, told.hint, told.section


def _shown_of_an_older_record(check: CheckResult) -> str:
    """What students see of a check stored before `shown` existed: the message of a public check, and of a hidden
    one only the outcome and, per HIDDEN_CHECKS_SHOW, the mistake's name (the other parts of its failure were not
    stored apart from its text)."""
    show = _hidden_checks_show()
    if not check.message or not check.hidden or show == "full":
        return check.message
    from graders.engine.feedback import Feedback

    return Feedback(HIDDEN_OUTCOME, mistake=check.mistake if show == "mistake" else None).text()


def _hidden_checks_show() -> str:
    """The course's HIDDEN_CHECKS_SHOW, for records older than the fields that say what was shown."""
    try:
        import course_config
    except ImportError:  # a copy of the engine with no course on the path: claim no more was shown than the outcome
        return "outcome"
    return str(course_config.HIDDEN_CHECKS_SHOW.value)


def tally(exercise: ExerciseResult) -> ExerciseResult:
    """Fill an exercise's totals from its checks."""
    exercise.score = sum(c.score for c in exercise.checks)
    exercise.max_score = sum(c.points for c in exercise.checks)
    failed = [c for c in exercise.checks if not c.passed]
    exercise.not_implemented = bool(failed) and all(c.not_implemented for c in failed)
    return exercise
