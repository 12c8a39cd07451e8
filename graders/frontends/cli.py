"""`python -m graders VERB ...`: a thin command line. Each verb is one module exposing
`main(...)`; this file only declares options and forwards them, so a module's signature
stays the one source of its defaults. To add a verb, write `_<verb>(commands)` that adds a
subparser and sets `run`, and list it in VERBS."""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from pathlib import Path
from typing import Callable, Sequence


def _default(function: Callable, name: str) -> object:
    return inspect.signature(function).parameters[name].default


def _nbgrader(commands: argparse._SubParsersAction) -> None:
    from graders.frontends.nbgrader import build

    parser = commands.add_parser("nbgrader", help="nbgrader: build a course for a lesson, check its hand-ins")
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
    check = actions.add_parser("check", help="find and mend submitted notebooks that would stop autograde (run it "
                                             "before nbgrader autograde)")
    check.add_argument("course_dir", type=Path, metavar="COURSE_DIR", help="the nbgrader course folder")
    check.add_argument("--assignment", default="lesson01", help="the assignment (default: %(default)s)")
    check.add_argument("--dry-run", action="store_true", help="only report; change nothing")
    check.set_defaults(run=lambda a: _check_course(a))
    make.set_defaults(run=lambda a: build.main(a.course_dir, assignment=a.assignment, lesson=a.lesson,
                                               course_id=a.course_id, exercise_seconds=a.exercise_seconds,
                                               exercises=a.exercises, prove=a.prove))


def _check_course(arguments: argparse.Namespace) -> int:
    from graders.frontends.nbgrader import check

    findings = check.main(arguments.course_dir, assignment=arguments.assignment, dry_run=arguments.dry_run)
    return sum(1 for f in findings if f.problems)


def _grade(commands: argparse._SubParsersAction) -> None:
    from graders.frontends.grade.run import main as batch
    from graders.frontends.grade.intake.sources import DEFAULT_STUDENT_PATTERN

    parser = commands.add_parser("grade", help="grade a class of submissions in parallel, into every format",
                                 description="Grade every submission in SOURCE (an nbgrader course, an LMS download "
                                             "from Moodle, Canvas or Blackboard, folders "
                                             "<student>/lesson01/<exercise>.py, or notebooks <student>_*.ipynb "
                                             "in a folder or a .zip) into DIR.")
    parser.add_argument("source", type=Path, metavar="SOURCE", help="the submissions")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="where the results go (a rerun into the same DIR grades only what changed)")
    parser.add_argument("-j", "--jobs", type=int, default=None,
                        help="Dask workers on this machine, each grading one submission at a time (default: the "
                             "number of cores); not with --scheduler")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="grade on a running Dask cluster, e.g. tcp://10.0.0.5:8786 or tls://...: its workers "
                             "need this package (same version) installed (see docs/batch.md, Grading past one machine)")
    parser.add_argument("--dashboard", action="store_true",
                        help="serve Dask's dashboard on 127.0.0.1 while grading (needs bokeh); not with --scheduler, "
                             "whose cluster serves its own")
    parser.add_argument("--tls-ca-file", metavar="PEM", help="with a tls:// scheduler: the certificate authority")
    parser.add_argument("--tls-cert", metavar="PEM", help="with a tls:// scheduler: this client's certificate")
    parser.add_argument("--tls-key", metavar="PEM", help="with a tls:// scheduler: this client's private key")
    parser.add_argument("--lesson", default=_default(batch.main, "lesson"), help="which lesson (default: %(default)s)")
    parser.add_argument("--assignment", help="the nbgrader assignment (default: the lesson's folder)")
    parser.add_argument("--student-pattern", default=DEFAULT_STUDENT_PATTERN, metavar="REGEX",
                        help="for notebooks: a regular expression whose group 'student' finds the student id in a "
                             "file name (default: %(default)r, for <student>_<anything>.ipynb)")
    parser.add_argument("--gradebook", action="store_true",
                        help="with an nbgrader course: also write the scores into its gradebook.db")
    parser.add_argument("--allow-unconfined", action="store_true",
                        help="grade even where the sandbox cannot fully hold on this machine (not tamper-proof)")
    term = parser.add_argument_group("the term", "roster, deadline, decisions and regrades (docs/batch.md: Running a term)")
    term.add_argument("--term", type=Path, metavar="TOML",
                      help="the term's file: due date and late policy, and where its roster and ledger are")
    term.add_argument("--roster", type=Path, metavar="CSV",
                      help="the class list (id, name, email, sis_id, login, section; or the LMS's own export): "
                           "joins every output, and lists who handed nothing in (overrides the term file's)")
    term.add_argument("--roster-id-column", metavar="COLUMN",
                      help="the roster's column holding the ids the download gives (default: its id column)")
    term.add_argument("--decisions", type=Path, metavar="CSV",
                      help="the ledger of decisions (python -m graders decide) applied to every output "
                           "(overrides the term file's)")
    term.add_argument("--unzipped-in", metavar="ZONE",
                      help="where a download given as a folder was unzipped, e.g. Europe/Berlin: unzip set its files' "
                           "times in that machine's zone (default: this machine's; a zip's own times need none)")
    term.add_argument("--compare", type=Path, metavar="OLD_DIR",
                      help="an earlier run's --out folder: write changes.csv and changes.html saying who this "
                           "regrade changes, on which checks and why, before anything is published")
    term.add_argument("--archive", type=Path, action="append", metavar="OLD_DIR",
                      help="an earlier term's --out folder whose answers the similarity check also compares "
                           "with (repeat for more)")
    parser.set_defaults(run=lambda a: batch.main(
        a.source, out=a.out, jobs=a.jobs, lesson=a.lesson, assignment=a.assignment, student_pattern=a.student_pattern,
        gradebook=a.gradebook, allow_unconfined=a.allow_unconfined, where=_where(a), term=a.term, roster=a.roster,
        decisions=a.decisions, compare=a.compare, archive=a.archive or [], roster_id_column=a.roster_id_column,
        unzipped_in=a.unzipped_in))


