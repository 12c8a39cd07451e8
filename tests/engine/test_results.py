"""The result model read back: what `--json` writes reads back as the same typed result, results written by the
version before the typed reader (tests/engine/old_results/) still read. Data that is not a result is refused by
the reader: tests/engine/test_result_reading.py."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

import course_config
from graders.engine.results import CheckResult, ExerciseResult, SubmissionResult
from graders.frontends.grade.store import StudentRecord, store, stored
from mistake_catalogue import submission

ROOT = course_config.ROOT
OLD = Path(__file__).resolve().parent / "old_results"
LESSON = course_config.LESSON_01


def _every_field_set() -> SubmissionResult:
    """A result whose every field differs from its default, so that a field lost on the way shows."""
    check = CheckResult("a_check", 2.0, 0.0, False, "the message", True, mistake="sum instead of mean",
                        concept="reduction", cause="import", not_implemented=True, files=["plots/a.png"],
                        shown="what students see", same_cause_as="an_earlier_check", mistake_shown=True,
                        meaning="sums where it should average", hint="use .mean()", section="Loss functions")
    exercise = ExerciseResult("views", "Views", 0.0, 2.0, True, [check], seconds=1.5, integrity=["line 3: exec"])
    return SubmissionResult("submission", 1, 0.0, 2.0, False, False, False, "nothing confined it", [exercise],
                            ["views: line 3: exec"])


def test_every_field_written_reads_back_equal(tmp_path: Path) -> None:
    written = _every_field_set()
    check = written.exercises[0].checks[0]
    defaults = {f.name: f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
                for f in dataclasses.fields(CheckResult) if dataclasses.MISSING in (f.default, f.default_factory)
                and (f.default, f.default_factory) != (dataclasses.MISSING, dataclasses.MISSING)}
    assert defaults and all(getattr(check, name) != default for name, default in defaults.items())
    written.write(tmp_path / "result.json")
    assert SubmissionResult.read(tmp_path / "result.json") == written
    assert json.loads((tmp_path / "result.json").read_text()) == dataclasses.asdict(written)


def test_a_batch_record_keeps_what_it_says_of_the_hand_in(tmp_path: Path) -> None:
    record = StudentRecord(**vars(_every_field_set()), student="ann", key="k", exercise_keys={"views": "e"},
                           origin="submissions/ann", problems=["two notebooks"], error="")
    store(tmp_path, record)
    assert stored(tmp_path, "ann") == record
    assert stored(tmp_path, "bob") is None


@pytest.mark.parametrize("submitted", ["reference", "exercises"])
def test_a_real_run_of_the_reference_and_of_the_stubs_reads_back_equal(tmp_path: Path, submitted: str) -> None:
    out = tmp_path / "result.json"
    run = subprocess.run([sys.executable, "-m", "pytest", "exercises/", "--submission", submitted, "--json", str(out),
                          "--plots", str(tmp_path / "plots"), "-q", "-p", "no:cacheprovider"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.is_file(), run.stdout[-3000:] + run.stderr[-3000:]
    result = SubmissionResult.read(out)
    assert result.to_dict() == json.loads(out.read_text())
    assert (result.score, result.max_score) == ((LESSON.points, LESSON.points) if submitted == "reference"
                                                 else (0.0, LESSON.points))


@pytest.mark.parametrize("name", ["reference", "stub", "mistake"])
def test_results_written_by_the_version_before_still_read(name: str) -> None:
    # Written by the commit before the typed reader (a run of the reference, of the stubs, and of views with the
    # catalogue's "always copying": a hidden check names it in its `shown`); each has every field documented then.
    data = json.loads((OLD / f"{name}.json").read_text())
    result = SubmissionResult.read(OLD / f"{name}.json")
    kept = {key: value for key, value in result.to_dict().items() if key != "exercises"}
    assert kept == {key: value for key, value in data.items() if key != "exercises"}
    for exercise, stored_exercise in zip(result.exercises, data["exercises"], strict=True):
        for check, stored_check in zip(exercise.checks, stored_exercise["checks"], strict=True):
            assert {k: v for k, v in dataclasses.asdict(check).items() if k in stored_check} == stored_check
            assert (check.meaning, check.hint, check.section) == ("", "", ""), "not stored then: not made up now"
    if name == "stub":
        assert result.score == 0 and all(e.not_implemented for e in result.exercises)
    if name == "mistake":
        views = result.exercise("views")
        assert views is not None
        hidden = views.check("as_grid_and_flatten_on_fresh_tensors")
        assert hidden is not None and hidden.hidden and hidden.mistake == "always copying"
        # Its `shown` named the mistake under the course's setting ("mistake"): the setting says so, no text is read.
        assert hidden.mistake_shown == (course_config.HIDDEN_CHECKS_SHOW.value == "mistake")
        passed = views.check("shares_memory_on_lesson_pairs")
        assert passed is not None and passed.passed and not passed.mistake_shown


def test_a_named_mistake_travels_as_fields_of_the_check(grade) -> None:
    text = submission("views", "always_copying")
    graded = grade({"views": text})
    views = graded.model.exercise("views")
    assert views is not None
    named = [c for c in views.checks if c.mistake == "always copying"]
    assert named and all(c.mistake_shown and c.meaning and c.hint and c.section for c in named)
    public = next(c for c in named if not c.hidden and not c.same_cause_as)
    # The parts are the ones its message shows, carried apart from it.
    assert f"  mistake:  {public.mistake}. {public.meaning.splitlines()[0]}" in public.message
    assert f"  lesson:   {public.section}" in public.message
    assert not [c for c in views.checks if c.passed and (c.mistake_shown or c.meaning or c.hint or c.section)]


