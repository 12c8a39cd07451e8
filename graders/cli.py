"""`python -m graders VERB ...`: a thin command line. Each verb is one module exposing
`main(...)`; this file only declares options and forwards them, so a module's signature
stays the one source of its defaults. To add a verb, write `_<verb>(commands)` that adds a
subparser and sets `run`, and list it in VERBS."""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import Callable, Sequence


def _default(function: Callable, name: str) -> object:
    return inspect.signature(function).parameters[name].default


def _nbgrader(commands: argparse._SubParsersAction) -> None:
    from graders.nbgrader import build

    parser = commands.add_parser("nbgrader", help="nbgrader: build a course for a lesson")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    make = actions.add_parser("build", help="write nbgrader_config.py and source/<assignment>/ into COURSE_DIR")
    make.add_argument("course_dir", type=Path, metavar="COURSE_DIR", help="the nbgrader course folder (created if needed)")
    make.add_argument("--assignment", help="the assignment's name (default: the lesson's folder, e.g. lesson01)")
    make.add_argument("--lesson", default=_default(build.main, "lesson"), help="which lesson (default: %(default)s)")
    make.add_argument("--course-id", default=_default(build.main, "course_id"),
                      help="nbgrader's CourseDirectory.course_id (default: %(default)s)")
    make.add_argument("--exercise-seconds", type=float, default=_default(build.main, "exercise_seconds"),
                      help="time budget of one test cell's grading; the cell timeout adds a margin (default: %(default)s)")
    make.add_argument("--exercise", action="append", dest="exercises", metavar="SLUG",
                      help="only this exercise (repeat for more; default: every exercise of the lesson)")
    make.add_argument("--no-prove", dest="prove", action="store_false",
                      help="skip grading the reference with the student bundle after building it")
    make.set_defaults(run=lambda a: build.main(a.course_dir, assignment=a.assignment, lesson=a.lesson,
                                               course_id=a.course_id, exercise_seconds=a.exercise_seconds,
                                               exercises=a.exercises, prove=a.prove))


VERBS = (_nbgrader,)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m graders", description="The course autograder.")
    commands = top.add_subparsers(dest="verb", required=True, metavar="VERB")
    for add in VERBS:
        add(commands)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    arguments.run(arguments)
    return 0
