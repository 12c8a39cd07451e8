"""The neuron_chain_rule checks reproduce the lesson's printed numbers, and their mistake
variants differ from the right gradient on every input the checks use."""

from __future__ import annotations

import torch

from graders.engine.mistakes import SCALED_RESULT
from graders.engine.fresh import twin_run
from graders.lesson01.neuron_chain_rule import checks
from reference.lesson01 import neuron_chain_rule as reference


def test_the_lesson_case_gives_the_printed_numbers() -> None:
    w, inp = checks.lesson_case()
    # The lesson prints "out = 0.9526" and "d out / d w = tensor([0.1355, 0.0452, 0.1807])".
    assert round(reference.neuron(w, inp).item(), 4) == 0.9526
    assert [round(v, 4) for v in checks.autograd_gradient(reference, w, inp).tolist()] == [0.1355, 0.0452, 0.1807]
    assert torch.allclose(reference.neuron_grad_by_hand(w, inp), checks.autograd_gradient(reference, w, inp))


def twin_cases() -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    cases = []
    for seed in range(20):
        with twin_run(seed):
            w, inp = checks.lesson_case()
            cases.append((checks.case_text(w, inp), w, inp))
    return cases


def test_twin_cases_are_the_lessons_kind_and_shown_as_they_are() -> None:
    lesson_w, lesson_inp = checks.lesson_case()
    for text, w, inp in twin_cases():
        assert w.dtype == inp.dtype == torch.float32 and w.shape == inp.shape == (3,)
        assert (-2 <= w).all() and (w <= 1).all() and (1 <= inp).all() and (inp <= 4).all()
        assert 0.5 <= abs((w * inp).sum().item()) <= 3 and not torch.equal(w, lesson_w)
        shown_w, shown_inp = text.removeprefix("w = ").split(", inp = ")
        assert torch.equal(eval(shown_w), w) and torch.equal(eval(shown_inp), inp)


def test_no_variant_is_mistaken_for_the_right_answer() -> None:
    cases = [("lesson", *checks.lesson_case())] + checks.fresh_cases() + twin_cases()
    for _, w, inp in cases:
        right = checks.autograd_gradient(reference, w, inp)
        for name, values in checks.wrong_gradients(w, inp).items():
            for value in values:
                assert value.shape != right.shape or not torch.allclose(value, right, rtol=1e-4, atol=1e-4), name


WRONG_BUT_WELL_MADE = '''
import torch


def neuron(w, inp):
    return torch.sigmoid((w * inp).sum()) + 1


def neuron_grad_by_hand(w, inp):
    return torch.zeros_like(w)
'''


def test_a_kept_graph_and_no_autograd_earn_nothing_for_wrong_values(grade) -> None:
    # σ(z) + 1 keeps the graph and has the right gradient; zeros are made without autograd.
    graded = grade({"neuron_chain_rule": WRONG_BUT_WELL_MADE}, "-k", "neuron_chain_rule")
    assert graded.exercise("neuron_chain_rule")["score"] == 0, graded.output


def test_a_sum_of_sigmoids_differs_from_the_neuron_wherever_there_are_two_weights_or_more() -> None:
    # With one weight, σ(w·inp) summed is the neuron itself: nothing to name there, and nothing wrong.
    cases = [("lesson", *checks.lesson_case())] + checks.fresh_cases() + twin_cases()
    for text, w, inp in cases:
        right = reference.neuron(w, inp)
        same = torch.allclose(checks.sum_of_sigmoids(w, inp), right, rtol=1e-4, atol=1e-4)
        assert same == (w.numel() == 1), text


def test_a_constant_slope_is_told_from_a_slope_computed_and_rounded(grade) -> None:
    # Rounded to 4 decimals, σ′(3) is the lesson's 0.0452: on the lesson's case this answer is the written-in
    # constant's to the last bit, but it follows w, so it is not called a copied slope.
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "neuron_chain_rule.py").read_text()
    old = "    return s * (1 - s) * inp\n"
    assert source.count(old) == 1
    rounded = source.replace(old, "    return torch.round(s * (1 - s), decimals=4) * inp\n")
    graded = grade({"neuron_chain_rule": rounded}, "-k", "grad_by_hand_on_lesson_case")
    check = graded.checks("neuron_chain_rule")["grad_by_hand_on_lesson_case"]
    assert not check["passed"] and "0.1356 instead of 0.1355" in check["message"], check["message"]
    assert check["mistake"] == SCALED_RESULT.name, check["message"]  # the rounded slope: a factor, true
    assert round(checks.LESSON_SLOPE, 4) == 0.0452


