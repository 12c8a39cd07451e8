"""A default the student changed (graders/engine/changed_defaults.py): named where a call relied on it, read from the
source only where it is a literal, and told by a hidden check too (a fact about the code, not about its inputs)."""

from __future__ import annotations

import course_config
from graders.engine import changed_defaults, single_edits

LESSON = course_config.LESSON_01.folder


def _source(slug: str) -> str:
    return single_edits.reference_path(LESSON, slug).read_text(encoding="utf-8")


def test_only_literal_defaults_of_the_one_function_of_that_name_are_read() -> None:
    source = ("LR = 0.3\n\ndef fit(X, y, lr=LR, steps=500, *, seed=(1, 2), log=None):\n    pass\n\n"
              "def other(n=3):\n    pass\n")
    assert changed_defaults._literal_defaults(source, "fit") == {"steps": 500, "seed": (1, 2), "log": None}
    assert changed_defaults._literal_defaults(source + "\ndef fit(lr=0.1):\n    pass\n", "fit") == {}  # which runs?
    assert changed_defaults._literal_defaults("def fit(:\n", "fit") == {}


def test_the_same_value_spelled_otherwise_is_no_changed_default() -> None:
    assert changed_defaults._same(500, 500.0) and changed_defaults._same(0.1, 0.10)
    assert not changed_defaults._same(0.01, 0.1) and not changed_defaults._same(None, 0)


def test_a_hidden_check_tells_the_default_the_signature_changed(grade) -> None:
    source = _source("quadratic_fit").replace("lr: float = 0.1, steps", "lr: float = 0.01, steps")
    assert source != _source("quadratic_fit")
    graded = grade({"quadratic_fit": source}, "--no-expected-cache")
    check = graded.checks("quadratic_fit")["fit_quadratic_follows_lr_and_steps"]
    assert check["hidden"] and not check["passed"] and check["mistake"] == changed_defaults.NAME, check
    # What the student reads: the name, which default, and the hint; none of the hidden check's inputs.
    assert "default lr=0.01, where the stub gives lr=0.1" in check["shown"], check["shown"]
    assert changed_defaults.HINT.split(":")[0] not in check["shown"] or "Keep the stub" in check["shown"]
    assert "returned" not in check["shown"] and "expected" not in check["shown"], check["shown"]
    assert graded.failed("quadratic_fit") == {"fit_quadratic_follows_lr_and_steps"}


def test_a_call_that_relied_on_a_changed_default_names_it(grade) -> None:
    # fit_linear_module() with no arguments is the lesson's run: a student's steps=100 makes it one step short.
    source = _source("linear_module").replace("steps: int = 101", "steps: int = 100")
    assert source != _source("linear_module")
    graded = grade({"linear_module": source}, "--no-expected-cache")
    failed = [c for c in graded.checks("linear_module").values() if not c["passed"]]
    assert failed and all(c["mistake"] == changed_defaults.NAME for c in failed), [c["message"] for c in failed]
    assert "fit_linear_module's default steps=100, where the stub gives steps=101" in failed[0]["message"]


def test_a_default_the_grader_cannot_follow_is_not_named(grade) -> None:
    source = _source("linear_module").replace("steps: int = 101", "steps: int = STEPS")
    source = source.replace("\ndef fit_linear_module", "\nSTEPS = 100\n\n\ndef fit_linear_module", 1)
    assert "STEPS = 100" in source
    graded = grade({"linear_module": source}, "--no-expected-cache")
    failed = [c for c in graded.checks("linear_module").values() if not c["passed"]]
    assert failed and all(c["mistake"] != changed_defaults.NAME for c in failed), [c["message"] for c in failed]