def _where(arguments: argparse.Namespace) -> object:
    """The Dask cluster to grade on, from the options; clear errors for options that do not go together."""
    from graders.frontends.grade.run.cluster import GradingSite

    if arguments.jobs is not None and arguments.jobs < 1:
        raise SystemExit(f"-j {arguments.jobs}: give at least 1 worker")
    tls = (arguments.tls_ca_file, arguments.tls_cert, arguments.tls_key)
    if arguments.scheduler is None:
        if any(tls):
            raise SystemExit("--tls-ca-file, --tls-cert and --tls-key go with --scheduler tls://...")
        return GradingSite(jobs=arguments.jobs or os.cpu_count() or 1, dashboard=arguments.dashboard)
    if arguments.dashboard:
        raise SystemExit("--dashboard serves the dashboard of the cluster this command starts; a --scheduler's "
                         "cluster serves its own (see docs/batch.md, The Dask dashboard)")
    if arguments.jobs is not None:
        raise SystemExit("-j sets the workers of a cluster on this machine; with --scheduler, the cluster's own "
                         "workers grade (start more of them to grade faster)")
    if any(tls) and not all(tls):
        raise SystemExit("a tls:// scheduler needs --tls-ca-file, --tls-cert and --tls-key together")
    if arguments.scheduler.startswith("tls://") and not all(tls):
        raise SystemExit(f"--scheduler {arguments.scheduler}: give --tls-ca-file, --tls-cert and --tls-key")
    return GradingSite(scheduler=arguments.scheduler, tls_ca_file=arguments.tls_ca_file, tls_cert=arguments.tls_cert,
                 tls_key=arguments.tls_key)


def _release(commands: argparse._SubParsersAction) -> None:
    from graders.frontends import release as handout

    parser = commands.add_parser("release", help="write the repository students get for the pytest exercises/ way")
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="a new folder for the handout repository")
    parser.add_argument("--lesson", default=_default(handout.main, "lesson"), help="which lesson (default: %(default)s)")
    parser.add_argument("--classroom", action="store_true",
                        help="add .github/workflows/classroom.yml: GitHub Classroom grades every push")
    parser.set_defaults(run=lambda a: handout.main(a.out_dir, lesson=a.lesson, classroom=a.classroom) and 0)


def _gradescope(commands: argparse._SubParsersAction) -> None:
    from graders.frontends import gradescope

    parser = commands.add_parser("gradescope", help="Gradescope: build an autograder zip (and what it runs there)")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    make = actions.add_parser("build", help="write the autograder zip to upload to Gradescope")
    make.add_argument("out_zip", type=Path, metavar="OUT.zip")
    make.add_argument("--allow-unconfined", action="store_true",
                      help="grade even where Gradescope's container cannot hold the whole sandbox (not tamper-proof)")
    make.set_defaults(run=lambda a: gradescope.build(a.out_zip, allow_unconfined=a.allow_unconfined) and 0)
    for name, helps in (("run", "grade ROOT/submission/ into ROOT/results/results.json (run_autograder runs it)"),
                        ("prepare", "grade the reference once into the expected-values cache (setup.sh runs it)")):
        action = actions.add_parser(name, help=helps)
        action.add_argument("--root", type=Path, default=Path("/autograder"), help="Gradescope's folder (default: %(default)s)")
        if name == "run":
            action.add_argument("--allow-unconfined", action="store_true", help="as for build")
            action.set_defaults(run=lambda a: gradescope.run(a.root, allow_unconfined=a.allow_unconfined))
        else:
            action.set_defaults(run=lambda a: gradescope.prepare(a.root) or 0)


