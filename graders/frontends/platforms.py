"""One graded submission in the formats of the platforms that take grades: Gradescope and GitHub Classroom.

Gradescope reads `results.json`: a score and `tests`, each with name, score, max_score,
output and visibility. GitHub Classroom's autograding reporter reads one runner result per
grader step: version, status, max_score and `tests`, each with name, status, score and
message. Both show a hidden check as course_config.HIDDEN_CHECKS_SHOW says (its `shown`
text); on Gradescope it also waits until grades are published.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from graders.frontends.grade.intake.hand_ins import for_students

if TYPE_CHECKING:
    from graders.frontends.grade.term.standing import Standing

PUBLIC_VISIBILITY = "visible"
HIDDEN_VISIBILITY = "after_published"


def gradescope_results(record: dict[str, Any], standing: Standing | None = None) -> dict[str, Any]:
    """Gradescope's results.json for one student's result model; with the student's standing in the term,
    the score is the final one (overrides, late penalty) and the output says what the term changed."""
    tests = []
    for index, exercise in enumerate(record.get("exercises", []), start=1):
        for number, check in enumerate(exercise.get("checks", []), start=1):
            tests.append({
                "name": f"{exercise['slug']}: {check['id']}" + (" [hidden]" if check.get("hidden") else ""),
                "number": f"{index}.{number}",
                "score": check["score"],
                "max_score": check["points"],
                "status": "passed" if check["passed"] else "failed",
                "output": _shown(check),
                "visibility": HIDDEN_VISIBILITY if check.get("hidden") else PUBLIC_VISIBILITY,
            })
    output = _summary(record, standing)
    score = standing.final if standing is not None else record.get("score", 0.0)
    return {"score": score, "output": output, "visibility": PUBLIC_VISIBILITY,
            "stdout_visibility": "hidden", "tests": tests}


def classroom_runners(record: dict[str, Any], standing: Standing | None = None) -> dict[str, dict[str, Any]]:
    """GitHub Classroom's runner results, one per exercise, keyed by a runner id the reporter accepts; what the
    term changed (a late penalty, an override) is one more runner, "term", whose message says it (the
    reporter sums runners' scores and has no negative points, so a penalty is told, not subtracted)."""
    runners = {}
    for exercise in record.get("exercises", []):
        tests = [{"name": check["id"] + (" [hidden]" if check.get("hidden") else ""),
                  "status": "pass" if check["passed"] else "fail", "score": check["score"],
                  "max_score": check["points"], "message": _shown(check) or None, "line_no": None,
                  "execution_time": None} for check in exercise.get("checks", [])]
        status = "pass" if all(t["status"] == "pass" for t in tests) else "fail"
        runners[runner_id(exercise["slug"])] = {"version": 1, "status": status, "max_score": exercise["max_score"],
                                                "tests": tests}
    if standing is not None and standing.notes:
        runners["term"] = {"version": 1, "status": "pass", "max_score": 0, "tests": [{
            "name": f"final score {standing.final:g} / {standing.max_score:g}", "status": "pass", "score": 0,
            "max_score": 0, "message": "\n".join(standing.notes), "line_no": None, "execution_time": None}]}
    if record.get("error"):
        runners["grading"] = {"version": 1, "status": "error", "max_score": 0,
                              "tests": [{"name": "grading", "status": "error", "score": 0, "message": record["error"]}]}
    return runners


def runner_id(slug: str) -> str:
    """The reporter takes runner ids of letters and digits only (it reads <ID>_RESULTS variables)."""
    return re.sub(r"[^A-Za-z0-9]", "", slug)


def _shown(check: dict[str, Any]) -> str:
    # A record stored before `shown` existed gets what the course's setting shows of it now, not its whole message.
    # Imported here: the handout runs this module as `python -m nbchecks.frontends.classroom`, where the course's
    # configuration (which the engine imports) is importable only once its checks are loaded (their conftest puts
    # it on the path).
    import course_config
    from graders.engine.results import stored_shown

    return stored_shown(check, str(course_config.HIDDEN_CHECKS_SHOW.value))


def _summary(record: dict[str, Any], standing: Standing | None = None) -> str:
    lines = [f"{record.get('score', 0.0):g} / {record.get('max_score', 0.0):g} points"]
    if standing is not None and standing.excused:
        lines[0] = f"excused: no grade counts (the checks gave {standing.raw:g} / {standing.max_score:g})"
    elif standing is not None and standing.notes:
        lines[0] = f"{standing.final:g} / {standing.max_score:g} points (the checks gave {standing.raw:g})"
        lines += standing.notes
    if record.get("error"):
        lines.append(f"Not graded: {record['error']}")
    lines += [f"Note: {for_students(problem)}" for problem in record.get("problems", [])]
    return "\n".join(lines)
