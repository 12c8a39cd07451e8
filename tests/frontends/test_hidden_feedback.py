"""What students see of a failed hidden check, in every front end (the terminal, the JSON's `shown`, the batch's
student page, the notebooks' feedback, Gradescope, GitHub Classroom): the function it called and the mistake the
grader named, with its meaning, hint and lesson section; never the check's inputs, what came back or what was
expected, which the instructor's copy of the same message holds."""

from __future__ import annotations

import html
import importlib
import re
from pathlib import Path

import pytest

import course_config
from graders.engine.collect import collect_mistakes
from graders.engine.feedback import Feedback
from graders.engine.mistakes import Mistake, catalogued
from graders.engine.results import HIDDEN_OUTCOME, CheckResult, hidden_text
from graders.frontends.grade.outputs.feedback_html import feedback_html
from graders.frontends.grade.store import StudentRecord
from graders.frontends.nbgrader.report import print_feedback
from graders.frontends.platforms import classroom_runners, gradescope_results
from conftest import ROOT
from mistake_catalogue import CATALOGUE, read

LESSON = course_config.LESSON_01

# The two examples: each catalogued submission fails only one check, a hidden one, whose instructor's
# message names the mistake.
ONLY_A_HIDDEN_CHECK_FAILS = [
    ("neuron_chain_rule", "result_tracks_w", "neuron_grad_by_hand_on_fresh_inputs", "neuron_grad_by_hand(...)"),
    ("stopping_gradients", "weight_not_transposed", "predict_sgd_step_and_to_numpy_on_float64_other_shapes",
     "predict(...)"),
]


def _mistake(slug: str, name: str) -> Mistake:
    found = catalogued(name, collect_mistakes(importlib.import_module(f"graders.lesson01.{slug}.mistakes")))
    assert found is not None, f"{slug} catalogues no mistake called {name!r}"
    return found


def _instructors_parts(message: str) -> list[str]:
    """What only the instructor's copy of a message shows: its headline and its labelled inputs and values."""
    parts = {label: value for label, value in re.findall(r"^  (called|returned|raised|expected): +(.+)$", message,
                                                         re.MULTILINE)}
    assert "called" in parts and ("returned" in parts or "raised" in parts), message
    return [message.splitlines()[0], *parts.values()]


@pytest.mark.parametrize(("slug", "change", "check_id", "function"), ONLY_A_HIDDEN_CHECK_FAILS,
                         ids=[case[0] for case in ONLY_A_HIDDEN_CHECK_FAILS])
def test_a_failed_hidden_check_names_its_function_and_mistake_in_every_front_end_and_no_input(
        grade, tmp_path: Path, capsys: pytest.CaptureFixture[str], slug: str, change: str, check_id: str,
        function: str) -> None:
    graded = grade({slug: read(CATALOGUE / slug / "mistakes" / f"{change}.change").text()})
    assert graded.failed(slug) == {check_id}
    check = graded.checks(slug)[check_id]
    assert check["hidden"] and check["mistake"]
    mistake = _mistake(slug, check["mistake"])
    secrets = _instructors_parts(check["message"])

    typed = graded.model.exercise(slug).check(check_id)
    assert typed.mistake_shown and (typed.meaning, typed.hint, typed.section) == (
        mistake.explanation, mistake.hint, mistake.section), "the mistake's parts travel as fields of the check"
    record = StudentRecord.from_dict({**graded.result, "student": "ann"})
    page = html.unescape(feedback_html(record, LESSON, tmp_path))
    print_feedback(graded.model.exercise(slug), public_only=False)
    notebook = capsys.readouterr().out
    gradescope = next(t["output"] for t in gradescope_results(record)["tests"] if f": {check_id} " in t["name"])
    classroom = next(t["message"] for runner in classroom_runners(record).values() for t in runner["tests"]
                     if t["name"].startswith(f"{check_id} "))
    seen = {"json": check["shown"], "terminal": graded.output, "page": page, "notebook": notebook,
            "gradescope": gradescope, "classroom": classroom}
    for where, text in seen.items():
        assert HIDDEN_OUTCOME in text, where
        assert f"  called:   {function}\n" in text, where
        assert f"  mistake:  {mistake.name}. {mistake.explanation}\n" in text, where
        assert f"  hint:     {mistake.hint}\n" in text, where
        assert f"  lesson:   {mistake.section}" in text, where
        assert not [secret for secret in secrets if secret in text], (where, text)


