"""The shape_bugs checks rest on facts about their own inputs: the oracle is torch's
broadcasting, each wrong variant shows up in the generated pairs, and the lesson's
published losses come out of the lesson's data; and the messages a student reads say the
right thing."""

from __future__ import annotations

import importlib.util

import pytest
import torch

import course_config
from graders.lesson01 import cases
from graders.engine.drawing import drawn
from graders.lesson01.shape_bugs import checks

EXERCISE = course_config.LESSON_01.exercise("shape_bugs")
SLUG = EXERCISE.slug

# Graded as a student's usual runs are: the reference's expected values, computed by the first run of the
# exercise here, are read back by the later ones (tests/conftest.py: keeping).
pytestmark = pytest.mark.usefixtures("keeping")

REFERENCE = (course_config.ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
REFUSAL = '''raise ValueError(f"mse_loss: pred has shape {tuple(pred.shape)} but target has shape "
                         f"{tuple(target.shape)}; make them equal before computing the loss")'''


def _pairs(name: str) -> list:
    """The pairs a check draws (drawn when a test asks: hypothesis is not for import time)."""
    return drawn("lesson01", SLUG, name)


def _reference():
    path = course_config.ROOT / "reference" / "lesson01" / "shape_bugs.py"
    spec = importlib.util.spec_from_file_location("reference_shape_bugs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _broadcast_shapes_or_none(a, b):
    try:
        return tuple(torch.broadcast_shapes(a, b))
    except RuntimeError:
        return None


def test_the_oracle_agrees_with_torch_broadcast_shapes_on_every_generated_pair() -> None:
    for pairs in (_pairs("generated_pairs"), _pairs("fresh_pairs"), checks.LESSON_PAIRS, checks.ERROR_PAIRS):
        assert checks.torch_answers(pairs) == [_broadcast_shapes_or_none(a, b) for a, b in pairs]


def test_generated_pairs_are_distinct_and_mix_compatible_and_incompatible_ones() -> None:
    for pairs, (count, _, _) in ((_pairs("generated_pairs"), cases.PUBLIC_PAIRS),
                                 (_pairs("fresh_pairs"), cases.HIDDEN_PAIRS)):
        assert len(set(pairs)) == len(pairs) == count
        refused = checks.torch_answers(pairs).count(None)
        assert count // 10 < refused < count // 2
        assert any(0 in a or 0 in b for a, b in pairs) and any(len(a) != len(b) for a, b in pairs)


@pytest.mark.parametrize("name", ["generated_pairs", "fresh_pairs"])
def test_every_wrong_variant_differs_from_torch_on_some_generated_pairs(name: str) -> None:
    pairs = _pairs(name)
    truth = checks.torch_answers(pairs)
    for variant, answers in checks.wrong_answers(pairs).items():
        assert sum(a != t for a, t in zip(answers, truth)) >= 20, variant


def test_every_wrong_variant_refuses_the_error_pairs_so_that_check_grades_the_error_alone() -> None:
    for name, answers in checks.wrong_answers(checks.ERROR_PAIRS).items():
        assert answers == [None] * len(checks.ERROR_PAIRS), name


def test_only_the_size_zero_variants_are_right_on_the_lesson_pairs() -> None:
    # The lesson's pairs hold no 0, so a size-0 mistake fails only the generated pairs; every other variant fails there.
    truth = checks.torch_answers(checks.LESSON_PAIRS)
    right = {name for name, answers in checks.wrong_answers(checks.LESSON_PAIRS).items() if answers == truth}
    assert right == {"zero max", "zero stretches"}


def test_counting_any_stretch_as_silent_goes_wrong_only_where_the_truth_is_false() -> None:
    for pairs in (checks.SILENT_PAIRS, _pairs("fresh_pairs")):
        truth, stretched = checks.silent_answers(pairs), checks.stretch_answers(pairs)
        differ = [i for i, (t, s) in enumerate(zip(truth, stretched)) if t != s]
        assert differ and all(not truth[i] for i in differ)


def test_counting_any_difference_as_silent_is_told_from_the_truth_and_from_counting_any_stretch() -> None:
    # The two differ on shapes that do not broadcast, such as the lesson's (3, 4) and (3,).
    for pairs in (checks.SILENT_PAIRS, _pairs("fresh_pairs")):
        truth, stretched, differ = (checks.silent_answers(pairs), checks.stretch_answers(pairs),
                                    checks.difference_answers(pairs))
        assert differ != truth and differ != stretched


def test_the_reference_raises_value_error_naming_both_shapes() -> None:
    reference = _reference()
    for a, b in checks.ERROR_PAIRS + [p for p in _pairs("generated_pairs") if checks.torch_answers([p]) == [None]][:20]:
        with pytest.raises(ValueError) as raised:
            reference.broadcast_shape(a, b)
        assert checks._names_shape(str(raised.value), a) and checks._names_shape(str(raised.value), b)


def test_the_lesson_data_gives_the_lesson_s_published_losses() -> None:
    X, y = checks.lesson_data()
    assert checks.torch_loss(torch.zeros(100, 1), y)[0].item() == pytest.approx(15.4288, abs=5e-5)
    fitted = X * checks.FITTED[0] + checks.FITTED[1]
    assert checks.torch_loss(fitted, y)[0].item() == pytest.approx(0.0597, abs=5e-5)


def test_shuffling_the_targets_leaves_only_the_broadcast_loss_unchanged() -> None:
    X, y = checks.lesson_data()
    pred, target = X * checks.FITTED[0] + checks.FITTED[1], y.reshape(-1)
    order = torch.randperm(100, generator=torch.Generator().manual_seed(EXERCISE.seed("shuffle")))
    broadcast = lambda t: ((pred - t) ** 2).mean().item()  # noqa: E731
    reshaped = lambda t: ((pred.reshape(-1) - t) ** 2).mean().item()  # noqa: E731
    assert broadcast(target[order]) == pytest.approx(broadcast(target), rel=EXERCISE.tolerance("float32"))
    assert abs(reshaped(target[order]) - reshaped(target)) > 1.0


def _reference_with(old: str, new: str) -> str:
    assert old in REFERENCE
    return REFERENCE.replace(old, new)


def test_a_renamed_broadcast_shape_is_reported_by_name_with_the_close_match(grade) -> None:
    renamed = _reference_with("def broadcast_shape(", "def broadcast_shapes(").replace(
        "result = broadcast_shape(", "result = broadcast_shapes(")
    graded = grade({SLUG: renamed}, "-k", SLUG)
    assert graded.failed(SLUG) == {c.id for c in EXERCISE.checks if c.id.startswith("broadcast_shape")}
    message = graded.checks(SLUG)["broadcast_shape_lesson_cases"]["message"]
    assert message.startswith("`broadcast_shape` is not defined in your file: did you rename it? "
                              "(found: broadcast_shapes)"), message
    assert "Read the error" not in message


def test_a_loss_returned_for_mismatched_shapes_gets_a_hint_in_valid_python(grade) -> None:
    graded = grade({SLUG: _reference_with(REFUSAL, "return pred.sum() * 0")}, "-k", SLUG)
    message = graded.checks(SLUG)["mse_loss_refuses_mismatched_shapes"]["message"]
    assert "compare the whole shapes, pred.shape != target.shape" in message, message
    assert 'raise ValueError(f"... {pred.shape} and {target.shape} ...")' in message, message
    assert "returned: tensor of shape ()" in message and "returned: returned" not in message


def test_a_message_without_the_shapes_is_shown_as_the_error_raised(grade) -> None:
    graded = grade({SLUG: _reference_with(REFUSAL, 'raise ValueError("shapes differ")')}, "-k", SLUG)
    message = graded.checks(SLUG)["mse_loss_refuses_mismatched_shapes"]["message"]
    assert "raised:   ValueError: shapes differ" in message and "{pred.shape} and {target.shape}" in message


def test_a_summed_loss_is_named_by_its_ratio_on_every_input() -> None:
    from graders.engine.mistakes import gradient_signature, is_scaled

    X, y = checks.lesson_data()
    for pred in (torch.zeros(100, 1), X * checks.FITTED[0] + checks.FITTED[1]):
        loss, grad = checks.torch_loss(pred, y)
        leaf = pred.clone().requires_grad_(True)
        summed = ((leaf - y) ** 2).sum()
        summed.backward()
        assert is_scaled(gradient_signature(summed.detach(), loss), 100.0)
        assert is_scaled(gradient_signature(leaf.grad, grad), 100.0)


def test_a_loss_divided_by_the_batch_size_is_told_from_a_sum_only_where_rows_hold_several_elements() -> None:
    from graders.engine.mistakes import gradient_signature, is_scaled

    for shape, factor in (((7, 3), 3.0), ((50,), None), ((100, 1), None)):
        pred, target = torch.randn(shape, dtype=torch.float64), torch.randn(shape, dtype=torch.float64)
        loss, _ = checks.torch_loss(pred, target)
        by_batch = ((pred - target) ** 2).sum() / len(pred)
        if factor is None:  # one element per row: the batch size is the number of elements, and the loss is right
            assert torch.allclose(by_batch, loss)
        else:
            assert is_scaled(gradient_signature(by_batch, loss), factor)
            assert not is_scaled(gradient_signature(by_batch, loss), float(pred.numel()))


def test_another_error_than_value_error_on_generated_pairs_costs_those_checks(grade) -> None:
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "shape_bugs.py").read_text()
    refusal = "        else:\n            raise ValueError("
    assert source.count(refusal) == 1
    source = source.replace(refusal, '        elif 0 in (x, y):\n            raise RuntimeError(f"size 0 in {a} or {b}")\n'
                                     + refusal)
    graded = grade({"shape_bugs": source}, "-k", "shape_bugs")
    assert graded.failed("shape_bugs") == {"broadcast_shape_generated_pairs", "broadcast_shape_fresh_pairs"}, \
        graded.output
    message = graded.checks("shape_bugs")["broadcast_shape_generated_pairs"]["message"]
    assert "it should raise ValueError." in message and "broadcast_shape raised RuntimeError on" in message, message


RERAISED = '''    except ValueError:
        raise ValueError(f"pred {pred_shape} and target {target_shape} cannot be subtracted") from None
'''


def test_an_error_of_the_student_s_own_is_not_called_broadcast_shape_s_error_let_through(grade) -> None:
    # It raises on the same pairs as the uncaught error does, but its own message: it caught broadcast_shape's.
    old = "    except ValueError:\n        return False\n"
    assert REFERENCE.count(old) == 1
    graded = grade({SLUG: REFERENCE.replace(old, RERAISED)}, "-k", "silently_broadcasts")
    assert graded.failed(SLUG) == {"silently_broadcasts_lesson_cases", "silently_broadcasts_fresh_pairs"}, \
        graded.output
    for check in graded.checks(SLUG).values():
        assert check["mistake"] is None, check["message"]


@pytest.mark.parametrize("name", ["correct_torch_broadcast_shapes", "correct_value_error_subclass"])
def test_right_answers_written_another_way_score_full_marks(grade, name: str) -> None:
    """Another way to the rules; and an error class of one's own that subclasses ValueError, which an
    `except ValueError` catches, where the docstrings ask for a ValueError."""
    from mistake_catalogue import submission

    graded = grade({"shape_bugs": submission("shape_bugs", name)}, "-k", "shape_bugs")
    assert graded.failed("shape_bugs") == set(), graded.output


def test_a_loss_that_compares_only_rows_and_rank_loses_a_hidden_point(grade) -> None:
    # (5, 3) against (5, 1) has as many rows and dimensions: a partial test of the shapes lets it through.
    partial = "if len(pred) != len(target) or pred.dim() != target.dim():"
    graded = grade({SLUG: _reference_with("if pred.shape != target.shape:", partial)}, "-k", SLUG)
    assert graded.failed(SLUG) == {"mse_loss_fresh_inputs"}, graded.output
    assert "pred.shape != target.shape" in graded.checks(SLUG)["mse_loss_fresh_inputs"]["message"]


def test_an_error_class_of_ones_own_that_only_takes_the_name_valueerror_is_refused(grade) -> None:
    """Errors are judged by their classes' lineage, not by name: `except ValueError` does not catch this one."""
    look_alike = "class ValueError(Exception):\n    pass\n\n\n" + REFERENCE
    graded = grade({SLUG: look_alike}, "-k", "broadcast_shape_error_names_shapes")
    check = graded.checks(SLUG)["broadcast_shape_error_names_shapes"]
    assert not check["passed"], graded.output
    assert ".ValueError; it should raise ValueError" in check["message"], check["message"]
