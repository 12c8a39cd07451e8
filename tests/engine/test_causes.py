"""One cause, one message (issue 25): a failure whose cause an earlier check explained is told in short,
"same cause as above", in the terminal, the JSON, the notebooks' feedback and the HTML pages."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import course_config
from conftest import ROOT
from graders.engine.causes import SAME_CAUSE, Causes, cause_of
from graders.engine.feedback import Feedback
from graders.engine.results import HIDDEN_OUTCOME
from graders.frontends.grade.outputs.feedback_html import feedback_html
from graders.frontends.nbgrader.report import print_feedback
from graders.frontends.grade.store import StudentRecord

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
# autograd_derivative raises the same KeyError in every check that calls it; nothing in the catalogue names it.
RAISES = REFERENCE.replace("    return leaf.grad.detach()", "    kept = {}\n    return kept['grad']")
SAID_AGAIN = SAME_CAUSE.format(named="")


def test_one_exception_from_one_function_is_one_cause_and_another_message_is_another() -> None:
    key = Feedback("`g` raised KeyError.", call="g(1)", error="g: KeyError: 'grad'")
    again = Feedback("`g` raised KeyError.", call="g(2)", error="g: KeyError: 'grad'")
    other = Feedback("`g` raised KeyError.", call="g(3)", error="g: KeyError: 'w'")
    assert cause_of(key) == cause_of(again) != cause_of(other)
    wrong = Feedback("g(x) returned 3; expected 4.", call="g(x)", got="3")
    assert cause_of(wrong) == cause_of(Feedback("g(x) returned 3; expected 4.", call="g(x)", got="3"))
    assert cause_of(wrong) != cause_of(Feedback("g(x) returned 3; expected 4.", call="g(y)", got="3"))
    assert cause_of(wrong) != cause_of(Feedback("g(x) returned 5; expected 4.", call="g(x)", got="5"))
    causes = Causes()
    causes.explain(SLUG, cause_of(key), "first")
    causes.explain(SLUG, cause_of(again), "second")
    assert causes.explained_by(SLUG, cause_of(again)) == "first"
    assert causes.explained_by("views", cause_of(again)) == ""  # each exercise explains its own


def test_a_repeated_exception_is_explained_once_in_the_terminal_and_the_json(grade) -> None:
    graded = grade({SLUG: RAISES})
    checks = graded.checks(SLUG)
    first = checks["autograd_derivative_on_lesson_grid"]
    assert "raised:   KeyError: 'grad'" in first["message"] and first["same_cause_as"] == ""
    later = [c for c in checks.values() if not c["passed"] and c is not first]
    assert len(later) >= 3, checks
    for check in later:
        assert check["same_cause_as"] == "autograd_derivative_on_lesson_grid", check
        assert check["message"] == f"`autograd_derivative` raised KeyError.\n  {SAID_AGAIN}", check
    assert graded.output.count("raised:   KeyError: 'grad'") == 1, graded.output
    # A hidden check says so too, after the function it called and without its headline.
    assert graded.output.count(SAID_AGAIN) == len(later), graded.output
    hidden = [c for c in later if c["hidden"]]
    shown = f"{HIDDEN_OUTCOME}\n  called:   autograd_derivative(...)\n  {SAID_AGAIN}"
    assert hidden and all(c["shown"] == shown for c in hidden), hidden


def test_the_notebook_feedback_and_the_html_page_say_a_repeated_cause_once(grade, tmp_path: Path) -> None:
    graded = grade({SLUG: RAISES})
    printed = io.StringIO()
    with redirect_stdout(printed):
        print_feedback(graded.model.exercise(SLUG), public_only=False)
    assert printed.getvalue().count("raised:   KeyError: 'grad'") == 1, printed.getvalue()
    assert SAID_AGAIN in printed.getvalue()
    record = StudentRecord.from_dict({**graded.result, "student": "s1"})
    for instructor in (False, True):
        html = feedback_html(record, course_config.LESSON_01, tmp_path, instructor=instructor)
        assert html.count("raised:   KeyError: &#x27;grad&#x27;") + html.count("raised:   KeyError: 'grad'") == 1, html
        assert SAID_AGAIN in html


def test_checks_stopped_by_a_timeout_say_so_in_the_terminal(grade) -> None:
    endless = REFERENCE.replace("    return leaf.grad.detach()", "    while True:\n        pass")
    graded = grade({SLUG: endless}, "--call-timeout", "1")
    checks = graded.checks(SLUG)
    skipped = [c for c in checks.values() if c["same_cause_as"] == "autograd_derivative_on_lesson_grid"]
    assert len(skipped) >= 2 and all(c["cause"] == "timeout of autograd_derivative" for c in skipped), checks
    assert "  FAIL  autograd_derivative_on_lesson_grid: 0 / 2   (autograd_derivative timed out)" in graded.output
    for check in skipped:
        hidden = " [hidden]" if check["hidden"] else ""
        line = (f"  FAIL  {check['id']}{hidden}: 0 / {check['points']:g}   "
                "(not run: autograd_derivative timed out above)")
        assert line in graded.output, graded.output


def test_one_wrong_value_no_mistake_names_is_explained_once_and_later_checks_say_not_judged(grade) -> None:
    # A negated derivative: nothing in the catalogue names it, and the checks that autograd_derivative is clean and
    # uses autograd fail first on that same value.
    negated = REFERENCE.replace("    return leaf.grad.detach()", "    return -leaf.grad.detach()")
    graded = grade({SLUG: negated}, "-k", "autograd_derivative")
    checks = graded.checks(SLUG)
    first = checks["autograd_derivative_on_lesson_grid"]
    assert not first["passed"] and first["same_cause_as"] == "" and "expected" in first["message"]
    for later in ("autograd_derivative_uses_autograd", "autograd_derivative_is_clean"):
        assert checks[later]["same_cause_as"] == "autograd_derivative_on_lesson_grid", checks[later]
        assert "did not get to judge what its own name says" in checks[later]["message"], checks[later]["message"]
    assert graded.output.count("did not get to judge what its own name says") == 2, graded.output[-3000:]
