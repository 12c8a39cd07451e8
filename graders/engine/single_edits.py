"""Single-edit explanations: when no catalogued mistake names a wrong answer, the reference's single edits
(graders/engine/mutation.py) are run on the same inputs, and an edit is named only when exactly one family of
them reproduces the student's answer on every input of the check.

Where it runs: in the grader, where the reference's own values are computed (the mutants are the grader's code,
edits of the reference). The *inputs* of a check are its calls of the student's functions that the reference
also has, noted as the check runs (`note_student_call`) with the student's answers; a mutant explains the
answers when its function gives each of them on the same arguments. Noting the calls is all a passing run pays:
mutants run only when a check fails unexplained, within `SECONDS`, and never in a student bundle (no reference
there: `exercise_reference` is never told of one).

Which mutants may run: those of the course version's data file (graders/<lesson>/mutants.json, written by
`python -m graders.engine.shipped_mutants`), which drops the mutants equivalent to the reference on a check's
inputs. A data file older than the reference or the generator names nothing.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import inspect
import json
import math
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import torch

from course_config import LIMITS
from graders.engine import mutation

FILE_NAME = "mutants.json"
# At most one student call's time (course_config.LIMITS), per failed check, to try the mutants: past it, nothing is
# named. Counted in the grader's CPU seconds, not the clock's, so that a loaded machine names what a quiet one does.
SECONDS = float(LIMITS.call_seconds.value)
CALL_SECONDS = 1.0  # one mutant's call past this many CPU seconds is stopped (a loop whose bound an edit moved)
RTOL, ATOL = 1e-4, 1e-6  # a mutant's answer reproduces the student's: same code, so equal up to rounding
MEANING = "Your result is the right one with {edit}."
_PACKAGE_FOLDER = Path(__file__).resolve().parents[1]
_ROOT = _PACKAGE_FOLDER.parent


@dataclass
class Input:
    """One call of a student's function in a check, and their answer: the reference's function of the same
    name, and its mutants, are run on the same arguments."""

    function: str
    arguments: dict[str, Any]  # bound to the reference's signature, defaults applied
    student_value: Any


@dataclass
class _Notes:
    check: str = ""
    slug: str = ""
    lesson: str = ""
    reference: ModuleType | None = None
    inputs: list[Input] = field(default_factory=list)
    kept: dict[str, list[Input]] = field(default_factory=dict)  # collecting (the generator): every check's inputs
    collecting: bool = False


NOTES = _Notes()
_LOCK = threading.Lock()
_UNSET = object()  # a call that raised or ran out of time: no answer


def _current_check() -> str:
    # pytest names the running test in this variable for its whole run: the notes of one check start afresh when
    # another check begins, with no hook in the session.
    return os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]


def _notes_for(check: str) -> list[Input]:
    if NOTES.check != check:
        if NOTES.collecting and NOTES.check:
            NOTES.kept.setdefault(NOTES.check, []).extend(NOTES.inputs)
        NOTES.check, NOTES.inputs = check, []
    return NOTES.inputs


def exercise_reference(module: ModuleType, lesson: str, slug: str) -> None:
    """The reference module the `reference` fixture gives this exercise's checks: the student's calls are read
    against its functions from now on."""
    with _LOCK:
        NOTES.slug, NOTES.lesson, NOTES.reference = slug, lesson, module


def collecting() -> None:
    """Keep every check's inputs, not the current one's alone (the generator, shipped_mutants.py)."""
    NOTES.collecting, NOTES.kept, NOTES.check, NOTES.inputs = True, {}, "", []


def collected() -> dict[str, list[Input]]:
    """Per check (pytest's node id), its inputs, since `collecting()`."""
    with _LOCK:
        if NOTES.check:
            NOTES.kept.setdefault(NOTES.check, []).extend(NOTES.inputs)
            NOTES.check, NOTES.inputs = "", []
        return dict(NOTES.kept)


def note_student_call(function: str, args: tuple, kwargs: dict, value: Any) -> None:
    """The student's answer to `function(*args, **kwargs)`, when the reference has a function of that name."""
    check = _current_check()
    with _LOCK:
        reference = NOTES.reference
        target = getattr(reference, function, None) if reference is not None else None
        if not check or not inspect.isfunction(target):
            return
        try:
            bound = inspect.signature(target).bind(*args, **kwargs)
        except TypeError:
            return
        bound.apply_defaults()
        _notes_for(check).append(Input(function, dict(bound.arguments), value))


def same(first: Any, second: Any) -> bool:
    """Equal inputs: tensors of the same dtype, shape and values; containers alike; anything else by ==."""
    if type(first) is torch.Tensor or type(second) is torch.Tensor:
        return (type(first) is type(second) and first.dtype == second.dtype and first.shape == second.shape
                and bool(torch.equal(first.detach(), second.detach())))
    if type(first) in (list, tuple):
        return type(first) is type(second) and len(first) == len(second) and all(map(same, first, second))
    if type(first) is dict:
        return (type(second) is dict and first.keys() == second.keys()
                and all(same(first[k], second[k]) for k in first))
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
    if type(want) is float or type(got) is float:
        if type(got) not in (int, float) or type(want) not in (int, float):
            return False
        return (math.isnan(got) and math.isnan(want)) or math.isclose(got, want, rel_tol=RTOL, abs_tol=ATOL)
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


def run_mutant(module: ModuleType, function: str, arguments: dict[str, Any], seconds: float = CALL_SECONDS) -> Any:
    """A mutant's answer on copies of the inputs, leaving torch's random state and grad mode as they were;
    `_UNSET` when it raised or ran out of time."""
    try:
        given = copy.deepcopy(arguments)
    except Exception:  # noqa: BLE001 - an input that cannot be copied cannot be given to a mutant safely
        return _UNSET
    grad_mode = torch.is_grad_enabled()
    try:
        with torch.random.fork_rng(devices=[]), _limited(seconds):
            return getattr(module, function)(**given)
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
    return source_digest(Path(mutation.__file__).read_text(encoding="utf-8"))


def data_path(lesson: str) -> Path:
    return _PACKAGE_FOLDER / lesson / FILE_NAME


def reference_path(lesson: str, slug: str) -> Path:
    return _ROOT / "reference" / lesson / f"{slug}.py"


@functools.cache
def _shipped(lesson: str) -> dict:
    try:
        data = json.loads(data_path(lesson).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("generator") == generator_digest() else {}


@functools.cache
def mutant_modules(lesson: str, slug: str) -> dict[int, tuple[mutation.Mutant, ModuleType]]:
    """The kept mutants of an exercise, each loaded as a module; none when the data file is not of today's
    reference."""
    entry = _shipped(lesson).get("exercises", {}).get(slug)
    path = reference_path(lesson, slug)
    if not entry or not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    if entry.get("reference") != source_digest(text):
        return {}
    kept = {m["index"] for m in entry.get("kept", [])}
    loaded = {}
    for mutant in mutation.mutants(text):
        if mutant.index in kept:
            loaded[mutant.index] = (mutant, load(mutant, f"mutant_{lesson}_{slug}_{mutant.index}"))
    return loaded


def forget() -> None:
    """Read the data file again at its next use (the generator has just written it)."""
    _shipped.cache_clear()
    mutant_modules.cache_clear()


def load(mutant: mutation.Mutant, name: str) -> ModuleType:
    module = ModuleType(name)
    exec(compile(mutant.source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - the grader's own code, edited
    return module


def live_on(lesson: str, slug: str, check: str) -> set[int]:
    """The mutants the data file found not equivalent to the reference on this check's inputs."""
    entry = _shipped(lesson).get("exercises", {}).get(slug, {})
    name = check.rsplit("::", 1)[-1].removeprefix("test_")
    return {m["index"] for m in entry.get("kept", []) if name in m.get("checks", ())}


def explain() -> Explanation | None:
    """The one family of single edits that reproduces the student's answers on every input of the current check,
    or None: no such family, two or more, no input, or no time left to try them all."""
    check = _current_check()
    with _LOCK:
        if not check or NOTES.check != check or NOTES.reference is None:
            return None
        inputs, reference = list(NOTES.inputs), NOTES.reference
        lesson, slug = NOTES.lesson, NOTES.slug
    if not inputs or threading.current_thread() is not threading.main_thread():
        return None  # (the time limit of a mutant's call needs the main thread's alarm)
    deadline = time.process_time() + SECONDS
    # Only answers the reference does not give are explained (a check may fail for a value it does not note).
    if all(reproduces(noted.student_value, run_mutant(reference, noted.function, noted.arguments))
           for noted in inputs):
        return None
    found = families(lesson, slug, check, inputs, deadline)
    if found is None or len(found) != 1:
        return None
    family, edits = next(iter(found.items()))
    name, generic, hint = mutation.FAMILIES[family]
    edit = next(iter(edits)) if len(edits) == 1 else generic
    return Explanation(name, MEANING.format(edit=edit), hint)


def families(lesson: str, slug: str, check: str, inputs: list[Input], deadline: float) -> dict[str, set[str]] | None:
    """family -> the edits of it whose mutants give the student's answer on every input; None when time ran out."""
    live = live_on(lesson, slug, check)
    found: dict[str, set[str]] = {}
    for index, (mutant, module) in mutant_modules(lesson, slug).items():
        if index not in live:
            continue
        for noted in inputs:
            if time.process_time() > deadline:
                return None
            answer = run_mutant(module, noted.function, noted.arguments)
            if answer is _UNSET or not reproduces(noted.student_value, answer):
                break
        else:
            found.setdefault(mutant.family, set()).add(mutant.edit)
    return found
