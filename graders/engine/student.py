"""What a check holds to call a student's functions: the `student` fixture.

`student.call("f", x)` runs `f(x)` in the worker and gives back a `Returned` with the
value as plain data. Every way the call can go wrong (not written yet, a misspelled
name, an exception, an endless loop, a crash, an import that fails) becomes a standard
feedback message here, so the checks themselves only compare values.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn, Protocol

from graders.engine.allowance import SPENT_HINT, Allowance
from graders.engine.error_hints import hint_for, missing_module_hint
from graders.engine.feedback import CheckFailed, Feedback, cut, fail
from graders.engine.mistakes import ANY_EXERCISE, Mistake, contradiction
from graders.engine.printed import without_foreign_warnings
from graders.engine.sandbox_words import worded
from graders.engine.single_edits import DRIVER, NO_ANSWER, note_student_call
from graders.engine.source_evidence import SourceEvidence
from graders.sandbox import Budget, Confinement, Outcome, Status, StudentError
from graders.sandbox import TraceEvent, copy, pack

NOT_IMPLEMENTED = "`{function}` is not implemented yet: it still raises NotImplementedError."
NOT_IMPLEMENTED_HINT = "Replace the `raise NotImplementedError` in {file} with your own code."
MISSING = "`{function}` is not defined in {file}: did you rename it?"
MISSING_FILE = "{file} does not exist: the submission has no file for this exercise."
MISSING_FILE_HINT = "Copy the stub from exercises/ into the submission and complete it."
IMPORT_FAILED = "{file} could not be imported, so none of its functions could be checked."
TIMEOUT = "{call} did not return within {seconds:g} s and was stopped."
TIMEOUT_HINT = "Look for a loop that never ends (a `while` whose condition never becomes false)."
TIMED_OUT_BEFORE = "{call} was not run: the same code already ran out of time in an earlier check."
PRINTING_COSTS = 2**20  # characters printed past which a timeout's message blames the printing
PRINTED_TOO_MUCH = ("Your code printed {size} while it ran, and printing that much takes time: remove or thin out "
                    "the print() calls (print every 100th step, say) and it may well finish in time.")
DIED = "{call} did not come back: {detail}"
RAISED = "`{function}` raised {error}."
MISSING_IN_MODULE = re.compile(r"module '(?P<module>[^']+)' has no attribute '(?P<name>[^']+)'")
DEBUGGER = ("{call} stopped to wait for the keyboard (breakpoint(), pdb or input()): your code runs in a separate "
            "process with no keyboard while it is graded, so it cannot stop there.")
DEBUGGER_HINT = ("To debug, rerun with your code inside pytest, where breakpoint() works: "
                 "`pytest exercises/ -k {slug} --in-process -s`. Remove it (and any input()) before grading.")
# How a read of the keyboard fails in a worker: pytest's captured stdin, an empty one, or pdb quitting on it.
_KEYBOARD_ERRORS = re.compile(r"reading from stdin|EOF when reading a line|stdin")
OUT_OF_MEMORY = "{call} ran out of memory (the limit is {memory_mb} MiB beyond what torch itself uses)."
EXITED = "{call} tried to end the program with {message}."
EXITED_HINT = "A function gives its answer with `return`; remove the call to sys.exit() / exit()."
UNREADABLE = "{call} returned a value that could not be sent back to the grader ({detail})."
BROKEN = "{call} could not be graded: {detail}"
# The names a module imports at the start of a statement (`import helpers`, `from helpers import f`, `import a, b`):
# those that are files beside it are the student's own modules.
_IMPORTED = re.compile(r"^[ \t]*(?:from[ \t]+(\w+)[ \t]+import|import[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*))", re.MULTILINE)
_OWN_MODULES_READ = 20  # as many as the batch reads of one folder (grade/intake/sources.py)
_OWN_MODULE_BYTES = 2 * 2**20
UNCONFINED_HINT = ("Instructor: grade on a Linux machine with Landlock (kernel 5.13 or later) and seccomp, as root "
                   "or not, or pass --allow-unconfined to accept a weaker sandbox.")


class Backend(Protocol):
    """Where a `Student`'s module runs: a lease on the submission's worker (sandbox.shared.Lease), or the grader's
    own process (sandbox.InProcess). Every backend has all of it; nothing here asks which one it is."""

    shares_the_graders_process: bool  # student code in the grader's own process: nothing may run beside it
    # Seconds spent asking a fresh worker again what earlier checks asked (the grader's doing, not the student's
    # time): the student is charged a call's wait less what this grew by during it.
    replay_seconds: float
    confinement: Confinement | None  # what its worker said held before any student code ran; None: no worker yet

    def spawn(self) -> None:
        """Begin starting, ahead of the first request (a fork whose set-up overlaps the grading); may do nothing."""

    def start(self) -> Outcome:
        """Import the module: READY, or how the import failed."""

    def request(self, message: dict, seconds: float | None = None) -> Outcome: ...

    def probe(self, messages: list[dict], seconds: float) -> list[Outcome] | None:
        """Requests for an explanation only, in a worker of their own (None where there is none)."""

    def stop(self) -> None: ...

    @property
    def alive(self) -> bool: ...


@dataclass
class Returned:
    """A student's function came back with a value (or, when allowed, an exception)."""

    call: str  # how the call is shown in messages
    value: Any = None
    args: list | None = None  # the arguments as they were after the call (when asked for)
    error: StudentError | None = None
    trace: list[TraceEvent] = field(default_factory=list)
    output: str = ""
    output_dropped: int = 0
    seconds: float = 0.0

    def calls_to(self, *names: str) -> list[TraceEvent]:
        """Trace events whose torch name ends with one of `names` (e.g. "Tensor.backward")."""
        return [e for e in self.trace if any(e.name == n or e.name.endswith("." + n) for n in names)]


