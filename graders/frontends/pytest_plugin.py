"""The pytest front end: `pytest exercises/` grades the student's modules.

pytest loads this module in every run of this environment, so it stays light: the
options, the markers, and at configure three steps in this order: fork the helper that
draws the run's generated inputs (graders/engine/drawing.py), import torch and start the
sandbox's zygote (graders/sandbox/zygote.py), which runs the graded rooms' warm-ups
meanwhile, then import the grading session (graders/engine/session.py). Until the zygote
is started, nothing of the grading is loaded here (not even course_config.py), so the
zygote may be forked from this process, which then holds torch and pytest's settings only.
The helper draws while torch loads.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from graders import sandbox
from graders.engine import drawing
from graders.engine.options import (HIDDEN_MARKER, KEPT, POINTS_MARKER, add_options, in_process, kept_values_allowed,
                                    kept_values_file, replay_file)
from graders.frontends.quick_exit import ENDS_QUICKLY, pytest_cmdline_main  # noqa: F401 - a hook, found by its name

pytest_addoption = add_options  # pytest finds its hooks by name
_PACKAGE = __name__.split(".")[0]  # graders, or nbchecks in a student bundle
_PACKAGE_FOLDER = Path(__file__).resolve().parents[1]
# Under pytest-xdist each of its workers would grade a share of the checks into a session of its own, and the run's
# own process, which prints the table and writes --json, would hold none of them: no table, and a "complete" 0 / 0.
# Grading is parallel already (the student's code runs in processes of its own), so the run refuses, before
# anything starts.
XDIST_REFUSED = ("graders: `-n` (pytest-xdist) cannot grade exercises: its workers would each hold part of your "
                 "results and none would print your points or write --json. Run `pytest exercises/` without -n "
                 "(the grader runs your code in parallel processes itself).")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", POINTS_MARKER)
    config.addinivalue_line("markers", HIDDEN_MARKER)
    here = Path(config.invocation_params.dir)
    args = [str(arg) for arg in config.args]
    # Nothing of the grading is loaded yet (no course_config.py, no checks, no reference): until the
    # zygote is forked below, this process must hold nothing a worker may not see.
    graded = exercise_files(args, here)
    grading = bool(graded)
    if grading and _under_xdist(config):
        _forget_old_json(config, here)
        raise pytest.UsageError(XDIST_REFUSED)
    cache = config.getoption("graders_cache")
    # With the batch's cached values at hand there is nothing to draw: no helper is forked (a grading service
    # would fork one for each submission, each finding the same).
    if grading and replay_file(config) is None and not (cache and Path(cache).is_file()):
        # The helper works out which exercises to draw (none where the kept or cached values hold
        # them: a case missing there is drawn in place, and kept for the next run).
        drawing.DRAWER.start(functools.partial(_to_draw, args, here, kept_values_allowed(config),
                                               cache,
                                               bool(config.getoption("graders_draw_ahead"))))
    if grading and not in_process(config):
        import torch  # noqa: F401 - the grader needs it; loaded before the zygote so that both share it

        # Forked now, from a process that holds torch and pytest's settings and nothing of the grading
        # (the zygote sheds the environment); where this process holds more (a batch's grading
        # process, a test run in process), it is exec'd instead: see graders/sandbox/zygote.py.
        sandbox.start_zygote(fork=True, warm_ups=room_warm_ups(graded))
    config.stash[KEPT] = kept_values_file(config) if grading else None
    config.stash[ENDS_QUICKLY] = grading and not in_process(config)  # student code ran in workers only
    from graders.engine import session  # the grading: course_config, the checks, the reference, when needed

    session.configure(config)


def _under_xdist(config: pytest.Config) -> bool:
    """Whether pytest-xdist spreads this run over workers (`-n N` with N > 0, `--tx`), or this is one of them."""
    return bool(config.getoption("numprocesses", None) or config.getoption("tx", None)
                or hasattr(config, "workerinput"))


def _forget_old_json(config: pytest.Config, here: Path) -> None:
    """A refused run writes no --json: an earlier run's file at that path must not pass for this one's result."""
    value = config.getoption("graders_json") or config.getini("graders_json")
    if value:
        target = Path(value).expanduser()
        target = target if target.is_absolute() else here / target
        if target.is_symlink() or target.is_file():
            target.unlink()


def _to_draw(args: list[str], here: Path, kept_allowed: bool, cache: str | None,
             draw_ahead: bool) -> list[tuple[str, str]]:
    """Run in the drawing helper: the exercises to draw, in lesson order; none when this run's values
    are kept or cached already (there the grader finds its cases)."""
    import course_config
    from graders.engine import kept_values

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


def room_warm_ups(files: list[Path]) -> tuple[str, ...]:
    """The `warm_up` of each graded exercise's room that has drivers (graders/<lesson>/<slug>/drivers.py), as the
    zygote names them. It runs them while the grader collects, so the first worker is forked without waiting
    for them; drivers that define no `warm_up` have nothing to run."""
    names = [f"{_PACKAGE}.{path.parent.name}.{path.stem}.drivers:warm_up" for path in files
             if (_PACKAGE_FOLDER / path.parent.name / path.stem / "drivers.py").is_file()]
    return tuple(dict.fromkeys(names))


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
