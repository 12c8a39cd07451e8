"""The kernel's side of the grading process (server.py): start it, send it one exercise,
wait at most the exercise's time budget, read the JSON result the plugin wrote.

Two set-ups, one protocol. The instructor's (autograde with the course package
installed): the installed plugin, every check, the live reference. The student's: the
bundle's copy of the plugin, public checks only, expected values replayed from
expected.json, and no other pytest plugin loaded.

Under autograde the instructor's kernel uses the process nbgrader started for the whole run
(shared_server.py, found through SERVER_ENV) and starts its own only where there is none, or
after that one was stopped. There the reference is graded once for the whole run (per set of
exercises asked together), its expected values serve every student's session, and a notebook's
answers are graded in one session (`grade_together`).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

EXPECTED_FILE = "expected.json"
EXIT_ZYGOTE_GONE = 70  # graders.engine.session's: the session stopped with no result, its zygote gone
INI_FILE = "pytest.ini"
BUNDLE_PLUGIN = "nbchecks.frontends.pytest_plugin"
INSTALLED_PLUGIN = "graders.frontends.pytest_plugin"  # handed to the instructor's sessions, none other loaded
SERVER_ENV = "GRADERS_AUTOGRADE_SERVER"  # shared_server.py's: where the autograde run's grading process listens
# The longest wait for a session that only saves time in the run's process (the reference's, or a whole notebook's),
# and at most a third of an exercise's time: past it, the cell grades its exercise alone, and still within the
# limit nbgrader gives the cell (the exercise's time and a minute).
SHARED_SESSION_SECONDS = 20.0


def result_model() -> Any:
    """The engine's result model (graders/engine/results.py: SubmissionResult.read), or in a student bundle, where
    this file is nbchecks/grading_server.py, the bundle's copy of it (nbchecks.engine.results). Found by this
    module's package, as this file is copied into the bundle as it is and imports nothing of `graders` by name;
    the model's module imports the standard library only, so a test cell loads no more of the engine."""
    return importlib.import_module(f"{(__package__ or '').partition('.')[0]}.engine.results")