class Meanwhile:
    """An expected value that the grader computes while a worker runs a student's call (`Student.call`'s
    `meanwhile`). Where it costs about what the call costs (the reference's own training run), computing it only
    once the answer is back would leave one core idle while the worker runs and the other while the grader
    computes; a first run, which keeps no expected values yet, computes them all.

    It runs on a thread of the grader's while the grader's main thread waits for the answer exactly as without it:
    the call's time limit and the time charged to the student are the wait for the answer alone. Nothing else of
    the grader runs meanwhile (the main thread only sends and reads), and the thread is joined before the check goes
    on; torch's grad mode on that thread is the default one. What the computation raises is raised by `value`.
    `value` computes it on the spot where the call did not (it failed before it reached a worker, its answer was
    reused, or the student's code runs in-process, where nothing of the grader's may run beside it)."""

    def __init__(self, compute: Callable[[], Any]) -> None:
        self._compute = compute
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        try:
            self._value = self._compute()
        except BaseException as error:  # noqa: BLE001 - raised by `value`, in the check's own thread
            self._error = error
        self._done = True

    @contextlib.contextmanager
    def alongside(self) -> Iterator[None]:
        """Compute it on a thread of its own while the body runs (unless it is computed already), then wait for it."""
        if self._done:
            yield
            return
        self._thread = threading.Thread(target=self._run, name="meanwhile", daemon=True)
        self._thread.start()
        try:
            yield
        finally:
            self._thread.join()

    @property
    def value(self) -> Any:
        if self._thread is not None:
            self._thread.join()  # a join broken off by a second Ctrl-C: never two computations at once
        if not self._done:
            self._run()
        if self._error is not None:
            raise self._error
        return self._value


