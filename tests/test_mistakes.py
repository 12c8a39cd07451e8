"""Every catalogued mistake, submitted as a student would write it (its change applied to today's
reference, tests/mistake_catalogue.py), is diagnosed as itself and costs exactly the checks it should:
in a student's usual run, which reads the reference's expected values kept by the run before (each
exercise's first mistake computes them), and from the values recorded for a student bundle."""

from __future__ import annotations

import functools
import importlib

import pytest

from conftest import STUBS, MistakeSubmission, mistake_submissions

SUBMISSIONS = mistake_submissions()


@functools.cache
def concept(slug: str, name: str) -> str:
    """The concept (course_config.CONCEPTS) the catalogue of `slug` gives its mistake `name`: the JSON result must
    carry it beside the name, however the check named the mistake (tests/test_concepts.py checks the vocabulary)."""
    from graders.engine.collect import collect_mistakes
    from graders.engine.mistakes import concept_of

    return concept_of(name, collect_mistakes(importlib.import_module(f"graders.lesson01.{slug}.mistakes")))


@pytest.mark.parametrize("submission", SUBMISSIONS, ids=[f"{s.slug}/{s.name}" for s in SUBMISSIONS])
def test_each_mistake_is_diagnosed_by_name_and_costs_only_its_checks(grade, keeping,
                                                                     submission: MistakeSubmission) -> None:
    graded = grade({submission.slug: submission.text()}, "-k", submission.slug)
    checks = graded.checks(submission.slug)
    failed = graded.failed(submission.slug)
    assert failed == submission.fails, (f"{submission.change}: failed {sorted(failed)}, its header says "
                                        f"{sorted(submission.fails)}\n{graded.output}")
    for check_id in submission.named:
        assert checks[check_id]["mistake"] == submission.mistake, (
            f"{submission.change}: {check_id} named {checks[check_id]['mistake']!r}, its header says "
            f"{submission.mistake!r}\n{checks[check_id]['message']}")
        assert submission.mistake in checks[check_id]["message"]
        assert checks[check_id]["concept"] == concept(submission.slug, submission.mistake), checks[check_id]


def test_every_catalogued_mistake_has_a_submission() -> None:
    import importlib

    import course_config

    covered = {(s.slug, s.mistake) for s in SUBMISSIONS}
    for exercise in course_config.LESSON_01.exercises:
        from graders.kit import collect_mistakes

        for mistake in collect_mistakes(importlib.import_module(f"graders.lesson01.{exercise.slug}.mistakes")):
            assert (exercise.slug, mistake.name) in covered, f"no change in tests/lesson01/{exercise.slug}/mistakes shows {mistake.name!r}"


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory):
    """Expected values recorded from the reference, as the student bundles get them."""
    import subprocess
    import sys

    from conftest import ROOT

    import course_config

    path = tmp_path_factory.mktemp("recording") / "expected.json"
    stubs = [str(STUBS / "lesson01" / f"{e.slug}.py") for e in course_config.LESSON_01.exercises]
    done = subprocess.run([sys.executable, "-m", "pytest", *stubs, "--submission", str(ROOT / "reference"),
                           "--record-expected", str(path), "-q", "-p", "no:cacheprovider", "-k", "not hidden"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and path.exists(), done.stdout[-3000:]
    return path


@pytest.mark.parametrize("submission", SUBMISSIONS, ids=[f"{s.slug}/{s.name}" for s in SUBMISSIONS])
def test_each_mistake_is_still_named_from_recorded_expected_values(grade, recording, submission) -> None:
    """Student bundles have no reference: public checks must diagnose from the recording alone."""
    import course_config

    public = {c.id for c in course_config.LESSON_01.exercise(submission.slug).checks if not c.hidden}
    graded = grade({submission.slug: submission.text()}, "--replay-expected", str(recording), "-k", "not hidden")
    checks = graded.checks(submission.slug)
    replayed = submission.replayed_fails if submission.replayed_fails is not None else submission.fails & public
    failed = graded.failed(submission.slug)
    assert failed == replayed, f"{submission.change}: failed {sorted(failed)}, expected {sorted(replayed)}\n{graded.output}"
    for check_id in submission.named & replayed:
        assert checks[check_id]["mistake"] == submission.mistake, (
            f"{submission.change}: {check_id} named {checks[check_id]['mistake']!r}, its header says "
            f"{submission.mistake!r}\n{checks[check_id]['message']}")
        assert checks[check_id]["concept"] == concept(submission.slug, submission.mistake), checks[check_id]
