"""The shape_bugs checks rest on facts about their own inputs: the oracle is torch's
broadcasting, each wrong variant shows up in the generated pairs, and the lesson's
published losses come out of the lesson's data."""

from __future__ import annotations

import importlib.util

import pytest
import torch

import course_config
from graders.lesson01 import shape_bugs as checks

EXERCISE = course_config.SHAPE_BUGS
PUBLIC = checks.generated_pairs(EXERCISE.seed("generated_pairs"), *checks.PUBLIC_SPACE)
HIDDEN = checks.generated_pairs(EXERCISE.seed("fresh_pairs"), *checks.HIDDEN_SPACE)


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
    for pairs in (PUBLIC, HIDDEN, checks.LESSON_PAIRS, checks.ERROR_PAIRS):
        assert checks.torch_answers(pairs) == [_broadcast_shapes_or_none(a, b) for a, b in pairs]


def test_generated_pairs_are_distinct_and_mix_compatible_and_incompatible_ones() -> None:
    for pairs, (count, _, _) in ((PUBLIC, checks.PUBLIC_SPACE), (HIDDEN, checks.HIDDEN_SPACE)):
        assert len(set(pairs)) == len(pairs) == count
        refused = checks.torch_answers(pairs).count(None)
        assert count // 10 < refused < count // 2
        assert any(0 in a or 0 in b for a, b in pairs) and any(len(a) != len(b) for a, b in pairs)


@pytest.mark.parametrize("pairs", [PUBLIC, HIDDEN], ids=["public", "hidden"])
def test_every_wrong_variant_differs_from_torch_on_some_generated_pairs(pairs) -> None:
    truth = checks.torch_answers(pairs)
    for name, answers in checks.wrong_answers(pairs).items():
        assert sum(a != t for a, t in zip(answers, truth)) >= 20, name


def test_every_wrong_variant_refuses_the_error_pairs_so_that_check_grades_the_error_alone() -> None:
    for name, answers in checks.wrong_answers(checks.ERROR_PAIRS).items():
        assert answers == [None] * len(checks.ERROR_PAIRS), name


def test_only_the_rank_mistakes_go_wrong_on_the_lesson_pairs() -> None:
    truth = checks.torch_answers(checks.LESSON_PAIRS)
    wrong = {name for name, answers in checks.wrong_answers(checks.LESSON_PAIRS).items() if answers != truth}
    assert wrong == {checks.LEFT_TO_RIGHT.name, checks.MISSING_AS_INCOMPATIBLE.name}


def test_the_reference_raises_value_error_naming_both_shapes() -> None:
    reference = _reference()
    for a, b in checks.ERROR_PAIRS + [p for p in PUBLIC if checks.torch_answers([p]) == [None]][:20]:
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
