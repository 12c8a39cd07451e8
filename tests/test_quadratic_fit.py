"""quadratic_fit: correct solutions written other ways keep full marks, and answers that
dodge the work lose exactly the checks meant to catch them."""

from __future__ import annotations

import pytest

import course_config

SLUG = "quadratic_fit"
REFERENCE = course_config.ROOT / "reference" / "lesson01" / f"{SLUG}.py"
DATA = REFERENCE.read_text().split("def fit_quadratic")[0]  # the reference's imports and data recipe

OPTIMISER_AND_SCALARS = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    params = [torch.tensor(0.0, requires_grad=True) for _ in range(3)]
    optimiser = torch.optim.SGD(params, lr=lr)
    for _ in range(steps):
        optimiser.zero_grad()
        a, b, c = params
        loss = torch.nn.functional.mse_loss(c + b * X + a * X * X, y)
        loss.backward()
        optimiser.step()
    return tuple(float(p) for p in params)
'''
DATA_UPDATE_AND_GRAD_NONE = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    a, b, c = (torch.zeros(1, requires_grad=True) for _ in range(3))
    for _ in range(steps):
        loss = ((y - (a * X**2 + b * X + c)) ** 2).sum() / y.shape[0]
        grads = torch.autograd.grad(loss, [a, b, c])
        for p, g in zip((a, b, c), grads):
            p.data -= lr * g
    return a.item(), b.item(), c.item()
'''
PARAMETERS_IN_DATA_DTYPE = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    a, b, c = (torch.zeros(1, dtype=X.dtype, requires_grad=True) for _ in range(3))
    for _ in range(steps):
        loss = ((a * X**2 + b * X + c - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c):
                p -= lr * p.grad
                p.grad = None
    return a.item(), b.item(), c.item()
'''
HARD_CODED = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    return 0.534, -1.049, 0.950
'''
TENSORS_RETURNED = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    a, b, c = (torch.zeros(1, requires_grad=True) for _ in range(3))
    for _ in range(steps):
        ((a * X**2 + b * X + c - y) ** 2).mean().backward()
        with torch.no_grad():
            for p in (a, b, c):
                p -= lr * p.grad
                p.grad.zero_()
    return a, b, c
'''


@pytest.mark.parametrize("fit", [OPTIMISER_AND_SCALARS, DATA_UPDATE_AND_GRAD_NONE, PARAMETERS_IN_DATA_DTYPE],
                         ids=["optimiser_and_scalars", "data_update_and_grad_none", "parameters_in_data_dtype"])
def test_correct_solutions_written_other_ways_get_full_marks(grade, fit: str) -> None:
    graded = grade({SLUG: DATA + fit}, "-k", SLUG)
    assert graded.failed(SLUG) == set(), graded.output


def test_a_hard_coded_answer_fails_the_hidden_checks_and_autograd(grade) -> None:
    graded = grade({SLUG: DATA + HARD_CODED}, "-k", SLUG)
    failed = graded.failed(SLUG)
    assert {"fit_on_other_coefficients", "fit_follows_lr_and_steps", "fit_uses_autograd"} <= failed
    assert "lesson's (0.5, −1, 1)" in graded.checks(SLUG)["fit_on_other_coefficients"]["message"]


def test_tensors_instead_of_floats_are_told_to_use_item(grade) -> None:
    graded = grade({SLUG: DATA + TENSORS_RETURNED}, "-k", SLUG)
    message = graded.checks(SLUG)["fit_matches_reference"]["message"]
    assert "should be a Python number but is a tensor" in message and ".item()" in message
