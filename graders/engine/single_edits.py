"""Single-edit explanations: when no catalogued mistake names a wrong answer, the reference's single edits
(graders/engine/mutation.py) are run on the same inputs, and an edit is named only when exactly one family of
them reproduces the student's answer on every input of the check.

Where it runs: in the grader, where the reference's own values are computed (the mutants are the grader's code,
edits of the reference). The *inputs* of a check are its calls of the student's functions that the reference
also has, noted as the check runs (`note_student_call`) with the student's answers; a mutant explains the
answers when its function gives each of them on the same arguments. Noting the calls is all a passing run pays:
mutants run only when a check fails unexplained, within `SECONDS`, and never in a student bundle (no reference
there: `reference_module` finds none).

Which mutants may run: those of the course version's data file (graders/<lesson>/mutants.json, written by
`python -m graders.engine.shipped_mutants`), which drops the mutants equivalent to the reference on a check's
inputs. A data file older than the reference or the generator names nothing.

Every input of the check: a check stops at its first wrong answer, so the inputs after it are asked of the student's
worker for the explanation alone (`Student.probe`: nothing of it counts towards any verdict), from the inputs the
generator noted for that check (graders/<lesson>/mutant_inputs.bin, in the wire's format: instructor side only, as
the reference is). An edit is named only when it gives the student's answers on all of them.

What is said: the one edit's words; where a few edits of the family give the answers (X.shape[1] and X.shape[-1] for
X.shape[0]), each of them, up to three, so that the words stay true of what the code may do; past three, the
family's general words. And no word the code contradicts where the grader sees it in the student's source itself: a
case left out is not said of a function that tests that very case (mutation.tested_cases).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import enum
import functools
import hashlib
import inspect
import json
import math
import os
import re
import signal
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import numpy as np
import torch

from course_config import LIMITS

FILE_NAME = "mutants.json"
# A noted call's function, where a check ran a grader-written driver with the student's module (Student.run: a class
# built in the worker, as micrograd's Value): "driver <module>:<qualname>". A mutant runs the same driver on its module.
DRIVER = "driver "
# The families whose edit swaps one named operation for another: said only to code that calls one of these names
# at all (in the student's module), so that the words never name an operation the code does not have.
NEEDS_IN_CODE: dict[str, tuple[str, ...]] = {
    "order_statistic": ("max", "min", "argmax", "argmin", "amax", "amin", "sort", "sorted", "topk", "kthvalue"),
    "reduction": ("sum", "mean", "nansum", "nanmean", "fsum"),
    "distribution": ("rand", "randn", "rand_like", "randn_like", "uniform_", "normal_", "uniform", "normal", "random"),
}
INPUTS_FILE_NAME = "mutant_inputs.bin"
# Wall seconds, per failed check, for asking the student's code the check's inputs after the one it failed on, in a
# worker of their own (counted once it has imported the module: its start has the sandbox's own limits): past them
# nothing is named. Five, not three: a check's few inputs take well under a second on a quiet machine, but a batch on
# every core (or this project's tests on three processes) has left a single edit unnamed at three.
PROBE_SECONDS = 5.0
# At most one student call's time (course_config.LIMITS), per failed check, to try the mutants: past it, nothing is
# named. Counted in the grader's CPU seconds, not the clock's, so that a loaded machine names what a quiet one does.
SECONDS = float(LIMITS.call_seconds.value)
CALL_SECONDS = 1.0  # one mutant's call past this many CPU seconds is stopped (a loop whose bound an edit moved)
RTOL, ATOL = 1e-4, 1e-6  # a mutant's answer reproduces the student's: same code, so equal up to rounding
MEANING = "Your result is the right one with {edit}."
# Past this many edits of one family that all give the answers, the family's general words: a list stays readable.
SAID_AT_MOST = 3
SOURCE_BYTES = 1 << 20  # of the student's module, read for what its code does: a module is far smaller
_PACKAGE_FOLDER = Path(__file__).resolve().parents[1]
_ROOT = _PACKAGE_FOLDER.parent


@dataclass
class Input:
    """One call of a student's function in a check, and their answer: the reference's function of the same
    name, and its mutants, are run on the same arguments."""

    lesson: str
    slug: str
    function: str
    args: tuple
    kwargs: dict
    student_value: Any


# Asks the student's code more inputs for an explanation, in a worker of their own: ([(function, args, kwargs)],
# seconds) -> the answers, or None where one gave none or they cannot be asked (engine/student.py's Student.probe).
Probe = Callable[[list[tuple[str, tuple, dict]], float, bool], "list[Any] | None"]


@dataclass
class _Notes:
    check: str = ""
    inputs: list[Input] = field(default_factory=list)
    probe: Probe | None = None  # the worker that answered the current check's last call
    path: Path | None = None  # the student's module that answered it: its source is read for what the code does
    earlier: list[Input] = field(default_factory=list)  # the calls of this run's checks before the current one
    # The answers asked after a wrong one, for an explanation (slug, function, bound arguments, answer): evidence for
    # the later checks' explanations too.
    asked: list[tuple[str, str, dict[str, Any], Any]] = field(default_factory=list)
    kept: dict[str, list[Input]] = field(default_factory=dict)  # collecting (the generator): every check's inputs
    collecting: bool = False
    # The edits (slug, mutant index) an input of this run already refutes: their answer there is neither the
    # reference's nor the student's. `agreeing_with_earlier` would drop them from any later check's families, so
    # those checks do not run them at all (the same verdicts, at a fraction of the time on a training loop).
    refuted: set[tuple[str, int]] = field(default_factory=set)


NOTES = _Notes()
_LOCK = threading.Lock()
_UNSET = object()  # a call that raised or ran out of time: no answer
# In Student.probe(..., each=True)'s answers, for a call that gave no value (raised, ran out of time).
NO_ANSWER = object()


def current_check() -> str:
    # pytest names the running test in this variable for its whole run: the notes of one check start afresh when
    # another check begins, with no hook in the session.
    return os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]


def collecting() -> None:
    """Keep every check's inputs, not the current one's alone (the generator, shipped_mutants.py)."""
    NOTES.collecting, NOTES.kept, NOTES.check, NOTES.inputs, NOTES.earlier, NOTES.asked = True, {}, "", [], [], []
    NOTES.refuted = set()


def forget_calls() -> None:
    """A new run begins: the calls noted in an earlier one (a batch grades submission after submission in one
    process, under the same check ids) are not this student's. What the generator keeps stays."""
    with _LOCK:
        if NOTES.collecting and NOTES.check:
            NOTES.kept.setdefault(NOTES.check, []).extend(NOTES.inputs)
        NOTES.check, NOTES.inputs, NOTES.probe, NOTES.path, NOTES.earlier, NOTES.asked = "", [], None, None, [], []
        NOTES.refuted = set()


