"""Every option of a grading run, declared and read in one place: the pytest front end declares
them (pytest_addoption), the engine's session reads them, and neither imports the other.

Light on purpose: the plugin imports this module in every pytest run of the environment, before torch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

KEPT = pytest.StashKey["Path | None"]()  # this run's kept values (kept_values_file)

SUBMISSION_HELP = ("grade the modules under this folder (laid out like exercises/, e.g. "
                   "DIR/lesson01/<slug>.py) instead of exercises/")
JSON_HELP = "write the results (submission, exercises, checks) as JSON to this file"
IN_PROCESS_HELP = ("run the submission inside pytest so that breakpoint() works: for debugging "
                   "only, with no time or memory limit and no protection of the grade")
RECORD_HELP = "record every expected value the checks compute from the reference into this file"
REPLAY_HELP = "take expected values from this recorded file instead of the reference (student bundles)"
CACHE_HELP = ("grade live, but take the expected values already stored in this file (and store all of them "
              "there if it does not exist yet): the batch grader computes the reference's values once per batch")
NO_KEPT_HELP = ("compute every expected value and draw every generated input afresh, keeping nothing between runs "
                "(by default a run keeps them in the user's cache folder, one file per version of the course; "
                "GRADERS_CACHE_DIR names another folder, or off)")
DRAW_AHEAD_HELP = ("draw the generated inputs of every exercise of the lesson at the first session and keep "
                   "them for the later sessions of this process (for a process that runs pytest.main once per "
                   "exercise, such as the notebooks' grading server)")
PLOTS_HELP = "folder where a failing check writes its plots (default: plots/ in the current folder)"
CALL_SECONDS_HELP = ("seconds one call of a student function, or the import of their module, may take "
                     "(default: course_config.LIMITS)")
REQUIRE_CONFINEMENT_HELP = ("run no student code unless every step of the sandbox holds on this machine (the "
                            "instructor's grading paths set it); a check whose worker is not confined scores 0")
SANDBOX_WITHOUT_HELP = ("leave these steps of the sandbox out, comma-separated, to see what the rest holds "
                        "(namespace, landlock, seccomp, user, cgroups): for testing the fallbacks, never for grading")
EXERCISE_SECONDS_HELP = ("wall-clock seconds the code of one exercise may take in all, imports and calls "
                         "(default: course_config.LIMITS.exercise_seconds)")
SUBMISSION_SECONDS_HELP = ("wall-clock seconds the submission's code may take in all, every exercise together "
                           "(default: course_config.LIMITS.submission_seconds)")
ANSWER_CELLS_HELP = ("the submission's files are a notebook's answer cells (the nbgrader grading server): messages "
                     "name the answer cell and its lines, and the plots shown below the feedback, never a file")
POINTS_MARKER = "points(n): the check is worth n points; set by @check from course_config.py"
HIDDEN_MARKER = ("hidden: the check uses fresh inputs (other seeds, sizes, dtypes) and is left out of the "
                 "notebooks released through nbgrader")


def add_options(parser: pytest.Parser) -> None:
    """Declare the options and ini settings (the plugin's pytest_addoption)."""
    group = parser.getgroup("graders", "course autograder")
    group.addoption("--submission", dest="graders_submission", metavar="DIR", help=SUBMISSION_HELP)
    group.addoption("--json", dest="graders_json", metavar="PATH", help=JSON_HELP)
    group.addoption("--in-process", dest="graders_in_process", action="store_true", default=None,
                    help=IN_PROCESS_HELP)
    group.addoption("--call-timeout", dest="graders_call_seconds", metavar="SECONDS", help=CALL_SECONDS_HELP)
    group.addoption("--plots", dest="graders_plots", metavar="DIR", help=PLOTS_HELP)
    group.addoption("--record-expected", dest="graders_record", metavar="PATH", help=RECORD_HELP)
    group.addoption("--replay-expected", dest="graders_replay", metavar="PATH", help=REPLAY_HELP)
    group.addoption("--expected-cache", dest="graders_cache", metavar="PATH", help=CACHE_HELP)
    group.addoption("--no-expected-cache", dest="graders_no_kept", action="store_true", default=False,
                    help=NO_KEPT_HELP)
    group.addoption("--draw-ahead", dest="graders_draw_ahead", action="store_true", help=DRAW_AHEAD_HELP)
    group.addoption("--require-confinement", dest="graders_require_confinement", action="store_true", default=None,
                    help=REQUIRE_CONFINEMENT_HELP)
    group.addoption("--exercise-seconds", dest="graders_exercise_seconds", metavar="SECONDS",
                    help=EXERCISE_SECONDS_HELP)
    group.addoption("--submission-seconds", dest="graders_submission_seconds", metavar="SECONDS",
                    help=SUBMISSION_SECONDS_HELP)
    group.addoption("--answer-cells", dest="graders_answer_cells", action="store_true", default=False,
                    help=ANSWER_CELLS_HELP)
    group.addoption("--sandbox-without", dest="graders_sandbox_without", metavar="STEPS", help=SANDBOX_WITHOUT_HELP)
    parser.addini("graders_submission", SUBMISSION_HELP)
    parser.addini("graders_json", JSON_HELP)
    parser.addini("graders_in_process", IN_PROCESS_HELP, type="bool", default=False)
    parser.addini("graders_call_seconds", CALL_SECONDS_HELP)
    parser.addini("graders_plots", PLOTS_HELP)
    parser.addini("graders_require_confinement", REQUIRE_CONFINEMENT_HELP, type="bool", default=False)
    parser.addini("graders_replay", REPLAY_HELP + " (a relative path is taken from the ini file's folder)")


def in_process(config: pytest.Config) -> bool:
    return bool(config.getoption("graders_in_process") or config.getini("graders_in_process"))


def kept_values_allowed(config: pytest.Config) -> bool:
    """Whether this run keeps its expected values between runs: a student's own runs only, not a
    replayed, recorded or batch-cached one, nor one in process."""
    return not (config.getoption("graders_no_kept") or config.getoption("graders_record")
                or config.getoption("graders_cache") or replay_file(config) is not None or in_process(config))


def kept_values_file(config: pytest.Config) -> Path | None:
    """Where this run keeps its expected values between runs (graders/engine/kept_values.py), or None."""
    from graders.engine import kept_values  # reads the course (course_config.py, the reference): after the fork

    return kept_values.path() if kept_values_allowed(config) else None


def replay_file(config: pytest.Config) -> Path | None:
    """The recorded expected values to replay: --replay-expected, else the ini's graders_replay
    (how a handout repository points at its bundle)."""
    given = config.getoption("graders_replay")
    if given:
        return Path(given)
    from_ini = config.getini("graders_replay")
    if not from_ini:
        return None
    path = Path(from_ini)
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    return path if path.is_absolute() else base / path
