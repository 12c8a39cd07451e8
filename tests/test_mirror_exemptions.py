"""The modules of graders/ that have no test file of their own, each with why (read by tests/test_house.py's
mirror rule: every other module `graders/<floor>/.../<name>.py` has `tests/<floor>/.../test_<name>.py`, and a
module directly in graders/ has `tests/test_<name>.py`).

One dict per floor, keyed by the module's dotted path below its floor ("grade.run.service" for
graders/frontends/grade/run/service.py); HOUSE holds the modules directly in graders/. An exemption is for a module
with no behaviour of its own (data, a re-export, a few lines of wiring) or one whose tests cannot take its name; a
module with behaviour and no test yet says so with "OWED:" and where it is tested today, so that the gap is seen. An
entry goes when its module gets its test file or goes (the rule fails on a stale one).
"""

from __future__ import annotations

COORDINATOR = "coordinator's issue-44 work in progress"

ENGINE: dict[str, str] = {
    "case_recipes": "one line of wiring: imports a lesson's cases.py and returns its RECIPES (drawn through "
                    "tests/engine/test_drawing.py and tests/engine/test_shipped_cases.py)",
    "manifests": "tested by name in tests/test_manifests.py, the house's test that graders new and docs/AUTHORING.md "
                 "run; a tests/engine/test_manifests.py would clash with it (pytest's default import mode takes "
                 "one test module per basename)",
    "mistakes": "tested in tests/engine/test_contradictions.py (contradicted_by and the matchers) and "
                "tests/test_mistakes.py (every catalogued mistake); a tests/engine/test_mistakes.py would clash with "
                "the house's tests/test_mistakes.py (one test module per basename)",
    "feedback": COORDINATOR,
    "mutation": COORDINATOR,
    "shipped_mutants": COORDINATOR,
}

SANDBOX: dict[str, str] = {}

FRONTENDS: dict[str, str] = {}

HOUSE: dict[str, str] = {
    "__main__": "three lines: `python -m graders` runs graders.frontends.cli.main, whose commands "
                "tests/frontends/ run as processes",
}
