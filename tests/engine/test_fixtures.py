"""The fixtures a check asks for (graders/engine/fixtures.py): `plots_folder` is the run's --plots folder; `student`,
`reference` and `exercise` belong to the checks of an exercise file and refuse, saying so, a test anywhere else; in a
grading run, `reference` is the exercise's reference and `exercise` its manifest."""

from __future__ import annotations

import pytest

from conftest import ROOT

ELSEWHERE = """
def test_plots(plots_folder):
    assert plots_folder.name == "my-plots", plots_folder

def test_student(student):
    pass

def test_reference(reference):
    pass
"""


def test_a_test_outside_the_exercises_gets_the_plots_folder_and_no_student(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_elsewhere=ELSEWHERE)
    result = pytester.runpytest_inprocess("--plots", "my-plots", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(["*the student and reference fixtures are only for checks under exercises/*"])


def test_in_a_grading_run_the_checks_get_the_reference_and_the_manifest(grade) -> None:
    # The reference itself, submitted: every check compares it with the reference the fixture loaded, so each passes
    # only if `reference` is that exercise's and `exercise` holds its manifest's seeds and tolerances.
    graded = grade({"views": (ROOT / "reference" / "lesson01" / "views.py").read_text()})
    assert graded.failed("views") == set() and graded.exercise("views")["score"] == graded.exercise("views")[
        "max_score"]
