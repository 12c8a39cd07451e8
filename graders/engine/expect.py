"""The assertions checks are written with. Each compares a student's value with the
expected one and, when they differ, looks through the exercise's mistakes for the one
that explains the difference before failing with a message in the standard shape."""

from __future__ import annotations

import contextlib
from typing import Any, Iterable, Iterator, Mapping

import torch

from graders.engine.compare import describe, number_problem, tensor_problem
from graders.sandbox import origin
from graders.engine.feedback import CheckFailed, fail
from graders.engine.answer_facts import dtype_fact, nan_fact, order_fact, scale_fact, shape_fact, unfilled_fact
from graders.engine.mistakes import (CUT_FROM_THE_GRAPH, STILL_TRACKED, Mistake, Suspect,
                                     first_matching_variant, gradient_signature, is_scaled, unless_contradicted)
from graders.engine.student import Returned, Student


def expect_tensor(returned: Returned, expected: torch.Tensor, *, rtol: float, atol: float, section: str,
                  hint: str = "", what: str = "the result", requires_grad: bool | None = False,
                  suspects: Iterable[Suspect] = (), scaled: Mapping[float, Mistake] | None = None) -> None:
    """The returned tensor equals `expected` in type, shape, dtype, requires_grad and values.

    `suspects` are wrong variants run on the same input; `scaled` names mistakes that
    give a known multiple of the right gradient (2.0: accumulated twice, -1.0: sign, ...).
    """
    __tracebackhide__ = True
    got = returned.value
    problem = tensor_problem(got, expected, rtol=rtol, atol=atol, requires_grad=requires_grad, what=what)
    if problem is None:
        return
    mistake = first_matching_variant(got, suspects, rtol=rtol, atol=atol)
    if mistake is None and scaled and type(got) is torch.Tensor and got.shape == expected.shape:
        signature = gradient_signature(got, expected)
        mistake = next((m for factor, m in scaled.items() if is_scaled(signature, factor)), None)
    _fail_with(returned, problem, describe(got), describe(expected), mistake, hint, section,
               otherwise=property_mistake(got, expected, requires_grad))


def property_mistake(got: Any, expected: torch.Tensor, requires_grad: bool | None) -> Mistake | None:
    """What differs in the result's own properties, in tensor_problem's order (shape, dtype, requires_grad), as a
    mistake any exercise can make, its meaning saying how (answer_facts.py); where only values differ, the right
    values in another order or times one factor, or nan where a number belongs; None otherwise (or where it is no tensor)."""
    if type(got) is not torch.Tensor:
        return None
    if got.shape != expected.shape:
        return shape_fact(got.shape, expected.shape)
    if got.dtype != expected.dtype:
        return dtype_fact(got.dtype, expected.dtype)
    info = origin(got)
    if requires_grad is False and info is not None and info.requires_grad:
        return STILL_TRACKED
    if requires_grad is True and info is not None and not info.requires_grad:
        return CUT_FROM_THE_GRAPH
    return (nan_fact(got, expected) or order_fact(got, expected) or scale_fact(got, expected)
            or unfilled_fact(got, expected))


def expect_number(returned: Returned, expected: float, *, rtol: float, atol: float, section: str,
                  hint: str = "", what: str = "the result", suspects: Iterable[Suspect] = ()) -> None:
    """The returned value is a Python number close to `expected`."""
    __tracebackhide__ = True
    got = returned.value
    problem = number_problem(got, expected, rtol=rtol, atol=atol, what=what)
    if problem is None:
        return
    mistake = None
    for suspect in suspects:
        if number_problem(got, float(suspect.value), rtol=rtol, atol=atol) is None:
            mistake = suspect.mistake
            break
    _fail_with(returned, problem, describe(got), describe(expected), mistake, hint, section,
               otherwise=nan_fact(got, expected))


