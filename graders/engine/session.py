"""The grading session: what `pytest exercises/` runs once graders/frontends/pytest_plugin.py has set up.

Collecting `exercises/<lesson>/<slug>.py` yields the checks of `graders/<lesson>/<slug>/checks.py`
instead of importing the student's file: the submission is only ever imported by a
worker process. Each check's result goes into one `SubmissionResult`, printed as a grade
table at the end and written as JSON with `--json`. Importing this module imports torch.

Over 400 lines because its hooks share one state (the session: its workers, budgets, results and
recording) that pytest hands from hook to hook; the options it reads are declared in options.py.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator, NoReturn

import pytest

import course_config
from graders import sandbox
from graders.engine import kept_values, request_plans
from graders.engine.allowance import Allowance
from graders.engine.causes import Causes, cause_of, said_again
from graders.engine.collect import collect_mistakes
from graders.engine.feedback import CheckFailed, Feedback, printed_text
from graders.engine.mistakes import FORGOTTEN, Mistake, catalogued, concept_of
from graders.engine.options import KEPT, replay_file
from graders.engine.progress import holds_code, started
from graders.engine.recording import CACHE, LIVE, RECORD, RECORDING, reference_for
from graders.engine.results import (SHOW_CHOICES, CheckResult, ExerciseResult, SubmissionResult, hidden_text,
                                    mistake_told, tally)
from graders.sandbox import STEPS, Budget, Confinement, Settings, SubmissionWorker
from graders.engine.student import Backend, Student

IN_PROCESS_BANNER = ("graders: --in-process: the submission runs inside pytest, without limits; "
                     "scores from this run are for debugging, not for grading")
MISSING_FOLDER = "--submission {value}: no folder {path}; give the folder that holds {lesson}/<exercise>.py"
MISSING_FILE = "{file} does not exist: the submission has no file for this exercise."
ZYGOTE_GONE = ("the sandbox's zygote process died during grading, taking its workers with it; grade again "
               "(the batch grader and the notebooks do so by themselves)")
EXIT_ZYGOTE_GONE = 70
INTERRUPTED = ("graders: interrupted (Ctrl-C): grading stopped where it was; the checks that did not run earned "
               "nothing, and no process of the grading is left. Run pytest again to grade everything.")
STOPPED = ("graders: grading stopped before it began ({why}): the error above says what to fix (a check "
           "missing from its manifest, a module that does not import), then run pytest again.")
PRINTED_ELSEWHERE = ("graders: your code printed during {count}: the grader keeps what it prints, and a failed "
                     "check shows it under its message; run with -s to see it under each passed check too.")
DISTRUSTED = ("{file} holds code the grader cannot follow ({reach}), so what its process says of how your code works "
              "is not credited: this check of how scores 0 and is left for your instructor's review. Write it "
              "without that code to be graded on it.")
_FROZEN: list[bool] = []  # whether this process has frozen torch's heap out of the garbage collector


def configure(config: pytest.Config) -> None:
    """Register the grading session and this module's fixtures with pytest."""
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
    grades = _names_exercises(config)
    if grades:
        # Warnings raised in this process are the grader's (student code runs in workers, whose output is
        # filtered in engine/printed.py): torch's deprecations met by a check or the reference are not the
        # student's to read, and pytest's summary of them would name the grader's files. In process, the
        # student's code runs here too: only the grader's and torch's own modules are silenced.
        quiet = ["ignore"] if not session.in_process else ["ignore:::graders", "ignore:::reference_", "ignore:::torch"]
        for line in quiet:
            config.addinivalue_line("filterwarnings", line)
    if grades and not session.in_process:
        # Started by the plugin already, or now. A run of the project's own tests grades nothing itself (its
        # in-process runs start their own sessions, which come here): it starts no zygote, an import of torch.
        session.zygote = sandbox.prepare()
    config.pluginmanager.register(session, "graders-session")
    config.pluginmanager.register(sys.modules[__name__], "graders-fixtures")


def _setting(config: pytest.Config, name: str) -> Any:
    """Command line first, then the ini file."""
    value = config.getoption(name)
    return value if value is not None else config.getini(name) or None