def _new(commands: argparse._SubParsersAction) -> None:
    from graders.frontends import new_exercise

    parser = commands.add_parser("new", help="write a new exercise's room (stub, reference, manifest, checks, "
                                             "mistakes) that grades at once; docs/AUTHORING.md goes on from there")
    parser.add_argument("lesson", metavar="LESSON", help="the lesson's folder, e.g. lesson01")
    parser.add_argument("slug", metavar="SLUG", help="the exercise's name: lower-case letters, digits, underscores")
    parser.add_argument("--title", required=True, help="one line saying what the exercise is about")
    parser.add_argument("--section", default="", help="where in the lesson to look (default: the title, quoted)")
    parser.add_argument("--points", type=float, default=_default(new_exercise.scaffold, "points"),
                        help="what the exercise is worth (default: %(default)s)")
    parser.add_argument("--points-from", metavar="SLUG", default=None,
                        help="the exercise of the lesson that gives up those points (a lesson totals 100): its "
                             "points in course_config.py and its checks' points are lowered to match")
    parser.set_defaults(run=_run_new)


def _run_new(arguments: argparse.Namespace) -> int:
    from graders.frontends import new_exercise

    try:
        written = new_exercise.scaffold(arguments.lesson, arguments.slug, arguments.title, arguments.section,
                                        arguments.points, points_from=arguments.points_from)
    except new_exercise.ScaffoldError as error:
        raise SystemExit(f"python -m graders new: {error}") from None
    root = new_exercise.course_config.ROOT
    print("Wrote:\n" + "\n".join(f"  {path.relative_to(root)}" for path in written))
    print(f"Try it: pytest exercises/{arguments.lesson}/{arguments.slug}.py --submission reference "
          f"(full marks), then pytest exercises/{arguments.lesson}/{arguments.slug}.py (0, not started). "
          "Next steps: docs/AUTHORING.md")
    if arguments.points_from:
        print(f"{arguments.points_from} gave up {arguments.points:g} points: its checks' points are scaled in its "
              "manifest (change them as you see fit, keeping their sum)")
    return 0


def _decide(commands: argparse._SubParsersAction) -> None:
    from graders.frontends import decide
    from graders.frontends.grade.term.decisions import ACTIONS

    parser = commands.add_parser("decide", help="write a decision (override, extension, excuse, regrade ...) into "
                                                "the term's ledger, or --show those in force",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 description="Actions:\n" + "\n".join(f"  {a:<16}{w}" for a, w in ACTIONS.items()))
    parser.add_argument("ledger", type=Path, metavar="LEDGER", help="the ledger, e.g. decisions.csv (created if new)")
    parser.add_argument("student", nargs="?", metavar="STUDENT", help="the student's id, as the outputs show it")
    parser.add_argument("action", nargs="?", metavar="ACTION", help=", ".join(ACTIONS))
    parser.add_argument("value", nargs="?", default="", metavar="VALUE",
                        help="points, a date, yes/no, accepted/declined, or the request's text; empty withdraws")
    parser.add_argument("--exercise", default="", metavar="SLUG", help="the exercise the decision is about")
    parser.add_argument("--reason", default="", help="why (required: the ledger is the term's audit trail)")
    parser.add_argument("--by", help="who decides (default: your login name)")
    parser.add_argument("--lesson", default=_default(decide.main, "lesson"), help="which lesson (default: %(default)s)")
    parser.add_argument("--show", action="store_true", help="print each student's decisions in force")
    parser.set_defaults(run=lambda a: decide.main(a.ledger, a.student, a.action, a.value, exercise=a.exercise,
                                                  reason=a.reason, by=a.by, lesson=a.lesson, show=a.show))


def _config(commands: argparse._SubParsersAction) -> None:
    from graders.frontends import course_settings

    parser = commands.add_parser("config", help="print the course's settings: limits, policy, and each exercise's "
                                                "points, checks, seeds and tolerances, with their descriptions")
    parser.add_argument("--exercise", metavar="SLUG", help="only this exercise's settings")
    parser.set_defaults(run=lambda a: course_settings.main(a.exercise))


VERBS = (_nbgrader, _grade, _decide, _release, _gradescope, _config, _new)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m graders", description="The course autograder.")
    commands = top.add_subparsers(dest="verb", required=True, metavar="VERB")
    for add in VERBS:
        add(commands)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run a verb; the exit status is 0, or 1 when some submission could not be graded."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["grade"] and "--scheduler" not in given or given[:2] in (["gradescope", "run"],
                                                                                ["gradescope", "prepare"]):
        # Before this process reads an answer or loads the course: the template every grading service of this
        # machine is forked from, which imports torch meanwhile (graders/frontends/grade/run/template.py).
        from graders.frontends.grade.run.template import TEMPLATE

        TEMPLATE.start()
    arguments = parser().parse_args(given)
    failed = arguments.run(arguments)
    return 1 if isinstance(failed, int) and not isinstance(failed, bool) and failed > 0 else 0
