"""finite_differences: other correct ways of writing it score full marks; near misses of a named mistake go unnamed."""

from __future__ import annotations

import torch

from conftest import ROOT
from graders.engine.mistakes import DTYPE_DIFFERS, SCALED_RESULT
from graders.lesson01.finite_differences import checks
from mistake_catalogue import submission

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


REFERENCE = (ROOT / "reference" / "lesson01" / "finite_differences.py").read_text()
NORM_OVER_LARGER = REFERENCE.replace(
    "    gap = (a - b).abs()\n    scale = (a.abs() + b.abs()).clamp(min=1e-8)\n    return (gap / scale).max().item()\n",
    "    return (torch.linalg.vector_norm(a - b) / max(1e-8, max(a.norm().item(), b.norm().item()))).item()\n")


def test_a_ratio_of_norms_over_the_larger_norm_is_not_called_the_sum_of_norms(grade) -> None:
    # Also one ratio of norms, but divided by the larger norm: its answers are not ||a − b|| / (||a|| + ||b||).
    assert NORM_OVER_LARGER != REFERENCE
    graded = grade({"finite_differences": NORM_OVER_LARGER}, "-k", "relative_error_on_fixed_cases")
    check = graded.checks("finite_differences")["relative_error_on_fixed_cases"]
    assert not check["passed"] and check["mistake"] is None, check["message"]


TIMES_H = REFERENCE.replace("(f(x + step) - f(x - step)) / (2 * h)", "(f(x + step) - f(x - step)) / (2 * h) * h")


def test_an_estimate_times_h_is_not_called_times_h_squared(grade) -> None:
    # h times the gradient is tiny too, but the scale is fitted against h² · gradient, relatively.
    assert TIMES_H != REFERENCE
    graded = grade({"finite_differences": TIMES_H}, "-k", "numerical_gradient_matches_autograd")
    check = graded.checks("finite_differences")["numerical_gradient_matches_autograd"]
    assert not check["passed"] and check["mistake"] == SCALED_RESULT.name, check["message"]  # a fact: 1e-5 times


def test_only_h_squared_times_the_gradient_is_recognised_as_such() -> None:
    truth, h = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64), 1e-5
    assert checks.times_h_squared(truth * h ** 2, truth, h)
    for other in (truth * h, -truth * h ** 2, torch.zeros(3, dtype=torch.float64), truth * h ** 2 * 1.01,
                  (truth * h ** 2)[:2]):
        assert not checks.times_h_squared(other, truth, h), other


IN_FLOAT32 = REFERENCE.replace("    x = x.detach()\n    gradient = torch.empty_like(x)\n",
                               "    x = x.detach().float()\n    gradient = torch.empty_like(x)\n")


def test_an_estimate_computed_in_float32_is_not_called_a_float32_result(grade) -> None:
    # Also float32 for a float64 x, but f was evaluated in float32: its slopes carry float32's noise over 2h,
    # not float64's slopes rounded once at the end, so the name's "right values, rounded" would not hold.
    assert IN_FLOAT32 != REFERENCE
    graded = grade({"finite_differences": IN_FLOAT32}, "-k", "numerical_gradient_matches_autograd")
    check = graded.checks("finite_differences")["numerical_gradient_matches_autograd"]
    # Only the fact that holds whatever the cause: the result's dtype is not the one asked for.
    assert not check["passed"] and check["mistake"] == DTYPE_DIFFERS.name, check["message"]


def test_autograds_gradient_from_torch_func_grad_scores_full_marks(grade) -> None:
    """torch.func.grad is autograd too: its gradient of the check's f with a wrong backward is that backward's."""
    graded = grade({"finite_differences": submission("finite_differences", "correct_func_grad")},
                   "-k", "finite_differences")
    assert graded.failed("finite_differences") == set(), graded.output



def test_a_changed_default_step_loses_the_hidden_check_and_says_which_step_was_used(grade) -> None:
    reference = (ROOT / "reference" / "lesson01" / "finite_differences.py").read_text()
    default = "h: float = 1e-5)"
    assert default in reference
    graded = grade({"finite_differences": reference.replace(default, "h: float = 1e-6)")}, "-k", "finite_differences")
    assert graded.failed("finite_differences") == {"numerical_gradient_on_fresh_functions"}, graded.output
    message = graded.checks("finite_differences")["numerical_gradient_on_fresh_functions"]["message"]
    assert "h = 1e-06 was used" in message and "h: float = 1e-05" in message, message


def test_the_cube_at_zero_shows_the_step_as_h_squared() -> None:
    from graders.lesson01.finite_differences.drivers import build

    f, h = build({"kind": "cube"}), 1e-5
    x = torch.zeros(1, dtype=torch.float64)
    assert (f(x + h) - f(x - h)) / (2 * h) == torch.tensor(h ** 2, dtype=torch.float64)


def test_a_float64_copy_left_in_xs_graph_says_the_gradient_reached_the_callers_x(grade) -> None:
    """x.to(torch.float64) without .detach() kept full marks while no check gave an x that requires grad (issue 44);
    the public check's tracked x now shows the gradient in x.grad, beside the error that the missing leaf .grad gave."""
    graded = grade({"finite_differences": submission("finite_differences", "leaf_not_detached")},
                   "-k", "gradient_check_is_small_for_smooth_functions")
    check = graded.checks("finite_differences")["gradient_check_is_small_for_smooth_functions"]
    assert not check["passed"] and check["mistake"] == "float64 copy of x not detached", check["message"]
    assert "sent the gradient into x.grad and then raised TypeError" in check["message"], check["message"]
    assert "requires_grad=True" in check["message"] and "its .grad holds" in check["message"], check["message"]
