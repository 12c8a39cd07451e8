"""Every catalogued mistake, submitted as a student would write it, is diagnosed as itself
and costs exactly the checks it should."""

from __future__ import annotations

import pytest

from conftest import MistakeSubmission, mistake_submissions

SUBMISSIONS = mistake_submissions()


@pytest.mark.parametrize("submission", SUBMISSIONS, ids=[f"{s.slug}/{s.path.stem}" for s in SUBMISSIONS])
def test_each_mistake_is_diagnosed_by_name_and_costs_only_its_checks(grade, submission: MistakeSubmission) -> None:
    graded = grade({submission.slug: submission.path}, "-k", submission.slug)
    checks = graded.checks(submission.slug)
    assert graded.failed(submission.slug) == submission.fails, graded.output
    for check_id in submission.named:
        assert checks[check_id]["mistake"] == submission.mistake, checks[check_id]["message"]
        assert submission.mistake in checks[check_id]["message"]


def test_every_catalogued_mistake_has_a_submission() -> None:
    import importlib

    import course_config

    covered = {(s.slug, s.mistake) for s in SUBMISSIONS}
    for exercise in course_config.LESSON_01.exercises:
        checks = importlib.import_module(f"graders.lesson01.{exercise.slug}")
        for mistake in checks.MISTAKES:
            assert (exercise.slug, mistake.name) in covered, f"no submission in tests/submissions shows {mistake.name!r}"
