"""One graded submission in the formats of the platforms that take grades: Gradescope and GitHub Classroom.

Gradescope reads `results.json`: a score and `tests`, each with name, score, max_score,
output and visibility. GitHub Classroom's autograding reporter reads one runner result per
grader step: version, status, max_score and `tests`, each with name, status, score and
message. Both show a hidden check as course_config.HIDDEN_CHECKS_SHOW says (its `shown`
text); on Gradescope it also waits until grades are published.
"""

from __future__ import annotations

import re
from typing import Any

PUBLIC_VISIBILITY = "visible"
HIDDEN_VISIBILITY = "after_published"


def gradescope_results(record: dict[str, Any]) -> dict[str, Any]:
    """Gradescope's results.json for one student's result model."""
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
    output = _summary(record)
    return {"score": record.get("score", 0.0), "output": output, "visibility": PUBLIC_VISIBILITY,
            "stdout_visibility": "hidden", "tests": tests}


def classroom_runners(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """GitHub Classroom's runner results, one per exercise, keyed by a runner id the reporter accepts."""
    runners = {}
    for exercise in record.get("exercises", []):
        tests = [{"name": check["id"] + (" [hidden]" if check.get("hidden") else ""),
                  "status": "pass" if check["passed"] else "fail", "score": check["score"],
                  "max_score": check["points"], "message": _shown(check) or None, "line_no": None,
                  "execution_time": None} for check in exercise.get("checks", [])]
        status = "pass" if all(t["status"] == "pass" for t in tests) else "fail"
        runners[runner_id(exercise["slug"])] = {"version": 1, "status": status, "max_score": exercise["max_score"],
                                                "tests": tests}
    if record.get("error"):
        runners["grading"] = {"version": 1, "status": "error", "max_score": 0,
                              "tests": [{"name": "grading", "status": "error", "score": 0, "message": record["error"]}]}
    return runners


def runner_id(slug: str) -> str:
    """The reporter takes runner ids of letters and digits only (it reads <ID>_RESULTS variables)."""
    return re.sub(r"[^A-Za-z0-9]", "", slug)


def _shown(check: dict[str, Any]) -> str:
    return check.get("shown", check.get("message", "")) or ""


def _summary(record: dict[str, Any]) -> str:
    lines = [f"{record.get('score', 0.0):g} / {record.get('max_score', 0.0):g} points"]
    if record.get("error"):
        lines.append(f"Not graded: {record['error']}")
    lines += [f"Note: {problem}" for problem in record.get("problems", [])]
    return "\n".join(lines)
