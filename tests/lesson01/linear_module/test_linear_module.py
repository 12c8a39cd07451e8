"""Facts the linear_module checks rely on, and a solution that skips the optimiser."""

from __future__ import annotations

import importlib.util

import course_config
from graders.engine.fresh import twin_run
from graders.lesson01.linear_module import checks

HAND_WRITTEN_UPDATE = '''
import torch
from torch import nn


def fit_linear_module(lr=0.1, steps=101, seed=42):
    torch.manual_seed(seed)
    X = torch.rand(100, 1) * 4 - 2
    y = 3 * X - 2 + 0.3 * torch.randn(100, 1)
    model = nn.Linear(1, 1)
    loss_fn = nn.MSELoss()
    losses = []
    for _ in range(steps):
        model.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
        losses.append(loss.item())
    return losses, model.weight.item(), model.bias.item()
'''


def _reference():
    path = course_config.ROOT / "reference" / "lesson01" / "linear_module.py"
    spec = importlib.util.spec_from_file_location("reference_linear_module_for_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_reproduces_the_lessons_printout() -> None:
    losses, weight, bias = _reference().fit_linear_module()
    assert len(losses) == 101
    assert {step: round(losses[step], 4) for step in checks.PRINTED_LOSSES} == checks.PRINTED_LOSSES
    assert (round(weight, 3), round(bias, 3)) == (checks.PRINTED_WEIGHT, checks.PRINTED_BIAS)


def test_the_wrong_runs_differ_from_the_right_one_on_the_hidden_inputs() -> None:
    reference = _reference()
    for case in checks.FRESH_RUNS:
        lr, steps, seed = case["lr"], case["steps"], course_config.LESSON_01.exercise("linear_module").seed(case["seed"])
        right = reference.fit_linear_module(lr, steps, seed)
        for mistake, run in checks.wrong_runs(reference, lr, steps, seed):
            assert checks._run_problem(run, right), mistake.name


def test_twin_runs_settle_as_the_lessons_run_does_and_are_shown_as_they_are() -> None:
    reference = _reference()
    assert checks.call_text(checks.lesson_run()) == "fit_linear_module(lr=0.1, steps=101, seed=42)"
    for seed in range(10):
        with twin_run(seed):
            run, watched = checks.lesson_run(), checks.lesson_run(watched=True)
            printed, weight, bias, whose = checks.printout(reference, run)
            shown = checks.call_text(run)
        assert run != checks.LESSON_RUN and 3 <= watched["steps"] <= 7 and watched["steps"] != 5
        assert shown == f"fit_linear_module(lr={run['lr']}, steps={run['steps']}, seed={run['seed']})"
        losses, final_weight, final_bias = reference.fit_linear_module(**run)
        assert printed[run["steps"] - 1] == losses[-1] and (weight, bias) == (final_weight, final_bias)
        assert whose == "the reference gives"
        # Settled by half-way, as the lesson's run is by step 50: the loss no longer moves, and one update
        # more or less changes the weight and bias by less than the tolerance (so "step before backward"
        # costs here what it costs on the lesson's run).
        assert abs(losses[-1] - losses[run["steps"] // 2]) < 1e-5 and abs(final_weight - 3) < 0.2
        for mistake, wrong in checks.wrong_runs(reference, **run):
            assert (checks._run_problem(wrong, (losses, final_weight, final_bias)) is None) == (
                mistake is checks.STEP_BEFORE_BACKWARD), mistake.name


def test_the_loop_order_is_read_from_the_gradients_at_each_call() -> None:
    assert checks._order_mistake("bs" * 3) is None
    assert checks._order_mistake("bsasas") is checks.ZERO_GRAD_MISSING
    assert checks._order_mistake("bebebe") is checks.ZERO_GRAD_BEFORE_STEP
    assert checks._order_mistake("ebsbsb") is checks.STEP_BEFORE_BACKWARD


def test_a_hand_written_update_loses_only_the_optimiser_check(grade) -> None:
    graded = grade({"linear_module": HAND_WRITTEN_UPDATE})
    assert graded.failed("linear_module") == {"uses_module_loss_and_optimiser", "loop_order"}, graded.output


def test_float64_data_into_a_float32_module_names_the_mixed_dtype_pitfall(grade) -> None:
    from conftest import ROOT
    from graders.engine.mistakes import MIXED_DTYPES

    reference = (ROOT / "reference" / "lesson01" / "linear_module.py").read_text()
    line = "    X = torch.rand(100, 1) * 4 - 2\n"
    assert line in reference
    float64_data = reference.replace(line, "    X = torch.rand(100, 1, dtype=torch.float64) * 4 - 2\n")
    graded = grade({"linear_module": float64_data}, "-k", "linear_module")
    checks = graded.checks("linear_module")
    failed = graded.failed("linear_module")
    assert failed, graded.output
    assert all(checks[c]["mistake"] == MIXED_DTYPES.name for c in failed), graded.output
    assert "Mixing dtypes" in graded.explained("linear_module", sorted(failed)[0])


SEED_ARGUMENT = "    torch.manual_seed(seed)\n"


def _reference_with(line: str) -> str:
    from conftest import ROOT

    reference = (ROOT / "reference" / "lesson01" / "linear_module.py").read_text()
    assert SEED_ARGUMENT in reference
    return reference.replace(SEED_ARGUMENT, line)


def test_the_lessons_seed_for_the_callers_is_a_wrong_run_only_off_the_lessons_seed() -> None:
    reference = _reference()
    lesson = [mistake for mistake, _ in checks.wrong_runs(reference, **checks.LESSON_RUN)]
    assert checks.SEED_IGNORED not in lesson
    seed = course_config.LESSON_01.exercise("linear_module").seed("fresh_first")
    runs = dict(checks.wrong_runs(reference, 0.05, 30, seed))
    assert runs[checks.SEED_IGNORED] == reference.fit_linear_module(0.05, 30, checks.LESSON_RUN["seed"])


def test_seeding_another_way_keeps_full_marks(grade) -> None:
    graded = grade({"linear_module": _reference_with("    torch.random.manual_seed(int(seed))\n")}, "-k", "linear_module")
    assert graded.failed("linear_module") == set(), graded.output


def test_a_reproducible_wrong_run_is_not_blamed_on_the_seed(grade) -> None:
    # A rate of its own: the same numbers on every call, so the seed is not what is wrong.
    graded = grade({"linear_module": _reference_with(SEED_ARGUMENT + "    lr = 0.05\n")}, "-k", "linear_module")
    checks_run = graded.checks("linear_module")
    failed = graded.failed("linear_module")
    assert {"lesson_numbers", "matches_reference", "fit_linear_module_on_fresh_runs"} <= failed, graded.output
    for check_id in ("lesson_numbers", "matches_reference"):
        assert checks_run[check_id]["mistake"] is None, checks_run[check_id]["message"]


def test_a_hard_coded_seed_is_named_on_the_fresh_seed_with_the_lessons_numbers(grade) -> None:
    graded = grade({"linear_module": _reference_with("    torch.manual_seed(42)\n")}, "-k", "linear_module")
    message = graded.explained("linear_module", "matches_reference")
    assert graded.checks("linear_module")["matches_reference"]["mistake"] == checks.SEED_IGNORED.name
    assert "torch.manual_seed(seed)" in message, message


def test_defaults_other_than_the_lessons_cost_the_lesson_numbers_check(grade) -> None:
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "linear_module.py").read_text()
    signature = "def fit_linear_module(lr: float = 0.1, steps: int = 101, seed: int = 42)"
    assert source.count(signature) == 1
    graded = grade({"linear_module": source.replace(signature, signature.replace("0.1", "0.05"))},
                   "-k", "linear_module")
    assert graded.failed("linear_module") == {"lesson_numbers"}, graded.output
    message = graded.checks("linear_module")["lesson_numbers"]["message"]
    assert "fit_linear_module() with its defaults gives another run" in message, message


def test_both_arguments_ignored_is_a_wrong_run_only_off_both_lesson_values() -> None:
    reference = _reference()
    seed = course_config.LESSON_01.exercise("linear_module").seed("fresh_first")
    for lr, run_seed in ((0.1, seed), (0.05, checks.LESSON_RUN["seed"]), (0.1, checks.LESSON_RUN["seed"])):
        assert checks.LR_AND_SEED_IGNORED not in dict(checks.wrong_runs(reference, lr, 30, run_seed))
    runs = dict(checks.wrong_runs(reference, 0.05, 30, seed))
    assert runs[checks.LR_AND_SEED_IGNORED] == reference.fit_linear_module(0.1, 30, checks.LESSON_RUN["seed"])


def test_the_lessons_seed_with_a_rate_of_its_own_is_not_called_both_ignored(grade) -> None:
    # Seed 42 written in, and a rate too, but not the lesson's: its runs are not the lesson's own.
    graded = grade({"linear_module": _reference_with("    torch.manual_seed(42)\n    lr = 0.05\n")},
                   "-k", "linear_module and not hidden")
    checks_run = graded.checks("linear_module")
    assert {"lesson_numbers", "matches_reference"} <= graded.failed("linear_module"), graded.output
    for check_id in ("lesson_numbers", "matches_reference"):
        assert checks_run[check_id]["mistake"] is None, checks_run[check_id]["message"]


def test_right_answers_written_another_way_score_full_marks(grade) -> None:
    from mistake_catalogue import submission

    for variant in ("correct_functional_loss", "correct_optimiser_by_alias", "correct_step_with_closure"):
        graded = grade({"linear_module": submission("linear_module", variant)}, "-k", "linear_module")
        assert graded.failed("linear_module") == set(), (variant, graded.output)
        assert graded.exercise("linear_module")["integrity"] == [], variant


def test_a_loop_that_always_makes_one_pass_loses_the_hidden_runs_at_zero_steps(grade) -> None:
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "linear_module.py").read_text()
    loop = "    for _ in range(steps):\n"
    assert source.count(loop) == 1
    graded = grade({"linear_module": source.replace(loop, "    for _ in range(max(steps, 1)):\n")},
                   "-k", "linear_module")
    assert graded.failed("linear_module") == {"fit_linear_module_on_fresh_runs"}, graded.output
    check = graded.checks("linear_module")["fit_linear_module_on_fresh_runs"]
    assert check["mistake"] == "one step too many (loop off by one)"
    assert "steps=0" in check["message"] and "expected: losses []" in check["message"], check["message"]


def test_a_generator_of_its_own_seeded_with_the_argument_is_named_as_torchs_stream_never_seeded(grade) -> None:
    # The data drawn from torch.Generator().manual_seed(seed), the layer from torch's own stream, never seeded: runs
    # differ on one seed. The code passes seed to a manual_seed, but not torch's: neither "seed set late" (move
    # torch.manual_seed up: a call the code does not make) nor "the seed ignored" (it is used, for the data).
    source = _reference_with("    generator = torch.Generator().manual_seed(seed)\n")
    source = source.replace("torch.rand(100, 1)", "torch.rand(100, 1, generator=generator)")
    source = source.replace("torch.randn(100, 1)", "torch.randn(100, 1, generator=generator)")
    graded = grade({"linear_module": source}, "-k", "linear_module and lesson_numbers")
    check = graded.checks("linear_module")["lesson_numbers"]
    assert check["mistake"] == checks.OWN_GENERATOR_ONLY.name, check["message"]
