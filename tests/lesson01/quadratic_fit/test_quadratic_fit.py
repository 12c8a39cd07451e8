"""quadratic_fit: correct solutions written other ways keep full marks, and answers that
dodge the work lose exactly the checks meant to catch them."""

from __future__ import annotations

import pytest
import torch

import course_config

SLUG = "quadratic_fit"

# Graded as a student's usual runs are: the reference's expected values, computed by the first run of the
# exercise here, are read back by the later ones (tests/conftest.py: keeping).
pytestmark = pytest.mark.usefixtures("keeping")

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
SUM_FOR_MEAN = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    a, b, c = (torch.zeros(1, requires_grad=True) for _ in range(3))
    for _ in range(steps):
        loss = ((a * X**2 + b * X + c - y) ** 2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c):
                p -= lr * p.grad
                p.grad.zero_()
    return a.item(), b.item(), c.item()
'''
QUARTIC_FEATURE = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    a, b, c = (torch.zeros(1, requires_grad=True) for _ in range(3))
    for _ in range(steps):
        loss = ((a * X**4 + b * X + c - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c):
                p -= lr * p.grad
                p.grad.zero_()
    return a.item(), b.item(), c.item()
'''
STEPS_PLUS_ONE = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    a, b, c = (torch.zeros(1, requires_grad=True) for _ in range(3))
    for _ in range(steps + 1):
        ((a * X**2 + b * X + c - y) ** 2).mean().backward()
        with torch.no_grad():
            for p in (a, b, c):
                p -= lr * p.grad
                p.grad.zero_()
    return a.item(), b.item(), c.item()
'''
Y_FLATTENED = DATA.replace("    return X, y", "    return X, y.reshape(-1)")
RATE_OF_TEN = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    lr = 10.0  # a rate of its own: 100 times the lesson's 0.1
    a, b, c = (torch.zeros(1, requires_grad=True) for _ in range(3))
    for _ in range(steps):
        loss = ((a * X**2 + b * X + c - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c):
                p -= lr * p.grad
                p.grad.zero_()
    return a.item(), b.item(), c.item()
'''
RATE_TOO_HIGH = "learning rate above the stable limit"
SUM_NAME = "sum instead of mean"


@pytest.mark.parametrize("fit", [OPTIMISER_AND_SCALARS, DATA_UPDATE_AND_GRAD_NONE, PARAMETERS_IN_DATA_DTYPE],
                         ids=["optimiser_and_scalars", "data_update_and_grad_none", "parameters_in_data_dtype"])
def test_correct_solutions_written_other_ways_get_full_marks(grade, fit: str) -> None:
    graded = grade({SLUG: DATA + fit}, "-k", SLUG)
    assert graded.failed(SLUG) == set(), graded.output


def test_a_hard_coded_answer_fails_the_hidden_checks_and_autograd(grade) -> None:
    graded = grade({SLUG: DATA + HARD_CODED}, "-k", SLUG)
    failed = graded.failed(SLUG)
    assert {"fit_quadratic_on_other_coefficients", "fit_quadratic_follows_lr_and_steps", "fit_uses_autograd"} <= failed
    assert "lesson's (0.5, −1, 1)" in graded.checks(SLUG)["fit_quadratic_on_other_coefficients"]["message"]


def test_tensors_instead_of_floats_lose_only_the_check_of_types_and_are_told_to_use_item(grade) -> None:
    # The values and their type are two properties: right values held in tensors keep every check of values.
    graded = grade({SLUG: DATA + TENSORS_RETURNED}, "-k", SLUG)
    assert graded.failed(SLUG) == {"fit_matches_reference"}, graded.output
    message = graded.checks(SLUG)["fit_matches_reference"]["message"]
    assert "is a tensor, not a Python float" in message and ".item()" in message


def test_a_sum_for_the_mean_is_named_as_such_with_its_effective_rate(grade) -> None:
    graded = grade({SLUG: DATA + SUM_FOR_MEAN}, "-k", SLUG)
    checks = graded.checks(SLUG)
    message = graded.explained(SLUG, "fit_matches_reference")
    assert checks["fit_matches_reference"]["mistake"] == SUM_NAME, message
    assert "100 times the right one at lr=0.1 and at lr=0.05 alike" in message, message
    assert "an effective rate of 10, above these data's limit" in message, message


def test_a_rate_of_its_own_that_is_n_times_lr_by_chance_is_not_taken_for_a_sum(grade) -> None:
    # lr 10 is 100 × 0.1, so the first step at lr 0.1 is 100 times the right one, as a sum's is; at 0.05 it is 200.
    graded = grade({SLUG: DATA + RATE_OF_TEN}, "-k", SLUG)
    checks = graded.checks(SLUG)
    for check_id in ("fit_matches_reference", "fit_quadratic_follows_lr_and_steps"):
        assert checks[check_id]["mistake"] == RATE_TOO_HIGH, checks[check_id]["message"]


