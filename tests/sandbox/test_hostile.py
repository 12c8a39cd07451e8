"""Broken and hostile submissions: each is graded correctly, with a clear message, while
every check it does not break still earns its points, and no run hangs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT, STUBS
from course_config import LIMITS

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
ALL_CHECKS = {"f_on_lesson_grid", "autograd_derivative_on_lesson_grid", "autograd_derivative_uses_autograd",
              "autograd_derivative_is_clean", "analytic_derivative_on_lesson_grid",
              "analytic_derivative_without_autograd", "max_abs_difference_is_small",
              "analytic_derivative_and_autograd_on_fresh_points",
              "analytic_derivative_and_autograd_near_stationary_points", "max_abs_difference_on_other_grids"}
# The checks that call analytic_derivative (directly, or through max_abs_difference).
ANALYTIC_CHECKS = {"analytic_derivative_on_lesson_grid", "analytic_derivative_without_autograd",
                   "max_abs_difference_is_small", "analytic_derivative_and_autograd_on_fresh_points",
                   "analytic_derivative_and_autograd_near_stationary_points"}
ANALYTIC_BODY = "    return torch.exp(-x) * (torch.cos(x) - torch.sin(x))\n"
TIMEOUT = "2"
# A module that imports os or sys, or rebinds torch's names, holds code the grader does not follow
# (graders/engine/source_evidence.py): its checks of how are not credited, beside what the attack itself breaks.
NOT_FOLLOWED = ANALYTIC_CHECKS | {"autograd_derivative_uses_autograd"}


def with_analytic(body: str, prelude: str = "") -> str:
    """The reference, with analytic_derivative's body replaced and optional top-level code."""
    assert ANALYTIC_BODY in REFERENCE
    return prelude + REFERENCE.replace(ANALYTIC_BODY, body)


def messages(graded, check_ids: set[str]) -> list[str]:
    checks = graded.checks(SLUG)
    return [checks[i]["message"] for i in sorted(check_ids)]


def test_an_infinite_loop_times_out_within_the_limit_and_costs_only_its_checks(grade) -> None:
    graded = grade({SLUG: with_analytic("    while True:\n        pass\n")}, "--call-timeout", TIMEOUT)
    assert graded.failed(SLUG) == ANALYTIC_CHECKS
    found = messages(graded, ANALYTIC_CHECKS)
    # Once timed out, the same code is not run again: two waits at most (analytic_derivative
    # itself, and max_abs_difference that calls it); the other checks fail at once, saying why.
    assert 1 <= sum("did not return within 2 s" in m for m in found) <= 2
    assert all("did not return within 2 s" in m or "already ran out of time" in m for m in found)


def test_a_loop_that_swallows_every_exception_is_still_stopped(grade) -> None:
    body = "    while True:\n        try:\n            pass\n        except BaseException:\n            pass\n"
    graded = grade({SLUG: with_analytic(body)}, "--call-timeout", TIMEOUT)
    assert graded.failed(SLUG) == ANALYTIC_CHECKS


@pytest.mark.parametrize("bomb", [
    "    big = torch.empty(10**12)\n    return big\n",
    "    hoard = []\n    while True:\n        hoard.append(bytearray(10**8))\n",
])
def test_a_memory_bomb_is_reported_as_running_out_of_memory(grade, bomb: str) -> None:
    graded = grade({SLUG: with_analytic(bomb)})
    assert graded.failed(SLUG) == ANALYTIC_CHECKS
    assert "ran out of memory" in graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["message"]


def test_sys_exit_inside_a_function_fails_that_function_with_a_message(grade) -> None:
    graded = grade({SLUG: with_analytic("    import sys\n    sys.exit(0)\n")})
    assert graded.failed(SLUG) == NOT_FOLLOWED
    assert "tried to end the program with sys.exit(0)" in messages(graded, ANALYTIC_CHECKS)[0]
    assert "left for your instructor's review" in graded.checks(SLUG)["autograd_derivative_uses_autograd"]["message"]


def test_os_exit_inside_a_function_fails_that_function_and_later_checks_still_run(grade) -> None:
    graded = grade({SLUG: with_analytic("    import os\n    os._exit(0)\n")})
    assert graded.failed(SLUG) == NOT_FOLLOWED
    message = graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["message"]
    assert "did not come back" in message and "os._exit" in message


@pytest.mark.parametrize("prelude, expected", [
    ("import sys\nsys.exit(0)\n", "SystemExit: sys.exit(0)"),
    ("import os\nos._exit(0)\n", "exited with status 0"),
    ("import a_module_that_does_not_exist\n", "ModuleNotFoundError"),
    ("def broken(:\n    pass\n", "SyntaxError"),
    ("while True:\n    pass\n", "did not finish within 2 s"),
])
def test_a_module_that_cannot_be_imported_scores_zero_with_the_reason(grade, prelude: str, expected: str) -> None:
    graded = grade({SLUG: prelude + REFERENCE}, "--call-timeout", TIMEOUT)
    assert graded.failed(SLUG) == ALL_CHECKS
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert "could not be imported" in message and expected in message


def test_a_syntax_error_names_its_line(grade) -> None:
    graded = grade({SLUG: REFERENCE.replace("def f(x: Tensor) -> Tensor:", "def f(x: Tensor) -> Tensor")})
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    line = REFERENCE.splitlines().index("def f(x: Tensor) -> Tensor:") + 1
    assert f"line {line}" in message


