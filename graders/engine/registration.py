"""`@check`: marks a test function as a graded check, with its points and visibility from
course_config.py, so that no number is written twice; a public check also runs on fresh
inputs when the reference is live, and pays only if both runs pass (graders/engine/fresh.py); no check names a
mistake that the grader's own facts about the student contradict (graders/engine/mistakes.py, `contradicted_by`);
a fact about the result is named by its cause where the code shows it (graders/engine/code_facts.py); and a failure
that names nothing, or a fact a pitfall explains, is told the Python pitfall its code shows
(graders/engine/code_pitfalls.py)."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import zlib
from typing import Any, Callable, TypeVar

import pytest

import course_config
from graders.engine.code_facts import told_by_the_code
from graders.engine.code_pitfalls import told_by_a_pitfall
from graders.engine.feedback import CheckFailed
from graders.engine.fresh import TWIN_NOTE, twin_run
from graders.engine.mistakes import catalogued, contradiction
from graders.engine.recording import CACHE, LIVE, RECORDING

F = TypeVar("F", bound=Callable)


def checks_for(lesson_folder: str, slug: str) -> Callable[[F], F]:
    """The decorator for the checks of one exercise: `check = checks_for("lesson01", "quadratic_fit")`."""
    lesson = next((l for l in course_config.LESSONS if l.folder == lesson_folder), None)
    if lesson is None:
        raise KeyError(f"course_config.py has no lesson in folder {lesson_folder!r}")
    exercise = lesson.exercise(slug)

    def check(test: F) -> F:
        name = test.__name__
        if not name.startswith("test_"):
            raise NameError(f"a check's function must be named test_<check id>, not {name}")
        entry = exercise.check(name.removeprefix("test_"))
        if not entry.hidden:
            test = _published_then_fresh(test, exercise, entry.id)
        test = _named_only_where_not_contradicted(test)
        test = pytest.mark.points(entry.points)(test)
        if entry.hidden:
            test = pytest.mark.hidden(test)
        return test

    return check


def _published_then_fresh(test: F, exercise: course_config.Exercise, check_id: str) -> F:
    @functools.wraps(test)
    def both_runs(*args: Any, **kwargs: Any) -> None:
        __tracebackhide__ = True
        test(*args, **kwargs)
        if RECORDING.mode not in (LIVE, CACHE):  # recording stores, and replaying can give, published values only
            return
        # Each check draws its own fresh inputs: the exercise's seed, moved by the check's id. Read here, not when
        # the checks load: the twins seed names the fresh inputs, so a student bundle's manifest has none.
        seed = exercise.seed("twins") + zlib.crc32(check_id.encode()) % 100_000
        with twin_run(seed):
            try:
                test(*args, **kwargs)
            except CheckFailed as failure:
                feedback = failure.feedback
                raise CheckFailed(dataclasses.replace(feedback, summary=f"{TWIN_NOTE} {feedback.summary}"),
                                  otherwise=failure.otherwise) from None

    return both_runs  # type: ignore[return-value]


def _named_only_where_not_contradicted(test: F) -> F:
    """A failure that names a mistake the student's own facts rule out (its source, its answers to other calls)
    keeps its values and loses the name, the meaning and the hint: a hint that asks for what the code already
    does misleads more than none. Where the check had a fact about the result to tell (a dtype, a shape), that fact
    takes the name's place. Checks that can tell the right name instead do so themselves; this is the net."""
    room = test.__module__.rpartition(".")[0]

    @functools.wraps(test)
    def named_truly(*args: Any, **kwargs: Any) -> None:
        __tracebackhide__ = True
        try:
            test(*args, **kwargs)
        except CheckFailed as failure:
            feedback = failure.feedback
            student = kwargs.get("student")
            # A pitfall that explains a fact (a dropped .float() a dtype) is the fact's cause: it goes first.
            by_the_code = told_by_a_pitfall(feedback, student) or told_by_the_code(feedback, student)
            if by_the_code is not None:
                raise CheckFailed(by_the_code) from None
            if not feedback.mistake:
                raise
            from graders.engine.collect import collect_mistakes  # the room's catalogue, read when first needed

            mistake = catalogued(feedback.mistake, collect_mistakes(importlib.import_module(f"{room}.mistakes")))
            if not contradiction(mistake, student):
                raise
            fact = failure.otherwise  # a fact about the result, true whatever the cause: named in the name's place
            if fact is not None:
                told = dataclasses.replace(feedback, mistake=fact.name, meaning=fact.explanation, hint=fact.hint,
                                           section=fact.section, concept=fact.concept, measured=fact.measured)
                # The fact in the name's place is read against the code as any fact is: a pitfall or a line may
                # tell its cause.
                raise CheckFailed(told_by_a_pitfall(told, student) or told_by_the_code(told, student) or told) from None
            unnamed = dataclasses.replace(feedback, mistake=None, meaning="", hint="", concept="")
            raise CheckFailed(told_by_a_pitfall(unnamed, student) or unnamed) from None

    return named_truly  # type: ignore[return-value]
