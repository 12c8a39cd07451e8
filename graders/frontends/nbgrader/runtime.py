"""What the notebook's cells call: the `%%answer` cell magic and `check(slug)`.

A test cell never trusts the kernel. `check` takes the answer cell's *source*, writes it
as `<lesson>/<slug>.py` and grades it with the real pytest plugin in a separate grading
process (sandboxed workers, per-call time limits), then prints the feedback to stdout and
returns the points earned, the number nbgrader records.

Under `nbgrader autograde` no student cell runs in the kernel at all: the build's
nbgrader_config.py empties every cell but the setup and test cells before execution
(preprocessors.py) and starts the kernel isolated from the notebook's folder (kernel.py);
the test cells read the answers from the notebook file on disk. A test cell that finds
either step missing grades nothing and says so. Students (no `graders` package) get the
public checks replayed against recorded values; autograde (the package installed) runs
every check against the live reference.

This file is copied into each student bundle, so it imports only the standard library
(and IPython, which a kernel has): a test cell does not import torch.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import linecache
import os
import stat
import sys
import warnings
from pathlib import Path
from typing import Any

from .grading_server import GradingServer
from .report import print_feedback, show_plots

BUNDLE = Path(__file__).resolve().parent  # the nbchecks/ folder beside the notebook
MAGIC = "answer"
SETUP_PREFIX = "# Setup: run this cell first. It loads the checks that the test cells run.\n"
SETUP_CELL = (
    SETUP_PREFIX + "from nbchecks import runtime\n"
    "autograder = runtime.start({lesson!r}, notebook={notebook!r}, exercises={points!r}, "
    "exercise_seconds={seconds!r}, submission_seconds={submission_seconds!r})"
)
BLANKED_ENV = "GRADERS_STUDENT_CELLS_BLANKED"  # set by preprocessors.BlankStudentCells for the kernel
ALLOW_UNCONFINED_ENV = "GRADERS_ALLOW_UNCONFINED"  # "1": grade even where the sandbox cannot fully hold
ISOLATED_KERNEL = False  # set by kernel.py, the kernel the build's nbgrader_config.py makes autograde use
TEST_CELL = (
    "# Run this cell to check your answer above (the same checks as `pytest exercises/`).\n"
    "autograder.check({slug!r})"
)
MISSING_MAGIC = ("The answer cell for {slug} has not been run, or lost its first line. It must begin with\n"
                 "    %%answer {slug}\n"
                 "Put that line back at the top of the answer cell, run the cell, then run this cell again.")
NOT_IN_NOTEBOOK = "No answer cell for {slug} was found in {notebook}: was it deleted? This exercise scores 0."
NO_RESULT = ("The grader produced no result for {slug} (an internal error, not your fault; please tell "
             "your instructor). {detail}")
TOO_SLOW = ("Grading {slug} took longer than {seconds:g} s in total, so it was stopped: does your code "
            "loop forever or do far more work than it needs? This exercise scores 0.")
UNSAFE_AUTOGRADE = ("INSTRUCTOR: this notebook was not graded: autograde ran {problem}, so student code could "
                    "have run in the kernel. Build the course again (python -m graders nbgrader build) so that "
                    "nbgrader_config.py has the autograder's preprocessors and kernel, then autograde again.")
NO_HIDDEN = ("INSTRUCTOR: the graders package is not importable in this kernel, so only the public checks "
             "ran; install the course package where autograde runs.")


def start(lesson: str, *, notebook: str, exercises: dict[str, float], exercise_seconds: float,
          submission_seconds: float | None = None) -> "Checks":
    """Called by the setup cell: register `%%answer` and, under autograde, the cell guard."""
    checks = Checks(lesson, notebook, exercises, exercise_seconds, submission_seconds)
    shell = _shell()
    if shell is not None:
        shell.register_magic_function(checks.answer_magic, magic_kind="cell", magic_name=MAGIC)
        if checks.autograding:
            shell.input_transformers_cleanup.insert(0, checks.guard)
    return checks


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


class Checks:
    """The notebook's answers so far, and the grading process that checks them."""

    def __init__(self, lesson: str, notebook: str, exercises: dict[str, float], exercise_seconds: float,
                 submission_seconds: float | None = None) -> None:
        self.lesson = lesson
        self.notebook = Path(notebook).resolve()
        self.points = dict(exercises)
        self.exercise_seconds = float(exercise_seconds)
        self.submission_seconds = submission_seconds  # what the notebook's code may take in all, every exercise
        self.spent = 0.0  # what it has taken so far, by the results of the exercises graded
        self.autograding = os.environ.get("NBGRADER_EXECUTION") == "autograde"
        self.instructor = self.autograding and _installed_root() is not None
        self.sources: dict[str, str] = {}
        self.allowed = {TEST_CELL.format(slug=slug).strip() for slug in self.points}
        self.server: GradingServer | None = None
        self.together: dict[str, Any] | None = None  # under autograde: every exercise's result, from one session

    def __repr__(self) -> str:
        mode = "all checks, live reference" if self.instructor else "public checks, recorded values"
        return f"<autograder for {self.lesson}: {len(self.points)} exercises, {mode}>"

    # ------------------------------------------------------------ kernel side

    def answer_magic(self, line: str, cell: str) -> None:
        """`%%answer slug`: keep the cell's source for grading; run it, except under autograde."""
        slug = line.strip()
        if slug not in self.points:
            print(f"%%answer {slug}: unknown exercise; this notebook has: {', '.join(self.points)}")
            return
        self.sources[slug] = cell
        if self.autograding:
            return  # graded from its source in a worker, never run here
        shell = _shell()
        filename = f"<answer {slug}>"
        # Tracebacks from the student's functions then show their lines.
        linecache.cache[filename] = (len(cell), None, cell.splitlines(True), filename)
        exec(compile(cell, filename, "exec"), shell.user_ns if shell is not None else {})

    def guard(self, lines: list[str]) -> list[str]:
        """Under autograde, the kernel runs only our test cells; any other cell becomes empty."""
        return lines if "".join(lines).strip() in self.allowed else []

    # ------------------------------------------------------------ grading

    def check(self, slug: str) -> float:
        """Grade one exercise in the grading process, print its feedback, return its points."""
        # nbgrader scores 0 a cell that writes to stderr: keep every byte of this cell on stdout.
        with contextlib.redirect_stderr(sys.stdout), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self._check(slug)

    def _check(self, slug: str) -> float:
        if slug not in self.points:
            print(f"unknown exercise {slug!r}; this notebook has: {', '.join(self.points)}")
            return 0.0
        source = self._source(slug)
        if source is None:
            return 0.0
        if self.autograding and not self.instructor:
            print(NO_HIDDEN)
        problem = self._unsafe_autograde()
        if problem:
            print(UNSAFE_AUTOGRADE.format(problem=problem))
            return 0.0
        exercise = self._graded_together(slug) if self.instructor else None
        if exercise is None:
            server = self._server()
            left = None if self.submission_seconds is None else max(self.submission_seconds - self.spent, 0.001)
            result, detail = server.grade(self.lesson, slug, source, self.exercise_seconds, submission_seconds=left)
            if result is None:
                self.server = None  # it was stopped; the next exercise gets a fresh one
                if detail == "timeout":
                    print(TOO_SLOW.format(slug=slug, seconds=self.exercise_seconds))
                else:
                    print(NO_RESULT.format(slug=slug, detail=detail))
                return 0.0
            exercise = result.exercise(slug)
            if exercise is None:
                print(NO_RESULT.format(slug=slug, detail=detail))
                return 0.0
        self.spent += exercise.seconds
        print_feedback(exercise, public_only=not self.instructor)
        show_plots(exercise)
        if os.environ.get("NBGRADER_EXECUTION") == "validate":
            return self._validated(exercise, slug)
        return round(min(exercise.score, self.points[slug]), 6)

    def _graded_together(self, slug: str) -> Any:
        """Under autograde every answer is on disk from the start, so the first test cell grades them all in one
        session of the run's grading process (pytest starts once, not once per exercise, as in a batch) and each
        test cell shows its own part. None where that did not happen (no such process, or the session took too long:
        grading_server.SHARED_SESSION_SECONDS); the cell then grades its exercise alone, as before. Typed `Any`: an
        ExerciseResult of the engine's result model, which this file (copied into the bundle) finds at run time."""
        if self.together is None:
            cells = _code_cells(self.notebook)  # the file read once, for every answer
            sources = {each: _answer_in(cells, each) for each in self.points}
            found = {each: source for each, source in sources.items() if source is not None}
            self.together = self._server().grade_together(self.lesson, found, self.exercise_seconds,
                                                          submission_seconds=self.submission_seconds)
        return self.together.get(slug)

    def _validated(self, exercise: Any, slug: str) -> float:
        """What `nbgrader validate` (the students' Validate button) is told: the cell's full points
        when every check that ran passed, else that share of them. Only the public checks run
        there, so returning their points alone would fail every correct notebook; nothing of
        validate is recorded, so this never reaches a grade."""
        ran = exercise.max_score
        share = exercise.score / ran if ran else 0.0
        return round(min(share, 1.0) * self.points[slug], 6)

    def _unsafe_autograde(self) -> str:
        """Under autograde, why the kernel may have run student code ('' when it cannot have)."""
        if not self.autograding:
            return ""
        if os.environ.get(BLANKED_ENV) != "1":
            return "without emptying the student's cells first (the BlankStudentCells preprocessor)"
        if not ISOLATED_KERNEL:
            return "in a kernel that imports files from the notebook's folder (not the graders-autograde kernel)"
        return ""

    def _source(self, slug: str) -> str | None:
        if not self.autograding:
            if slug not in self.sources:
                print(MISSING_MAGIC.format(slug=slug))
            return self.sources.get(slug)
        # Autograde: the notebook on disk is the sanitized submission nbgrader is executing.
        source = _answer_on_disk(self.notebook, slug)
        if source is None:
            print(NOT_IN_NOTEBOOK.format(slug=slug, notebook=self.notebook.name))
        return source

    def _server(self) -> GradingServer:
        if self.server is None:
            self.server = GradingServer(BUNDLE, _installed_root() if self.instructor else None,
                                        require_confinement=os.environ.get(ALLOW_UNCONFINED_ENV) != "1")
        return self.server