class Student:
    """One exercise module of one submission, imported lazily in a worker (or in-process)."""

    def __init__(self, module_path: Path, display_path: str, budget: Budget, mistakes: list[Mistake],
                 make_backend: Callable[[], Backend], section: str = "", allowance: Allowance | None = None,
                 frame_file: str = "") -> None:
        self.module_path = module_path
        self.frame_file = frame_file or module_path.name  # how an error's lines name the file: "answer cell" in a notebook
        self.allowance = allowance or Allowance(float("inf"), "this exercise", "exercise_seconds")
        self.display_path = display_path
        self.budget = budget
        self.mistakes = mistakes
        self.section = section
        self._make_backend = make_backend  # a lease on the submission's worker (sandbox.shared), or in-process
        self._backend: Backend | None = None
        # A module that is not there fails every check the same way, before any backend is made.
        self._import_failure: Feedback | None = None if module_path.is_file() else Feedback(
            MISSING_FILE.format(file=display_path), cause="missing file", hint=MISSING_FILE_HINT)
        self._timed_out: set[str] = set()
        self._public: list[str] = []  # the functions the student's module defines
        self._ready = False  # the backend has imported the module and answered "ready"
        self.confinements: list = []  # what each worker said held (sandbox.Confinement), before student code
        self.printed: list[str] = []  # what the student's print() calls wrote since the last take_printed()
        self._answers: dict[bytes, Outcome] = {}  # calls made with reuse=True, by their request
        self.written = 0  # characters the exercise's calls printed in all, as their workers said

    def run_defined(self, driver: Callable, function: str, *args: Any, shown_as: str, missing: str) -> Returned:
        """`run(driver, ...)` for a driver that answers `missing` where the student's module has no `function`:
        then the student gets the standard "not defined" message, as from a call of it."""
        __tracebackhide__ = True
        returned = self.run(driver, *args, shown_as=shown_as, runs=function)
        if type(returned.value) is str and returned.value == missing:
            self.call(function, shown_as=shown_as)
        return returned

    def call(self, function: str, *args: Any, shown_as: str | None = None, trace: bool = False,
             return_args: bool = False, allow_raise: bool = False, reuse: bool = False,
             meanwhile: Meanwhile | None = None, **kwargs: Any) -> Returned:
        """Run `function(*args, **kwargs)` from the student's module and return its value.

        `meanwhile`: an expected value to compute in the grader while the worker runs the call.

        `reuse`: the answer of the same call made earlier in this exercise with `reuse`, if there is one
        (a copy of it), instead of running it again: for a long run that several checks judge from
        different sides. Never for a call whose repeats are the point (does a second call agree?)."""
        __tracebackhide__ = True
        shown = shown_as or _default_call_text(function, args, kwargs)
        message = {"op": "call", "function": function, "args": list(args), "kwargs": kwargs,
                   "trace": trace, "return_args": return_args}
        returned = self._request(function, shown, message, allow_raise, reuse, meanwhile)
        if returned.error is None:  # paired with the reference's call on the same input (engine/single_edits.py)
            note_student_call(self.module_path, function, args, kwargs, returned.value, self.probe)
        return returned

    def probe(self, calls: list[tuple[str, tuple, dict]], seconds: float, each: bool = False) -> list[Any] | None:
        """The student's answers to `calls` (function, args, kwargs; a function `DRIVER` + name runs that driver),
        for an explanation or a diagnosis only: asked of a worker of their own that loads the module afresh and is
        stopped after them (the backend's `probe`), so that nothing of them reaches this check's verdict or a
        later one: not the checks' worker, its state or plan, the time allowance, the functions that ran out of
        time, what was printed. None where one of them gave no value (it raised, ran out of `seconds` in all, the
        worker could not be started) or the code runs in the grader's own process; with `each`, NO_ANSWER in the
        place of each call that gave none, None only where none could be asked."""
        messages = []
        for function, args, kwargs in calls:
            if function.startswith(DRIVER):
                messages.append({"op": "run", "driver": function.removeprefix(DRIVER), "args": list(args),
                                 "kwargs": kwargs, "trace": False})
            else:
                messages.append({"op": "call", "function": function, "args": list(args), "kwargs": kwargs,
                                 "trace": False, "return_args": False})
        backend = self._backend  # its worker is left alone: the backend only lends its module and its sandbox
        outcomes = backend.probe(messages, seconds) if backend is not None and self._ready else None
        if outcomes is None:
            return None
        answers = [o.value if o.status == Status.RETURNED else NO_ANSWER for o in outcomes]
        answers += [NO_ANSWER] * (len(messages) - len(answers))
        return answers if each or NO_ANSWER not in answers else None

    def run(self, driver: Callable, *args: Any, shown_as: str, trace: bool = False,
            allow_raise: bool = False, runs: str | None = None, meanwhile: Meanwhile | None = None,
            **kwargs: Any) -> Returned:
        """Run a grader-written `driver(module, *args)` in the worker, for checks that must
        build objects there (a student's class, a function passed as an argument). `runs`
        names the student's function the driver calls, when it is one: a timeout then stops
        later calls of that function only, not of every function the driver runs. `meanwhile` as for `call`."""
        __tracebackhide__ = True
        name = f"{driver.__module__}:{driver.__qualname__}"
        message = {"op": "run", "driver": name, "args": list(args), "kwargs": kwargs, "trace": trace}
        returned = self._request(runs or driver.__qualname__, shown_as, message, allow_raise, meanwhile=meanwhile)
        if returned.error is None:  # a mutant of the reference runs the same driver (engine/single_edits.py)
            note_student_call(self.module_path, DRIVER + name, args, kwargs, returned.value, self.probe)
        return returned

    def prestart(self) -> None:
        """Fork the worker now, so that importing the module overlaps the grading of other
        exercises; the first check then only waits for what is left of the import."""
        if self._backend is None and self._import_failure is None:
            self._backend = self._make_backend()
            self._backend.spawn()

    @functools.cached_property
    def evidence(self) -> SourceEvidence:
        """The module's source as the grader reads it, itself (source_evidence.py): what backs a check of
        how, and what shows a reach for the grader's internals. Empty where there is no file."""
        try:
            text = self.module_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        return SourceEvidence.read(text, self._modules_beside())

    def reaches(self) -> list[str]:
        """The lines of the module, and of the student's own modules it imports (which run in its worker too), that
        reach for the grader's internals, as the instructor sees them."""
        own = [(self.display_path.rsplit("/", 1)[-1], self.evidence), *self._own_modules()]
        return [reach.text(name) for name, evidence in own for reach in evidence.reaches]

    def _own_modules(self) -> list[tuple[str, SourceEvidence]]:
        """The student's own modules beside this one that it imports, directly or through one another (the worker
        finds them there: sandbox/worker.py's OwnModules), each as the grader reads it itself."""
        folder, found = self.module_path.parent, {self.module_path.stem: self.evidence.source}
        queue = [self.evidence.source]
        while queue and len(found) <= _OWN_MODULES_READ:
            for name in _imported_names(queue.pop()):
                path = folder / f"{name}.py"
                if name in found or path.is_symlink() or not path.is_file():
                    continue
                with contextlib.suppress(OSError):
                    with path.open("rb") as handle:
                        found[name] = handle.read(_OWN_MODULE_BYTES).decode("utf-8", errors="replace")
                    queue.append(found[name])
        return [(f"{name}.py", SourceEvidence.read(text, self._modules_beside())) for name, text in found.items()
                if name != self.module_path.stem]

    def _modules_beside(self) -> list[str]:
        """The names of the student's own modules the worker may import: regular `.py` files beside this one."""
        with contextlib.suppress(OSError):
            return [path.stem for path in self.module_path.parent.glob("*.py")
                    if path.stem.isidentifier() and not path.is_symlink() and path.is_file()]
        return []

    def take_printed(self) -> str:
        """What the student's code printed during the current check (and forget it), its file named as
        messages name it rather than by where it was graded (a temporary folder, in a batch): Python's
        warnings print the module's full path."""
        text, self.printed = "".join(self.printed), []
        return without_foreign_warnings(text.replace(str(self.module_path.resolve()), self.display_path),
                                        self.display_path)

    def _error_text(self, error: StudentError) -> str:
        return _error_text(error, self.module_path.name, self.frame_file)

    def close(self) -> None:
        if self._backend is not None:
            self._backend.stop()
            self._backend = None

    # ------------------------------------------------------------------ internals

    def _request(self, function: str, shown: str, message: dict, allow_raise: bool, reuse: bool = False,
                 meanwhile: Meanwhile | None = None) -> Returned:
        __tracebackhide__ = True
        if function in self._timed_out:
            fail(TIMED_OUT_BEFORE.format(call=shown), hint=TIMEOUT_HINT, section=self.section,
                 cause=f"timeout of {function}")
        self._within_allowance()
        key = pack(message) if reuse else None
        kept = self._answers.get(key) if key is not None else None
        if kept is not None:  # a copy of what this call gave before, as a second run would give it
            outcome, seconds = _copied(kept), self.budget.call_seconds
        else:
            started = time.monotonic()
            try:
                backend = self._ready_backend()
            finally:
                self.allowance.spend(time.monotonic() - started)
            self._within_allowance()
            seconds = min(self.budget.call_seconds, self.allowance.left())
            # Only a backend that runs student code in a process of its own gets the grader's work beside it.
            apart = not backend.shares_the_graders_process
            beside = meanwhile.alongside() if meanwhile is not None and apart else contextlib.nullcontext()
            with beside:
                started, replayed = time.monotonic(), backend.replay_seconds
                outcome = backend.request(message, seconds)
                answered = time.monotonic()  # before waiting for `meanwhile`, which is the grader's time
            # A lease that left its plan asks a fresh worker again what was asked before (sandbox/shared.py):
            # the grader's doing, not the student's time.
            waited = answered - started - (backend.replay_seconds - replayed)
            # A call sent ahead of its check ran partly before it was waited for: what the call itself took counts.
            self.allowance.spend(max(waited, outcome.seconds if outcome.replied else 0.0))
            if key is not None and outcome.status in (Status.RETURNED, Status.RAISED):
                self._answers[key] = _copied(outcome)
        if outcome.output:
            self.printed.append(outcome.output)
        if kept is None:
            self.written += max(outcome.written, len(outcome.output) + outcome.output_dropped)
        if outcome.status == Status.TIMEOUT and seconds < self.budget.call_seconds:
            self._within_allowance()  # the call was stopped because the allowance ran out
        return self._returned(function, shown, outcome, allow_raise)

    def _within_allowance(self) -> None:
        __tracebackhide__ = True
        used_up = self.allowance.used_up()
        if used_up is not None:
            fail(used_up.message(), hint=self._slow_hint(self.written, SPENT_HINT), section=self.section,
                 cause="allowance spent")

    @staticmethod
    def _slow_hint(written: int, otherwise: str) -> str:
        """Why code ran out of time: its printing when it printed much (a right answer can be slow from that
        alone), else `otherwise`."""
        return PRINTED_TOO_MUCH.format(size=_size(written)) if written >= PRINTING_COSTS else otherwise

    def _ready_backend(self) -> Backend:
        __tracebackhide__ = True
        if self._import_failure is not None:
            raise CheckFailed(self._import_failure)
        alive = self._backend is not None and self._backend.alive
        if alive and self._ready:
            return self._backend  # type: ignore[return-value]
        backend = self._backend if alive else self._make_backend()  # a prestarted one, or a new one
        self._backend, self._ready = None, False
        outcome = backend.start()
        if backend.confinement is not None:
            self.confinements.append(backend.confinement)
        if outcome.status != Status.READY:
            self._import_failure = self._import_feedback(outcome)
            raise CheckFailed(self._import_failure)
        self._backend, self._ready = backend, True
        self._public = outcome.public
        return backend

    def _import_feedback(self, outcome: Outcome) -> Feedback:
        return dataclasses.replace(self._import_problem(outcome), cause="import")

    def _import_problem(self, outcome: Outcome) -> Feedback:
        if outcome.status == Status.UNCONFINED:
            return Feedback(worded(outcome.fact), hint=UNCONFINED_HINT)
        summary = IMPORT_FAILED.format(file=self.display_path)
        if outcome.status == Status.TIMEOUT:
            return Feedback(summary, got=f"the import did not finish within {self.budget.import_seconds:g} s",
                            got_as="stopped",
                            hint="Code at the top level of the file runs on import: move it into a function.")
        if outcome.status == Status.DIED:
            return Feedback(summary, got=worded(outcome.fact), got_as="stopped",
                            hint="Code at the top level runs on import; remove os._exit().")
        if outcome.error is not None:
            error = outcome.error
            hint = ("Fix the syntax error on the line shown." if error.type in ("SyntaxError", "IndentationError")
                    else EXITED_HINT if error.type == "SystemExit"
                    else missing_module_hint(error, self.frame_file) if error.type in ("ImportError",
                                                                                         "ModuleNotFoundError")
                    else "Code at the top level of the file runs on import; fix the error shown.")
            return Feedback(summary, got=self._error_text(error), hint=hint)
        return Feedback(summary, got=worded(outcome.fact), got_as="stopped")

    def _returned(self, function: str, shown: str, outcome: Outcome, allow_raise: bool) -> Returned:
        __tracebackhide__ = True
        section = self.section
        if outcome.status == Status.RETURNED:
            return Returned(shown, outcome.value, outcome.args, None, outcome.trace, outcome.output,
                            outcome.output_dropped, outcome.seconds)
        if outcome.status == Status.MISSING:
            close = difflib.get_close_matches(function, outcome.public, n=3)
            found = f"Functions in your file: {', '.join(close or outcome.public) or 'none'}." if outcome.public else ""
            fail(MISSING.format(function=function, file=self.display_path), got=found, got_as="found",
                 hint=f"Keep the name `{function}` exactly as the stub defines it.", section=section)
        if outcome.status == Status.TIMEOUT:
            self._timed_out.add(function)
            fail(TIMEOUT.format(call=shown, seconds=self.budget.call_seconds), got=worded(outcome.fact),
                 got_as="stopped",
                 hint=self._slow_hint(outcome.written, TIMEOUT_HINT),
                 section=section, cause=f"timeout of {function}")
        if outcome.status == Status.DIED:
            fail(DIED.format(call=shown, detail=worded(outcome.fact)), section=section)
        if outcome.status == Status.UNREADABLE:
            fail(UNREADABLE.format(call=shown, detail=worded(outcome.fact)),
                 hint="Return tensors, numbers, strings, lists, tuples or dicts.", section=section)
        if outcome.status != Status.RAISED or outcome.error is None:
            fail(BROKEN.format(call=shown, detail=worded(outcome.fact) or outcome.status), section=section)
        return self._raised(function, shown, outcome, allow_raise)

    def _raised(self, function: str, shown: str, outcome: Outcome, allow_raise: bool) -> Returned:
        __tracebackhide__ = True
        error = outcome.error
        assert error is not None
        if error.not_implemented:
            raiser = error.frames[-1][2] if error.frames else function
            fail(NOT_IMPLEMENTED.format(function=raiser), not_implemented=True,
                 hint=NOT_IMPLEMENTED_HINT.format(file=self.display_path), section=self.section)
        if error.type == "SystemExit":
            fail(EXITED.format(call=shown, message=error.message), hint=EXITED_HINT, section=self.section)
        if error.type == "MemoryError" or re.search(r"can't allocate memory|not enough memory", error.message):
            fail(OUT_OF_MEMORY.format(call=shown, memory_mb=self.budget.memory_mb), got=self._error_text(error),
                 hint="Look for a tensor or list that grows without end, or a size typed with too many zeros.",
                 section=self.section)
        missing = MISSING_IN_MODULE.search(error.message) if error.type == "AttributeError" else None
        if missing and missing["module"] == self.module_path.stem:
            # A check's driver looked up a function the student's module does not define.
            name = missing["name"]
            close = difflib.get_close_matches(name, self._public, n=3)
            found = f"Functions in your file: {', '.join(close or self._public) or 'none'}."
            fail(MISSING.format(function=name, file=self.display_path), got=found, got_as="found",
                 hint=f"Keep the name `{name}` exactly as the stub defines it.", section=self.section)
        if _waited_for_keyboard(error, outcome.output):
            where = [f"{self.frame_file}, line {line}, in {name}: {source}" for _, line, name, source in error.frames[-1:]]
            fail(DEBUGGER.format(call=shown), got="\n".join(where), got_as="stopped", section=self.section,
                 hint=DEBUGGER_HINT.format(slug=self.module_path.stem), error=f"{function}: keyboard")
        if allow_raise:
            return Returned(shown, error=error, trace=outcome.trace, output=outcome.output,
                            output_dropped=outcome.output_dropped, seconds=outcome.seconds)
        self.fail_raised(Returned(shown, error=error), function)

    def error_mistake(self, error_type: str, message: str) -> Mistake | None:
        """The catalogued mistake (the exercise's, then those of any exercise) whose error this is, where the
        student's own code does not rule it out; None where none is."""
        for mistake in (*self.mistakes, *ANY_EXERCISE):
            # A cause the student's own code rules out is not named: the next one, or the error's hint, is told.
            if mistake.matches_error(error_type, message) and not contradiction(mistake, self):
                return mistake
        return None

    def fail_raised(self, returned: Returned, function: str, hint: str = "") -> NoReturn:
        """Fail as a call that may not raise does, for one made with allow_raise that raised: the
        error named by a catalogued mistake where one matches it. Checks that first look at the
        error themselves end here, rather than running the student's code a second time; `hint` is a
        check's own hint for it, where the check knows better than engine/error_hints.py."""
        __tracebackhide__ = True
        error = returned.error
        assert error is not None, "fail_raised is for a call that raised"
        culprit = error.frames[-1][2] if error.frames else function  # the student's function, not a driver
        told = f"{culprit}: {error.type}: {error.message}"  # the same exception from the same function: one cause
        mistake = self.error_mistake(error.type, error.message)
        if mistake is not None:
            fail(RAISED.format(function=culprit, error=error.type), call=returned.call, got=self._error_text(error),
                 mistake=mistake, error=told)
        fail(RAISED.format(function=culprit, error=error.type), call=returned.call, got=self._error_text(error),
             section=self.section, error=told, hint=hint or hint_for(error, returned.call, self.frame_file))