def test_the_one_minus_sigma_variant_is_told_from_the_forgotten_factor_on_every_case() -> None:
    # σ(z) and 1 − σ(z) meet only at z = 0: no case the checks use comes near it.
    cases = [("lesson", *checks.lesson_case())] + checks.fresh_cases() + twin_cases()
    for text, w, inp in cases:
        variants = checks.wrong_gradients(w, inp)
        (one_minus,) = variants[checks.ONE_MINUS_SIGMA_ONLY.name]
        (forgot,) = variants[checks.FORGOT_ONE_MINUS_SIGMA.name]
        assert not torch.allclose(one_minus, forgot, rtol=1e-4, atol=1e-4), text


def test_a_square_in_the_wrong_place_is_not_called_one_minus_sigma(grade) -> None:
    # exp(−z) / (1 + exp(−z)²) squares the exponential instead of the sum: also wrong, but not 1 − σ(z).
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "neuron_chain_rule.py").read_text()
    old = "    return s * (1 - s) * inp\n"
    assert source.count(old) == 1
    misplaced = source.replace(old, "    z = (w.detach() * inp).sum()\n"
                                    "    return torch.exp(-z) / (1 + torch.exp(-z) ** 2) * inp\n")
    graded = grade({"neuron_chain_rule": misplaced}, "-k", "grad_by_hand_on_lesson_case")
    check = graded.checks("neuron_chain_rule")["grad_by_hand_on_lesson_case"]
    assert not check["passed"] and check["mistake"] == SCALED_RESULT.name, check["message"]  # σ' off: a factor


def test_expit_of_a_dot_product_and_the_slope_as_sigma_of_minus_z_earn_full_marks(grade) -> None:
    from mistake_catalogue import submission

    graded = grade({"neuron_chain_rule": submission("neuron_chain_rule", "correct_expit_and_sigma_of_minus_z")},
                   "-k", "neuron_chain_rule")
    assert graded.failed("neuron_chain_rule") == set(), graded.output


def test_a_lost_dtype_or_shape_is_hinted_at_as_such_not_as_calculus(grade) -> None:
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "neuron_chain_rule.py").read_text()
    old = "    return s * (1 - s) * inp\n"
    assert source.count(old) == 1
    float32 = source.replace(old, "    return (s * (1 - s) * inp).float()\n")
    graded = grade({"neuron_chain_rule": float32}, "-k", "neuron_chain_rule")
    assert graded.failed("neuron_chain_rule") == {"neuron_grad_by_hand_on_fresh_inputs"}, graded.output
    message = graded.checks("neuron_chain_rule")["neuron_grad_by_hand_on_fresh_inputs"]["message"]
    assert "Keep w's dtype, float64" in message and "Chain the two" not in message, message

    unsqueezed = source.replace(old, "    return (s * (1 - s) * inp).unsqueeze(0)\n")
    graded = grade({"neuron_chain_rule": unsqueezed}, "-k", "grad_by_hand_on_lesson_case")
    message = graded.checks("neuron_chain_rule")["grad_by_hand_on_lesson_case"]["message"]
    assert "shape (3,)" in message and "Chain the two" not in message, message


def test_a_gradient_worked_out_in_the_callers_inp_loses_the_lesson_case(grade) -> None:
    # Right values, but the caller's inp is overwritten with them: the lesson's check says so, no other check moves.
    from pathlib import Path

    source = Path(reference.__file__).read_text()
    line = "    return s * (1 - s) * inp\n"
    assert source.count(line) == 1
    graded = grade({"neuron_chain_rule": source.replace(line, "    return inp.mul_(s * (1 - s))\n")},
                   "-k", "neuron_chain_rule")
    assert graded.failed("neuron_chain_rule") == {"grad_by_hand_on_lesson_case"}, graded.output
    message = graded.checks("neuron_chain_rule")["grad_by_hand_on_lesson_case"]["message"]
    assert "changed the inp it was given" in message and "not in place" in message, message


CUT_BY_A_DECORATOR = '''
import torch


@torch.no_grad()
def neuron(w, inp):
    return torch.sigmoid((w * inp).sum())


def neuron_grad_by_hand(w, inp):
    s = torch.sigmoid((w.detach() * inp).sum())
    return s * (1 - s) * inp
'''


def test_a_graph_cut_names_the_way_out_the_code_has_and_no_other(grade) -> None:
    graded = grade({"neuron_chain_rule": CUT_BY_A_DECORATOR}, "-k", "neuron_keeps_the_graph")
    check = graded.checks("neuron_chain_rule")["neuron_keeps_the_graph"]
    assert check["mistake"] == checks.GRAPH_CUT.name, check["message"]
    assert "runs under torch.no_grad()" in check["message"] and "drop the decorator" in check["message"]
    assert ".item()" not in check["message"] and "float()" not in check["message"], check["message"]
