"""The one result model: submission → exercises → checks. Every front end (the pytest
summary, `--json`, nbgrader, CSV and the like) reads this and nothing else."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from graders.engine.causes import SAME_CAUSE
from graders.engine.feedback import Feedback


@dataclass
class CheckResult:
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


@dataclass
class ExerciseResult:
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


@dataclass
class SubmissionResult:
    submission: str  # the folder whose modules were graded
    lesson: int
    score: float  # total earned over the exercises that ran
    max_score: float  # total possible over the checks that ran
    trusted: bool  # False when graded with --in-process (student code shared the grader's process)
    complete: bool  # False when the run stopped early (-x, interrupted): some selected checks never ran
    confined: bool  # True when every worker ran under the whole sandbox (README: "How grading stays honest")
    confinement: str  # what confined the workers, in words, and what was missing
    exercises: list[ExerciseResult] = field(default_factory=list)
    integrity: list[str] = field(default_factory=list)  # every exercise's integrity lines, each "<slug>: <line>"

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

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
    named = feedback.mistake if show == "mistake" else None
    if said_above:
        pointer = SAME_CAUSE.format(named=f" ({named})" if named else "")
        return f"{Feedback(HIDDEN_OUTCOME, call=called_function(feedback.call)).text()}\n  {pointer}"
    # Built from the failure's parts, not cut from its text: the summary and `got` hold the hidden values.
    told = Feedback(HIDDEN_OUTCOME, call=called_function(feedback.call), mistake=named,
                    meaning=feedback.meaning if named else "", hint=feedback.hint if named else "",
                    section=feedback.section if named else "")
    return told.text()


def stored_shown(check: dict[str, Any], show: str) -> str:
    """What students see of a stored check (the result model's JSON): its `shown`; for a record stored before `shown`
    existed, the message of a public check, and of a hidden one only the outcome and, per `show`, the mistake's name
    (the other parts of its failure were not stored apart from its text)."""
    if "shown" in check:
        return check["shown"] or ""
    message = check.get("message", "") or ""
    if not message or not check.get("hidden") or show == "full":
        return message
    return Feedback(HIDDEN_OUTCOME, mistake=check.get("mistake") if show == "mistake" else None).text()


def tally(exercise: ExerciseResult) -> ExerciseResult:
    """Fill an exercise's totals from its checks."""
    exercise.score = sum(c.score for c in exercise.checks)
    exercise.max_score = sum(c.points for c in exercise.checks)
    failed = [c for c in exercise.checks if not c.passed]
    exercise.not_implemented = bool(failed) and all(c.not_implemented for c in failed)
    return exercise