def test_patching_torch_allclose_in_the_submission_earns_nothing(grade) -> None:
    patch = ("import torch\ntorch.allclose = lambda *a, **k: True\ntorch.equal = lambda *a, **k: True\n"
             "torch.Tensor.__eq__ = lambda *a, **k: True\n")
    wrong = "    return torch.exp(-x) * (torch.cos(x) + torch.sin(x))\n"
    graded = grade({SLUG: with_analytic(wrong, prelude=patch)})
    # without_autograd checks the value first, so a wrong formula fails it too.
    assert graded.failed(SLUG) == NOT_FOLLOWED
    assert graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["mistake"] == "sign error"


def test_an_object_whose_eq_always_says_true_is_not_a_tensor(grade) -> None:
    liar = ("class AlwaysEqual:\n    def __eq__(self, other):\n        return True\n"
            "    def __repr__(self):\n        return 'AlwaysEqual()'\n\n")
    graded = grade({SLUG: with_analytic("    return AlwaysEqual()\n", prelude=liar)})
    message = graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["message"]
    assert "should be a torch.Tensor but is an object of type" in message and "AlwaysEqual" in message
    assert "analytic_derivative_on_lesson_grid" in graded.failed(SLUG)


def test_a_tensor_subclass_is_refused(grade) -> None:
    sneaky = ("import torch\nclass Sneaky(torch.Tensor):\n    def __eq__(self, other):\n        return True\n\n")
    body = "    return (torch.exp(-x) * (torch.cos(x) - torch.sin(x))).as_subclass(Sneaky)\n"
    graded = grade({SLUG: with_analytic(body, prelude=sneaky)})
    message = graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["message"]
    assert "Tensor subclass" in message
    assert "analytic_derivative_on_lesson_grid" in graded.failed(SLUG)


def test_a_fork_bomb_fails_at_its_first_fork(grade) -> None:
    bomb = "    import os\n    while True:\n        os.fork()\n"
    graded = grade({SLUG: with_analytic(bomb)})
    assert graded.failed(SLUG) == NOT_FOLLOWED
    assert "Operation not permitted" in graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["message"]


def test_a_flood_of_printed_output_is_cut_and_a_right_answer_still_passes(grade) -> None:
    flood = "    for _ in range(20000):\n        print('spam ' * 200)\n" + ANALYTIC_BODY
    graded = grade({SLUG: with_analytic(flood)})
    assert graded.failed(SLUG) == set()
    assert "spam spam" not in graded.output


def test_an_answer_too_large_to_send_is_refused(grade) -> None:
    limit = int(LIMITS.message_mb.value)
    floats = limit * 2**20 // 4 + 1000  # just over the limit, as float32
    graded = grade({SLUG: with_analytic(f"    return torch.zeros({floats})\n")}, "-k", "analytic_derivative_on_lesson_grid")
    message = graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["message"]
    assert f"over the {limit} MiB limit" in message


def test_a_hostile_run_ends_on_its_own_as_a_real_process(tmp_path) -> None:
    """The whole command, as a student or CI runs it, returns within its limits."""
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    (folder / f"{SLUG}.py").write_text(with_analytic("    while True:\n        pass\n"))
    done = subprocess.run([sys.executable, "-m", "pytest", str(STUBS / "lesson01" / f"{SLUG}.py"), "--submission",
                           str(folder.parent), "--call-timeout", TIMEOUT, "-p", "no:cacheprovider", "-q"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "did not return within 2 s" in done.stdout  # and it returned: subprocess's timeout guards a hang


def test_a_right_answer_that_sleeps_in_every_call_is_stopped_by_the_exercise_allowance(grade) -> None:
    slow = "    import time\n    time.sleep(0.4)\n" + ANALYTIC_BODY
    graded = grade({SLUG: with_analytic(slow)}, "--exercise-seconds", "1.5")
    exercise = graded.exercise(SLUG)
    stopped = [c for c in exercise["checks"] if "Grading stopped here" in c["message"]]
    assert stopped and all(not c["passed"] for c in stopped)
    assert "LIMITS.exercise_seconds" in stopped[0]["message"]
    assert exercise["seconds"] <= 1.5 + 1.0  # the last call is cut short at what was left


def test_the_submission_allowance_spans_every_exercise(grade) -> None:
    slow = "    import time\n    time.sleep(0.4)\n" + ANALYTIC_BODY
    graded = grade({SLUG: with_analytic(slow)}, "--submission-seconds", "1")
    messages = [c["message"] for c in graded.exercise(SLUG)["checks"]]
    assert any("LIMITS.submission_seconds" in m for m in messages)


def test_a_huge_returned_string_is_cut_in_the_feedback_with_its_length(grade, tmp_path) -> None:
    graded = grade({SLUG: with_analytic("    return 'spam' * 2_500_000\n")}, "-k", "analytic_derivative_on_lesson_grid")
    message = graded.checks(SLUG)["analytic_derivative_on_lesson_grid"]["message"]
    assert "10,000,002 characters in all" in message  # repr adds the quotes
    assert len(message) < 4000
    assert len(graded.output) < 40_000
