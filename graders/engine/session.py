"""The grading session: what `pytest exercises/` runs once graders/frontends/pytest_plugin.py has set up.

It is the conductor of one run, and the one place pytest's hooks arrive: it reads the run's
settings (run_settings.py), has the exercise files collected as their checks (collection.py),
gives the `Students` (students.py) their workers, hands each check's report to the
`CheckResults` (check_results.py) with what the student's code printed and reached for, and has
the `PointsTable` (points_table.py) printed. Calls go one way, from here down: none of them calls
back, and each holds its own state. Importing this module imports torch.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any, Iterator, NoReturn

import pytest

from graders import sandbox
from graders.engine import fixtures, failure_reports, kept_values, request_plans, single_edits
from graders.engine.check_results import CheckResults
from graders.engine.collection import ExerciseModule, exercise_file, in_lesson_order
from graders.engine.options import KEPT, replay_file
from graders.engine.points_table import PointsTable
from graders.engine.recording import CACHE, LIVE, RECORD, RECORDING
from graders.engine.results import SubmissionResult
from graders.engine.run_settings import RUN_SETTINGS, RunSettings
from graders.engine.sandbox_words import confinement_summary
from graders.engine.students import STUDENTS, Students

IN_PROCESS_BANNER = ("graders: --in-process: the submission runs inside pytest, without limits; "
                     "scores from this run are for debugging, not for grading")
ZYGOTE_GONE = ("the sandbox's zygote process died during grading, taking its workers with it; grade again "
               "(the batch grader and the notebooks do so by themselves)")
EXIT_ZYGOTE_GONE = 70
INTERRUPTED = ("graders: interrupted (Ctrl-C): grading stopped where it was; the checks that did not run earned "
               "nothing, and no process of the grading is left. Run pytest again to grade everything.")
STOPPED = ("graders: grading stopped before it began ({why}): the error above says what to fix (a check "
           "missing from its manifest, a module that does not import), then run pytest again.")
NO_EXERCISES = ("graders: no exercises in this run: it runs the project's own tests (they need "
                "`pip install -e \".[test]\"`); grade your work with `pytest exercises/`")
_FROZEN: list[bool] = []  # whether this process has frozen torch's heap out of the garbage collector


def configure(config: pytest.Config) -> None:
    """Register the grading session, its table, its fixtures and its reports with pytest."""
    # Before any optimiser steps here or in a worker forked from here: see eager_dynamo.
    sandbox.install_eager_dynamo()
    # torch leaves a large heap of objects that live as long as the process: keep them out
    # of every garbage collection (pytest collects several times on the way out) and
    # untouched, so that forked workers share their pages instead of copying them. Only
    # once: a process that runs many sessions (the batch grader, the notebooks' server)
    # would otherwise make each session's leftovers immortal.
    if not _FROZEN:
        gc.freeze()
        _FROZEN.append(True)
    session = GradingSession(config)
    if session.settings.grades:
        # Warnings raised in this process are the grader's (student code runs in workers, whose output is
        # filtered in engine/printed.py): torch's deprecations met by a check or the reference are not the
        # student's to read, and pytest's summary of them would name the grader's files. In process, the
        # student's code runs here too: only the grader's and torch's own modules are silenced.
        in_process = session.settings.in_process
        quiet = ["ignore"] if not in_process else ["ignore:::graders", "ignore:::reference_", "ignore:::torch"]
        for line in quiet:
            config.addinivalue_line("filterwarnings", line)
        if not in_process:
            # Started by the plugin already, or now. A run of the project's own tests grades nothing itself (its
            # in-process runs start their own sessions, which come here): it starts no zygote, an import of torch.
            session.zygote = sandbox.prepare()
    config.pluginmanager.register(session, "graders-session")
    config.pluginmanager.register(session.table, "graders-points-table")
    config.pluginmanager.register(fixtures, "graders-fixtures")
    config.pluginmanager.register(failure_reports, "graders-failure-reports")


class GradingSession:
    """One grading run: it owns the run's settings, students, results and table, and answers pytest's hooks."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.settings = RunSettings.read(config)
        self.students = Students(self.settings, Path(config.invocation_params.dir), config.stash.get(KEPT, None))
        self.results = CheckResults(self.settings.hidden_show, self.settings.answer_cells)
        self.table = PointsTable(config, self.results, self.students.display_paths, self.students.module_paths,
                                 self.students.holds_code, self.settings.hidden_show)
        self.complete = True
        self.fill_cache = False
        self.zygote = 0  # the generation of the zygote this session's workers come from (0: none, it grades nothing)
        config.stash[RUN_SETTINGS] = self.settings
        config.stash[STUDENTS] = self.students

    # --------------------------------------------------------------- collection

    def pytest_report_header(self) -> list[str]:
        settings = self.settings
        where = str(settings.submission) if settings.submission else "exercises/ (your files)"
        if not settings.grades:
            return [NO_EXERCISES]
        if settings.in_process:
            return [f"graders: grading {where}", IN_PROCESS_BANNER]
        return [f"graders: grading {where}; limit {settings.budget.call_seconds:g} s per call; "
                f"sandbox: {confinement_summary(settings.plan)}"]

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        return exercise_file(file_path, parent)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        in_lesson_order(self.config, items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not self.settings.in_process:
            nodes = [node for item in session.items if (node := item.getparent(ExerciseModule)) is not None]
            self.students.prestart(nodes)

    # --------------------------------------------------------------- each check

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[Any]:
        report = yield
        module = item.getparent(ExerciseModule)
        points_mark = item.get_closest_marker("points")
        if module is None or points_mark is None:
            return report
        if report.when == "call" or (report.when == "setup" and not report.passed):
            slug = module.exercise.slug
            handle = self.students.using(slug)
            # Taken for every check, so that none sees another's.
            printed = handle.take_printed() if handle is not None else ""
            self.results.record(item, module, points_mark.args[0], report, call, printed,
                                handle.reaches() if handle is not None else None,
                                self.students.display_paths.get(slug, f"{slug}.py"))
        return report

    # --------------------------------------------------------------- the end

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Iterator[None]:
        """pytest lists every failure before the points table: an untouched exercise's would be one
        block per check saying "not implemented yet". They stay out of that list (not out of the counts)."""
        failed = terminalreporter.stats.get("failed", [])
        quiet = self.results.quiet_failures(self.students.holds_code)
        if quiet and failed:
            terminalreporter.stats["failed"] = [r for r in failed if r.nodeid not in quiet]
        try:
            return (yield)
        finally:
            if quiet and failed:
                terminalreporter.stats["failed"] = failed

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo) -> None:
        """Ctrl-C is the user's: say so plainly (pytest shows where it stopped, in our code, which is no
        fault); the workers and the zygote are stopped on the way out."""
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        if excinfo.errisinstance(pytest.Session.Interrupted):  # pytest stopped itself, e.g. on a collection error
            reporter.write_line(STOPPED.format(why=excinfo.value))
        else:
            reporter.write_line(INTERRUPTED)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        single_edits.forget_calls()  # another submission's calls, graded before in this process, are not this one's
        target = self.settings.json
        if target is not None and (target.is_symlink() or target.exists()) and not target.is_dir():
            target.unlink()  # a crash must not leave an older result looking like this run's
        replay = replay_file(self.config)
        cache = self.config.getoption("graders_cache")
        if replay:
            if not Path(replay).is_file():
                raise pytest.UsageError(f"--replay-expected {replay}: no such file")
            RECORDING.load(Path(replay))
        elif self.config.getoption("graders_record"):
            RECORDING.start_recording()
        elif cache:
            self.fill_cache = not RECORDING.start_caching(Path(cache))
        elif self.config.stash.get(KEPT, None) is not None:
            RECORDING.start_keeping(self.config.stash[KEPT])

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.zygote and sandbox.zygote_died_since(self.zygote):
            self.results.exercises.clear()  # nothing of this run is a grade: no table either
            _stop_without_result()
        self.students.close_all()
        sandbox.reap_killed()
        self._save_expected_values()
        ran = self.results.ran()
        selected = sum(1 for item in session.items if item.get_closest_marker("points") is not None)
        # A run that graded nothing is no complete result, whatever it selected: its 0 / 0 is no score.
        self.complete = ran == selected and ran > 0 and exitstatus not in (pytest.ExitCode.INTERRUPTED,
                                                                           pytest.ExitCode.INTERNAL_ERROR)
        if self.settings.json is not None:
            self.submission_result().write(self.settings.json)

    def _save_expected_values(self) -> None:
        """Write what this run recorded or kept of the reference's values, and the requests it made of workers."""
        record = self.config.getoption("graders_record")
        if record and RECORDING.mode == RECORD:
            RECORDING.save(Path(record))
        if self.fill_cache and RECORDING.mode == CACHE:
            RECORDING.save(Path(self.config.getoption("graders_cache")))
        kept = self.config.stash.get(KEPT, None)
        if kept is not None and RECORDING.mode == CACHE and RECORDING.grew:
            RECORDING.save(kept)
            kept_values.forget_other_versions(kept)
        asked = self.students.asked()
        if kept is not None and asked:
            request_plans.save(request_plans.path_beside(kept), asked)
        RECORDING.mode = LIVE

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if self.results.exercises and reporter is not None:
            reporter.write_line(self.table.total_line(self.submission_result()))

    def submission_result(self) -> SubmissionResult:
        where = str(self.settings.submission) if self.settings.submission else "exercises"
        return self.results.submission_result(where, trusted=not self.settings.in_process, complete=self.complete,
                                              confinement=self.students.confinement(), seconds=self.students.seconds)


def _stop_without_result() -> NoReturn:
    """The zygote died while this process was grading, and took the workers with it: some answers
    may be missing through no fault of the student's (sandbox/zygote.py). The run stops with no
    result and exit status EXIT_ZYGOTE_GONE, on which the batch's grading process and the
    notebooks' grading server give way to a fresh process that grades the submission again."""
    pytest.exit(f"graders: grading stopped, with no result: {ZYGOTE_GONE}", returncode=EXIT_ZYGOTE_GONE)
