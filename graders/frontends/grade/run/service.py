"""A grading service: one clean process that grades one submission after another, for a Dask worker.

The worker's plugin (dask_worker.py) starts one per thread of the worker, never forked from the Dask
worker itself: that worker is daemonic and multi-threaded, and its memory holds every answer it was
sent. On the machine of `python -m graders grade` the service is forked from the batch's template
(template.py: a process that has imported torch, pytest and matplotlib and nothing of the grading);
elsewhere it is started afresh, `python -m graders.frontends.grade.run.service LOG` with `subprocess`.
Neither holds an answer. Before it reads any request, the service imports torch (the template's copy
has it already) and forks its zygote from itself (graders/sandbox/zygote.py: it holds nothing a worker
may not see yet), so every worker of every student it grades is a copy of that clean moment. Only then
does it load the course: the plugin, course_config and the checks.

Requests come one per line on stdin, as JSON; each reply is one JSON line on the stdout it was
started with (pytest's own output goes to LOG):

    {"op": "hello"}                      -> the course's digest, what the sandbox holds here
    {"op": "reference", "lesson", "slugs"}
                                         -> pytest's exit status, the reference's expected values for these exercises
    {"op": "grade", "student", "lesson", "slugs", "sources": {slug: text}, "modules": {name: text}, "expected": PATH,
     "allow_unconfined"}                 -> pytest's exit status, the JSON result, and the feedback's plots as base64

A student's answers are written to a scratch folder of their own and removed after grading.

In LOG, after the service's own first line (`graders: a grading service starts (pid N)`), each
request's block begins with a line naming whose it is, `graders: grading student 'ann' (lesson01:
every exercise)` (the reference's: `graders: grading the reference (...)`), and ends with one giving
pytest's exit status; each failure pytest lists there is headed by the student and the exercise too.
Ids are written with repr(): an id that holds a newline cannot begin a line of its own.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import gc
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

from graders.sandbox import die_with_parent

# Set on a worker machine by the instructor only, to see what a batch does where the sandbox cannot fully
# hold (the tests): the steps of --sandbox-without this service leaves out. Never for grading.
LEAVE_OUT_VARIABLE = "GRADERS_TEST_SANDBOX_WITHOUT"
DRAW_VARIABLE = "GRADERS_SERVICE_DRAWS"  # set by dask_worker.py: "lesson/slug,..." to draw while torch loads


def main(log: str) -> None:
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    handle = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(handle, 1)
    os.dup2(handle, 2)
    _log(f"graders: a grading service starts (pid {os.getpid()})")  # what it says before any request is its own
    die_with_parent()  # dies with its Dask worker, even by kill -9
    draws = [tuple(item.split("/", 1)) for item in os.environ.pop(DRAW_VARIABLE, "").split(",") if "/" in item]
    if draws:  # the reference's generated inputs, drawn by a helper while torch loads (graders/engine/drawing.py)
        from graders.engine import drawing

        drawing.DRAWER.start(draws)
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as score:
        score.write("0")  # never the batch's protection from the OOM killer (its workers raise theirs to 1000)
    import torch

    from graders.sandbox import ZYGOTE

    ZYGOTE.start(fork=True)  # nothing of the grading is loaded yet: the zygote is a copy of this moment
    torch.set_num_threads(1)  # one service per thread of a Dask worker: one thread each
    # Each submission's pytest run makes some hundred thousand objects, and collecting the young ones every 700
    # allocations took 5.5% of a service's CPU (0.69 s for 29 students; 0.46 s collecting every 10,000).
    gc.set_threshold(10_000, 10, 10)
    Service(os.environ.get(LEAVE_OUT_VARIABLE, "")).serve(sys.stdin, replies)
    ZYGOTE.close()  # waits while the zygote removes its workers' cgroups (a service forked by the template ends
    # with os._exit, which runs no atexit)


class Service:
    def __init__(self, leave_out: str) -> None:
        import pytest  # noqa: F401 - loaded once, before the first request
        import course_config
        from graders.engine import plots
        from graders import sandbox
        from graders.sandbox import make_scratch
        from graders.frontends.grade.store import course_digest
        import graders.engine.session  # noqa: F401
        from graders.frontends import pytest_plugin

        # The plugin is handed to pytest, not found: finding installed plugins (or one named with -p) reads every
        # package's entry points, 13 ms a submission, and the project's pytest settings leave out all but ours.
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        self.plugin = pytest_plugin
        self.only_checks = _only_checks()
        self.course = course_config
        self.digest = course_digest()
        self.leave_out = leave_out
        self.plan = sandbox.plan(frozenset(s for s in leave_out.split(",") if s))
        for lesson in course_config.LESSONS:  # the checks, collected by every request
            for exercise in lesson.exercises:
                __import__(f"graders.{lesson.folder}.{exercise.slug}.checks")
        plots.warm_up()
        from graders.engine.session import EXIT_ZYGOTE_GONE

        self.zygote_gone = EXIT_ZYGOTE_GONE
        self.scratch = make_scratch("graders-service")  # a killed service's folder is cleared by the next one

    def serve(self, requests: TextIO, replies: TextIO) -> None:
        for line in requests:
            request = json.loads(line)
            reply = getattr(self, f"_{request['op']}")(request)
            replies.write(json.dumps(reply) + "\n")
            replies.flush()
            if reply.get("exit") == self.zygote_gone:  # no zygote, no worker: a fresh service is started
                break
        shutil.rmtree(self.scratch, ignore_errors=True)

    def _hello(self, request: dict[str, Any]) -> dict[str, Any]:
        from graders.engine.sandbox_words import confinement_summary, gap_words  # loaded after the zygote started

        return {"course": self.digest, "confined": self.plan.confined, "missing": gap_words(self.plan),
                "summary": confinement_summary(self.plan)}

    def _reference(self, request: dict[str, Any]) -> dict[str, Any]:
        import pytest

        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        cache = folder / "expected.json"
        os.chdir(folder)
        whose = "the reference"
        _log(f"graders: grading {whose} ({self._exercises(request['lesson'], request['slugs'])})")
        code = int(pytest.main([*self._targets(request["lesson"], request["slugs"]),
                                "--submission", str(self.course.ROOT / "reference"), "--expected-cache", str(cache),
                                "-q", "-p", "no:cacheprovider", "--plots", str(folder / "plots")],
                               plugins=[self.plugin, _failures_named(whose)]))
        _log(f"graders: done with {whose} (pytest's exit status {code})")
        try:
            values = json.loads(cache.read_text())
        except (OSError, ValueError):
            values = None
        os.chdir(self.scratch)
        shutil.rmtree(folder, ignore_errors=True)
        return {"exit": code, "values": values}

    def _grade(self, request: dict[str, Any]) -> dict[str, Any]:
        import pytest

        lesson = request["lesson"]
        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        (folder / lesson).mkdir()
        for slug, source in request["sources"].items():
            (folder / lesson / f"{slug}.py").write_text(source, encoding="utf-8")
        for name, source in request.get("modules", {}).items():  # the student's own modules, beside the answers
            if name.isidentifier() and name not in request["sources"]:  # a module's name, never a path
                (folder / lesson / f"{name}.py").write_text(source, encoding="utf-8")
        result, plots = folder / "result.json", folder / "plots"
        # pytest's per-check machinery that a service has no use for, paid ~110 times a submission: capturing the
        # grader's own output (it goes to the log either way; the student's comes from the workers), log capture
        # and the faulthandler (the service's deadline is the Dask task's).
        options = ["-p", "no:cacheprovider", "-p", "no:unraisableexception", "-p", "no:logging", "-p",
                   "no:faulthandler", "--capture=no", "-q", "--expected-cache", request["expected"]]
        if not request.get("allow_unconfined"):
            options.append("--require-confinement")
        if self.leave_out:
            options += ["--sandbox-without", self.leave_out]
        os.chdir(folder)  # the messages name the student's files relative to it
        whose = f"student {request['student']!r}"
        _log(f"graders: grading {whose} ({self._exercises(lesson, request['slugs'])})")
        code = int(pytest.main([*self._targets(lesson, request["slugs"]), "--submission", str(folder),
                                "--json", str(result), "--plots", str(plots), *options],
                               plugins=[self.plugin, _failures_named(whose), self.only_checks]))
        _log(f"graders: done with {whose} (pytest's exit status {code})")
        try:
            graded = json.loads(result.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            graded = None
        if code == self.zygote_gone:  # some answers are missing: no result, and a fresh service grades them again
            graded = None
        files = {}
        for path in plots.rglob("*") if plots.is_dir() else ():
            if path.is_file() and not path.is_symlink():
                files[str(path)] = base64.b64encode(path.read_bytes()).decode()
        os.chdir(self.scratch)
        shutil.rmtree(folder, ignore_errors=True)
        return {"exit": code, "result": graded, "files": files}

    def _exercises(self, lesson: str, slugs: list[str]) -> str:
        """The exercises of a request, for its block's first line: `lesson01: every exercise`, `lesson01/views`."""
        chosen = next(l for l in self.course.LESSONS if l.folder == lesson)
        named = [e.slug for e in chosen.exercises if e.slug in slugs]
        if len(named) == len(chosen.exercises):
            return f"{lesson}: every exercise"
        return f"{lesson}/{named[0]}" if len(named) == 1 else f"{lesson}: {', '.join(named)}"

    def _targets(self, lesson: str, slugs: list[str]) -> list[str]:
        chosen = next(l for l in self.course.LESSONS if l.folder == lesson)
        return [str(self.course.ROOT / "exercises" / lesson / f"{e.slug}.py") for e in chosen.exercises
                if e.slug in slugs]


