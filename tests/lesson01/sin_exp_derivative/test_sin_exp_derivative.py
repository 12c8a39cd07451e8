"""A wrong f costs f's own check: autograd_derivative's checks then run with the lesson's f in its
place, and say so."""

from __future__ import annotations

from mistake_catalogue import submission
from conftest import ROOT

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
F_BODY = "    return torch.sin(x) * torch.exp(-x)\n"
AUTOGRAD_BODY = "    f(leaf).sum().backward()\n"


def test_a_missing_return_in_f_costs_f_and_not_autograd_derivative(grade) -> None:
    assert F_BODY in REFERENCE
    graded = grade({SLUG: REFERENCE.replace(F_BODY, "    torch.sin(x) * torch.exp(-x)\n")}, "-k", SLUG)
    # max_abs_difference measures the student's own two derivatives, so f's mistake shows there too.
    assert graded.failed(SLUG) == {"f_on_lesson_grid", "max_abs_difference_is_small"}, graded.output


def test_a_wrong_f_with_a_wrong_autograd_derivative_still_fails_it_and_says_f_was_replaced(grade) -> None:
    broken = REFERENCE.replace(F_BODY, "    return torch.sin(x)\n")
    start = broken.index("def autograd_derivative")
    end = broken.index("def analytic_derivative")
    broken = broken[:start] + "def autograd_derivative(x):\n    return torch.zeros_like(x)\n\n\n" + broken[end:]
    graded = grade({SLUG: broken}, "-k", SLUG)
    checks = graded.checks(SLUG)
    assert "autograd_derivative_on_lesson_grid" in graded.failed(SLUG)
    message = checks["autograd_derivative_on_lesson_grid"]["message"]
    assert "with the lesson's f, sin(t)·e^(−t), in place of your f" in message, message


def test_a_changed_argument_is_shown_as_changed_not_as_what_came_back(grade) -> None:
    graded = grade({SLUG: submission(SLUG, "modified_input")}, "-k", SLUG)
    message = graded.checks(SLUG)["autograd_derivative_is_clean"]["message"]
    assert "  changed:  x after the call: " in message and "returned: x after" not in message, message


def test_numpy_on_a_tracked_tensor_outside_f_is_not_blamed_on_f(grade) -> None:
    # The same torch error, raised by autograd_derivative itself while f is right: f is not "computed with NumPy".
    assert AUTOGRAD_BODY in REFERENCE
    numpy_first = "    np.asarray(f(leaf)).sum()\n" + AUTOGRAD_BODY
    broken = "import numpy as np\n" + REFERENCE.replace(AUTOGRAD_BODY, numpy_first)
    graded = grade({SLUG: broken}, "-k", SLUG)
    checks = graded.checks(SLUG)
    assert "autograd_derivative_on_lesson_grid" in graded.failed(SLUG) and "f_on_lesson_grid" not in graded.failed(SLUG)
    assert "Can't call numpy()" in checks["autograd_derivative_on_lesson_grid"]["message"]
    assert all(check["mistake"] != "f computed with NumPy" for check in checks.values()), graded.output


def test_autograd_grad_and_float_score_full_marks(grade) -> None:
    """torch.autograd.grad is the lesson's autograd too, and float() gives the same Python float as .item()."""
    graded = grade({SLUG: submission(SLUG, "correct_autograd_grad")}, "-k", SLUG)
    assert graded.failed(SLUG) == set(), graded.output


def test_a_lost_dtype_gets_a_hint_about_dtypes_not_calculus(grade) -> None:
    returned = "    return leaf.grad.detach()\n"
    assert returned in REFERENCE
    graded = grade({SLUG: REFERENCE.replace(returned, "    return leaf.grad.detach().float()\n")}, "-k", SLUG)
    message = graded.checks(SLUG)["analytic_derivative_and_autograd_on_fresh_points"]["message"]
    assert "dtype float32; expected float64" in message and "Keep x's dtype, float64" in message, message
    assert "cos x" not in message, message


def test_a_changed_default_end_is_named_though_its_gap_of_sin_3x_is_the_same(grade) -> None:
    """end = 10.0 kept full marks (issue 44): max |sin 3x| is the same on linspace(0, 10, 50) as on the lesson's grid,
    so the hidden check now looks at the points the defaults give the derivatives."""
    graded = grade({SLUG: submission(SLUG, "default_end_changed")}, "-k", SLUG)
    assert graded.failed(SLUG) == {"max_abs_difference_on_other_grids"}, graded.output
    check = graded.checks(SLUG)["max_abs_difference_on_other_grids"]
    assert check["mistake"] == "defaults of the grid changed", check["message"]
    assert "50 points from 0 to 10" in check["message"], check["message"]


POINT_BY_POINT = '''
    gaps = [(autograd_derivative(t) - analytic_derivative(t)).abs().item() for t in torch.linspace(start, end, n)]
    return max(gaps)
'''


def test_derivatives_taken_point_by_point_on_the_default_grid_score_full_marks(grade) -> None:
    """The grid is judged by its distinct points, whether the derivatives get them all at once or one by one."""
    body = "    x = torch.linspace(start, end, n)\n    return (autograd_derivative(x) - analytic_derivative(x)).abs().max().item()\n"
    assert body in REFERENCE
    graded = grade({SLUG: REFERENCE.replace(body, POINT_BY_POINT.lstrip("\n"))}, "-k", SLUG)
    assert graded.failed(SLUG) == set(), graded.output
