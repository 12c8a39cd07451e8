"""The one shape of a failure message (graders/engine/feedback.py): its parts in order under their labels, every part
cut to a readable size, a named mistake's words filling what the check left out, and no single edit tried where the
check named a mistake or the code raised."""

from __future__ import annotations

import pytest

from graders.engine import feedback, single_edits
from graders.engine.feedback import CheckFailed, Feedback, cut, fail, got_label, printed_text
from graders.engine.mistakes import Mistake

SLIP = Mistake("sum instead of mean", "Your loss adds the squared errors.", "Divide by the count: use .mean().",
               '"Worked example"', concept="training_loop")


def test_the_parts_come_in_one_order_under_their_labels() -> None:
    text = Feedback("loss: wrong value.", call="loss(x)", got="12.0", expected="0.12", meaning="why",
                    hint="try this", section="the lesson", mistake="sum instead of mean").text()
    labels = [line.split(":")[0].strip() for line in text.splitlines()[1:]]
    assert text.splitlines()[0] == "loss: wrong value."
    assert labels == ["called", "returned", "expected", "mistake", "hint", "lesson"]
    assert "mistake:  sum instead of mean. why" in text


def test_what_stopped_is_not_called_returned() -> None:
    assert got_label("ValueError: no") == "raised" and got_label("12.0") == "returned"
    assert "stopped:  ran out of time" in Feedback("f timed out.", got="ran out of time", got_as="stopped").text()


def test_every_part_is_cut_to_a_readable_size() -> None:
    huge = "9" * 10**6
    text = Feedback("f: wrong.", got=huge, hint=huge).text()
    assert len(text) < 3 * feedback.FIELD_CHARS + 500 and "characters in all" in text
    assert cut("abc", 5) == "abc" and cut("abcdef", 3) == "abc... (6 characters in all)"
    many = "\n".join(f"line {n}" for n in range(40))
    assert printed_text(many).splitlines()[-1] == f"... ({40 - feedback.PRINTED_LINES} more lines)"


def test_a_named_mistake_fills_the_parts_the_check_left_out() -> None:
    with pytest.raises(CheckFailed) as raised:
        fail("loss: wrong value.", call="loss(x)", got="12.0", mistake=SLIP, hint="the check's own hint")
    told = raised.value.feedback
    assert (told.mistake, told.meaning, told.section, told.concept) == (
        "sum instead of mean", SLIP.explanation, SLIP.section, "training_loop")
    assert told.hint == "the check's own hint"  # what the check says wins over the catalogue's words
    assert str(raised.value) == told.text()


def test_no_single_edit_is_tried_where_a_mistake_is_named_or_the_code_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    tried = []
    monkeypatch.setattr(single_edits, "explain", lambda: tried.append(1))
    for parts in ({"got": "1", "mistake": SLIP}, {"got": "1", "error": "f: ValueError: no"}, {"got": "1", "cause": "x"},
                  {}):
        with pytest.raises(CheckFailed):
            fail("f: wrong.", **parts)
    assert tried == []
    with pytest.raises(CheckFailed):
        fail("f: wrong.", got="1")
    assert tried == [1]  # a wrong value nothing names: the one place single edits are asked


def test_an_explanation_that_fails_leaves_the_checks_own_words(monkeypatch: pytest.MonkeyPatch) -> None:
    # A hostile answer the explanation cannot handle must not turn the check's failure into the grader's traceback.
    def broken() -> None:
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(single_edits, "explain", broken)
    with pytest.raises(CheckFailed) as raised:
        fail("f: wrong.", got="10**400", expected="0.72", hint="the check's hint")
    assert raised.value.feedback.mistake is None and raised.value.feedback.hint == "the check's hint"


def test_a_failure_that_names_a_mistake_keeps_its_fact_about_the_result_for_the_net() -> None:
    """registration.py's net names the fact where the student's own code rules the name out: fail carries it."""
    from graders.engine.feedback import CheckFailed, fail
    from graders.engine.mistakes import DTYPE_DIFFERS, Mistake

    named = Mistake("a named slip", "What it did.", "What to change.", "A section", concept="dtypes")
    with pytest.raises(CheckFailed) as failed:
        fail("f: wrong.", call="f(x)", got="1", expected="2", mistake=named, otherwise=DTYPE_DIFFERS)
    assert failed.value.feedback.mistake == named.name and failed.value.otherwise is DTYPE_DIFFERS
    with pytest.raises(CheckFailed) as failed:
        fail("f: wrong.", call="f(x)", got="1", expected="2", otherwise=DTYPE_DIFFERS)
    assert failed.value.feedback.mistake == DTYPE_DIFFERS.name and failed.value.otherwise is None