def _imported_names(source: str) -> list[str]:
    """The top-level names a source imports by plain import statements (a guess from the text, for evidence only:
    what it misses, the worker still finds, and the checks of how then lack the evidence of that module's code)."""
    names = []
    for single, several in _IMPORTED.findall(source):
        names += [single] if single else [name.strip() for name in several.split(",")]
    return names


def _waited_for_keyboard(error: StudentError, output: str) -> bool:
    """Whether the student's code failed reading the keyboard: a debugger's prompt, or input(). pdb stops on
    the line after breakpoint(), so the error's line alone does not say it."""
    if error.type == "BdbQuit" or "(Pdb)" in output:
        return True
    if error.type in ("OSError", "EOFError", "RuntimeError") and _KEYBOARD_ERRORS.search(error.message):
        return True
    return any("breakpoint(" in source or "set_trace(" in source or "input(" in source
               for _, _, _, source in error.frames[-1:])


def _size(characters: int) -> str:
    return f"{characters / 2**20:.1f} million characters" if characters >= 2**20 else f"{characters:,} characters"


def _copied(outcome: Outcome) -> Outcome:
    """An outcome whose value, arguments and trace no check holds: what one check does to its own
    copy of a reused answer never reaches the next."""
    return dataclasses.replace(outcome, value=copy(outcome.value), args=copy(outcome.args), trace=list(outcome.trace))


def _error_text(error: StudentError, file: str, shown_as: str) -> str:
    """An exception as feedback shows it: its type and message, then the student's lines, their file named
    `shown_as` (the worker names it by its file name, which a notebook's student never saw)."""
    lines = [cut(f"{error.type}: {error.message}")]
    lines += [cut(f"{shown_as if name == file else name}, line {line}, in {function}: {source}")
              for name, line, function, source in error.frames]
    return "\n".join(lines)


def _default_call_text(function: str, args: tuple, kwargs: dict) -> str:
    from graders.engine.compare import describe

    parts = [describe(a, 3) for a in args] + [f"{k}={describe(v, 3)}" for k, v in kwargs.items()]
    return f"{function}({', '.join(parts)})"
