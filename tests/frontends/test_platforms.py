"""One graded submission in the formats of Gradescope and GitHub Classroom (graders/frontends/platforms.py): every
check with its points, a hidden check's `shown` text only and Gradescope's wait for publishing, what the term
changed told (never subtracted on Classroom), and why a hand-in was not graded."""

from __future__ import annotations

from graders.engine.results import SubmissionResult
from graders.frontends.grade.term.standing import Standing
from graders.frontends.platforms import (HIDDEN_VISIBILITY, PUBLIC_VISIBILITY, classroom_runners, gradescope_results,
                                         runner_id)


def _result() -> SubmissionResult:
    checks = [{"id": "as_grid_is_a_view", "points": 2.0, "score": 2.0, "passed": True, "hidden": False,
               "message": "", "shown": ""},
              {"id": "shares_memory", "points": 3.0, "score": 0.0, "passed": False, "hidden": True,
               "message": "as_grid(x) with x = tensor([1., 2.]) copied", "shown": "a hidden check failed: copies"}]
    return SubmissionResult.from_dict({
        "submission": "exercises", "lesson": 1, "score": 2.0, "max_score": 5.0, "trusted": True, "complete": True,
        "confined": True, "confinement": "", "integrity": [],
        "exercises": [{"slug": "views", "score": 2.0, "max_score": 5.0, "checks": checks},
                      {"slug": "sin_exp_derivative", "score": 0.0, "max_score": 0.0, "checks": []}]})


def _late(raw: float, final: float) -> Standing:
    return Standing(student="ann", person=None, handed_in=True, raw=raw, max_score=5.0, final=final, late_days=1,
                    penalty=0.1, notes=["1 started day late, 10% of the score taken"])


def test_gradescope_gets_every_check_and_a_hidden_one_shows_only_its_shown_text_after_publishing() -> None:
    results = gradescope_results(_result())
    assert results["score"] == 2.0 and results["output"] == "2 / 5 points"
    assert [(t["name"], t["number"], t["score"], t["max_score"], t["visibility"]) for t in results["tests"]] == [
        ("views: as_grid_is_a_view", "1.1", 2.0, 2.0, PUBLIC_VISIBILITY),
        ("views: shares_memory [hidden]", "1.2", 0.0, 3.0, HIDDEN_VISIBILITY)]
    assert results["tests"][1]["output"] == "a hidden check failed: copies", "never the check's whole message"
    assert "tensor" not in str(results)


def test_gradescope_scores_the_final_and_says_the_terms_notes_the_error_and_the_hand_ins_problems() -> None:
    results = gradescope_results(_result(), _late(2.0, 1.8), error="the notebook is not JSON",
                                 problems=["two notebooks. To grade another one, remove the others and grade again"])
    assert results["score"] == 1.8
    assert results["output"].splitlines() == ["1.8 / 5 points (the checks gave 2)",
                                              "1 started day late, 10% of the score taken",
                                              "Not graded: the notebook is not JSON",
                                              "Note: two notebooks."], "the instructor's part of a problem is cut"
    excused = Standing(student="ann", person=None, handed_in=True, raw=2.0, max_score=5.0, excused=True)
    assert gradescope_results(_result(), excused)["output"] == "excused: no grade counts (the checks gave 2 / 5)"


def test_classroom_gets_a_runner_per_exercise_and_the_term_told_in_a_runner_of_no_points() -> None:
    runners = classroom_runners(_result(), _late(2.0, 1.8), error="a worker stopped")
    assert list(runners) == ["views", "sinexpderivative", "term", "grading"], "runner ids: letters and digits"
    views = runners["views"]
    assert (views["status"], views["max_score"]) == ("fail", 5.0)
    assert [(t["name"], t["status"], t["score"], t["message"]) for t in views["tests"]] == [
        ("as_grid_is_a_view", "pass", 2.0, None), ("shares_memory [hidden]", "fail", 0.0,
                                                   "a hidden check failed: copies")]
    assert runners["sinexpderivative"]["status"] == "pass", "no check failed"
    (term,) = runners["term"]["tests"]
    assert (term["name"], term["score"], runners["term"]["max_score"]) == ("final score 1.8 / 5", 0, 0)
    assert runners["grading"]["status"] == "error" and runners["grading"]["tests"][0]["message"] == "a worker stopped"
    assert list(classroom_runners(_result())) == ["views", "sinexpderivative"], "no term, no error: no such runner"


def test_a_runner_id_keeps_letters_and_digits_only() -> None:
    assert runner_id("sin_exp-derivative 2") == "sinexpderivative2"
