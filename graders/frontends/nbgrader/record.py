"""Run the real grader at build time: record the public checks' expected values from the
reference, and prove that the student bundle, replaying them, passes the reference too.

Both runs are fresh processes, as a student's would be: the recording by the installed
plugin (`--record-expected`, hidden checks deselected), the proof by the bundle's own
grading server, exactly as a test cell starts it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import course_config
from graders.engine.results import SubmissionResult
from graders.frontends.nbgrader.answer_cell import solution_module
from graders.frontends.nbgrader.grading_server import GradingServer

RECORD_SECONDS = 600


class RecordError(RuntimeError):
    """The reference does not pass its own public checks, so nothing can be recorded."""


def record_expected(lesson: course_config.Lesson, exercises: list[course_config.Exercise]) -> dict[str, str]:
    """The expected values every public check computes from the reference, as stored data."""
    scratch = Path(tempfile.mkdtemp(prefix="graders-record-"))
    try:
        submission = _reference_submission(scratch, lesson, exercises)
        recording, result = scratch / "expected.json", scratch / "result.json"
        targets = [str(course_config.ROOT / "exercises" / lesson.folder / f"{e.slug}.py") for e in exercises]
        command = [sys.executable, "-m", "pytest", *targets, "--submission", str(submission),
                   "--record-expected", str(recording), "--json", str(result), "-m", "not hidden",
                   "-p", "no:cacheprovider", "-q", "--plots", str(scratch / "plots")]
        run = subprocess.run(command, cwd=scratch, capture_output=True, text=True, timeout=RECORD_SECONDS)
        if not result.is_file() or not recording.is_file():
            raise RecordError(f"recording the expected values failed:\n{run.stdout[-3000:]}{run.stderr[-2000:]}")
        _require_full_marks(SubmissionResult.read(result), exercises, "the reference, graded by the installed checks")
        return json.loads(recording.read_text())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def prove_bundle(bundle: Path, lesson: course_config.Lesson, exercises: list[course_config.Exercise],
                 withheld: dict[str, list[str]], seconds: float = RECORD_SECONDS) -> None:
    """The bundle, as students run it, gives every public point it has to the notebook's own
    answer cell (the stub with the reference's bodies): this proves both at once."""
    server = GradingServer(bundle, None)
    try:
        for exercise in exercises:
            stub, reference = (course_config.ROOT / folder / lesson.folder / f"{exercise.slug}.py"
                               for folder in ("exercises", "reference"))
            source = solution_module(stub.read_text(), reference.read_text())
            result, detail = server.grade(lesson.folder, exercise.slug, source, seconds)
            if result is None:
                raise RecordError(f"the student bundle could not grade {exercise.slug}: {detail}")
            _require_full_marks(result, [exercise], "the notebook's answer cell, graded by the student bundle",
                                skip=set(withheld.get(exercise.slug, [])))
    finally:
        server.close()


def _reference_submission(scratch: Path, lesson: course_config.Lesson, exercises: list[course_config.Exercise]) -> Path:
    folder = scratch / "reference-submission"
    (folder / lesson.folder).mkdir(parents=True)
    for exercise in exercises:
        source = course_config.ROOT / "reference" / lesson.folder / f"{exercise.slug}.py"
        shutil.copyfile(source, folder / lesson.folder / source.name)
    return folder


def _require_full_marks(result: SubmissionResult, exercises: list[course_config.Exercise], what: str,
                        skip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    problems = []
    for exercise in exercises:
        public = {c.id for c in exercise.checks if not c.hidden} - skip
        graded = result.exercise(exercise.slug)
        for check_id in sorted(public):
            check = graded.check(check_id) if graded else None
            if check is None:
                problems.append(f"{exercise.slug}.{check_id}: did not run")
            elif not check.passed:
                problems.append(f"{exercise.slug}.{check_id}: {check.message[:400]}")
    if problems:
        raise RecordError(f"{what} does not pass every public check:\n  " + "\n  ".join(problems))
