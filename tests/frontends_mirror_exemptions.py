"""The modules of graders/frontends/ without a test file named after them, each with why (tests/frontends/
test_mirrored.py holds the rule; the coordinator folds this table into tests/test_mirror_exemptions.py).

"tested by" names where a module's behaviour is tested through a real run whose set-up is expensive and shared
by a file's tests (a module-scoped fixture: a graded class, a built nbgrader course, a Dask cluster): moving
those tests into a file of the module's name would run that set-up twice."""

from __future__ import annotations

FRONTENDS: dict[str, str] = {
    # No behaviour of its own.
    "grade/person.py": "a frozen dataclass of a roster row's fields, no behaviour; read by test_roster.py and the "
                       "LMS modules' tests",
    "grade/lms/platform.py": "the Lms, RosterLayout and GradeImport records an LMS module fills in, with two "
                             "one-line defaults; used by test_lms.py's made-up LMS and every LMS's tests",
    # The batch's run: the command itself, its cluster and its grading services.
    "grade/run/main.py": "tested by test_batch.py (module-scoped `batch`: a class graded once for 18 tests), "
                         "test_batch_survives.py, test_instructor_edges.py and test_class_term.py",
    "grade/run/cluster.py": "tested by test_dask.py (a separate scheduler and workers, TLS, a worker killed) and "
                            "test_batch_listens.py (loopback only, the dashboard)",
    "grade/run/service.py": "tested by test_batch.py::test_a_grading_service_whose_zygote_dies_gives_no_result_and_"
                            "the_student_is_graded_again, test_template.py and test_batch_logs.py (its log blocks)",
    # nbgrader: each needs a built course or an autograde run.
    "nbgrader/build.py": "tested by test_nbgrader.py (module-scoped `course`: built, released, autograded) and "
                         "test_nbgrader_handins.py",
    "nbgrader/record.py": "tested by test_nbgrader.py (the build records the expected values and proves the "
                          "bundle) and test_handout.py (release records them)",
    "nbgrader/gradebook.py": "tested by test_batch.py::test_an_nbgrader_course_gets_the_gradebook_autograde_would_"
                             "give (a real nbgrader course autograded, then the batch's gradebook compared)",
    "nbgrader/grading_server.py": "tested by test_shared_server.py and test_nbgrader.py::test_a_grading_server_"
                                  "whose_zygote_died_is_replaced_and_the_exercise_still_graded",
    "nbgrader/server.py": "tested by test_shared_server.py (the one grading process of an autograde run is this "
                          "module's main)",
}
