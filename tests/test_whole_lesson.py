"""Checks of our checks, for the whole lesson in one run each: the reference earns every
point, untouched stubs earn none and say "not implemented yet"."""

from __future__ import annotations

import course_config
from conftest import ROOT, STUBS


def test_the_reference_scores_full_marks_on_every_exercise(grade) -> None:
    graded = grade(ROOT / "reference")
    assert graded.exit_code == 0, graded.output
    assert graded.result["score"] == graded.result["max_score"] == course_config.LESSON_01.points
    assert {e["slug"] for e in graded.result["exercises"]} == {e.slug for e in course_config.LESSON_01.exercises}


def test_untouched_stubs_score_zero_on_every_exercise(grade) -> None:
    graded = grade(STUBS)
    assert graded.exit_code == 1
    assert graded.result["score"] == 0
    for exercise in graded.result["exercises"]:
        assert exercise["not_implemented"], exercise["slug"]
        for check in exercise["checks"]:
            assert "not implemented yet" in check["message"], (exercise["slug"], check["id"])