def test_a_hidden_check_tells_its_mistake_in_the_catalogues_words_not_the_checks_measured_values(grade) -> None:
    # quadratic_fit's check adds to the explanation what it measured on its inputs: where the fit starts from.
    check_id = "fit_quadratic_follows_lr_and_steps"
    start = read(CATALOGUE / "quadratic_fit" / "mistakes" / "random_start.change").text()
    check = grade({"quadratic_fit": start}, "-k", check_id).checks("quadratic_fit")[check_id]
    mistake = _mistake("quadratic_fit", check["mistake"])
    measured = re.search(r"^  mistake: .*?(Here fit_quadratic\(.+)$", check["message"], re.MULTILINE)
    assert check["hidden"] and measured, check["message"]
    assert f"  mistake:  {mistake.name}. {mistake.explanation}\n" in check["shown"]
    assert measured[1] not in check["shown"] and "steps=0" not in check["shown"]


def test_a_hidden_check_tells_how_a_shape_differs_without_either_shape(grade) -> None:
    # A flatten that squeezes: the hidden check's (1, 1) input gives () where (1,) belongs, a 0-d result.
    squeezing = (ROOT / "reference" / "lesson01" / "views.py").read_text().replace(
        "    return x.reshape(-1)", "    return x.reshape(-1).squeeze()")
    check_id = "as_grid_and_flatten_on_fresh_tensors"
    check = grade({"views": squeezing}, "-k", check_id).checks("views")[check_id]
    assert check["hidden"] and check["mistake"] == "result in another shape", check["message"]
    assert "(1,)" in check["message"] and "(1,)" not in check["shown"], check["shown"]
    assert "a single number (a 0-d tensor) where a 1-D tensor belongs" in check["shown"]
    assert "its only dimension was squeezed or reduced away" in check["shown"]


def test_a_hidden_check_failing_for_a_cause_explained_above_points_there_without_its_headline(grade) -> None:
    graded = grade({"learning_rate": read(CATALOGUE / "learning_rate" / "mistakes" / "never_zeroed.change").text()})
    check = graded.checks("learning_rate")["train_line_on_fresh_data"]
    assert check["hidden"] and check["same_cause_as"], check
    assert check["shown"] == (f"{HIDDEN_OUTCOME}\n  called:   train_line(...)\n"
                              f"  same cause as above (gradients never zeroed).")
    assert check["message"].splitlines()[0] not in graded.output, "its headline holds what its fresh inputs gave"


def test_the_outcome_setting_shows_the_function_called_and_no_mistake() -> None:
    failure = Feedback("predict: the result has shape (7, 3)", call="predict(weight, bias, X) with X (7, 3)",
                       got="tensor of shape (7, 3)", mistake="weight not transposed in predict", meaning="X @ weight",
                       hint="Transpose the weight.", section="a section")
    assert hidden_text(failure, "outcome") == f"{HIDDEN_OUTCOME}\n  called:   predict(...)"
    assert hidden_text(failure, "mistake").endswith("  lesson:   a section")
    unnamed = Feedback("the result differs", call="the defaults of fit_quadratic's signature", hint="(7, 3)")
    assert hidden_text(unnamed, "mistake") == HIDDEN_OUTCOME, "a call that is no function's, and no mistake named"


def test_a_hidden_check_stored_without_shown_shows_no_message_on_any_platform(tmp_path: Path) -> None:
    # Records graded before `shown` existed: Gradescope and Classroom once fell back to the whole message.
    hidden = next(c for c in LESSON.exercise("views").checks if c.hidden)
    check = {"id": hidden.id, "points": hidden.points, "score": 0.0, "passed": False, "hidden": True,
             "message": "as_grid(x) with x = torch.arange(20) shared nothing", "mistake": "copies", "files": []}
    record = {"student": "ann", "score": 0.0, "max_score": LESSON.points, "problems": [], "error": "",
              "exercises": [{"slug": "views", "score": 0.0, "max_score": hidden.points, "checks": [check]}]}
    assert course_config.HIDDEN_CHECKS_SHOW.value == "mistake"
    assert CheckResult.from_dict(check).shown == f"{HIDDEN_OUTCOME}\n  mistake:  copies."
    record = StudentRecord.from_dict(record)
    outputs = [t["output"] for t in gradescope_results(record)["tests"]]
    outputs += [t["message"] for runner in classroom_runners(record).values() for t in runner["tests"]]
    outputs.append(feedback_html(record, LESSON, tmp_path))
    assert all("shared nothing" not in text and HIDDEN_OUTCOME in html.unescape(text) for text in outputs)