def _log(line: str) -> None:
    """One line of the log (this process's stdout, where pytest writes too)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _only_checks() -> object:
    """A pytest plugin for collection: it looks at the checks' own names only (pytest's default test_* and Test*,
    which the course keeps). A checks module holds some 90 names, helpers and imports, that pytest would otherwise
    weigh one by one for every submission."""
    import pytest

    class OnlyChecks:
        @pytest.hookimpl(tryfirst=True)
        def pytest_pycollect_makeitem(self, collector: Any, name: str, obj: object) -> list | None:
            return None if name.startswith(("test", "Test")) else []  # []: nothing here, and no one else asked

    return OnlyChecks()


def _failures_named(whose: str) -> object:
    """A pytest plugin for one request: each failure pytest lists in the log is headed by whose it is and the
    exercise, `test_autograd: student 'ann', exercise quick_check`, not by the check's name alone."""
    import pytest

    class FailuresNamed:
        @pytest.hookimpl(wrapper=True, tryfirst=True)
        def pytest_terminal_summary(self, terminalreporter: Any) -> Any:
            # pytest heads each failure with its report's location[2]: copies are listed, the reports stay as they are.
            listed = {kind: terminalreporter.stats.get(kind, []) for kind in ("failed", "error")}
            for kind, reports in listed.items():
                if reports:
                    terminalreporter.stats[kind] = [_named(report, whose) for report in reports]
            try:
                return (yield)
            finally:
                for kind, reports in listed.items():
                    if reports:
                        terminalreporter.stats[kind] = reports

    return FailuresNamed()


def _named(report: Any, whose: str) -> Any:
    location = getattr(report, "location", None)
    if not location:
        return report
    path, line, name = location
    named = copy.copy(report)
    try:
        named.location = (path, line, f"{name}: {whose}, exercise {_exercise(report.nodeid)}")
    except AttributeError:  # a collection error's location is not its own to set: it names the file already
        return report
    return named


def _exercise(nodeid: str) -> str:
    """The exercise of a check's node id, `.../exercises/lesson01/views.py::test_as_grid` (its location names the
    checks module)."""
    return PurePosixPath(nodeid.split("::", 1)[0]).stem


if __name__ == "__main__":
    main(sys.argv[1])
