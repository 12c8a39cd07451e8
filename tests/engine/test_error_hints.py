"""The hint for an error no catalogued mistake names (issue 25): what was called, the error and the line of the
student's file, or torch's known fix where the error is one of lesson 1's, never "read the error"."""

from __future__ import annotations

from conftest import ROOT
from graders.engine.error_hints import hint_for
from graders.sandbox import StudentError

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()


def test_an_unknown_error_is_hinted_with_its_call_its_error_and_its_line() -> None:
    error = StudentError("KeyError", "'grad'", [("views.py", 12, "as_grid", "return kept['grad']")], False)
    hint = hint_for(error, "as_grid(x) with x = torch.arange(6)", "views.py")
    assert hint.startswith("Line 12 of views.py, in as_grid (`return kept['grad']`), raised KeyError: 'grad' "
                           "when the check called as_grid(x) with x = torch.arange(6)."), hint
    inside = hint_for(StudentError("ValueError", "bad", [], False), "f(1)", "answer cell")
    assert "outside answer cell" in inside and "ValueError: bad" in inside, inside


def test_a_known_torch_error_gets_its_fix_instead() -> None:
    error = StudentError("RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn",
                         [("f.py", 3, "f", "y.backward()")], False)
    assert "requires_grad=True" in hint_for(error, "f(x)", "f.py")


def test_a_graded_error_carries_the_specific_hint_not_read_the_error(grade) -> None:
    raising = REFERENCE.replace("    return leaf.grad.detach()", "    kept = {}\n    return kept['grad']")
    graded = grade({SLUG: raising})
    message = graded.checks(SLUG)["autograd_derivative_on_lesson_grid"]["message"]
    line = raising.splitlines().index("    return kept['grad']") + 1
    assert f"hint:     Line {line} of {SLUG}.py, in autograd_derivative (`return kept['grad']`), raised KeyError" \
        in message, message
    assert "Read the error" not in message, message
