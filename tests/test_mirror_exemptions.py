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

ENGINE: dict[str, str] = {
    "case_recipes": "one line of wiring: imports a lesson's cases.py and returns its RECIPES (drawn through "
                    "tests/engine/test_drawing.py and tests/engine/test_shipped_cases.py)",
    "manifests": "tested by name in tests/test_manifests.py, the house's test that graders new and docs/AUTHORING.md "
                 "run; a tests/engine/test_manifests.py would clash with it (pytest's default import mode takes "
                 "one test module per basename)",
    "mistakes": "tested in tests/engine/test_contradictions.py (contradicted_by and the matchers) and "
                "tests/test_mistakes.py (every catalogued mistake); a tests/engine/test_mistakes.py would clash with "
                "the house's tests/test_mistakes.py (one test module per basename)",
}

SANDBOX: dict[str, str] = {}

FRONTENDS: dict[str, str] = {
    # No behaviour of its own.
    "grade.person": "a frozen dataclass of a roster row's fields, no behaviour; read by test_roster.py and the "
                       "LMS modules' tests",
    "grade.lms.platform": "the Lms, RosterLayout and GradeImport records an LMS module fills in, with two "
                             "one-line defaults; used by test_lms.py's made-up LMS and every LMS's tests",
    # The batch's run: the command itself, its cluster and its grading services.
    "grade.run.main": "tested by test_batch.py (module-scoped `batch`: a class graded once for 18 tests), "
                         "test_batch_survives.py, test_instructor_edges.py and test_class_term.py",
    "grade.run.cluster": "tested by test_dask.py (a separate scheduler and workers, TLS, a worker killed) and "
                            "test_batch_listens.py (loopback only, the dashboard)",
    "grade.run.service": "tested by test_batch.py::test_a_grading_service_whose_zygote_dies_gives_no_result_and_"
                            "the_student_is_graded_again, test_template.py and test_batch_logs.py (its log blocks)",
    # nbgrader: each needs a built course or an autograde run.
    "nbgrader.build": "tested by test_nbgrader.py (module-scoped `course`: built, released, autograded) and "
                         "test_nbgrader_handins.py",
    "nbgrader.record": "tested by test_nbgrader.py (the build records the expected values and proves the "
                          "bundle) and test_handout.py (release records them)",
    "nbgrader.gradebook": "tested by test_batch.py::test_an_nbgrader_course_gets_the_gradebook_autograde_would_"
                             "give (a real nbgrader course autograded, then the batch's gradebook compared)",
    "nbgrader.grading_server": "tested by test_shared_server.py and test_nbgrader.py::test_a_grading_server_"
                                  "whose_zygote_died_is_replaced_and_the_exercise_still_graded",
    "nbgrader.server": "tested by test_shared_server.py (the one grading process of an autograde run is this "
                          "module's main)",
}

HOUSE: dict[str, str] = {
    "__main__": "three lines: `python -m graders` runs graders.frontends.cli.main, whose commands "
                "tests/frontends/ run as processes",
}
