"""The pytest front end: `pytest exercises/` grades the student's modules.

pytest loads this module in every run of this environment, so it stays light: the
options, the markers, and at configure three steps in this order: fork the helper that
draws the run's generated inputs (graders/drawing.py), import torch and start the sandbox's
zygote (graders/sandbox/zygote.py), then import the grading session (graders/session.py). Until
the zygote is started, nothing of the grading is loaded here (not even course_config.py), so
the zygote may be forked from this process, which then holds torch and pytest's settings only.
The helper draws while torch loads.
"""

from __future__ import annotations

from pathlib import Path

import functools

import pytest

from graders import drawing, sandbox

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
POINTS_MARKER = "points(n): the check is worth n points; set by @check from course_config.py"
HIDDEN_MARKER = ("hidden: the check uses fresh inputs (other seeds, sizes, dtypes) and is left out of the "
                 "notebooks released through nbgrader")


def pytest_addoption(parser: pytest.Parser) -> None:
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
    group.addoption("--sandbox-without", dest="graders_sandbox_without", metavar="STEPS", help=SANDBOX_WITHOUT_HELP)
    parser.addini("graders_submission", SUBMISSION_HELP)
    parser.addini("graders_json", JSON_HELP)
    parser.addini("graders_in_process", IN_PROCESS_HELP, type="bool", default=False)
    parser.addini("graders_call_seconds", CALL_SECONDS_HELP)
    parser.addini("graders_plots", PLOTS_HELP)
    parser.addini("graders_require_confinement", REQUIRE_CONFINEMENT_HELP, type="bool", default=False)
    parser.addini("graders_replay", REPLAY_HELP + " (a relative path is taken from the ini file's folder)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", POINTS_MARKER)
    config.addinivalue_line("markers", HIDDEN_MARKER)
    here = Path(config.invocation_params.dir)
    args = [str(arg) for arg in config.args]
    # Nothing of the grading is loaded yet (no course_config.py, no checks, no reference): until the
    # zygote is forked below, this process must hold nothing a worker may not see.
    grading = bool(exercise_files(args, here))
    if grading and replay_file(config) is None:
        # The helper works out which exercises to draw (none where the kept or cached values hold
        # them: a case missing there is drawn in place, and kept for the next run).
        drawing.DRAWER.start(functools.partial(_to_draw, args, here, kept_values_allowed(config),
                                               config.getoption("graders_cache"),
                                               bool(config.getoption("graders_draw_ahead"))))
    if grading and not _in_process(config):
        import torch  # noqa: F401 - the grader needs it; loaded before the zygote so that both share it

        # Forked now, from a process that holds torch and pytest's settings and nothing of the grading
        # (the zygote sheds the environment); where this process holds more (a batch's grading
        # process, a test run in process), it is exec'd instead: see graders/sandbox/zygote.py.
        sandbox.start_zygote(fork=True)
    config.stash[KEPT] = kept_values_file(config) if grading else None
    from graders import session  # the grading: course_config, the checks, the reference, when needed

    session.configure(config)


def _in_process(config: pytest.Config) -> bool:
    return bool(config.getoption("graders_in_process") or config.getini("graders_in_process"))


def _to_draw(args: list[str], here: Path, kept_allowed: bool, cache: str | None,
             draw_ahead: bool) -> list[tuple[str, str]]:
    """Run in the drawing helper: the exercises to draw, in lesson order; none when this run's values
    are kept or cached already (there the grader finds its cases)."""
    import course_config
    from graders import kept_values

    kept = kept_values.path() if kept_allowed else None
    if (cache and Path(cache).is_file()) or (kept is not None and kept.is_file()):
        return []
    wanted = exercises_reached(args, here)
    if wanted and draw_ahead:
        lessons = {folder for folder, _ in wanted}
        wanted = [(lesson.folder, exercise.slug) for lesson in course_config.LESSONS if lesson.folder in lessons
                  for exercise in lesson.exercises]
    return wanted


def pytest_unconfigure(config: pytest.Config) -> None:
    if not config.getoption("graders_draw_ahead"):
        drawing.DRAWER.close()


def kept_values_allowed(config: pytest.Config) -> bool:
    """Whether this run keeps its expected values between runs: a student's own runs only, not a
    replayed, recorded or batch-cached one, nor one in process."""
    return not (config.getoption("graders_no_kept") or config.getoption("graders_record")
                or config.getoption("graders_cache") or replay_file(config) is not None or _in_process(config))


def kept_values_file(config: pytest.Config) -> Path | None:
    """Where this run keeps its expected values between runs (graders/kept_values.py), or None."""
    from graders import kept_values  # reads the course (course_config.py, the reference): after the fork

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


def exercise_files(args: list[str], here: Path) -> list[Path]:
    """The files `exercises/<lesson>/<name>.py` that pytest's arguments reach, found without course_config.py
    (which this process may not load before its zygote is forked): whether the run grades at all."""
    found = []
    for arg in args:
        path = (here / arg.split("::")[0]).resolve()
        if path.suffix == ".py":
            found += [path] if path.parent.parent.name == "exercises" and path.is_file() else []
        elif path.is_dir():
            patterns = ("*.py" if path.parent.name == "exercises" else "*/*.py" if path.name == "exercises"
                        else "exercises/*/*.py")
            found += [p for p in path.glob(patterns) if p.parent.parent.name == "exercises" and p.stem.isidentifier()
                      and not p.name.startswith("_")]
    return found


def exercises_reached(args: list[str], here: Path) -> list[tuple[str, str]]:
    """(lesson folder, slug) of each exercise file that pytest's arguments reach, in lesson order.

    A guess made before collection, for the helper only: an exercise it misses has its inputs
    drawn in place; one it adds (e.g. deselected by -k) costs the helper's time, and the grader's
    too if it comes earlier in the lesson than what the run grades (the helper draws in order).
    """
    import course_config

    paths = [(here / arg.split("::")[0]).resolve() for arg in args]
    return [(lesson.folder, exercise.slug) for lesson in course_config.LESSONS for exercise in lesson.exercises
            if any(_reaches(path, lesson.folder, exercise.slug) for path in paths)]


def _reaches(path: Path, folder: str, slug: str) -> bool:
    if path.suffix == ".py":
        candidates = [path] if path.stem == slug else []
    else:  # a folder above exercises/, exercises/ itself, or the lesson's folder
        candidates = [path / "exercises" / folder / f"{slug}.py", path / folder / f"{slug}.py", path / f"{slug}.py"]
    return any(c.parent.name == folder and c.parent.parent.name == "exercises" and c.is_file() for c in candidates)
