"""A default the student changed: the stub's signature is part of what the exercise asks, so a wrong answer to a call
that left an argument out, where the student's function gives that argument another default than the reference's,
has its cause named (`fit_quadratic(X, y)` with `lr=0.01` where the stub gives `lr=0.1`).

Read from the student's source, never run: a default is compared only where it is a literal (a number, a string, a
tuple of them, None, True, False). A default the grader cannot follow (a name, a call) is not named: it may be right.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from graders.engine.mutation import parameters_with_defaults
from graders.engine.single_edits import (DRIVER, NOTES, Explanation, current_check, student_source,
                                         reference_module)

NAME = "a default changed"
HINT = "Keep the defaults the stub's signature gives: a caller who leaves that argument out relies on them."


def _literal_defaults(source: str, function: str) -> dict[str, Any]:
    """parameter -> its default, for the module-level function of that name, where the default is a literal."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == function]
    if len(found) != 1:  # none, or defined twice: which one runs is not the grader's to follow
        return {}
    defaults: dict[str, Any] = {}
    for argument, default in parameters_with_defaults(found[0].args):
        try:
            defaults[argument.arg] = ast.literal_eval(default)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
    return defaults


def _same(student: Any, reference: Any) -> bool:
    # 500 and 500.0 count as the same default: only a value that differs is named, never a spelling.
    try:
        return bool(student == reference) and isinstance(student, (int, float)) == isinstance(reference, (int, float))
    except Exception:  # noqa: BLE001 - what cannot be compared is not said to differ
        return True


def explain() -> Explanation | None:
    """The default the student changed that the current check's calls relied on (they left that argument out), or
    None: no call of the check left out an argument whose default differs, or the defaults cannot be read."""
    check = current_check()
    if not check or NOTES.check != check or not NOTES.inputs:
        return None
    source = student_source(NOTES.path)
    if source is None:
        return None
    changed: dict[tuple[str, str], tuple[Any, Any]] = {}
    read: dict[str, dict[str, Any]] = {}  # function -> its literal defaults: the source is parsed once a function
    for noted in NOTES.inputs:
        if noted.function.startswith(DRIVER):
            continue
        reference = reference_module(noted.lesson, noted.slug)
        target = getattr(reference, noted.function, None) if reference is not None else None
        if not inspect.isfunction(target):
            continue
        try:
            given = inspect.signature(target).bind(*noted.args, **noted.kwargs).arguments
        except TypeError:
            continue
        if noted.function not in read:
            read[noted.function] = _literal_defaults(source, noted.function)
        student = read[noted.function]
        for name, parameter in inspect.signature(target).parameters.items():
            if name in given or parameter.default is inspect.Parameter.empty or name not in student:
                continue
            if not _same(student[name], parameter.default):
                changed[(noted.function, name)] = (student[name], parameter.default)
    if not changed:
        return None
    said = "; ".join(_differing(function, name, student, reference)
                     for (function, name), (student, reference) in changed.items())
    return Explanation(NAME, f"This check called it without that argument, so your default decided the result: "
                             f"{said}.", HINT)


def _differing(function: str, name: str, student: Any, stub: Any) -> str:
    return f"{function}'s default {name}={student!r}, where the stub gives {name}={stub!r}"


def defaults_told(function: str, student: Any, stub: dict[str, Any]) -> dict[str, Any]:
    """fail()'s parts for a check that read the student's defaults (`student`: parameter -> default, as a driver read
    them in the worker) and found other values than the stub's: the name, which defaults differ, and the hint. A
    fact about the student's code, so a hidden check may tell it too."""
    differing = [_differing(function, name, student[name], want) for name, want in stub.items()
                 if type(student) is dict and name in student and not _same(student[name], want)]
    meaning = f"Your signature gives {'; '.join(differing)}." if differing else \
        f"Your signature gives {function} other defaults than the stub's."
    return {"mistake": NAME, "meaning": meaning, "hint": HINT, "about_the_code": True}
