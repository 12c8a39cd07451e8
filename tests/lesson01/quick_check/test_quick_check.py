"""The quick_check checks keep no answer in plain text, their tables agree with the
questions the stub prints, and the facts behind the questions hold in this torch."""

from __future__ import annotations

import ast
import importlib.util
import re

import numpy as np
import pytest
import torch
from torch import nn

from conftest import ROOT, STUBS
from graders.lesson01.quick_check import checks

STUB = STUBS / "lesson01" / "quick_check.py"
GRADERS = ROOT / "graders" / "lesson01" / "quick_check" / "checks.py"


def _reference():
    path = ROOT / "reference" / "lesson01" / "quick_check.py"
    spec = importlib.util.spec_from_file_location("quick_check_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _form(name: str) -> dict[int, dict[str, str]]:
    """Each question's options in one form of the stub's docstring, whitespace collapsed."""
    text = ast.get_docstring(ast.parse(STUB.read_text()))
    start = text.index(f"Form {name} (")
    end = text.find("\nForm ", start + 1)
    part = text[start:end if end != -1 else None]
    questions = re.split(r"\n\s*(\d+)\.\s", part)[1:]
    options = {}
    for number, body in zip(questions[::2], questions[1::2]):
        body = re.sub(r"\n\s*\(.*\)\s*$", "", body.strip(), flags=re.DOTALL)  # the section note of form A
        pieces = re.split(r"(?:^|\s)([a-d])\)\s", body)[1:]
        options[int(number)] = {letter: " ".join(option.split()) for letter, option in zip(pieces[::2], pieces[1::2])}
    return options


def test_the_stub_offers_the_options_the_checks_accept() -> None:
    for name in ("A", "B"):
        form = _form(name)
        assert sorted(form) == list(range(1, 11))
        assert {q: "".join(options) for q, options in form.items()} == checks.OPTIONS, name


def test_form_b_lists_form_a_options_in_the_order_the_checks_assume() -> None:
    form_a, form_b = _form("A"), _form("B")
    for question, order in checks.FORM_B_ORDER.items():
        assert [form_b[question][letter] for letter in "abcd"[:len(order)]] == [form_a[question][o] for o in order]
        assert all(order[i] != "abcd"[i] for i in range(len(order))), f"question {question} keeps a letter"


def test_every_option_is_either_right_or_a_named_misconception() -> None:
    right = _reference().answers("A")
    for question, letters in checks.OPTIONS.items():
        for letter in letters:
            digest = checks._digest(question, letter)
            if letter == right[question]:
                assert digest == checks.RIGHT[question] and digest not in checks.WRONG
            else:
                assert digest in checks.WRONG, (question, letter)
    from graders.kit import collect_mistakes
    from graders.lesson01.quick_check import mistakes

    # Besides the misconceptions, the four mistakes of form: form A's letters reused, the forms swapped, form B
    # disagreeing with a right form A, and answers that an earlier call changed.
    assert set(checks.WRONG.values()) | {checks.FORM_LETTERS_REUSED, checks.FORMS_SWAPPED, checks.FORMS_DISAGREE,
                                         checks.ANSWERS_CHANGE_BETWEEN_CALLS} == set(collect_mistakes(mistakes))


def test_the_reference_forms_agree_through_the_order_table() -> None:
    reference = _reference()
    form_a, form_b = reference.answers("A"), reference.answers("B")
    assert {q: checks.FORM_B_ORDER[q]["abcd".index(letter)] for q, letter in form_b.items()} == form_a


def test_the_checks_module_holds_no_answer_key() -> None:
    source = GRADERS.read_text()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            pairs = [(k.value, v.value) for k, v in zip(node.keys, node.values)
                     if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)]
            letters = [v for k, v in pairs if type(k) is int and isinstance(v, str) and len(v) == 1]
            assert not letters, f"a dict of question numbers to letters on line {node.lineno}"
    for form in ("A", "B"):
        key = "".join(letter for _, letter in sorted(_reference().answers(form).items()))
        assert key not in source


QUESTIONS_FROM_STRINGS = ('def answers(form="A"):\n'
                          '    return {"1": "c", 2: "e", 3: " D ", 4: 2}\n')


def test_it_names_every_missing_or_invalid_answer(grade) -> None:
    graded = grade({"quick_check": QUESTIONS_FROM_STRINGS}, "-k", "quick_check")
    checks_ = graded.checks("quick_check")
    first, second = checks_["answers_tensor_dtypes"]["message"], checks_["answers_shapes_and_views"]["message"]
    # The graded checks judge letters: question 1's right "c" under the string key "1" is read there; the key's
    # type is the public check's to tell (below).
    assert "question 1" not in first
    assert "question 2: 'e' is not one of its options (a, b, c)" in first
    assert "question 4: 2 is not a letter" in second and "question 3" not in second
    assert "question 9 has no answer" in checks_["answers_rate_and_remaining_loss"]["message"]


def test_the_public_check_names_every_invalid_answer_of_the_whole_quiz(grade) -> None:
    graded = grade({"quick_check": QUESTIONS_FROM_STRINGS}, "-k", "quick_check")
    public = graded.checks("quick_check")["answers_well_formed"]
    assert not public["passed"] and public["points"] == 0
    for problem in ("question 1 has no answer", "question 2: 'e' is not one of its options",
                    "question 4: 2 is not a letter", "question 10 has no answer"):
        assert problem in public["message"], public["message"]