def _steps_left_out(config: pytest.Config) -> frozenset[str]:
    value = config.getoption("graders_sandbox_without") or ""
    steps = frozenset(s.strip() for s in value.split(",") if s.strip())
    unknown = steps - set(STEPS)
    if unknown:
        raise pytest.UsageError(f"--sandbox-without {value!r}: unknown step {', '.join(sorted(unknown))}; "
                                f"the steps are {', '.join(STEPS)}")
    return steps


def _positive_seconds(value: str, where: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise pytest.UsageError(f"{where} {value!r}: give a number of seconds, e.g. 5") from None
    if not seconds > 0:
        raise pytest.UsageError(f"{where} {value!r}: the number of seconds must be above 0")
    return seconds


class GradingSession:
    """Holds the submission being graded and collects the result of every check."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.in_process = bool(_setting(config, "graders_in_process"))
        self.answer_cells = bool(config.getoption("graders_answer_cells", False))  # graded from a notebook
        seconds = _setting(config, "graders_call_seconds")
        limits = course_config.LIMITS
        call_seconds = _positive_seconds(str(seconds), "--call-timeout") if seconds else None
        self.budget = Budget(
            call_seconds=call_seconds or float(limits.call_seconds.value),
            import_seconds=call_seconds or float(limits.import_seconds.value),
            memory_mb=int(limits.memory_mb.value),
            output_kb=int(limits.output_kb.value),
            message_mb=int(limits.message_mb.value),
            tasks=int(limits.tasks.value),
            cpus=float(limits.cpus.value),
            scratch_mb=int(limits.scratch_mb.value),
        )
        self.submission = self._submission_folder()
        total = config.getoption("graders_submission_seconds")
        per_exercise = config.getoption("graders_exercise_seconds")
        self.exercise_seconds = (_positive_seconds(str(per_exercise), "--exercise-seconds") if per_exercise
                                 else float(limits.exercise_seconds.value))
        self.allowance = Allowance(_positive_seconds(str(total), "--submission-seconds") if total else
                                   float(limits.submission_seconds.value), "this submission", "submission_seconds")
        self.sandbox = Settings(worker_user=str(limits.worker_user.value), worker_uids=int(limits.worker_uids.value),
                                without=_steps_left_out(config),
                                require_confinement=bool(_setting(config, "graders_require_confinement")))
        self.plan = sandbox.plan(self.sandbox.without)
        self.hidden_show = str(course_config.HIDDEN_CHECKS_SHOW.value)
        if self.hidden_show not in SHOW_CHOICES:
            raise pytest.UsageError(f"course_config.HIDDEN_CHECKS_SHOW is {self.hidden_show!r}; it must be one of "
                                    f"{', '.join(SHOW_CHOICES)}")
        self.reports: list[Confinement] = []  # what each worker said held, before any student code ran
        plots = _setting(config, "graders_plots") or "plots"
        self.plots = Path(config.invocation_params.dir) / Path(plots).expanduser()
        self.results: dict[str, ExerciseResult] = {}
        self.lesson_number = 1
        self.complete = True
        self.prestarted: dict[str, Student] = {}  # workers forked at collection, not yet used
        self.shared_workers: dict[Path, SubmissionWorker] = {}  # one worker per submission folder (sandbox.shared)
        self.plans: dict[str, request_plans.Plans] | None = None  # the run before's requests, read when first needed
        self.display_paths: dict[str, str] = {}  # how messages name each exercise's file
        self.module_paths: dict[str, Path] = {}  # each graded exercise's file in the submission
        self.causes = Causes()  # per exercise: the causes already explained in full, and by which check
        self.not_started: dict[str, list[str]] = {}  # per exercise: node ids of "not implemented yet" failures
        self.told_once: list[str] = []  # node ids failed by a whole-exercise cause already shown above
        self.where_to_begin = ""  # said on the last line when exercises are untouched
        self.not_judged: set[tuple[str, str]] = set()  # (slug, check id): failed on a value an earlier check failed on
        self.printed_in_passing: dict[tuple[str, str], str] = {}  # (slug, check id) -> what the student's code printed
        self.zygote = 0  # the generation of the zygote this session's workers come from (0: none, it grades nothing)

    def _submission_folder(self) -> Path | None:
        value = _setting(self.config, "graders_submission")
        if value is None:
            return None
        path = Path(value).expanduser()
        path = path if path.is_absolute() else Path(self.config.invocation_params.dir) / path
        if not path.is_dir():
            lesson = course_config.LESSONS[0].folder
            raise pytest.UsageError(MISSING_FOLDER.format(value=value, path=path, lesson=lesson))
        return path

    def module_path(self, stub: Path, lesson: course_config.Lesson) -> Path:
        if self.submission is None:
            return stub
        if (self.submission / lesson.folder).is_dir() or self.submission.name != lesson.folder:
            return self.submission / lesson.folder / stub.name
        return self.submission / stub.name  # DIR given as the lesson folder itself

    # --------------------------------------------------------------- hooks

    def pytest_report_header(self) -> list[str]:
        where = str(self.submission) if self.submission else "exercises/ (your files)"
        if not _names_exercises(self.config):
            return ["graders: no exercises in this run: it runs the project's own tests (they need "
                    "`pip install -e \".[test]\"`); grade your work with `pytest exercises/`"]
        if self.in_process:
            return [f"graders: grading {where}", IN_PROCESS_BANNER]
        return [f"graders: grading {where}; limit {self.budget.call_seconds:g} s per call; sandbox: {self.plan.summary()}"]

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if file_path.suffix != ".py" or file_path.parent.parent.name != "exercises":
            return None
        found = course_config.find_exercise(file_path.parent.name, file_path.stem)
        if found is None:
            return None
        return ExerciseModule.from_parent(parent, path=file_path)

    def make_student(self, node: "ExerciseModule") -> Student:
        path = self.module_path(node.path, node.lesson)
        display = f"the answer cell of {node.exercise.slug}" if self.answer_cells else self.display(path)
        self.display_paths[node.exercise.slug] = display
        self.module_paths[node.exercise.slug] = path
        catalogue = node.mistakes()
        if self.in_process:
            from graders.sandbox import InProcess

            make_backend: Callable[[], Backend] = functools.partial(InProcess, path)
        else:
            shared = self.shared_workers.get(path.parent)
            if shared is None:
                shared = self.shared_workers[path.parent] = SubmissionWorker(path.parent, self.budget, self.sandbox,
                                                                             self._plans_of(path.parent))
            # A driver module's one-time loading, which the zygote runs before it forks the worker.
            choose_warm_up = getattr(node.obj, "worker_warm_up", None)
            chosen = choose_warm_up(path) if choose_warm_up is not None else None
            shared.needs(f"{chosen.__module__}:{chosen.__qualname__}" if chosen else None)
            make_backend = functools.partial(shared.lease, path)
        handle = Student(path, display, self.budget, catalogue, make_backend, section=node.exercise.section,
                         frame_file="answer cell" if self.answer_cells else "",
                         allowance=Allowance(self.exercise_seconds, "this exercise", "exercise_seconds", self.allowance))
        if not path.is_file():
            handle._import_failure = Feedback(MISSING_FILE.format(file=display), cause="missing file",
                                              hint="Copy the stub from exercises/ into the submission and complete it.")
        return handle

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Fork the submission's worker now, before the grader runs any torch op (the forks
        # are safe) and so that its sandbox set-up overlaps with grading.
        if self.in_process:
            return
        for item in session.items:
            node = item.getparent(ExerciseModule)
            if node is not None and node.exercise.slug not in self.prestarted:
                self.prestarted[node.exercise.slug] = self.make_student(node)
        for handle in self.prestarted.values():  # after every exercise said what its worker must be forked with
            handle.prestart()

    def display(self, path: Path) -> str:
        """How messages name a student's file: relative to the submission folder; a file of an exercises/ folder
        from that folder (exercises/lesson01/views.py, wherever pytest was started); else relative to where pytest
        was started. Never a temporary or absolute path of the grading machine."""
        if self.submission is not None:
            try:
                return path.resolve().relative_to(self.submission.resolve()).as_posix()
            except ValueError:
                pass
        elif path.parent.parent.name == "exercises":
            return "/".join(path.parts[-3:])
        for base in (Path(self.config.invocation_params.dir), course_config.ROOT):
            try:
                return path.resolve().relative_to(base.resolve()).as_posix()
            except ValueError:
                continue
        return f"{path.parent.name}/{path.name}"

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        # `-k views` means the exercise views, not every check whose name says "views" too
        # (a check id may hold a slug too, as a hidden one of the quiz does): a bare slug selects that exercise's file.
        keyword = (self.config.option.keyword or "").strip()
        slugs = {e.slug for lesson in course_config.LESSONS for e in lesson.exercises}
        if keyword in slugs:
            others = [i for i in items if (m := i.getparent(ExerciseModule)) is not None and m.exercise.slug != keyword]
            if others:
                self.config.hook.pytest_deselected(items=others)
                items[:] = [i for i in items if i not in others]
        # Grade in the order the lesson teaches, as the points table lists them.
        order = {e.slug: i for lesson in course_config.LESSONS for i, e in enumerate(lesson.exercises)}

        def place(item: pytest.Item) -> int:
            module = item.getparent(ExerciseModule)
            return order.get(module.exercise.slug, -1) if module is not None else -1

        items.sort(key=place)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Iterator[Any]:
        report = yield
        exercise_module = item.getparent(ExerciseModule)
        points_mark = item.get_closest_marker("points")
        if exercise_module is None or points_mark is None:
            return report
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self._record(item, exercise_module, points_mark.args[0], report, call)
        return report

    def _record(self, item: pytest.Item, module: "ExerciseModule", points: float,
                report: pytest.TestReport, call: pytest.CallInfo) -> None:
        lesson, exercise = module.lesson, module.exercise
        self.lesson_number = lesson.number
        result = self.results.setdefault(exercise.slug, ExerciseResult(exercise.slug, exercise.title, 0, 0, False))
        check = CheckResult(id=item.name.removeprefix("test_"), points=points, score=0.0, passed=report.passed,
                            message="", hidden=item.get_closest_marker("hidden") is not None)
        printed = self._printed(item)  # taken for every check, so that none sees another's
        if report.passed:
            check.score = float(points)
            if printed.strip():  # shown under the check with -s, else the table says where it went
                self.printed_in_passing[(exercise.slug, check.id)] = printed
        elif report.skipped:
            return
        elif call.excinfo is not None and isinstance(call.excinfo.value, CheckFailed):
            feedback = self._with_pictures(exercise.slug, call.excinfo.value.feedback, check.hidden)
            feedback = dataclasses.replace(feedback, plots_below=self.answer_cells)
            if feedback.mistake and feedback.mistake in FORGOTTEN:  # a test of the grouping of unnamed failures
                feedback = dataclasses.replace(feedback, mistake=None, meaning="", hint="", concept="")
            check.message, check.mistake, check.cause = feedback.text(), feedback.mistake, feedback.cause
            # A check that names a mistake by its name alone (to reword its explanation) leaves its concept to the
            # exercise's catalogue.
            check.concept = feedback.concept or (concept_of(feedback.mistake, module.mistakes())
                                                 if feedback.mistake else "")
            check.not_implemented, check.files = feedback.not_implemented, list(feedback.files)
            cause = cause_of(feedback)
            check.same_cause_as = self.causes.explained_by(exercise.slug, cause)
            if check.same_cause_as:  # explained above: every front end shows the headline and says so
                same_value = self.causes.same_value(exercise.slug, feedback)
                check.message = said_again(feedback, same_value)
                if same_value:
                    self.not_judged.add((exercise.slug, check.id))
            elif printed and (not check.hidden or self.hidden_show == "full"):  # a hidden check's prints show its inputs
                feedback = dataclasses.replace(feedback, printed=printed)
                check.message = feedback.text()
            if not check.hidden or self.hidden_show == "full":
                check.shown = check.message
            else:
                check.shown = hidden_text(_in_catalogue_words(feedback, module.mistakes()), self.hidden_show,
                                          said_above=bool(check.same_cause_as))
            mistake_told(check, feedback if check.shown == check.message
                         else _in_catalogue_words(feedback, module.mistakes()), self.hidden_show)
            if check.shown == check.message and not check.same_cause_as:  # not a hidden check shown in part
                self.causes.explain(exercise.slug, cause, check.id, feedback.summary)
            report.longrepr = self._terminal_text(exercise.slug, report.nodeid, feedback, check)
        else:
            error = call.excinfo.value if call.excinfo is not None else None
            check.message = f"internal error in the grader (not your fault; please report it): {error!r}"
            check.shown = check.message
        handle = getattr(item, "funcargs", {}).get("student")
        result.integrity = handle.reaches() if isinstance(handle, Student) else result.integrity
        if result.integrity and exercise.check(check.id).how:
            _distrust(check, report, result.integrity, self.display_paths.get(exercise.slug, f"{exercise.slug}.py"))
        result.checks.append(check)
        tally(result)

    @staticmethod
    def _printed(item: pytest.Item) -> str:
        handle = getattr(item, "funcargs", {}).get("student")
        return handle.take_printed() if isinstance(handle, Student) else ""

    def _with_pictures(self, slug: str, feedback: Feedback, hidden: bool) -> Feedback:
        """Draw a failure's plots only where someone will see them: not for a hidden check shown by
        its outcome, nor for a check whose cause an earlier one explained (see _terminal_text)."""
        if not feedback.pictures:
            return feedback
        if (hidden and self.hidden_show != "full") or self.causes.explained_by(slug, cause_of(feedback)):
            return dataclasses.replace(feedback, pictures=())
        drawn = tuple(path for path in (picture.draw() for picture in feedback.pictures) if path)
        return dataclasses.replace(feedback, files=feedback.files + drawn, pictures=())

    def _terminal_text(self, slug: str, nodeid: str, feedback: Feedback, check: CheckResult) -> str:
        """What the terminal shows of a failed check: its message, which says "same cause as above" in short
        where an earlier check explained its cause (graders/engine/causes.py)."""
        if feedback.not_implemented:
            self.not_started.setdefault(slug, []).append(nodeid)
            return feedback.summary  # an untouched function fails every check the same way
        if feedback.cause and check.same_cause_as:  # an import, a timeout: one message, the table lists the rest
            self.told_once.append(nodeid)
        return check.shown

    def untouched(self) -> list[ExerciseResult]:
        """Exercises whose every function is still a stub: nothing of theirs ran, and their file holds no code
        (a run that -x stopped at a stub's function may not have reached the functions written)."""
        return [r for r in self.ordered() if r.score == 0 and r.checks and
                all(c.not_implemented for c in r.checks if not c.passed) and not self._holds_code(r.slug)]

    @functools.cache
    def _holds_code(self, slug: str) -> bool:
        path = self.module_paths.get(slug)
        return path is not None and holds_code(path)

    def started_elsewhere(self) -> bool:
        """Whether the lesson's exercise files that this run did not grade (a run of one file, or one stopped by
        -x) hold code of the student's."""
        folders = {path.parent for path in self.module_paths.values()}
        lesson = next(lesson for lesson in course_config.LESSONS if lesson.number == self.lesson_number)
        others = [e.slug for e in lesson.exercises if e.slug not in self.results]
        return any(started(folder, others) for folder in folders)

    def quiet_failures(self) -> set[str]:
        """Node ids whose failure pytest need not list: the checks of untouched exercises, and the
        later checks of an exercise that failed to import or of a function that ran out of time."""
        untouched = {nodeid for r in self.untouched() for nodeid in self.not_started.get(r.slug, [])}
        return untouched | set(self.told_once)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.results:
            return
        tr = terminalreporter
        tr.reportchars = ""  # the table below replaces pytest's short summary of failures
        tr.currentfspath = None  # pytest has ended the progress line: no blank line under the title
        untouched = {r.slug for r in self.untouched()}
        first = next((r for r in self.ordered() if r.slug in untouched), None)
        where = self.display_paths.get(first.slug, f"{first.slug}.py") if first is not None else ""
        if untouched and len(untouched) == len(self.results) and not self.started_elsewhere():
            tr.section(f"Lesson {self.lesson_number}: not started yet. Begin with {where}")
        else:
            tr.section(f"Lesson {self.lesson_number}: points")
            self.where_to_begin = f"Next to start: {where}" if where else ""
        for result in self.ordered():
            status = ""
            if result.slug in untouched:
                status = f"   not implemented yet: open {self.display_paths.get(result.slug, result.slug + '.py')}"
            elif result.not_implemented and result.score == 0:
                status = "   not implemented yet"
            reasons = {c.message.splitlines()[0] for c in result.checks if not c.passed}
            if not status and result.score == 0 and len(reasons) == 1 and len(result.checks) > 1:
                status = f"   every check: {reasons.pop()}"  # e.g. the file could not be imported
            tr.write_line(f"{result.slug}: {_points(result.score)} / {_points(result.max_score)} points{status}")
            if status:
                continue
            quiet = self.config.get_verbosity() < 0  # -q: the failed checks only
            for check in result.checks:
                if quiet and check.passed:
                    continue
                mark = "PASS" if check.passed else "FAIL"
                named = check.mistake and (not check.hidden or self.hidden_show != "outcome")
                extra = f"   ({check.mistake})" if named else _stopped(check)
                if (result.slug, check.id) in self.not_judged:  # its name says what it did not get to judge
                    extra = f"   (not judged: {check.mistake + ', ' if named else ''}as in {check.same_cause_as})"
                hidden = " [hidden]" if check.hidden else ""
                tr.write_line(f"  {mark}  {check.id}{hidden}: {_points(check.score)} / {_points(check.points)}{extra}")
                printed = self.printed_in_passing.get((result.slug, check.id), "") if self.shows_output() else ""
                if printed:
                    tr.write_line(_printed_under(printed, check.hidden and self.hidden_show != "full"))
        if self.printed_in_passing and not self.shows_output():
            count = len(self.printed_in_passing)
            tr.write_line(PRINTED_ELSEWHERE.format(count=f"{count} passed check{'s' if count != 1 else ''}"))

    def shows_output(self) -> bool:
        """Whether the student asked to see their code's output (`-s`): then what it printed in a passed check is
        shown under that check in the table (a failed check's message shows it always)."""
        return self.config.getoption("capture", "fd") == "no"

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
        target = self.json_path()
        if target is not None and (target.is_symlink() or target.exists()) and not target.is_dir():
            target.unlink()  # a crash must not leave an older result looking like this run's
        replay = replay_file(self.config)
        cache = self.config.getoption("graders_cache")
        self.fill_cache = False
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
            self.results.clear()  # nothing of this run is a grade: no table either
            _stop_without_result()
        for unused in self.prestarted.values():  # e.g. after -x stopped the run early
            unused.close()
        for shared in self.shared_workers.values():
            shared.close()
        sandbox.reap_killed()
        record = self.config.getoption("graders_record")
        if record and RECORDING.mode == RECORD:
            RECORDING.save(Path(record))
        if self.fill_cache and RECORDING.mode == CACHE:
            RECORDING.save(Path(self.config.getoption("graders_cache")))
        kept = self.config.stash.get(KEPT, None)
        if kept is not None and RECORDING.mode == CACHE and RECORDING.grew:
            RECORDING.save(kept)
            kept_values.forget_other_versions(kept)
        asked = {str(folder.resolve()): shared.asked for folder, shared in self.shared_workers.items()
                 if list(shared.asked.items()) != [(m, r) for m, r in shared.plans.items() if m in shared.asked]}
        if kept is not None and asked:
            request_plans.save(request_plans.path_beside(kept), asked)
        RECORDING.mode = LIVE
        ran = sum(len(result.checks) for result in self.results.values())
        selected = sum(1 for item in session.items if item.get_closest_marker("points") is not None)
        # A run that graded nothing is no complete result, whatever it selected: its 0 / 0 is no score.
        self.complete = ran == selected and ran > 0 and exitstatus not in (pytest.ExitCode.INTERRUPTED,
                                                                           pytest.ExitCode.INTERNAL_ERROR)
        target = self.json_path()
        if target is not None:
            self.submission_result().write(target)

    def _plans_of(self, folder: Path) -> request_plans.Plans:
        """The requests the run before made of this submission folder's modules, where this run keeps values."""
        kept = self.config.stash.get(KEPT, None)
        if kept is None:
            return {}
        if self.plans is None:
            self.plans = request_plans.load(request_plans.path_beside(kept))
        return self.plans.get(str(folder.resolve()), {})

    def json_path(self) -> Path | None:
        path = _setting(self.config, "graders_json")
        if not path:
            return None
        target = Path(path).expanduser()
        return target if target.is_absolute() else Path(self.config.invocation_params.dir) / target

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if self.results and reporter is not None:
            total = self.submission_result()
            ran = sum(len(e.checks) for e in total.exercises)
            everything = sum(len(e.checks) for lesson in course_config.LESSONS for e in lesson.exercises)
            notes = [f"{ran} of {everything} checks ran"] if ran < everything else []
            notes += [] if total.trusted else ["--in-process: not a grade"]
            note = f"   ({'; '.join(notes)})" if notes else ""
            note += f". {self.where_to_begin}" if self.where_to_begin else ""
            reporter.write_line(f"Lesson {total.lesson}: {_points(total.score)} / {_points(total.max_score)} points{note}")

    def ordered(self) -> list[ExerciseResult]:
        order = [e.slug for lesson in course_config.LESSONS for e in lesson.exercises]
        return sorted(self.results.values(), key=lambda r: order.index(r.slug))

    def submission_result(self) -> SubmissionResult:
        exercises = self.ordered()
        where = str(self.submission) if self.submission else "exercises"
        return SubmissionResult(where, self.lesson_number, sum(e.score for e in exercises),
                                sum(e.max_score for e in exercises), not self.in_process, self.complete,
                                self.confinement().confined, self.confinement().summary(), exercises,
                                [f"{e.slug}: {line}" for e in exercises for line in e.integrity])

    def confinement(self) -> Confinement:
        """What confined this run's workers: the plan, or the weakest worker's report."""
        if self.in_process:
            return Confinement("none", "none", "the grader's own process", ("--in-process: no sandbox at all",))
        weaker = [report for report in self.reports if not report.confined]
        if weaker and self.plan.confined:
            return weaker[0]
        # A worker's own report also says what walls held for it (cgroups, or rlimits as fallback).
        return dataclasses.replace(self.plan, walls=self.reports[0].walls) if self.reports else self.plan


def _distrust(check: CheckResult, report: pytest.TestReport, reaches: list[str], file: str) -> None:
    """A check of how, for a module that reaches for the grader's internals: what its own process says of
    how it worked cannot be trusted, so the check scores 0 and says why in one line (the rest of its
    message, if it failed anyway, below)."""
    told = DISTRUSTED.format(file=file, reach=reaches[0].split(": ", 1)[-1])
    check.message = told + (f"\n{check.message}" if check.message else "")
    check.shown = told + (f"\n{check.shown}" if check.shown else "")  # a hidden check's message stays as shown
    check.passed, check.score = False, 0.0
    report.outcome, report.longrepr = "failed", check.shown


def _in_catalogue_words(feedback: Feedback, catalogue: list[Mistake]) -> Feedback:
    """A failure with its named mistake's meaning and hint as the catalogue words them: a check may reword them for
    the case at hand, with values of its inputs, which a hidden check does not show. Without a catalogued mistake,
    neither (the hint of an unnamed failure may be fitted to the values too)."""
    mistake = catalogued(feedback.mistake, catalogue)
    if mistake is None:
        return dataclasses.replace(feedback, meaning="", hint="")
    return dataclasses.replace(feedback, meaning=mistake.explanation, hint=mistake.hint, section=mistake.section)


def _stop_without_result() -> NoReturn:
    """The zygote died while this process was grading, and took the workers with it: some answers
    may be missing through no fault of the student's (sandbox/zygote.py). The run stops with no
    result and exit status EXIT_ZYGOTE_GONE, on which the batch's grading process and the
    notebooks' grading server give way to a fresh process that grades the submission again."""
    pytest.exit(f"graders: grading stopped, with no result: {ZYGOTE_GONE}", returncode=EXIT_ZYGOTE_GONE)


def _stopped(check: CheckResult) -> str:
    """The table's note on a check that a timeout or the spent time allowance stopped: those after the first
    did not run the student's code at all, and the table is all the terminal shows of them."""
    if check.cause.startswith("timeout of "):
        function = check.cause.removeprefix("timeout of ")
        return f"   (not run: {function} timed out above)" if check.same_cause_as else f"   ({function} timed out)"
    if check.cause == "allowance spent":
        return "   (not run: the time allowance was used up)"
    return ""


def _printed_under(printed: str, hidden: bool) -> str:
    """What a passed check's code printed, as the table shows it under that check: a hidden check's output would
    show its inputs, so only its size is said."""
    lines = printed_text(printed).splitlines() or [""]
    if hidden:
        lines = [f"{len(printed.splitlines())} line(s), not shown: a hidden check's output would show its inputs"]
    return "\n".join([f"        printed:  {lines[0]}", *(f"                  {line}" for line in lines[1:])])


def _points(value: float) -> str:
    return f"{value:g}"


class ExerciseModule(pytest.Module):
    """A student's exercise file, collected as the checks written for it."""

    @functools.cached_property
    def lesson(self) -> course_config.Lesson:
        return course_config.find_exercise(self.path.parent.name, self.path.stem)[0]  # type: ignore[index]

    @functools.cached_property
    def exercise(self) -> course_config.Exercise:
        return course_config.find_exercise(self.path.parent.name, self.path.stem)[1]  # type: ignore[index]

    def _getobj(self) -> ModuleType:
        return importlib.import_module(f"graders.{self.lesson.folder}.{self.exercise.slug}.checks")

    def mistakes(self) -> list[Mistake]:
        """The exercise's catalogue of named mistakes: collected from its room's mistakes.py."""
        room = f"graders.{self.lesson.folder}.{self.exercise.slug}"
        return collect_mistakes(importlib.import_module(f"{room}.mistakes"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport | None:
    """A check that failed with feedback gets a report without a traceback: pytest would otherwise
    read the source of every frame (a second for a class of failures), only for the feedback to
    replace it."""
    if call.excinfo is None or not isinstance(call.excinfo.value, CheckFailed):
        return None
    keywords = {name: 1 for name in item.keywords}
    return pytest.TestReport(item.nodeid, item.location, keywords, "failed", call.excinfo.value.feedback.text(),
                             call.when, [], call.duration, call.start, call.stop, item.user_properties)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> Iterator[None]:
    """pytest lists every failure before the points table: an untouched exercise's would be one
    block per check saying "not implemented yet". They stay out of that list (not out of the counts)."""
    session = config.pluginmanager.get_plugin("graders-session")
    failed = terminalreporter.stats.get("failed", [])
    quiet = session.quiet_failures() if isinstance(session, GradingSession) else set()
    if quiet and failed:
        terminalreporter.stats["failed"] = [r for r in failed if r.nodeid not in quiet]
    try:
        return (yield)
    finally:
        if quiet and failed:
            terminalreporter.stats["failed"] = failed


def _session(request: pytest.FixtureRequest) -> GradingSession:
    return request.config.pluginmanager.get_plugin("graders-session")


def _exercise_module(request: pytest.FixtureRequest) -> ExerciseModule:
    node = request.node.getparent(ExerciseModule)
    if node is None:
        raise RuntimeError("the student and reference fixtures are only for checks under exercises/")
    return node


@pytest.fixture(scope="module")
def student(request: pytest.FixtureRequest) -> Iterator[Student]:
    """The submission's module for this exercise, run in a sandboxed worker."""
    session, node = _session(request), _exercise_module(request)
    handle = session.prestarted.pop(node.exercise.slug, None) or session.make_student(node)
    yield handle
    session.reports += handle.confinements
    if node.exercise.slug in session.results:
        session.results[node.exercise.slug].seconds = round(handle.allowance.spent, 3)
    handle.close()


@pytest.fixture(scope="module")
def reference(request: pytest.FixtureRequest) -> Any:
    """The reference solution of this exercise, imported in the grader (it is trusted code);
    with --record-expected / --replay-expected, its calls go through the recording."""
    node = _exercise_module(request)
    path = course_config.ROOT / "reference" / node.lesson.folder / f"{node.exercise.slug}.py"

    def load() -> ModuleType:
        spec = importlib.util.spec_from_file_location(f"reference_{node.lesson.folder}_{node.exercise.slug}", path)
        assert spec is not None and spec.loader is not None, f"no reference at {path}"
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return reference_for(node.exercise.slug, load)


@pytest.fixture(scope="module")
def exercise(request: pytest.FixtureRequest) -> course_config.Exercise:
    """This exercise as its manifest declares it: its seeds and tolerances."""
    return _exercise_module(request).exercise


@pytest.fixture(scope="session")
def plots_folder(request: pytest.FixtureRequest) -> Path:
    """Where a failing check writes a plot (--plots DIR); the check creates the folder when it writes."""
    return _session(request).plots


def _names_exercises(config: pytest.Config) -> bool:
    """Whether this run's paths hold exercises (else it runs the project's own tests)."""
    start = Path(config.invocation_params.dir)
    for arg in config.args:
        path = (start / arg.split("::")[0]).resolve()
        if "exercises" in path.parts or (path / "exercises").is_dir() or path.parent.name == "exercises":
            return True
    return False

