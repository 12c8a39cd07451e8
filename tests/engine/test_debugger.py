"""breakpoint(), pdb.set_trace() or input() in a graded function says how to debug (issue 25): the worker has no
keyboard, and pytest's "reading from stdin while output is captured" is no answer a student can act on."""

from __future__ import annotations

import pytest

from conftest import ROOT

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
LEAF = "    leaf = x.detach().clone().requires_grad_(True)\n"


@pytest.mark.parametrize("stop", ["breakpoint()", "import pdb; pdb.set_trace()", "input('go on? ')"])
def test_a_stop_for_the_keyboard_says_to_rerun_in_process(grade, stop: str) -> None:
    graded = grade({SLUG: REFERENCE.replace(LEAF, f"{LEAF}    {stop}\n", 1)}, "--call-timeout", "5")
    checks = graded.checks(SLUG)
    message = checks["autograd_derivative_on_lesson_grid"]["message"]
    assert "stopped to wait for the keyboard" in message, message
    assert f"pytest exercises/ -k {SLUG} --in-process -s" in message, message
    assert "Consider using `-s`" not in message and "Read the error" not in message, message
    assert checks["autograd_derivative_uses_autograd"]["same_cause_as"] == "autograd_derivative_on_lesson_grid"