def test_a_blow_up_with_a_rate_below_the_limit_is_not_blamed_on_the_rate(grade) -> None:
    graded = grade({SLUG: DATA + QUARTIC_FEATURE}, "-k", SLUG)
    checks = graded.checks(SLUG)
    assert {"fit_matches_reference", "fit_reaches_least_squares"} <= graded.failed(SLUG)
    assert "nan" in checks["fit_reaches_least_squares"]["message"]  # it did blow up
    for check_id in ("fit_matches_reference", "fit_reaches_least_squares"):
        assert checks[check_id]["mistake"] is None, checks[check_id]["message"]
        assert RATE_TOO_HIGH not in checks[check_id]["message"]


def test_a_flattened_y_is_told_to_keep_the_shape_n_by_1(grade) -> None:
    graded = grade({SLUG: Y_FLATTENED + OPTIMISER_AND_SCALARS}, "-k", SLUG)
    assert graded.failed(SLUG) == {"make_quadratic_data_follows_recipe", "make_quadratic_data_with_other_arguments"}
    message = graded.checks(SLUG)["make_quadratic_data_follows_recipe"]["message"]
    assert "has shape (100,); expected (100, 1)" in message and "Keep y of shape (n, 1), here (100, 1)" in message


def test_calling_backward_earns_nothing_when_the_fit_is_wrong(grade) -> None:
    graded = grade({SLUG: DATA + STEPS_PLUS_ONE}, "-k", SLUG)
    message = graded.checks(SLUG)["fit_uses_autograd"]["message"]
    assert "fit_uses_autograd" in graded.failed(SLUG)
    # Its headline is the wrong fit (not "uses no autograd"), whose whole story an earlier check tells.
    assert message.startswith("fit_quadratic: a is"), message
    assert graded.checks(SLUG)["fit_uses_autograd"]["same_cause_as"] == "fit_matches_reference", message


def test_twin_data_are_another_parabola_of_the_same_kind_that_settles_as_the_lessons() -> None:
    import importlib.util
    import re

    import torch

    from graders.engine.fresh import twin_run
    from graders.lesson01.quadratic_fit import checks

    spec = importlib.util.spec_from_file_location("reference_quadratic_fit", REFERENCE)
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    lesson_X, _ = reference.make_quadratic_data()
    for seed in range(8):
        with twin_run(seed):
            X, y, text, truth = checks._lesson_data(reference)
        a, b, c = truth
        assert X.shape == y.shape == lesson_X.shape and X.dtype == y.dtype == torch.float32
        assert -2 <= X.min() and X.max() <= 2 and abs(c - 1) >= 0.4
        assert re.fullmatch(r"100 points of y = \S+x² [+-]\S+x [+-]\S+ plus noise 0\.3, x uniform on \[−2, 2\]", text)
        least = checks.least_squares(X, y)
        fit = reference.fit_quadratic(X, y, lr=0.1, steps=checks.CONVERGED_STEPS)
        assert max(abs(f - s) for f, s in zip(fit, least)) < course_config.LESSON_01.exercise("quadratic_fit").tolerance("least_squares")
        assert max(abs(f - t) for f, t in zip(least, truth)) < 0.3  # the noise moves the best fit a little


