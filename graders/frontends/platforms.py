"""One graded submission in the formats of the platforms that take grades: Gradescope and GitHub Classroom.

Gradescope reads `results.json`: a score and `tests`, each with name, score, max_score,
output and visibility. GitHub Classroom's autograding reporter reads one runner result per
grader step: version, status, max_score and `tests`, each with name, status, score and
message. Both show a hidden check as course_config.HIDDEN_CHECKS_SHOW says (its `shown`
text); on Gradescope it also waits until grades are published.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graders.frontends.grade.intake.hand_ins import for_students

if TYPE_CHECKING:
    from graders.engine.results import SubmissionResult
    from graders.frontends.grade.term.standing import Standing

PUBLIC_VISIBILITY = "visible"
HIDDEN_VISIBILITY = "after_published"


def gradescope_results(result: SubmissionResult, standing: Standing | None = None, *, error: str = "",
                       problems: Sequence[str] = ()) -> dict[str, Any]:
    """Gradescope's results.json for one student's result model; with the student's standing in the term,
    the score is the final one (overrides, late penalty) and the output says what the term changed. `error`
    says why the work could not be graded, `problems` what was wrong with the hand-in (a batch's record)."""
    tests = []
    for index, exercise in enumerate(result.exercises, start=1):
        for number, check in enumerate(exercise.checks, start=1):
            tests.append({
                "name": f"{exercise.slug}: {check.id}" + (" [hidden]" if check.hidden else ""),
                "number": f"{index}.{number}",
                "score": check.score,
                "max_score": check.points,
                "status": "passed" if check.passed else "failed",
                "output": check.shown,
                "visibility": HIDDEN_VISIBILITY if check.hidden else PUBLIC_VISIBILITY,
            })
    output = _summary(result, standing, error, problems)
    score = standing.final if standing is not None else result.score
    return {"score": score, "output": output, "visibility": PUBLIC_VISIBILITY,
            "stdout_visibility": "hidden", "tests": tests}


def classroom_runners(result: SubmissionResult, standing: Standing | None = None, *,
                      error: str = "") -> dict[str, dict[str, Any]]:
    """GitHub Classroom's runner results, one per exercise, keyed by a runner id the reporter accepts; what the
    term changed (a late penalty, an override) is one more runner, "term", whose message says it (the
    reporter sums runners' scores and has no negative points, so a penalty is told, not subtracted). `error`
    says why the work could not be graded (a batch's record)."""
    runners = {}
    for exercise in result.exercises:
        tests = [{"name": check.id + (" [hidden]" if check.hidden else ""),
                  "status": "pass" if check.passed else "fail", "score": check.score,
                  "max_score": check.points, "message": check.shown or None, "line_no": None,
                  "execution_time": None} for check in exercise.checks]
        status = "pass" if all(t["status"] == "pass" for t in tests) else "fail"
        runners[runner_id(exercise.slug)] = {"version": 1, "status": status, "max_score": exercise.max_score,
                                             "tests": tests}
    if standing is not None and standing.notes:
        runners["term"] = {"version": 1, "status": "pass", "max_score": 0, "tests": [{
            "name": f"final score {standing.final:g} / {standing.max_score:g}", "status": "pass", "score": 0,
            "max_score": 0, "message": "\n".join(standing.notes), "line_no": None, "execution_time": None}]}
    if error:
        runners["grading"] = {"version": 1, "status": "error", "max_score": 0,
                              "tests": [{"name": "grading", "status": "error", "score": 0, "message": error}]}
    return runners


def runner_id(slug: str) -> str:
    """The reporter takes runner ids of letters and digits only (it reads <ID>_RESULTS variables)."""
    return re.sub(r"[^A-Za-z0-9]", "", slug)


def _summary(result: SubmissionResult, standing: Standing | None, error: str, problems: Sequence[str]) -> str:
    lines = [f"{result.score:g} / {result.max_score:g} points"]
    if standing is not None and standing.excused:
        lines[0] = f"excused: no grade counts (the checks gave {standing.raw:g} / {standing.max_score:g})"
    elif standing is not None and standing.notes:
        lines[0] = f"{standing.final:g} / {standing.max_score:g} points (the checks gave {standing.raw:g})"
        lines += standing.notes
    if error:
        lines.append(f"Not graded: {error}")
    lines += [f"Note: {for_students(problem)}" for problem in problems]
    return "\n".join(lines)
