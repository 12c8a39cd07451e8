"""Facts the linear_module checks rely on, and a solution that skips the optimiser."""

from __future__ import annotations

import importlib.util

import course_config
from graders.lesson01 import linear_module as checks

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
        lr, steps, seed = case["lr"], case["steps"], course_config.LINEAR_MODULE.seed(case["seed"])
        right = reference.fit_linear_module(lr, steps, seed)
        for mistake, run in checks.wrong_runs(reference, lr, steps, seed):
            assert checks._run_problem(run, right), mistake.name


def test_the_loop_order_is_read_from_the_gradients_at_each_call() -> None:
    assert checks._order_mistake("bs" * 3) is None
    assert checks._order_mistake("bsasas") is checks.ZERO_GRAD_MISSING
    assert checks._order_mistake("bebebe") is checks.ZERO_GRAD_BEFORE_STEP
    assert checks._order_mistake("ebsbsb") is checks.STEP_BEFORE_BACKWARD


def test_a_hand_written_update_loses_only_the_optimiser_check(grade) -> None:
    graded = grade({"linear_module": HAND_WRITTEN_UPDATE})
    assert graded.failed("linear_module") == {"uses_module_loss_and_optimiser", "loop_order"}, graded.output
