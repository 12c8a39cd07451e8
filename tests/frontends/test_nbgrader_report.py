"""What a notebook's test cell prints (graders/frontends/nbgrader/report.py): the exercise's points in the layout
of `pytest exercises/`'s summary, each check marked with its points, a hidden check's `shown` text and not its
message, a named mistake where it may be shown, and one line for an exercise not started."""

from __future__ import annotations

import pytest

from graders.engine.results import ExerciseResult
from graders.frontends.nbgrader.report import print_feedback


def _exercise(**fields: object) -> ExerciseResult:
    checks = [{"id": "as_grid_is_a_view", "points": 1.5, "score": 1.5, "passed": True, "hidden": False,
               "message": ""},
              {"id": "shares_memory", "points": 0.5, "score": 0.0, "passed": False, "hidden": True,
               "message": "as_grid(tensor([1., 2.])) copied", "shown": "a hidden check failed\ncalled: as_grid(...)",
               "mistake": "copies", "mistake_shown": True}]
    return ExerciseResult.from_dict({"slug": "views", "title": "Views", "score": 1.5, "max_score": 2.0,
                                     "not_implemented": False, "checks": checks, **fields})


def test_each_check_is_a_line_with_its_points_and_what_students_may_see(capsys: pytest.CaptureFixture[str]) -> None:
    print_feedback(_exercise(), public_only=False)
    assert capsys.readouterr().out.splitlines() == [
        "views: 1.5 / 2 points",
        "  PASS  as_grid_is_a_view: 1.5 / 1.5",
        "  FAIL  shares_memory [hidden]: 0 / 0.5   (copies)",
        "        a hidden check failed",
        "        called: as_grid(...)",
    ]


def test_the_public_run_says_the_hidden_checks_come_later_and_an_untouched_stub_is_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    print_feedback(_exercise(score=0.0, not_implemented=True), public_only=True)
    assert capsys.readouterr().out.splitlines() == [
        "views: 0 / 2 points  (public checks; the hidden ones run when your notebook is graded)",
        "  not implemented yet: write the functions in the answer cell above."]