def collected() -> dict[str, list[Input]]:
    """Per check (pytest's node id), its inputs, since `collecting()`."""
    with _LOCK:
        if NOTES.check:
            NOTES.kept.setdefault(NOTES.check, []).extend(NOTES.inputs)
            NOTES.check, NOTES.inputs = "", []
        return dict(NOTES.kept)


def note_student_call(module_path: Path, function: str, args: tuple, kwargs: dict, value: Any,
                      probe: Probe | None = None) -> None:
    """The student's answer to `function(*args, **kwargs)` of their module at `module_path`
    (<somewhere>/<lesson>/<slug>.py); `probe` asks the same worker more (for an explanation only). Only kept: nothing
    is looked up or run here, so a passing run pays no more."""
    check = current_check()
    if not check:
        return
    with _LOCK:
        if NOTES.check != check:
            if NOTES.collecting and NOTES.check:
                NOTES.kept.setdefault(NOTES.check, []).extend(NOTES.inputs)
            NOTES.earlier.extend(NOTES.inputs)
            NOTES.check, NOTES.inputs = check, []
        NOTES.inputs.append(Input(module_path.parent.name, module_path.stem, function, args, kwargs, value))
        NOTES.probe, NOTES.path = probe, module_path


def arguments(reference: ModuleType, noted: Input) -> dict[str, Any] | None:
    """A noted call's arguments bound to the reference function's signature (defaults applied); None when the
    reference has no such function or the call does not fit it. A driver's are its own, as given."""
    if noted.function.startswith(DRIVER):
        return {"args": noted.args, "kwargs": noted.kwargs} if driver(noted.function) is not None else None
    target = getattr(reference, noted.function, None)
    if not inspect.isfunction(target):
        return None
    try:
        bound = inspect.signature(target).bind(*noted.args, **noted.kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


@functools.cache
def reference_module(lesson: str, slug: str) -> ModuleType | None:
    """The reference of an exercise, loaded on its own in the grader (trusted code); None where there is none (a
    student bundle)."""
    path = reference_path(lesson, slug)
    if not path.is_file():
        return None
    module = ModuleType(f"single_edits_reference_{lesson}_{slug}")
    module.__file__ = str(path)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)  # noqa: S102 - the reference
    return module


