"""The `learning_rate` exercise: its reference reproduces the lesson, its checks give full
marks to right answers written in other ways, and a failing run is drawn as a plot.
(Each named mistake is proved in test_mistakes.py, from tests/lesson01/learning_rate/mistakes/.)"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from types import ModuleType

import pytest
import torch

from mistake_catalogue import submission
from conftest import ROOT, STUBS

SLUG = "learning_rate"

# Graded as a student's usual runs are: the reference's expected values, computed by the first run of the
# exercise here, are read back by the later ones (tests/conftest.py: keeping).
pytestmark = pytest.mark.usefixtures("keeping")


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reference_learning_rate", ROOT / "reference/lesson01/learning_rate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_reproduces_the_lessons_printout(reference: ModuleType) -> None:
    X, y = reference.make_line_data()
    losses, w, b = reference.train_line(X, y, 0.1, 1)
    assert (round(losses[0], 4), round(w, 3), round(b, 3)) == (15.4288, 0.792, -0.362)
    losses, w, b = reference.train_line(X, y, 0.1, 101)
    assert (round(losses[20], 4), round(losses[100], 4), round(w, 3), round(b, 3)) == (0.0606, 0.0597, 2.965, -2.0)
    assert reference.steps_to_reach(losses, 0.06) == 23
    assert not reference.diverged(losses)


def test_the_reference_answers_try_it_yourself_1(reference: ModuleType) -> None:
    X, y = reference.make_line_data()
    slow = reference.train_line(X, y, 0.01, 260)[0]
    assert round(slow[100], 4) == 0.2025  # 101 steps are not enough at lr 0.01
    assert abs(reference.steps_to_reach(slow, 0.06) - 248) <= 1  # 247 misses by 7e-7: a band, not a point
    fast = reference.train_line(X, y, 1.1, 60)[0]
    assert [round(loss, 2) for loss in fast[:5]] == [15.43, 48.10, 179.54, 725.60, 3019.05]
    assert math.isfinite(fast[56]) and math.isinf(fast[57])
    assert reference.diverged(fast)
    assert round(reference.max_stable_learning_rate(X), 4) == 0.7201


def test_the_largest_stable_rate_is_where_descent_stops_converging(reference: ModuleType) -> None:
    X, y = reference.make_line_data()
    rate = reference.max_stable_learning_rate(X)
    assert not reference.diverged(reference.train_line(X, y, 0.97 * rate, 400)[0])
    assert reference.diverged(reference.train_line(X, y, 1.03 * rate, 400)[0])
    wide = reference.make_line_data(200_000, 0)[0]
    assert reference.max_stable_learning_rate(wide) == pytest.approx(0.75, abs=0.005)  # x uniform on [-2, 2]


def test_the_hessian_without_its_factor_2_doubles_the_rate(reference: ModuleType) -> None:
    from graders.lesson01.learning_rate.checks import rate_without_factor_2

    X = reference.make_line_data()[0]
    assert round(rate_without_factor_2(X), 5) == 1.44028
    assert rate_without_factor_2(X) == pytest.approx(2 * reference.max_stable_learning_rate(X), rel=1e-12)


def test_a_hessian_of_sums_divides_the_rate_by_n(reference: ModuleType) -> None:
    from graders.lesson01.learning_rate.checks import rate_from_sums

    for X in (reference.make_line_data()[0], reference.make_line_data(37, 7)[0].double()):
        assert rate_from_sums(X) == pytest.approx(reference.max_stable_learning_rate(X) / len(X), rel=1e-12)


def test_a_wrong_run_earns_nothing_for_returning_floats(grade) -> None:
    graded = grade({SLUG: submission(SLUG, "sign_error")}, "-k", "losses_are_python_floats")
    check = graded.checks(SLUG)["losses_are_python_floats"]
    assert not check["passed"] and check["mistake"] == "sign error: gradient ascent", check["message"]


def test_the_reference_scores_full_marks(grade) -> None:
    graded = grade({SLUG: ROOT / "reference/lesson01/learning_rate.py"}, "-k", SLUG)
    assert graded.exercise(SLUG)["score"] == 12 == graded.exercise(SLUG)["max_score"], graded.output


def test_the_stub_scores_zero_as_not_implemented(grade) -> None:
    graded = grade({SLUG: STUBS / "lesson01/learning_rate.py"}, "-k", SLUG)
    result = graded.exercise(SLUG)
    assert result["score"] == 0 and result["not_implemented"], graded.output


@pytest.mark.parametrize("name", ["correct_optimiser", "correct_autograd_grad", "correct_fresh_leaves"])
def test_right_answers_written_another_way_score_full_marks(grade, name: str) -> None:
    graded = grade({SLUG: submission(SLUG, name)}, "-k", SLUG)
    assert graded.failed(SLUG) == set(), graded.output


def test_hard_coded_answers_fail_the_hidden_checks_and_the_public_twins(grade, tmp_path) -> None:
    # The lesson's seed and its rate written in: the published inputs pass (replayed, as in the
    # student bundle); graded live, the public checks' twins use another seed and fail too.
    recorded = tmp_path / "expected.json"
    public = ("-k", SLUG, "-m", "not hidden")
    grade({SLUG: ROOT / "reference/lesson01/learning_rate.py"}, *public, "--record-expected", str(recorded))
    replayed = grade({SLUG: submission(SLUG, "hard_coded")}, *public, "--replay-expected", str(recorded))
    assert replayed.failed(SLUG) == set(), replayed.output
    graded = grade({SLUG: submission(SLUG, "hard_coded")}, "-k", SLUG)
    assert graded.failed(SLUG) == {"make_line_data_matches_lesson", "max_stable_learning_rate_on_lesson_data",
                                   "make_line_data_other_seeds", "max_stable_learning_rate_on_fresh_data"}, graded.output
    message = graded.checks(SLUG)["make_line_data_matches_lesson"]["message"]
    assert "fresh inputs" in message and "make_line_data(100, seed=" in message, message


def test_a_failing_trajectory_check_writes_its_plot_and_names_it(grade, tmp_path) -> None:
    plots = tmp_path / "plots"
    graded = grade({SLUG: submission(SLUG, "never_zeroed")}, "-k", SLUG, "--plots", str(plots))
    check = graded.checks(SLUG)["lesson_run_at_lr_0_1"]
    expected = plots / f"{SLUG}-lesson_run_at_lr_0_1.png"
    assert check["files"] == [str(expected)]
    assert f"see:      {expected.name}" in check["message"]  # a temporary folder is not shown
    assert expected.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert graded.checks(SLUG)["first_update_matches_lesson"]["files"] == []  # it passed: no plot
    assert not (plots / f"{SLUG}-first_update_matches_lesson.png").exists()


def test_a_mistake_is_drawn_once_the_later_checks_it_fails_draw_nothing(grade, tmp_path) -> None:
    # The checks after the first that fail for the same named mistake say "same cause as above":
    # a picture each would cost more time than the checks, and show nothing new.
    plots = tmp_path / "plots"
    graded = grade({SLUG: submission(SLUG, "never_zeroed")}, "-k", SLUG, "--plots", str(plots))
    failed = {name: c for name, c in graded.checks(SLUG).items() if not c["passed"]}
    assert len(failed) >= 3 and {c["mistake"] for c in failed.values()} == {"gradients never zeroed"}, failed
    drawn = [name for name, c in failed.items() if c["files"]]
    assert drawn == ["lesson_run_at_lr_0_1"], drawn
    assert sorted(p.name for p in plots.iterdir()) == [f"{SLUG}-lesson_run_at_lr_0_1.png"]


def test_a_passing_run_writes_no_plot_and_imports_no_matplotlib(grade, tmp_path) -> None:
    plots = tmp_path / "plots"
    grade({SLUG: ROOT / "reference/lesson01/learning_rate.py"}, "-k", SLUG, "--plots", str(plots))
    assert not plots.exists()
    code = "import sys, graders.lesson01.learning_rate.checks, graders.engine.plots; print('matplotlib' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"


def test_replayed_expected_values_still_name_the_mistake(grade, tmp_path) -> None:
    recorded = tmp_path / "expected.json"
    public = ("-k", SLUG, "-m", "not hidden")
    grade({SLUG: ROOT / "reference/lesson01/learning_rate.py"}, *public, "--record-expected", str(recorded))
    graded = grade({SLUG: submission(SLUG, "never_zeroed")}, *public, "--replay-expected", str(recorded))
    assert graded.failed(SLUG) == {"lesson_run_at_lr_0_1", "lr_0_01_is_slow", "lr_1_1_diverges",
                                   "losses_are_python_floats"}, graded.output
    assert graded.checks(SLUG)["lesson_run_at_lr_0_1"]["mistake"] == "gradients never zeroed"


REFERENCE_LOOP = """        loss = ((X * w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
"""
LOOKALIKES = {
    # The same errors as rebinding w, raised before any backward() has worked: named for what they are, or not at all.
    "grads zeroed before the first backward": ("        w.grad.zero_()\n" + REFERENCE_LOOP, REFERENCE_LOOP,
                                               "a .grad read while it is still None"),
    "parameters that never required grad": ("torch.zeros(1)", "torch.zeros(1, requires_grad=True)", None),
}


@pytest.mark.parametrize("slip", LOOKALIKES)
def test_errors_that_look_like_rebinding_are_not_called_rebinding(grade, slip: str) -> None:
    new, old, named = LOOKALIKES[slip]
    source = (ROOT / "reference/lesson01/learning_rate.py").read_text()
    assert old in source
    graded = grade({SLUG: source.replace(old, new)}, "-k", SLUG)
    check = graded.checks(SLUG)["lesson_run_at_lr_0_1"]
    assert not check["passed"] and check["mistake"] == named, check["message"]


def test_twin_runs_use_the_lessons_line_from_other_seeds_and_say_so(reference: ModuleType) -> None:
    from graders.engine.fresh import twin_run
    from graders.lesson01.learning_rate import checks

    lesson_X, _ = reference.make_line_data()
    seen = set()
    for seed in range(8):
        with twin_run(seed):
            X, y, text = checks.line_data(reference)
            falling = checks._falling_losses()
        drawn = int(text.split("seed=")[1].split(")")[0])
        again_X, again_y = reference.make_line_data(100, drawn)
        assert torch.equal(X, again_X) and torch.equal(y, again_y), "the text must rebuild the same data"
        assert X.shape == lesson_X.shape == (100, 1) and X.dtype == torch.float32 and not torch.equal(X, lesson_X)
        assert falling[0] > falling[1] > falling[2] > 0 and falling != [3.0, 2.0, 1.0]
        # The same kind of run as the lesson's: lr 0.1 settles near the noise floor, lr 1.1 blows up.
        assert reference.train_line(X, y, 0.1, 101)[0][-1] < 0.15
        assert reference.diverged(reference.train_line(X, y, 1.1, 30)[0])
        seen.add(drawn)
    assert len(seen) == 8


def test_the_lessons_settling_run_rises_by_a_hair_as_the_any_rise_mistake_says(reference: ModuleType) -> None:
    from graders.lesson01.learning_rate import checks

    X, y = reference.make_line_data()
    losses = reference.train_line(X, y, 0.1, 101)[0]
    assert "lr 0.1" in checks.RISE_ON_ANY_STEP.explanation
    assert checks.rise_on_any_step(losses) and not reference.diverged(losses)


ALWAYS_TRUE = '''

def diverged(losses: list[float]) -> bool:
    return True
'''


def test_a_diverged_that_agrees_with_any_rise_on_one_list_only_is_not_called_any_rise(grade) -> None:
    # Always True gives the step-by-step answer on the lesson's run, but not on losses that fall.
    source = (ROOT / "reference/lesson01/learning_rate.py").read_text() + ALWAYS_TRUE
    graded = grade({SLUG: source}, "-k", "diverged_spots_blow_ups")
    check = graded.checks(SLUG)["diverged_spots_blow_ups"]
    assert not check["passed"] and check["mistake"] is None, check["message"]


def test_gradients_written_by_hand_cost_only_the_check_that_counts_backward_passes(grade) -> None:
    graded = grade({SLUG: submission(SLUG, "hand_gradients")}, "-k", SLUG)
    assert graded.failed(SLUG) == {"losses_are_python_floats"}, graded.output
    message = graded.checks(SLUG)["losses_are_python_floats"]["message"]
    assert "train_line took gradients from autograd 0 time(s) in 5 steps; expected 5, one per step." in message, message
    assert "not from derivatives written out by hand" in message, message


def test_nan_blindness_differs_from_the_reference_only_where_a_loss_is_nan(reference: ModuleType) -> None:
    from graders.lesson01.learning_rate import checks

    X, y = reference.make_line_data()
    for losses in ([3.0, 2.0, 1.0], [1.0, 2.0, 3.0], [3.0, 4.0, 1.0], [3.0, 2.0, 3.0],
                   reference.train_line(X, y, 1.1, 60)[0]):
        assert checks.blind_to_nan(losses) == reference.diverged(losses), losses
    assert not checks.blind_to_nan([3.0, 2.0, math.nan]) and reference.diverged([3.0, 2.0, math.nan])


# Wrong on the nan list as the nan-blind diverged is, but also wrong on the middle loss past the first: it compares
# the last loss alone, with no test for nan.
LAST_LOSS_NAN_BLIND = "    return bool(losses) and losses[-1] > losses[0]\n"


def test_a_diverged_wrong_on_nan_and_elsewhere_is_named_as_the_last_loss_only_not_nan_blind(grade) -> None:
    source = (ROOT / "reference/lesson01/learning_rate.py").read_text()
    old = "    return any(not math.isfinite(loss) or loss > losses[0] for loss in losses)\n"
    assert source.count(old) == 1
    graded = grade({SLUG: source.replace(old, LAST_LOSS_NAN_BLIND)}, "-k", "diverged_spots_blow_ups")
    check = graded.checks(SLUG)["diverged_spots_blow_ups"]
    assert not check["passed"] and "a loss that became nan" in check["message"], check["message"]
    assert check["mistake"] == "only the last loss compared with the first", check["message"]


def test_make_line_data_that_never_seeds_is_not_called_seed_ignored(grade) -> None:
    # Unseeded draws are other numbers on every call, not the seed-42 ones of "the seed argument ignored": a second
    # call with the same seed tells it, and the name says the seed is never set.
    source = (ROOT / "reference/lesson01/learning_rate.py").read_text()
    assert source.count("    torch.manual_seed(seed)\n") == 1
    graded = grade({SLUG: source.replace("    torch.manual_seed(seed)\n", "")}, "-k", "make_line_data")
    assert graded.failed(SLUG) == {"make_line_data_matches_lesson", "make_line_data_other_seeds"}, graded.output
    for check in graded.checks(SLUG).values():
        assert check["mistake"] in (None, "seed never set"), check["message"]
    assert graded.checks(SLUG)["make_line_data_matches_lesson"]["mistake"] == "seed never set"


# `<=` as the equal-target mistake has it, but the first loss is never looked at: wrong on another list too.
AT_OR_BELOW_FROM_STEP_1 = '''
    for step in range(1, len(losses)):
        if losses[step] <= target:
            return step
    return None
'''


def test_a_steps_to_reach_that_agrees_with_at_or_below_on_one_list_only_is_not_called_so(grade) -> None:
    source = (ROOT / "reference/lesson01/learning_rate.py").read_text()
    start = source.index("def steps_to_reach")
    body = source.index('    """\n', source.index('"""', start) + 3) + len('    """\n')
    end = source.index("\n\ndef ", body)
    graded = grade({SLUG: source[:body] + AT_OR_BELOW_FROM_STEP_1 + source[end:]}, "-k", "steps_to_reach")
    check = graded.checks(SLUG)["steps_to_reach_finds_first_step"]
    assert not check["passed"] and "a loss equal to the target does not count" in check["message"], check["message"]
    assert check["mistake"] is None, check["message"]


def test_at_or_below_differs_from_the_reference_only_where_a_loss_equals_the_target(reference: ModuleType) -> None:
    from graders.lesson01.learning_rate import checks

    for losses, target in (([3.0, 2.0, 1.0], 1.5), ([3.0, 2.0, 1.0], 5.0), ([3.0, 2.0, 1.0], 0.5), ([], 1.0)):
        assert checks.first_at_or_below(losses, target) == reference.steps_to_reach(losses, target)
    assert checks.first_at_or_below([3.0, 2.0, 1.0], 2.0) == 1 and reference.steps_to_reach([3.0, 2.0, 1.0], 2.0) == 2


def test_right_values_in_lists_lose_only_the_checks_that_promise_tuples(grade) -> None:
    source = (ROOT / "reference/lesson01/learning_rate.py").read_text()
    in_lists = (source.replace("    return X, y\n", "    return [X, y]\n")
                .replace("return losses, w.item(), b.item()", "return [losses, w.item(), b.item()]"))
    graded = grade({SLUG: in_lists}, "-k", SLUG)
    assert graded.failed(SLUG) == {"make_line_data_matches_lesson", "losses_are_python_floats"}, graded.output


def test_steps_0_records_no_loss_and_makes_no_update(grade) -> None:
    source = (ROOT / "reference/lesson01/learning_rate.py").read_text()
    at_least_one = source.replace("for _ in range(steps):", "for _ in range(max(steps, 1)):")
    graded = grade({SLUG: at_least_one}, "-k", SLUG)
    assert graded.failed(SLUG) == {"train_line_on_fresh_data"}, graded.output
    assert "steps=0" in graded.checks(SLUG)["train_line_on_fresh_data"]["message"]


def test_data_that_repeat_with_their_nans_are_not_called_unseeded(grade) -> None:
    # The same NaNs on every call are the same data: a second call that matches them says nothing about the seed.
    source = (ROOT / "reference/lesson01/learning_rate.py").read_text()
    line = "    y = 3 * X - 2 + 0.3 * torch.randn(n, 1)\n"
    assert source.count(line) == 1
    graded = grade({SLUG: source.replace(line, line.replace("torch.randn(n, 1)", "torch.randn(n, 1).sqrt()"))},
                   "-k", "make_line_data")
    assert "make_line_data_matches_lesson" in graded.failed(SLUG), graded.output
    for check in graded.checks(SLUG).values():
        assert check["mistake"] not in ("seed never set", "seed set after something random was drawn"), check["message"]