def _installed_root() -> Path | None:
    """The project folder of the installed course package (with exercises/), if any.

    Looked up without the working folder: under autograde that is the student's submission,
    and a submitted `graders/` or `course_config.py` must not pass for the real ones."""
    here = Path.cwd().resolve()
    saved = sys.path[:]
    try:
        # An editable install answers through its own finder, so filter sys.path, not finders.
        sys.path[:] = [p for p in saved if p and Path(p).resolve() not in (here, BUNDLE.parent)]
        found = [importlib.util.find_spec(name) for name in ("graders", "course_config")]
    except (ImportError, ValueError):
        return None
    finally:
        sys.path[:] = saved
    if found[0] is None or found[1] is None or found[1].origin is None:
        return None
    root = Path(found[1].origin).resolve().parent
    inside_submission = root == here or here in root.parents or root == BUNDLE.parent
    return root if (root / "exercises").is_dir() and not inside_submission else None


NOTEBOOK_BYTES = 16 * 2**20  # more is no notebook of answers (graders/frontends/grade/intake/handed_in.py caps the same)


def _cells(notebook: Path) -> list[dict]:
    """The notebook's cells, read as a regular file only: never through a link, never more than
    NOTEBOOK_BYTES (`nbgrader check` sets links aside before autograde; this is the wall behind it)."""
    try:
        handle = os.open(notebook, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(handle, "rb") as opened:
            if not stat.S_ISREG(os.fstat(opened.fileno()).st_mode):
                return []
            data = opened.read(NOTEBOOK_BYTES + 1)
        if len(data) > NOTEBOOK_BYTES:
            return []
        cells = json.loads(data.decode("utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [c for c in cells if isinstance(c, dict)] if isinstance(cells, list) else []


def _source_of(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _answer_on_disk(notebook: Path, slug: str) -> str | None:
    """The answer cell nbgrader knows by its grade_id; else the cell that says `%%answer slug`. Of copies, the last:
    the one the student wrote most recently, as `nbgrader check` and the batch's reader keep."""
    return _answer_in(_code_cells(notebook), slug)


def _code_cells(notebook: Path) -> list[dict]:
    """The notebook's code cells, the last first."""
    return [c for c in _cells(notebook) if c.get("cell_type") == "code"][::-1]


def _answer_in(cells: list[dict], slug: str) -> str | None:
    """_answer_on_disk's answer, from the code cells `_code_cells` read."""
    for cell in cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == f"answer-{slug}":
            return strip_magic(_source_of(cell))
    for cell in cells:
        if _source_of(cell).lstrip().split("\n", 1)[0].split() == [f"%%{MAGIC}", slug]:
            return strip_magic(_source_of(cell))
    return None


def strip_magic(source: str) -> str:
    """The answer's Python source: the cell with its `%%answer` line (and any blank lines above it)
    left empty, so that a line number in feedback is the line's number in the cell."""
    blank_above = len(source) - len(source.lstrip())
    head, newline, rest = source[blank_above:].partition("\n")
    if not head.startswith(f"%%{MAGIC}"):
        return source
    return "\n" * (source[:blank_above].count("\n") + len(newline)) + rest