def same(first: Any, second: Any) -> bool:
    """Equal inputs: tensors of the same dtype, shape and values; containers alike; anything else by ==."""
    if type(first) is torch.Tensor or type(second) is torch.Tensor:
        if type(first) is not type(second) or first.dtype != second.dtype or first.shape != second.shape:
            return False
        a, b = first.detach(), second.detach()
        # The same NaNs in the same places are the same answer (NaN == NaN is False for floats).
        return bool(torch.equal(a, b)) or (a.is_floating_point() and bool(torch.isclose(
            a, b, rtol=0, atol=0, equal_nan=True).all()))
    if type(first) in (list, tuple):
        return type(first) is type(second) and len(first) == len(second) and all(map(same, first, second))
    if type(first) is np.ndarray or type(second) is np.ndarray:  # to_numpy's answers: == gives an array, not a bool
        return (type(first) is type(second) and first.dtype == second.dtype and first.shape == second.shape
                and bool(np.array_equal(first, second, equal_nan=first.dtype.kind in "fc")))
    if type(first) is dict:
        return (type(second) is dict and first.keys() == second.keys()
                and all(same(first[k], second[k]) for k in first))
    if type(first) is float and type(second) is float and math.isnan(first) and math.isnan(second):
        return True
    try:
        return bool(first == second)
    except Exception:  # noqa: BLE001 - what cannot be compared is not the same
        return False


def reproduces(got: Any, want: Any) -> bool:
    """Whether a student's answer is a mutant's (or the reference's): same kinds, same shapes, values equal up
    to rounding."""
    if type(want) is torch.Tensor:
        if type(got) is not torch.Tensor or got.shape != want.shape or got.dtype != want.dtype:
            return False
        g, w = got.detach().to(torch.float64), want.detach().to(torch.float64)
        return bool(torch.isclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True).all())
    if type(want) in (list, tuple):
        return type(got) is type(want) and len(got) == len(want) and all(map(reproduces, got, want))
    if type(want) is dict:  # a driver's answer (the parameters after an in-place step): each value up to rounding
        return type(got) is dict and got.keys() == want.keys() and all(reproduces(got[k], want[k]) for k in want)
    if type(want) is float or type(got) is float:
        if type(got) not in (int, float) or type(want) not in (int, float):
            return False
        try:
            return (math.isnan(got) and math.isnan(want)) or math.isclose(got, want, rel_tol=RTOL, abs_tol=ATOL)
        except OverflowError:  # an int too large for a float (a hostile answer) reproduces no float
            return False
    return same(got, want)


@dataclass(frozen=True)
class Explanation:
    """The one family of single edits that reproduces a student's answers, in words."""

    name: str  # the family's short name: the mistake's name the student reads
    meaning: str
    hint: str


class _TooLong(Exception):
    pass


