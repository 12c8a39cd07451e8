"""The grad_accumulation checks build the lesson's own data, and their mistake variants
are what those mistakes really compute."""

from __future__ import annotations

import torch

from graders.lesson01 import grad_accumulation as checks


def test_lesson_data_gives_the_worked_examples_first_step() -> None:
    w, X, y = checks.lesson_data()
    loss = ((X @ w - y) ** 2).mean()
    update = -0.1 * checks.full_batch_gradient(w, X, y)
    # The lesson prints "step   0  loss 15.4288  w 0.792  b -0.362".
    assert round(loss.item(), 4) == 15.4288
    assert [round(v, 3) for v in update.tolist()] == [0.792, -0.362]


def _accumulate(w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, k: int, part_loss, zero: bool) -> torch.Tensor:
    leaf = w.clone().requires_grad_(True)
    for X_part, y_part in zip(X.tensor_split(k), y.tensor_split(k)):
        if zero and leaf.grad is not None:
            leaf.grad.zero_()
        part_loss((X_part @ leaf - y_part) ** 2).backward()
    return leaf.grad


def test_each_variant_is_what_its_mistake_computes() -> None:
    generator = torch.Generator().manual_seed(0)
    X = torch.randn(10, 3, generator=generator, dtype=torch.float64)
    y = torch.randn(10, generator=generator, dtype=torch.float64)
    w = torch.randn(3, generator=generator, dtype=torch.float64)
    k = 3  # 4, 3, 3 rows
    variants = checks.wrong_gradients(w, X, y, k)
    made = {
        checks.NOT_SCALED.name: _accumulate(w, X, y, k, lambda e: e.mean(), zero=False),
        checks.MEAN_OF_MEANS.name: _accumulate(w, X, y, k, lambda e: e.mean() / k, zero=False),
        checks.ZEROED_BETWEEN_MICRO_BATCHES.name: _accumulate(w, X, y, k, lambda e: e.sum() / 10, zero=True),
    }
    for name, gradient in made.items():
        assert any(torch.allclose(gradient, v) for v in variants[name]), name
    right = _accumulate(w, X, y, k, lambda e: e.sum() / 10, zero=False)
    assert torch.allclose(right, checks.full_batch_gradient(w, X, y))


PASSES_WITHOUT_ANSWERS = '''
import torch


def repeated_backward_grads(x0, calls):
    return [0.0] * calls


def accumulated_gradient(w, X, y, micro_batches):
    leaf = w.detach().clone().requires_grad_(True)
    for X_part, y_part in zip(torch.tensor_split(X, micro_batches), torch.tensor_split(y, micro_batches)):
        (0 * (X_part @ leaf - y_part) ** 2).sum().backward()
    return leaf.grad.detach()
'''


def test_one_backward_per_micro_batch_earns_nothing_for_a_wrong_gradient(grade) -> None:
    # Clean, detached, one backward() per micro-batch, and always zero: nothing here is right.
    graded = grade({"grad_accumulation": PASSES_WITHOUT_ANSWERS}, "-k", "grad_accumulation")
    assert graded.exercise("grad_accumulation")["score"] == 0, graded.output