def test_every_graded_check_of_the_quiz_is_hidden_and_the_public_one_is_worth_nothing() -> None:
    # What a student's machine runs must not tell a right option from a wrong one, so it can pay nothing.
    public = [c for c in checks.EXERCISE.checks if not c.hidden]
    assert [(c.id, c.points) for c in public] == [("answers_well_formed", 0)]
    assert sum(c.points for c in checks.EXERCISE.checks if c.hidden) == checks.EXERCISE.points == 5


def test_letters_are_accepted_in_capitals_and_with_spaces(grade) -> None:
    reference = _reference()
    shouting = {form: {q: f" {letter.upper()} " for q, letter in reference.answers(form).items()} for form in "AB"}
    source = f"def answers(form='A'):\n    return {shouting!r}[form]\n"
    graded = grade({"quick_check": source}, "-k", "quick_check")
    assert graded.failed("quick_check") == set(), graded.output


# The facts the right options rest on, as this torch shows them.

def test_arange_of_whole_numbers_is_int64() -> None:
    assert torch.arange(6).dtype == torch.int64


def test_float64_input_meets_float32_weights_with_an_error() -> None:
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype"):
        nn.Linear(1, 1)(torch.from_numpy(np.ones((3, 1))))


def test_pred_minus_y_broadcasts_to_a_square() -> None:
    assert (torch.zeros(100, 1) - torch.zeros(100)).shape == (100, 100)


def test_view_of_a_transpose_fails() -> None:
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        torch.arange(12).reshape(3, 4).T.view(12)


def test_three_backward_calls_leave_three_gradients() -> None:
    x = torch.tensor(3.0, requires_grad=True)
    for _ in range(3):
        (x ** 2).backward()
    assert x.grad.item() == 18.0


def test_numpy_of_a_tracked_tensor_is_refused() -> None:
    w = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        w.numpy()
    assert w.requires_grad


def _line_losses(lr: float, steps: int) -> list[float]:
    torch.manual_seed(42)
    X = torch.rand(100, 1) * 4 - 2
    y = 3 * X - 2 + 0.3 * torch.randn(100, 1)
    w, b = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X * w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
        losses.append(loss.item())
    return losses


def test_learning_rate_1_1_makes_the_loss_grow_at_every_step() -> None:
    losses = _line_losses(1.1, 8)
    assert all(later > earlier for earlier, later in zip(losses, losses[1:]))


def test_the_loss_settles_at_0_0597_from_step_40() -> None:
    losses = _line_losses(0.1, 101)
    assert {round(loss, 4) for loss in losses[40:]} == {0.0597}


def test_letters_kept_as_one_capitalised_string_per_form_earn_full_marks(grade) -> None:
    from mistake_catalogue import submission

    graded = grade({"quick_check": submission("quick_check", "correct_letter_strings")}, "-k", "quick_check")
    assert graded.failed("quick_check") == set(), graded.output


def test_a_default_form_other_than_a_is_told_as_such_not_as_ten_misconceptions(grade) -> None:
    from mistake_catalogue import submission

    graded = grade({"quick_check": submission("quick_check", "default_form_b")}, "-k", "answers_tensor_dtypes")
    check = graded.checks("quick_check")["answers_tensor_dtypes"]
    assert check["mistake"] == checks.FORMS_SWAPPED.name, check["message"]
    assert 'the default form must be "A"' in check["message"], check["message"]
    assert "float32" not in check["message"], check["message"]  # no misconception of question 1 is named


def test_every_letter_right_under_string_keys_loses_only_the_check_of_keys(grade) -> None:
    # One slip (the keys "1" to "10" as strings) is not a blank answer: the graded checks judge the letters, and
    # answers_well_formed, which judges the docstring's format, tells the keys' type.
    right = {form: _reference().answers(form) for form in ("A", "B")}
    source = ('def answers(form="A"):\n'
              f'    chosen = {{"A": {{{", ".join(f"{str(q)!r}: {v!r}" for q, v in right["A"].items())}}},\n'
              f'              "B": {{{", ".join(f"{str(q)!r}: {v!r}" for q, v in right["B"].items())}}}}}\n'
              '    return dict(chosen[form])\n')
    graded = grade({"quick_check": source}, "-k", "quick_check")
    assert graded.failed("quick_check") == {"answers_well_formed"}, graded.output
    assert graded.exercise("quick_check")["score"] == graded.exercise("quick_check")["max_score"], graded.output
    told = graded.checks("quick_check")["answers_well_formed"]["message"]
    assert "your key '1' is a string: use the int 1" in told, told


def test_one_form_a_letter_copied_into_form_b_is_named_as_a_copy_not_a_misconception(grade) -> None:
    reference = _reference()
    form_a, form_b = reference.answers("A"), reference.answers("B")
    question = next(q for q in form_b if form_b[q] != form_a[q])
    copied = {**form_b, question: form_a[question]}  # form A's right letter, which points elsewhere in form B
    source = f"def answers(form='A'):\n    return {form_a!r} if form == 'A' else {copied!r}\n"
    graded = grade({"quick_check": source}, "-k", "quick_check")
    failed = [c for c in graded.checks("quick_check").values() if not c["passed"]]
    assert failed and {c["mistake"] for c in failed} == {"form A letters reused for form B"}, \
        [c["message"] for c in failed]