@contextlib.contextmanager
def _limited(seconds: float) -> Iterator[None]:
    """Stop the body after `seconds` of this process's CPU time (the main thread only: the signal is delivered
    there)."""
    def stop(signum: int, frame: Any) -> None:
        raise _TooLong()

    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@functools.cache
def driver(function: str) -> Callable[..., Any] | None:
    """The grader's driver a noted call names (`DRIVER` + "<module>:<qualname>"), found among the grader's own
    modules only; None for anything else."""
    import importlib

    module_name, _, qualname = function.removeprefix(DRIVER).partition(":")
    if not module_name.startswith("graders.") or not qualname:
        return None
    try:
        found: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found if callable(found) else None


def _called(module: ModuleType, function: str, given: dict[str, Any]) -> Any:
    if function.startswith(DRIVER):
        run = driver(function)
        assert run is not None  # `arguments` bound no call of a driver it does not find
        return run(module, *given["args"], **given["kwargs"])
    return getattr(module, function)(**given)


def run_mutant(module: ModuleType, function: str, arguments: dict[str, Any], seconds: float = CALL_SECONDS) -> Any:
    """A mutant's answer on copies of the inputs, leaving torch's random state and grad mode as they were;
    `_UNSET` when it raised or ran out of time."""
    try:
        given = copy.deepcopy(arguments)
    except Exception:  # noqa: BLE001 - an input that cannot be copied cannot be given to a mutant safely
        return _UNSET
    grad_mode = torch.is_grad_enabled()
    try:
        # A mutant's warnings (a broadcast an edit made) are its own, not the check's: never shown.
        with torch.random.fork_rng(devices=[]), warnings.catch_warnings(), _limited(seconds):
            warnings.simplefilter("ignore")
            return _called(module, function, given)
    except BaseException as error:  # noqa: BLE001 - a mutant's failure is only a mutant that does not explain
        if isinstance(error, KeyboardInterrupt):
            raise
        return _UNSET
    finally:
        torch.set_grad_enabled(grad_mode)


def source_digest(text: str) -> str:
    return hashlib.sha256(text.replace("\r\n", "\n").encode()).hexdigest()[:32]


def generator_digest() -> str:
    """A digest of the generator's own code: other code may enumerate other edits under the same indices."""
    return source_digest((Path(__file__).parent / "mutation.py").read_text(encoding="utf-8"))


def data_path(lesson: str) -> Path:
    return _PACKAGE_FOLDER / lesson / FILE_NAME


def reference_path(lesson: str, slug: str) -> Path:
    return _ROOT / "reference" / lesson / f"{slug}.py"