def expect_float_not_tensor(returned: Returned, right: float, mistake: Mistake, *, rtol: float, atol: float,
                            wanted: str, what: str = "the result") -> None:
    """A 0-d floating tensor that holds the right number fails naming `mistake`, a missing .item()
    (the docstring promises a Python float); any other value is left to the caller's own checks."""
    __tracebackhide__ = True
    got = returned.value
    if (type(got) is torch.Tensor and got.dim() == 0 and got.is_floating_point()
            and number_problem(got.item(), right, rtol=rtol, atol=atol) is None):
        fail(f"{returned.call.split('(')[0]}: {what} is right, but it is a tensor, not a Python float.",
             call=returned.call, got=describe(got), expected=wanted, mistake=mistake)


def fail_with_mistake(returned: Returned, summary: str, mistake: Mistake, got: Any = None) -> None:
    """Fail a check with a mistake already recognised by the check itself."""
    __tracebackhide__ = True
    fail(summary, call=returned.call, got=describe(got) if got is not None else "", mistake=mistake)


def _fail_with(returned: Returned, problem: str, got: str, expected: str, mistake: Mistake | None,
               hint: str, section: str, otherwise: Mistake | None = None) -> None:
    __tracebackhide__ = True
    summary = f"{returned.call.split('(')[0]}: {problem}."
    if mistake is not None:  # its fact too, for a name the student's own code rules out (registration.py's net)
        fail(summary, call=returned.call, got=got, expected=expected, mistake=mistake, otherwise=otherwise)
    fail(summary, call=returned.call, got=got, expected=expected, hint=hint, section=section, otherwise=otherwise)


CODE_SHOWS_NONE = "{function} must use {what}, and its code shows none."
CODE_SHOWS_NONE_MEANING = ("A check of how your code works rests on two things: the record of its run and the code "
                           "itself, which the grader reads. Here the record may say so, but nothing in {function}, "
                           "nor in the functions of your file that it calls, is {what}.")


def expect_code_shows(student: Student, returned: Returned, function: str, patterns: Iterable[str], what: str,
                      section: str) -> None:
    """For a check of how, the code the grader reads itself (the function and the module's functions it
    calls) shows what the run's record says it did: that record is the student's word (graders/engine/source_evidence.py)."""
    __tracebackhide__ = True
    if not student.evidence.shows(function, patterns):
        fail(CODE_SHOWS_NONE.format(function=function, what=what), call=returned.call,
             meaning=CODE_SHOWS_NONE_MEANING.format(function=function, what=what),
             hint=f"Use {what} in {function} itself, or in a function of your file that it calls.", section=section)


def code_lines(student: Student, returned: Returned, function: str, trace_names: Iterable[str],
               patterns: Iterable[str]) -> list[int]:
    """The lines where the run's record, or the code the grader reads, shows any of these (0 for a call the
    record could not place): for a check of how that something is not used, which neither alone can show."""
    traced = {event.line for event in returned.calls_to(*trace_names)}  # 0: a call the record could not place
    return sorted(traced | set(student.evidence.lines(function, patterns)))


@contextlib.contextmanager
def seed_judged(student: Student, returned: Returned, function: str, *args: Any, late: Mistake, never: Mistake,
                **kwargs: Any) -> Iterator[None]:
    """Around the checks of a seeded function's answer: when they fail, the same call is made once more, in a worker
    of its own (Student.probe: it changes no verdict), and if it gives another answer the seed decides nothing, which
    is then the mistake named (`never`, or `late` where the code does pass its seed to torch.manual_seed: something
    was drawn before it). A passing answer costs no second call."""
    __tracebackhide__ = True
    try:
        yield
    except CheckFailed:
        from graders.engine.single_edits import same  # equal values (the same NaNs too), containers and dtypes alike

        # Twice in a row in one fresh worker: a seed that decides nothing gives two answers there, whatever state
        # torch's random stream starts from.
        twice = student.probe([(function, args, kwargs)] * 2, 2 * student.budget.call_seconds)
        if twice is not None and not same(twice[0], twice[1]):
            mistake = unless_contradicted(never, student) or late
            fail(f"{function} gives other numbers on a second call with the same arguments.", call=returned.call,
                 got=f"{describe(twice[0])}; called again: {describe(twice[1])}",
                 expected="the same numbers on every call with the same seed", mistake=mistake)
        raise
