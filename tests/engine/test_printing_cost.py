"""A call that prints a lot and runs out of time is told that the printing took the time (issue 25): the worker
says how much a call has printed as it goes, so the grader knows it even of a call it had to stop."""

from __future__ import annotations

from conftest import ROOT
from graders.engine import student
from graders.engine.allowance import SPENT_HINT

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
RIGHT = "    return leaf.grad.detach()"


def _printing(then: str) -> str:
    return REFERENCE.replace(RIGHT, "    for step in range(40_000):\n        print(f'step {step}: ' + '.' * 60)\n" + then)


def test_a_call_stopped_after_printing_megabytes_is_told_the_printing_cost_the_time(grade) -> None:
    graded = grade({SLUG: _printing("    while True:\n        pass")}, "--call-timeout", "2")
    message = graded.checks(SLUG)["autograd_derivative_on_lesson_grid"]["message"]
    assert "did not return within 2 s" in message, message
    assert "printing that much takes time" in message and student.TIMEOUT_HINT not in message, message


def test_a_right_answer_that_prints_a_lot_and_spends_its_allowance_is_told_why(grade) -> None:
    graded = grade({SLUG: _printing(RIGHT)}, "--exercise-seconds", "0.5")
    spent = [c for c in graded.checks(SLUG).values() if c["cause"] == "allowance spent"]
    assert spent, graded.output
    assert "printing that much takes time" in spent[0]["message"] and SPENT_HINT not in spent[0]["message"], spent[0]


def test_a_timeout_without_printing_keeps_its_loop_hint(grade) -> None:
    graded = grade({SLUG: REFERENCE.replace(RIGHT, "    while True:\n        pass")}, "--call-timeout", "1")
    message = graded.checks(SLUG)["autograd_derivative_on_lesson_grid"]["message"]
    assert student.TIMEOUT_HINT in message and "printing" not in message, message