@functools.cache
def _shipped(lesson: str) -> dict:
    """The data file, with only the exercises whose room (checks, catalogue) is the one the edits were proved
    against: a changed check may make other inputs, so its old counts could let an edit be named on some of them."""
    try:
        data = json.loads(data_path(lesson).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("generator") != generator_digest():
        return {}
    exercises = data.get("exercises", {})
    return {**data, "exercises": {slug: entry for slug, entry in exercises.items()
                                  if entry.get("checks") == checks_digest(lesson, slug)}}


def checks_digest(lesson: str, slug: str) -> str:
    """A digest of an exercise's room (its checks, catalogue and helpers): what its edits were proved against."""
    room = _PACKAGE_FOLDER / lesson / slug
    return source_digest("".join(path.read_text(encoding="utf-8") for path in sorted(room.glob("*.py"))))


@functools.cache
def mutant_modules(lesson: str, slug: str) -> dict[int, tuple[Any, ModuleType]]:
    """The mutants of an exercise, each loaded as a module, but those the generator found slow; none when the data
    file is not of today's reference. Every other one is tried, those it found equivalent to the reference too: a
    check may meet inputs the generator did not (its code may call the student's functions on new arguments after a
    wrong answer), and a mutant left out there could leave another family alone to explain, wrongly."""
    from graders.engine import mutation  # the generator of edits: only once a value is wrong

    entry = _shipped(lesson).get("exercises", {}).get(slug)
    path = reference_path(lesson, slug)
    if not entry or not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    if entry.get("reference") != source_digest(text):
        return {}
    slow = set(entry.get("slow", []))
    return {mutant.index: (mutant, load(mutant, f"mutant_{lesson}_{slug}_{mutant.index}"))
            for mutant in mutation.mutants(text) if mutant.index not in slow}


def forget() -> None:
    """Read the data file again at its next use (the generator has just written it)."""
    _shipped.cache_clear()
    mutant_modules.cache_clear()
    shipped_inputs.cache_clear()
    reached.cache_clear()


# A body that names one of these may reach any of the module's functions by a name the grader does not see.
_DYNAMIC_NAMES = frozenset({"globals", "vars", "eval", "exec", "getattr", "__import__", "locals"})


@functools.cache
def reached(lesson: str, slug: str) -> dict[str, frozenset[str]]:
    """Per top-level function of the reference, the top-level functions and classes a call of it can run: itself
    and those its body names, followed through theirs. A mutant of one it never reaches answers that call as the
    reference does (its edit is in code the call never runs), so it need not be run there. A body that may find a
    function by a name it builds (`globals`, `getattr`, ...) reaches all of them."""
    path = reference_path(lesson, slug)
    if not path.is_file():
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tops = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    named: dict[str, set[str]] = {}
    for name, node in tops.items():
        # The body only: a default is computed when the module loads, an edit of it is the function's own.
        body = node.body if isinstance(node, ast.FunctionDef) else [node]
        loaded = {n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name)}
        named[name] = set(tops) if loaded & _DYNAMIC_NAMES else (loaded & set(tops)) | {name}
    found: dict[str, frozenset[str]] = {}
    for name in tops:
        seen, waiting = set(), [name]
        while waiting:
            current = waiting.pop()
            if current not in seen:
                seen.add(current)
                waiting.extend(named[current] - seen)
        found[name] = frozenset(seen)
    return found


def never_reached(lesson: str, slug: str, mutant: Any, function: str) -> bool:
    """Whether a call of the reference's `function` never runs the code `mutant` edits (see `reached`): only for a
    plain function of the reference, and an edit inside one of its top-level functions or classes."""
    reaches = reached(lesson, slug)
    owner = mutant.function.split(".", 1)[0]
    return function in reaches and owner in reaches and owner not in reaches[function]