class GradingServer:
    """One grading process for one notebook, started on first use."""

    def __init__(self, bundle: Path, instructor_root: Path | None, require_confinement: bool = True) -> None:
        self.bundle = bundle.resolve()
        self.root = instructor_root  # None: the student's set-up, from the bundle
        self.require_confinement = require_confinement and instructor_root is not None
        self.scratch = Path(tempfile.mkdtemp(prefix="nbchecks-"))
        self.process: subprocess.Popen | None = None
        self.shared = _shared_address() if instructor_root is not None else None
        self.connection: tuple[socket.socket, IO[str], IO[str]] | None = None
        self.count = 0
        atexit.register(self.close)  # a kernel exits without collecting its objects

    def __repr__(self) -> str:
        whose = "the autograde run's" if self.shared else "its own"
        return f"<GradingServer {'instructor' if self.root else 'student'}, {whose} process>"

    def grade(self, lesson: str, slug: str, source: str, seconds: float,
              submission_seconds: float | None = None) -> tuple[Any, str]:
        """The result model of one exercise's checks (a SubmissionResult), or None and why not;
        `submission_seconds` is what the notebook's code may still take, every exercise together."""
        folder = self._submission(lesson, {slug: source})
        result = folder / "result.json"
        expected = self._reference_values(lesson, [slug], _saving_only(seconds))
        args = self.pytest_args(lesson, [slug], folder / "submission", result, folder / "plots", expected)
        if submission_seconds is not None:
            args += ["--submission-seconds", f"{submission_seconds:.3f}"]
        for attempt in (1, 2):
            answer, ready = self._ask(args, seconds)
            if not ready:
                self.stop(graceful=False)
                return None, "timeout"
            if not answer:
                detail = self._log_errors()
                self.stop()
                return None, f"The grading process ended. {detail}"
            if json.loads(answer).get("exit") != EXIT_ZYGOTE_GONE or attempt == 2:
                break
            self.stop()  # its zygote died mid-session, so answers may be missing: a fresh process grades again
        if not result.is_file():
            return None, f"pytest exited with {json.loads(answer).get('exit')}. {self._log_errors()}"
        model = result_model()
        try:
            return model.SubmissionResult.read(result), ""
        except model.NotAResult as error:
            return None, str(error)

    def grade_together(self, lesson: str, sources: dict[str, str], seconds: float,
                       submission_seconds: float | None = None) -> dict[str, Any]:
        """Under autograde, in the run's process only: every answer of the notebook in one session (pytest's own
        start-up, paid once instead of once per exercise), as a batch grades a student. Each exercise's part of the
        result model, by slug; none (the cells then grade their exercises one by one) where there is no such process,
        the reference could not be graded, or the session did not end in time (it is then killed). `seconds` is one
        exercise's time limit."""
        if self.shared is None or self.root is None or not sources:
            return {}
        seconds = _saving_only(seconds)
        slugs = list(sources)
        expected = self._reference_values(lesson, slugs, seconds)
        if expected is None:
            return {}
        folder = self._submission(lesson, sources)
        args = self.pytest_args(lesson, slugs, folder / "submission", folder / "result.json", folder / "plots",
                                expected)
        if submission_seconds is not None:
            args += ["--submission-seconds", f"{submission_seconds:.3f}"]
        answer, ready = self._ask(args, seconds)
        if not ready or not answer or json.loads(answer).get("exit") == EXIT_ZYGOTE_GONE:
            self.stop(graceful=bool(answer))  # out of time: killed; gone or without its zygote: let go of
            return {}
        model = result_model()
        try:
            graded = model.SubmissionResult.read(folder / "result.json")
        except (OSError, model.NotAResult):
            return {}
        return {exercise.slug: exercise for exercise in graded.exercises}

    def _submission(self, lesson: str, sources: dict[str, str]) -> Path:
        """A folder of this kernel's scratch holding `submission/<lesson>/<slug>.py` for each answer."""
        self.count += 1
        folder = self.scratch / f"{self.count}-{'-'.join(sources) if len(sources) == 1 else 'notebook'}"
        (folder / "submission" / lesson).mkdir(parents=True)
        for slug, source in sources.items():
            (folder / "submission" / lesson / f"{slug}.py").write_text(source, encoding="utf-8")
        return folder

    def _reference_values(self, lesson: str, slugs: list[str], seconds: float) -> Path | None:
        """In the autograde run's process: the file of the reference's expected values for these exercises, graded
        once for the whole run (by the first notebook that needs them). None where there is no such process or the
        reference could not be graded: the session then computes them, as before."""
        if self.shared is None or self.root is None:
            return None
        which = hashlib.sha256(",".join(slugs).encode()).hexdigest()[:16]
        values = Path(str(self.shared["values"])) / f"{lesson}-{which}.json"
        if values.is_file():
            return values
        strict = ["--require-confinement"] if self.require_confinement else []
        folder = self.scratch / f"reference-{which}"
        answer, ready = self._ask([*_targets(self.root, lesson, slugs), "--submission", str(self.root / "reference"),
                                   "--expected-cache", str(values), "--plots", str(folder / "plots"), "-p",
                                   "no:cacheprovider", "-p", "no:unraisableexception", "-q", *strict], seconds)
        if not ready or not answer:
            self.stop(graceful=False)  # stuck or gone: this kernel goes on with a process of its own
            return None
        return values if values.is_file() else None

    def _ask(self, args: list[str], seconds: float) -> tuple[str, bool]:
        """Send one session's arguments; its answer line ("" if the process ended) and whether one came in time."""
        plugins = [INSTALLED_PLUGIN] if self.root is not None else []
        request = json.dumps({"args": args, "log": str(self.scratch / "pytest.log"), "plugins": plugins}) + "\n"
        try:
            send, receive = self._channel()
            send.write(request)
            send.flush()
            ready = bool(select.select([receive], [], [], seconds)[0])
            return (receive.readline() if ready else ""), ready
        except (OSError, AssertionError, ValueError):
            return "", True

    def _channel(self) -> tuple[IO[str], IO[str]]:
        """Where requests go and answers come from: the autograde run's process, if it is there, else our own."""
        if self.shared is not None and self.connection is None:
            link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                link.connect(str(self.shared["socket"]))
                self.connection = (link, link.makefile("w", encoding="utf-8"), link.makefile("r", encoding="utf-8"))
            except OSError:
                link.close()
                self.shared = None  # gone (killed after a timeout): start one of our own
        if self.connection is not None:
            return self.connection[1], self.connection[2]
        process = self._process()
        assert process.stdin is not None and process.stdout is not None
        return process.stdin, process.stdout

    def pytest_args(self, lesson: str, slugs: list[str], submission: Path, result: Path, plots: Path,
                    expected: Path | None = None) -> list[str]:
        # pytest's unraisable-exception plugin runs gc.collect() five times at the end of every
        # session: a second with torch loaded, for each test cell. It changes no verdict.
        common = ["--submission", str(submission), "--json", str(result), "--plots", str(plots), "--answer-cells",
                  "-p", "no:cacheprovider", "-p", "no:unraisableexception", "-q"]
        if self.root is not None:
            strict = ["--require-confinement"] if self.require_confinement else []
            targets = _targets(self.root, lesson, slugs)
            if expected is not None:  # the reference's values, graded once for the run (nothing is drawn again)
                return [*targets, "--expected-cache", str(expected), *strict, *common]
            # Computed in this session, as nbgrader would, writing nothing outside the course; one session per
            # exercise, so the first draws every generated input for the others.
            return [*targets, "--draw-ahead", "--no-expected-cache", *strict, *common]
        return [*_targets(self.bundle, lesson, slugs), "-c", str(self.bundle / INI_FILE), "--rootdir", str(self.bundle),
                "-p", BUNDLE_PLUGIN, "--replay-expected", str(self.bundle / EXPECTED_FILE), *common]

    def command(self) -> tuple[list[str], dict[str, str]]:
        paths = [] if self.root is not None else [str(self.bundle.parent), str(self.bundle)]
        # The student's copy of the plugin must be the only one (an installed `graders` would register the same
        # options twice); the instructor's is handed to each session (INSTALLED_PLUGIN), so none is looked up.
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        command = [sys.executable, "-I", str(self.bundle / "server.py"), str(self.scratch / "pytest.log"), *paths]
        return command, env

    def _process(self) -> subprocess.Popen:
        if self.process is None or self.process.poll() is not None:
            command, env = self.command()
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, cwd=self.scratch, env=env,
                                            text=True, start_new_session=True)
        return self.process

    def _log_errors(self) -> str:
        try:
            lines = (self.scratch / "pytest.log").read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        # Only error summaries: a traceback could quote the hidden checks' code.
        return " ".join(line for line in lines if line.startswith(("ERROR", "E   ")))[-800:]

    def stop(self, graceful: bool = True) -> None:
        """End the grading process: told by its closed stdin, it ends and stops its zygote cleanly (the zygote
        removes its workers' cgroups); one that does not within a few seconds, or a session that ran out of
        time (not `graceful`), is killed with its whole group. The autograde run's process is only let go of,
        unless it ran out of time: then it is killed too (nbgrader starts another for the next notebook), and this
        kernel starts one of its own."""
        if self.connection is not None:
            for part in reversed(self.connection):
                with contextlib.suppress(OSError):
                    part.close()
            self.connection = None
            if not graceful and self.shared is not None:
                with contextlib.suppress(OSError):
                    os.killpg(int(self.shared["pid"]), signal.SIGKILL)  # the process, its zygote and workers
        self.shared = None
        if self.process is not None:
            with contextlib.suppress(OSError):
                if self.process.stdin is not None:
                    self.process.stdin.close()
            try:
                self.process.wait(timeout=3.0 if graceful else 0.0)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(self.process.pid, signal.SIGKILL)  # the server, its zygote and workers
                self.process.wait()
            self.process = None

    def close(self) -> None:
        """Stop the process and delete the answers and logs it was given."""
        self.stop()
        shutil.rmtree(self.scratch, ignore_errors=True)


def _targets(root: Path, lesson: str, slugs: list[str]) -> list[str]:
    """pytest's arguments for these exercises' checks: `<root>/exercises/<lesson>/<slug>.py`."""
    return [str(root / "exercises" / lesson / f"{slug}.py") for slug in slugs]


def _saving_only(seconds: float) -> float:
    """How long to wait for a session of the run's process that only saves time (SHARED_SESSION_SECONDS)."""
    return min(seconds / 3, SHARED_SESSION_SECONDS)


def _shared_address() -> dict | None:
    """Where the autograde run's grading process listens (shared_server.py), if nbgrader started one."""
    try:
        address = json.loads(os.environ.get(SERVER_ENV, ""))
    except ValueError:
        return None
    return address if isinstance(address, dict) and {"socket", "pid", "values"} <= set(address) else None
