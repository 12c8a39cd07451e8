"""The kernel's side of the grading process (server.py): start it, send it one exercise,
wait at most the exercise's time budget, read the JSON result the plugin wrote.

Two set-ups, one protocol. The instructor's (autograde with the course package
installed): the installed plugin, every check, the live reference. The student's: the
bundle's copy of the plugin, public checks only, expected values replayed from
expected.json, and no other pytest plugin loaded.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

EXPECTED_FILE = "expected.json"
EXIT_ZYGOTE_GONE = 70  # graders.engine.session's: the session stopped with no result, its zygote gone
INI_FILE = "pytest.ini"
BUNDLE_PLUGIN = "nbchecks.frontends.pytest_plugin"


class GradingServer:
    """One grading process for one notebook, started on first use."""

    def __init__(self, bundle: Path, instructor_root: Path | None, require_confinement: bool = True) -> None:
        self.bundle = bundle.resolve()
        self.root = instructor_root  # None: the student's set-up, from the bundle
        self.require_confinement = require_confinement and instructor_root is not None
        self.scratch = Path(tempfile.mkdtemp(prefix="nbchecks-"))
        self.process: subprocess.Popen | None = None
        self.count = 0
        atexit.register(self.close)  # a kernel exits without collecting its objects

    def __repr__(self) -> str:
        return f"<GradingServer {'instructor' if self.root else 'student'} pid={self.process and self.process.pid}>"

    def grade(self, lesson: str, slug: str, source: str, seconds: float,
              submission_seconds: float | None = None) -> tuple[dict | None, str]:
        """The result model of one exercise's checks, or None and why not; `submission_seconds`
        is what the notebook's code may still take, every exercise together."""
        self.count += 1
        folder = self.scratch / f"{self.count}-{slug}"
        (folder / "submission" / lesson).mkdir(parents=True)
        (folder / "submission" / lesson / f"{slug}.py").write_text(source, encoding="utf-8")
        result = folder / "result.json"
        args = self.pytest_args(lesson, slug, folder / "submission", result, folder / "plots")
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
        return json.loads(result.read_text(encoding="utf-8")), ""

    def _ask(self, args: list[str], seconds: float) -> tuple[str, bool]:
        """Send one session's arguments; its answer line ("" if the process ended) and whether one came in time."""
        process = self._process()
        try:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps({"args": args}) + "\n")
            process.stdin.flush()
            ready = bool(select.select([process.stdout], [], [], seconds)[0])
            return (process.stdout.readline() if ready else ""), ready
        except (OSError, AssertionError):
            return "", True

    def pytest_args(self, lesson: str, slug: str, submission: Path, result: Path, plots: Path) -> list[str]:
        # pytest's unraisable-exception plugin runs gc.collect() five times at the end of every
        # session: a second with torch loaded, for each test cell. It changes no verdict.
        common = ["--submission", str(submission), "--json", str(result), "--plots", str(plots), "--answer-cells",
                  "-p", "no:cacheprovider", "-p", "no:unraisableexception", "-q"]
        if self.root is not None:  # one session per exercise: let the first draw every generated input
            strict = ["--require-confinement"] if self.require_confinement else []
            # Autograde computes its expected values as nbgrader would, writing nothing outside the course.
            return [str(self.root / "exercises" / lesson / f"{slug}.py"), "--draw-ahead", "--no-expected-cache",
                    *strict, *common]
        return [str(self.bundle / "exercises" / lesson / f"{slug}.py"), "-c", str(self.bundle / INI_FILE),
                "--rootdir", str(self.bundle), "-p", BUNDLE_PLUGIN,
                "--replay-expected", str(self.bundle / EXPECTED_FILE), *common]

    def command(self) -> tuple[list[str], dict[str, str]]:
        paths = [] if self.root is not None else [str(self.bundle.parent), str(self.bundle)]
        env = dict(os.environ)
        if self.root is None:
            # The student's copy of the plugin must be the only one: an installed `graders`
            # would register the same options twice.
            env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
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
        time (not `graceful`), is killed with its whole group."""
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