def load(mutant: Any, name: str) -> ModuleType:
    """A mutant (mutation.Mutant) as a module of its own."""
    module = ModuleType(name)
    exec(compile(mutant.source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - the grader's own code, edited
    return module


def explain() -> Explanation | None:
    """The one family of single edits that reproduces the student's answers on every input of the current check,
    or None: no such family, two or more, no input, or no time left to try them all."""
    check = current_check()
    with _LOCK:
        if not check or NOTES.check != check or not NOTES.inputs:
            return None
        noted, probe, path = list(NOTES.inputs), NOTES.probe, NOTES.path
        earlier, asked = list(NOTES.earlier), list(NOTES.asked)
    if threading.current_thread() is not threading.main_thread():
        return None  # the time limit of a mutant's call needs the main thread's signal
    lesson, slug = noted[-1].lesson, noted[-1].slug  # the exercise of the check's last call
    reference = reference_module(lesson, slug)
    if reference is None:
        return None
    inputs = [(n.function, bound, n.student_value) for n in noted if n.slug == slug
              for bound in [arguments(reference, n)] if bound is not None]
    # Only answers the reference does not give are explained (a check may fail for a value it does not note), and
    # only where there are edits to try: nothing more is asked of the student's code otherwise.
    if not inputs or not mutant_modules(lesson, slug):
        return None
    rights = [run_mutant(reference, function, bound) for function, bound, _ in inputs]
    if all(reproduces(value, right) for (_, _, value), right in zip(inputs, rights)):
        return None
    # Every input of the check, not the first few: the check stopped at its first wrong answer, so the student's
    # answers to the inputs after it (those the generator noted for the check) are asked for the explanation alone.
    check_id = check.rsplit("::", 1)[-1].removeprefix("test_")
    expected_inputs = _shipped(lesson).get("exercises", {}).get(slug, {}).get("inputs", {})
    if len(inputs) < expected_inputs.get(check_id, 1 << 30):
        rest = _asked_again(probe, reference, slug, [n for n in noted if n.slug == slug],
                            shipped_inputs(lesson).get(slug, {}).get(check_id, []))
        if rest is None:
            return None
        inputs += rest
        rights += [run_mutant(reference, function, bound) for function, bound, _ in rest]
    deadline = time.process_time() + SECONDS
    evidence = ([(n.function, bound, n.student_value) for n in earlier if n.slug == slug
                 for bound in [arguments(reference, n)] if bound is not None]
                + [(function, bound, answer) for where, function, bound, answer in asked if where == slug])
    source = student_source(path)
    # An argument the student's own code adds to a library call, proved by running: before any guessed edit.
    added = _added_keywords(source, lesson, slug, inputs, reference, evidence, deadline)
    if added is not None:
        return added
    found = families(lesson, slug, inputs, deadline, rights)
    if found:
        found = agreeing_with_earlier(lesson, slug, found, reference, evidence, deadline)
    if found is None or len(found) != 1:
        return None
    from graders.engine.mutation import FAMILIES, tested_cases

    family, edits = next(iter(found.items()))
    # A case left out is not what a function does that tests that very case (it treats it apart, wrongly): such an
    # edit still counts above (its family gives the answers too), but its words are not said.
    if source is not None:
        tested = {function: tested_cases(source, function) or set() for function in {m.function for m in edits}}
        edits = [m for m in edits if not (m.case and m.case in tested[m.function])]
        # "The smallest taken where the largest belongs" said to code that takes neither is a cause it does not have,
        # however well the answers fit (a zip that stops at the shorter of two lists): such a family is not said.
        if family in NEEDS_IN_CODE and not any(re.search(rf"\b{word}\b", source) for word in NEEDS_IN_CODE[family]):
            return None
    if not edits:
        return None
    name, generic, hint = FAMILIES[family]
    return Explanation(name, MEANING.format(edit=said(edits, generic)), hint)


def _added_keywords(source: str | None, lesson: str, slug: str, inputs: list[tuple[str, dict[str, Any], Any]],
                    reference: ModuleType, evidence: list[tuple[str, dict[str, Any], Any]],
                    deadline: float) -> Explanation | None:
    """The keywords the student's code adds to one library call (added_keywords.py), where the reference given them
    gives the student's answer on every input, twice alike, and no earlier input refutes it; None where no addition
    does, or when time ran out."""
    from graders.engine import added_keywords  # a module of its own: it reads the student's calls

    if source is None:
        return None
    candidates = added_keywords.additions(source, reference_path(lesson, slug).read_text(encoding="utf-8"),
                                          f"added_keywords_{lesson}_{slug}")
    references: list[Any] | None = None  # the reference's answers to the earlier inputs: asked once, if needed
    for addition in candidates:
        fit = _fit(addition.module, inputs, deadline)
        if fit is None:
            return None
        if fit is not _Fit.GIVES:
            continue
        references = references if references is not None else earlier_references(reference, evidence, deadline)
        if references is not None and refuted(addition.module, evidence, references, deadline) is False:
            return Explanation(added_keywords.NAME, *added_keywords.words(addition))
    return None


def said(edits: list[Any], generic: str) -> str:
    """The edits of one family that give the answers (mutation.Mutant, in their order), in words: the one edit, or
    each of at most `SAID_AT_MOST` ("one of these edits: A; or B"), so that the words name what the code may do;
    past them, the family's general words."""
    words = list(dict.fromkeys(m.edit for m in edits))  # two edits may read alike (two calls of one function)
    if len(words) == 1:
        return words[0]
    return f"one of these edits: {'; or '.join(words)}" if len(words) <= SAID_AT_MOST else generic


def student_source(path: Path | None) -> str | None:
    """The text of the student's module, read by the grader itself as a regular file (never through a symlink), or
    None where there is none to read."""
    if path is None or path.is_symlink() or not path.is_file():
        return None
    try:
        with path.open("rb") as handle:
            return handle.read(SOURCE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


def _asked_again(probe: Probe | None, reference: ModuleType, slug: str, noted: list[Input],
                 shipped: list[tuple[str, tuple, dict]]) -> list[tuple[str, dict[str, Any], Any]] | None:
    """The student's answers to the check's inputs it did not meet (the generator's, but those it met), asked of its
    worker within PROBE_SECONDS; None when one is not an answer (raised, ran out of time) or cannot be asked. The
    answers it gets are kept (NOTES.asked) for the later checks' explanations, also where another gave none."""
    if not shipped:
        return None  # the generator noted no input of this check: its inputs cannot all be met
    missing: list[tuple[str, tuple, dict, dict[str, Any]]] = []
    for function, args, kwargs in shipped:  # each input once: a public check's twin may repeat its fixed cases
        met = [*((n.function, n.args, n.kwargs) for n in noted), *((f, a, k) for f, a, k, _ in missing)]
        bound = arguments(reference, Input("", "", function, args, kwargs, None))
        if bound is not None and not any(f == function and same(a, args) and same(k, kwargs) for f, a, k in met):
            missing.append((function, args, kwargs, bound))
    if not missing:
        return []
    answers = probe([(function, args, kwargs) for function, args, kwargs, _ in missing], PROBE_SECONDS, True) \
        if probe is not None else None
    if answers is None:
        return None
    got = [(function, bound, answer) for (function, _, _, bound), answer in zip(missing, answers)
           if answer is not NO_ANSWER]
    with _LOCK:
        NOTES.asked.extend((slug, function, bound, answer) for function, bound, answer in got)
    return got if len(got) == len(missing) else None


def inputs_path(lesson: str) -> Path:
    return _PACKAGE_FOLDER / lesson / INPUTS_FILE_NAME


@functools.cache
def shipped_inputs(lesson: str) -> dict[str, dict[str, list[tuple[str, tuple, dict]]]]:
    """Per exercise, per check id, the inputs the generator noted (function, args, kwargs), for the exercises the
    file holds of today's reference and generator; {} where there is none."""
    from graders.sandbox import WireError, unpack

    try:
        found = unpack(inputs_path(lesson).read_bytes())
    except (OSError, WireError):
        return {}
    if not isinstance(found, dict) or found.get("generator") != generator_digest():
        return {}
    kept, proved = {}, _shipped(lesson).get("exercises", {})
    for slug, entry in found.get("exercises", {}).items():
        path = reference_path(lesson, slug)
        if slug in proved and path.is_file() and entry.get("reference") == source_digest(path.read_text(encoding="utf-8")):
            kept[slug] = {check: [tuple(call) for call in calls] for check, calls in entry["checks"].items()}
    return kept


def agreeing_with_earlier(lesson: str, slug: str, found: dict[str, list[Any]], reference: ModuleType,
                          earlier: list[tuple[str, dict[str, Any], Any]], deadline: float) -> dict[str, list[Any]] | None:
    """`found` (family -> edits, as families() gives them), but the edits the run's earlier calls refute: an edit that
    changes the reference's answer to an earlier call must give the student's answer there too (an edit that fits
    one check's inputs by coincidence, and that another check's answers rule out, is not the student's). A family
    left with no edit is left out. None when time ran out."""
    if not earlier:
        return found
    references = earlier_references(reference, earlier, deadline)
    if references is None:
        return None
    modules = mutant_modules(lesson, slug)
    kept: dict[str, list[Any]] = {}
    for family, edits in found.items():
        for mutant in edits:
            verdict = refuted(modules[mutant.index][1], earlier, references, deadline)
            if verdict is None:
                return None
            if verdict:
                NOTES.refuted.add((slug, mutant.index))
            else:
                kept.setdefault(family, []).append(mutant)
    return kept


def earlier_references(reference: ModuleType, earlier: list[tuple[str, dict[str, Any], Any]],
                       deadline: float) -> list[Any] | None:
    """The reference's answers to the earlier inputs (function, bound arguments, the student's answer); None when
    time ran out."""
    references: list[Any] = []
    for function, bound, _ in earlier:
        if time.process_time() > deadline:
            return None
        references.append(run_mutant(reference, function, bound))
    return references


def refuted(module: ModuleType, earlier: list[tuple[str, dict[str, Any], Any]], references: list[Any],
            deadline: float) -> bool | None:
    """Whether an edited reference (`module`) gives one earlier input an answer that is neither the reference's
    (`references`) nor the student's; None when time ran out. One that raised or ran out of time there is not
    refuted: what it would answer is not known."""
    for (function, bound, value), right in zip(earlier, references):
        if time.process_time() > deadline:
            return None
        answer = run_mutant(module, function, bound)
        if answer is not _UNSET and not reproduces(answer, right) and not reproduces(value, answer):
            return True  # the edit changes this answer, and not into the student's
    return False


class _Fit(enum.Enum):
    """How an edited reference answers a check's inputs (function, bound arguments, the student's answer)."""

    GIVES = "gives"  # the student's answer on every input, and the same when asked again
    OTHER = "other"  # another answer somewhere (or none: it raised, ran out of time), or another when asked again
    REFUTED = "refuted"  # somewhere an answer that is neither the student's nor the reference's


def _fit(module: ModuleType, inputs: list[tuple[str, dict[str, Any], Any]], deadline: float,
         rights: list[Any] | None = None, unreached: Callable[[str], bool] = lambda function: False) -> _Fit | None:
    """How `module` answers `inputs`; None when time ran out. REFUTED is told only with `rights` (the reference's
    answer to each input); a function `unreached` says the edit never runs in is not run: it answers as the
    reference does (rights)."""
    answers = []
    for at, (function, bound, value) in enumerate(inputs):
        if time.process_time() > deadline:
            return None
        answer = rights[at] if rights is not None and unreached(function) else run_mutant(module, function, bound)
        if answer is _UNSET or not reproduces(value, answer):
            refutes = answer is not _UNSET and rights is not None and not reproduces(answer, rights[at])
            return _Fit.REFUTED if refutes else _Fit.OTHER
        answers.append(answer)
    # Asked again, an edit must answer the same: one that leaves memory unwritten (a loop one pass short over
    # torch.empty_like) gives whatever the memory held, and fits an answer by chance, not by cause.
    for (function, bound, _), answer in zip(inputs, answers):
        if time.process_time() > deadline:
            return None
        if not same(run_mutant(module, function, bound), answer):
            return _Fit.OTHER
    return _Fit.GIVES


def families(lesson: str, slug: str, inputs: list[tuple[str, dict[str, Any], Any]],
             deadline: float, rights: list[Any] | None = None) -> dict[str, list[Any]] | None:
    """family -> the edits of it (mutation.Mutant, in their order) whose mutants give the student's answer on every
    input (function, arguments, answer); None when time ran out. With `rights` (the reference's answer to each
    input), an edit whose answer is neither the student's nor the reference's is noted as refuted for the run's later
    checks, an edit an earlier check refuted is not run, nor one on a function that never reaches its code."""
    found: dict[str, list[Any]] = {}
    for mutant, module in mutant_modules(lesson, slug).values():
        if (slug, mutant.index) in NOTES.refuted:
            continue
        fit = _fit(module, inputs, deadline, rights, functools.partial(never_reached, lesson, slug, mutant))
        if fit is None:
            return None
        if fit is _Fit.REFUTED:
            NOTES.refuted.add((slug, mutant.index))
        elif fit is _Fit.GIVES:
            found.setdefault(mutant.family, []).append(mutant)
    return found
