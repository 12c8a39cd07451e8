"""An argument the student's code adds to a library call the reference makes too (graders/engine/added_keywords.py):
carried over only where its value is a literal, and named only where the reference given it gives the student's
answers; an addition that changes nothing, or that the grader cannot follow, is not named."""

from __future__ import annotations

import course_config
from graders.engine import added_keywords, single_edits

LESSON = course_config.LESSON_01.folder
REFERENCE_CALL = "optimiser = torch.optim.SGD(model.parameters(), lr=lr)"


def _source(slug: str) -> str:
    return single_edits.reference_path(LESSON, slug).read_text(encoding="utf-8")


def test_literal_keywords_of_a_call_the_reference_makes_are_carried_over_one_candidate_per_call() -> None:
    reference = "import torch\n\ndef f(x):\n    a = torch.zeros(3)\n    b = torch.zeros(2, dtype=None)\n    return a, b\n"
    student = ("from torch import zeros\nimport torch\nM = 0.9\n\ndef f(x):\n    a = zeros(3, requires_grad=True)\n"
               "    c = torch.ones(3, out=None)\n    d = torch.optim.SGD([a], lr=0.1, momentum=M)\n    return a\n")
    found = added_keywords.additions(student, reference, "made_up")
    # `zeros` matches both of the reference's torch.zeros calls; b's already passes dtype, so only requires_grad is
    # new there too. `ones` and `SGD` are not called by the reference; `momentum=M` is not a literal anyway.
    assert [(a.call, a.keywords) for a in found] == [("zeros", (("requires_grad", "True"),))] * 2
    a, b = found[0].module.f(None)
    assert a.requires_grad and not b.requires_grad and found[1].module.f(None)[1].requires_grad
    assert added_keywords.additions("def f(:\n", reference, "broken") == []


def test_momentum_the_recipe_does_not_pass_is_named_in_every_failed_check(grade, keeping) -> None:
    source = _source("linear_module").replace(REFERENCE_CALL, REFERENCE_CALL[:-1] + ", momentum=0.9)")
    assert "momentum=0.9" in source
    checks = grade({"linear_module": source}).checks("linear_module")
    failed = [c for c in checks.values() if not c["passed"]]
    assert failed and all(c["mistake"] == added_keywords.NAME for c in failed), [c["message"] for c in failed]
    assert "calls torch.optim.SGD with momentum=0.9, which the exercise's recipe does not pass" in failed[0]["message"]
    hidden = next(c for c in failed if c["hidden"])
    # A fact about the code: the hidden check tells it (here as the cause said above), never its inputs.
    assert added_keywords.NAME in hidden["shown"] and "returned" not in hidden["shown"], hidden["shown"]


def test_an_addition_that_changes_nothing_passes_and_one_the_grader_cannot_follow_is_not_named(grade,
                                                                                                  keeping) -> None:
    harmless = _source("linear_module").replace(REFERENCE_CALL, REFERENCE_CALL[:-1] + ", momentum=0.0)")
    assert all(c["passed"] for c in grade({"linear_module": harmless}).checks("linear_module").values())
    hidden_value = _source("linear_module").replace(REFERENCE_CALL, REFERENCE_CALL[:-1] + ", momentum=MOMENTUM)")
    hidden_value = hidden_value.replace("\ndef fit_linear_module", "\nMOMENTUM = 0.9\n\n\ndef fit_linear_module", 1)
    assert "MOMENTUM = 0.9" in hidden_value
    failed = [c for c in grade({"linear_module": hidden_value}).checks("linear_module").values() if not c["passed"]]
    assert failed and all(c["mistake"] != added_keywords.NAME for c in failed), [c["message"] for c in failed]
