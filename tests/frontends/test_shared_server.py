"""The one grading process of an `nbgrader autograde` run (graders/frontends/nbgrader/shared_server.py),
driven as nbgrader and its kernels drive it: real processes, the real plugin, the real checks. The
end-to-end runs through nbgrader (test_nbgrader.py, test_nbgrader_attacks.py) grade through it too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

import course_config
from conftest import mistake_submissions
from graders.frontends.nbgrader import shared_server
from graders.frontends.nbgrader.grading_server import SERVER_ENV, GradingServer
from graders.engine.results import ExerciseResult, SubmissionResult

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
SLUG = "neuron_chain_rule"
PACKAGE = Path(shared_server.__file__).resolve().parent  # the runtime's folder: what a kernel's bundle is
REFERENCE = (ROOT / "reference" / LESSON.folder / f"{SLUG}.py").read_text()
SECONDS = 120.0
LESSON_SECONDS = float(course_config.LIMITS.exercise_seconds.value)  # what a notebook's cell is given


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> Iterator[shared_server.SharedServer]:
    """What BlankStudentCells does before each notebook: the process started, its address in the environment
    the kernel inherits."""
    server = shared_server.SharedServer()
    address = server.ensure()
    assert address is not None, "the shared grading process did not start"
    monkeypatch.setenv(SERVER_ENV, json.dumps(address))
    try:
        yield server
    finally:
        server.close()


def _scores(result: SubmissionResult | None) -> dict[str, float]:
    assert result is not None
    exercise, = result.exercises
    return _check_scores(exercise)


def _check_scores(exercise: ExerciseResult) -> dict[str, float]:
    return {check.id: check.score for check in exercise.checks}


def test_kernels_grade_in_the_one_process_which_grades_the_reference_once(shared, monkeypatch) -> None:
    mistake = next(m for m in mistake_submissions() if m.slug == SLUG)
    first, second = GradingServer(PACKAGE, ROOT), GradingServer(PACKAGE, ROOT)
    try:
        right, detail = first.grade(LESSON.folder, SLUG, REFERENCE, SECONDS)
        assert right is not None, detail
        assert right.exercises[0].score == LESSON.exercise(SLUG).points
        values, = Path(str(shared.values)).glob("*.json")  # the reference's expected values, for the run
        graded_at = values.stat().st_mtime_ns
        first.close()  # the first notebook's kernel goes; the process stays for the next
        wrong, detail = second.grade(LESSON.folder, SLUG, mistake.text(), SECONDS)
        assert values.stat().st_mtime_ns == graded_at  # the reference was not graded again
        assert first.process is None and second.process is None  # neither kernel started a process of its own
        assert shared.process is not None and shared.process.poll() is None
    finally:
        first.close()
        second.close()
    # The same verdicts, check by check, as a kernel's own process that computes every expected value itself.
    monkeypatch.delenv(SERVER_ENV)
    alone = GradingServer(PACKAGE, ROOT)
    try:
        live, detail = alone.grade(LESSON.folder, SLUG, mistake.text(), SECONDS)
        assert alone.process is not None
    finally:
        alone.close()
    assert _scores(wrong) == _scores(live), detail
    assert {c for c, score in _scores(wrong).items() if score == 0} == mistake.fails


def test_an_exercise_out_of_time_ends_the_shared_process_and_grading_goes_on_elsewhere(shared) -> None:
    looping = REFERENCE + "\nwhile True:\n    pass\n"
    kernel = GradingServer(PACKAGE, ROOT)
    try:
        kernel.grade(LESSON.folder, SLUG, REFERENCE, SECONDS)  # the reference's values are in the shared folder now
        killed = shared.process
        assert killed is not None
        result, detail = kernel.grade(LESSON.folder, SLUG, looping, 5.0)
        assert result is None and detail == "timeout"
        assert killed.wait(timeout=30) != 0  # killed with its zygote and workers, not left running the loop
        # This kernel's next exercise is graded by a process of its own...
        right, detail = kernel.grade(LESSON.folder, SLUG, REFERENCE, SECONDS)
        assert right is not None and right.exercises[0].score == LESSON.exercise(SLUG).points, detail
        assert kernel.process is not None
    finally:
        kernel.close()
    # ...and nbgrader's next notebook gets a new shared one.
    address = shared.ensure()
    assert address is not None and address["pid"] != killed.pid


def test_a_notebook_graded_in_one_session_gets_what_each_exercise_gets_alone(shared) -> None:
    # What the first test cell of an autograded notebook asks (runtime.Checks._graded_together), against what each
    # cell would get grading its exercise alone: the same verdicts, check by check.
    mistakes = {m.slug: m for m in mistake_submissions() if m.slug in ("views", "grad_accumulation")}
    assert len(mistakes) == 2
    sources = {SLUG: REFERENCE, **{slug: mistake.text() for slug, mistake in mistakes.items()}}
    kernel = GradingServer(PACKAGE, ROOT)
    try:
        together = kernel.grade_together(LESSON.folder, sources, LESSON_SECONDS)
        assert set(together) == set(sources)
        for slug, source in sources.items():
            alone, detail = kernel.grade(LESSON.folder, slug, source, SECONDS)
            assert _check_scores(together[slug]) == _scores(alone), (slug, detail)
        assert kernel.process is None
    finally:
        kernel.close()
    for slug, mistake in mistakes.items():
        assert {c for c, score in _check_scores(together[slug]).items() if score == 0} == mistake.fails


def test_a_notebook_too_slow_for_one_session_is_left_to_its_cells(shared) -> None:
    looping = REFERENCE + "\nwhile True:\n    pass\n"
    kernel = GradingServer(PACKAGE, ROOT)
    try:
        assert kernel.grade_together(LESSON.folder, {SLUG: REFERENCE}, LESSON_SECONDS)  # the values are kept now
        killed = shared.process
        assert killed is not None
        assert kernel.grade_together(LESSON.folder, {SLUG: looping}, 6.0) == {}  # a third of 6 s: 2 s
        assert killed.wait(timeout=30) != 0
        assert kernel.grade_together(LESSON.folder, {SLUG: REFERENCE}, LESSON_SECONDS) == {}  # the cells grade now
    finally:
        kernel.close()


def test_a_changed_course_gets_a_new_process_and_new_values(shared, monkeypatch) -> None:
    # A formgrader's process lives on between autograde runs, and an instructor may mend a check in between.
    first = shared.address()
    assert shared.ensure() == first  # the same course: the same process and values
    monkeypatch.setattr("graders.engine.course_version.course_digest", lambda: "another version of the course")
    second = shared.ensure()
    assert second is not None
    assert second["pid"] != first["pid"] and second["values"] != first["values"]
    assert not Path(str(first["values"])).exists()