ZEROS_AS_ONE_VECTOR = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    params = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    for _ in range(steps):
        a, b, c = params
        loss = ((a * X**2 + b * X + c - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            params -= lr * params.grad
            params.grad.zero_()
    return tuple(params.tolist())
'''
START_PROBE = "steps=0), which makes no update"


def test_zeros_made_another_way_keep_full_marks(grade) -> None:
    graded = grade({SLUG: DATA + ZEROS_AS_ONE_VECTOR}, "-k", SLUG)
    assert graded.failed(SLUG) == set(), graded.output


def test_answers_that_ignore_steps_or_take_one_too_many_are_not_blamed_on_the_start(grade) -> None:
    from graders.lesson01.quadratic_fit.checks import NONZERO_START

    for fit in (HARD_CODED, STEPS_PLUS_ONE):
        graded = grade({SLUG: DATA + fit}, "-k", SLUG)
        checks = graded.checks(SLUG)
        assert graded.failed(SLUG), graded.output
        for check_id in graded.failed(SLUG):
            assert checks[check_id]["mistake"] != NONZERO_START.name, checks[check_id]["message"]
            assert START_PROBE not in checks[check_id]["message"]


def test_the_start_at_zero_is_the_reference_bit_for_bit_and_the_start_at_ones_is_not() -> None:
    import importlib.util

    from graders.lesson01.quadratic_fit import checks

    spec = importlib.util.spec_from_file_location("reference_quadratic_fit_start", REFERENCE)
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    X, y = reference.make_quadratic_data()
    right = reference.fit_quadratic(X, y, lr=0.1, steps=checks.PATH_STEPS)
    assert checks._descend(X, y, 0.1, checks.PATH_STEPS) == right
    ones = checks._descend(X, y, 0.1, checks.PATH_STEPS, start=1.0)
    assert max(abs(o - r) for o, r in zip(ones, right)) > course_config.LESSON_01.exercise("quadratic_fit").tolerance("reference")


def test_the_defaults_the_checks_expect_are_the_signatures() -> None:
    import inspect

    from graders.lesson01.quadratic_fit import checks
    from reference.lesson01 import quadratic_fit as reference

    parameters = inspect.signature(reference.fit_quadratic).parameters
    assert {name: parameters[name].default for name in ("lr", "steps")} == checks.SIGNATURE_DEFAULTS


def test_right_values_in_lists_lose_only_the_checks_that_promise_tuples(grade) -> None:
    # The docstring says "a tuple of three Python floats", the signature tuple[Tensor, Tensor] for the data.
    in_lists = (REFERENCE.read_text().replace("    return X, y\n", "    return [X, y]\n")
                .replace("return a.item(), b.item(), c.item()", "return [a.item(), b.item(), c.item()]"))
    graded = grade({SLUG: in_lists}, "-k", SLUG)
    assert graded.failed(SLUG) == {"make_quadratic_data_follows_recipe", "fit_matches_reference"}, graded.output
    assert "not as a tuple" in graded.checks(SLUG)["fit_matches_reference"]["message"]


def test_steps_0_makes_no_update(grade) -> None:
    at_least_one = REFERENCE.read_text().replace("for _ in range(steps):", "for _ in range(max(steps, 1)):")
    graded = grade({SLUG: at_least_one}, "-k", SLUG)
    assert graded.failed(SLUG) == {"fit_quadratic_follows_lr_and_steps"}, graded.output
    assert "steps=0" in graded.checks(SLUG)["fit_quadratic_follows_lr_and_steps"]["message"]


def test_a_variant_is_named_only_where_it_explains_the_answer_on_every_input_of_the_check() -> None:
    # A start at ones explains an answer on the first setting; on the second the same code would give the ones
    # run there too. An answer that is the ones run on one input and the right run on the other is no such code.
    from graders.lesson01.quadratic_fit import checks

    X = torch.rand(40, 1, generator=torch.Generator().manual_seed(5)) * 4 - 2
    y = 0.5 * X**2 - X + 1
    first, second = checks.mistaken_fits(X, y, 0.1, 20), checks.mistaken_fits(X, y, 0.05, 30)
    ones = [change for _, change in checks._VARIANTS].index({"start": 1.0})
    assert checks._VARIANTS[ones][0] is checks.NONZERO_START
    got = first["variants"][ones]

    def agreeing() -> list:
        return [(second["variants"][ones], second["variants"])]

    def disagreeing() -> list:
        return [(second["right"], second["variants"])]

    assert checks._variant_mistake(None, got, first["variants"], first["right"], agreeing) == (checks.NONZERO_START, "")
    assert checks._variant_mistake(None, got, first["variants"], first["right"], disagreeing) is None


UNPACKED_FROM_ONE_TENSOR = '''
def fit_quadratic(X, y, lr=0.1, steps=500):
    a, b, c = torch.zeros(3, requires_grad=True)
    for _ in range(steps):
        ((a * X**2 + b * X + c - y) ** 2).mean().backward()
        with torch.no_grad():
            for p in (a, b, c):
                p -= lr * p.grad
                p.grad = None
    return a.item(), b.item(), c.item()
'''


def test_parameters_that_are_views_of_one_tensor_are_not_told_they_were_rebound(grade) -> None:
    # a, b and c unpacked from one leaf are views, whose .grad stays None after a backward() that worked: the error
    # "rebinds the parameters" names, but this code changes them in place, so that name would ask for what it does.
    # The unpacking itself, which the source shows, is named instead.
    graded = grade({SLUG: DATA + UNPACKED_FROM_ONE_TENSOR}, "-k", SLUG)
    fit = graded.checks(SLUG)["fit_is_close_to_true_coefficients"]
    assert not fit["passed"] and fit["mistake"] == "parameters unpacked from one tracked tensor", fit["message"]
    assert "p -= lr * p.grad" in fit["message"], fit["message"]  # the line that raised, shown as it is
