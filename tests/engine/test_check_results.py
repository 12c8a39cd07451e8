"""Every check's result of a run (graders/engine/check_results.py), as the JSON gives it: a passed check earns its
points, a failed one none with its feedback as its message, the exercise's and the submission's scores are their
sums, and a cause explained once is pointed to by the checks it fails
again. Real grading runs of the plugin."""

from __future__ import annotations

from graders.engine.sandbox_words import confinement_summary
from graders.sandbox import plan

from attacks import REFERENCE, SLUG, with_f

import course_config

EXERCISE = course_config.LESSON_01.exercise(SLUG)
ANALYTIC_BODY = "    return torch.exp(-x) * (torch.cos(x) - torch.sin(x))\n"  # called by five of its checks


def test_scores_are_earned_per_check_and_summed_per_exercise_and_submission(grade) -> None:
    graded = grade({SLUG: with_f("    return torch.zeros_like(x)\n")})
    checks = graded.checks(SLUG)
    assert checks["f_on_lesson_grid"]["score"] == 0 and checks["f_on_lesson_grid"]["passed"] is False
    assert checks["f_on_lesson_grid"]["message"].startswith("f")  # the feedback's text, naming the function
    passed = [c for c in checks.values() if c["passed"]]
    assert passed and all(c["score"] == EXERCISE.check(c["id"]).points for c in passed)
    exercise = graded.exercise(SLUG)
    assert exercise["score"] == sum(c["score"] for c in checks.values())
    assert exercise["max_score"] == EXERCISE.points == graded.result["max_score"]
    assert graded.result["score"] == exercise["score"]


def test_the_confinement_line_is_the_engines_words_for_what_held(grade) -> None:
    graded = grade({SLUG: with_f("    return torch.zeros_like(x)\n")}, "-k", "f_on_lesson_grid")
    summary = graded.result["confinement"]
    assert graded.result["confined"] is plan().confined
    assert summary.startswith(confinement_summary(plan()))  # the plan, then the walls the worker reported


def test_a_cause_explained_once_is_pointed_to_by_the_checks_it_fails_again(grade) -> None:
    assert ANALYTIC_BODY in REFERENCE
    graded = grade({SLUG: REFERENCE.replace(ANALYTIC_BODY, "    raise ValueError('broken on purpose')\n")})
    failed = [c for c in graded.checks(SLUG).values() if not c["passed"]]
    first = next(c for c in failed if not c.get("same_cause_as"))
    later = [c for c in failed if c.get("same_cause_as")]
    assert "broken on purpose" in first["message"]
    assert later and all(c["same_cause_as"] == first["id"] for c in later)
