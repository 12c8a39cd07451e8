"""finite_differences: other correct ways of writing it score full marks."""

from __future__ import annotations

SAVED_AND_RESTORED = '''
import torch


def numerical_gradient(f, x, h=1e-5):
    gradient = torch.zeros_like(x)
    work = x.clone()
    for i in range(work.numel()):
        saved = work[i].item()
        work[i] = saved + h
        up = f(work)
        work[i] = saved - h
        down = f(work)
        work[i] = saved
        gradient[i] = (up - down) / (2 * h)
    return gradient


def relative_error(a, b):
    return float(((a - b).abs() / torch.maximum(a.abs() + b.abs(), torch.tensor(1e-8))).max())


def gradient_check(f, x):
    x64 = x.double()
    with torch.enable_grad():
        leaf = x64.detach().requires_grad_()
        (grad,) = torch.autograd.grad(f(leaf), leaf)
    return relative_error(grad, numerical_gradient(f, x64))
'''


def test_a_copy_nudged_and_restored_from_saved_values_scores_full_marks(grade) -> None:
    graded = grade({"finite_differences": SAVED_AND_RESTORED}, "-k", "finite_differences")
    assert graded.failed("finite_differences") == set(), graded.output


TWO_CALLS_NO_ANSWER = '''
import torch


def numerical_gradient(f, x, h=1e-5):
    for i in range(x.numel()):
        step = torch.zeros_like(x)
        step[i] = h
        f(x + step), f(x - step)
    return torch.zeros_like(x)


def relative_error(a, b):
    return 0.5


def gradient_check(f, x):
    return 0.5
'''


def test_two_calls_per_coordinate_and_an_untouched_x_earn_nothing_for_a_wrong_estimate(grade) -> None:
    graded = grade({"finite_differences": TWO_CALLS_NO_ANSWER}, "-k", "finite_differences")
    assert graded.exercise("finite_differences")["score"] == 0, graded.output
