"""forward_vs_reverse: other correct ways of writing it score full marks, and the grader
preloads torch._dynamo only for code that uses vjp."""

from __future__ import annotations

from pathlib import Path

from graders.engine.mistakes import DTYPE_DIFFERS
from graders.lesson01.forward_vs_reverse.checks import _code_uses_vjp
from mistake_catalogue import submission

VJP_AND_ALIASES = '''
import torch
import torch.func as tf
from torch.func import jvp as push_forward


def gradient_forward_mode(f, x):
    x = x.detach()
    columns = [push_forward(f, (x,), (e,))[1] for e in torch.eye(len(x), dtype=x.dtype)]
    return torch.stack(columns)


def gradient_reverse_mode(f, x):
    out, pullback = tf.vjp(f, x.detach())
    return pullback(torch.ones_like(out))[0]


def passes_needed(n_inputs, n_outputs, mode):
    counts = {"forward": n_inputs, "reverse": n_outputs}
    if mode not in counts:
        raise ValueError(mode)
    return counts[mode]
'''


def test_vjp_and_renamed_imports_score_full_marks(grade) -> None:
    graded = grade({"forward_vs_reverse": VJP_AND_ALIASES}, "-k", "forward_vs_reverse")
    assert graded.failed("forward_vs_reverse") == set(), graded.output


DUAL_NUMBERS = VJP_AND_ALIASES.replace('''def gradient_forward_mode(f, x):
    x = x.detach()
    columns = [push_forward(f, (x,), (e,))[1] for e in torch.eye(len(x), dtype=x.dtype)]
    return torch.stack(columns)''', '''def gradient_forward_mode(f, x):
    import torch.autograd.forward_ad as fwAD

    x = x.detach()
    gradient = torch.empty_like(x)
    for i, direction in enumerate(torch.eye(len(x), dtype=x.dtype)):
        with fwAD.dual_level():
            out = f(fwAD.make_dual(x, direction))
            gradient[i] = fwAD.unpack_dual(out).tangent
    return gradient''')


def test_forward_mode_with_dual_numbers_scores_full_marks(grade) -> None:
    """torch.autograd.forward_ad's dual tensors are forward mode as much as torch.func.jvp: one pass per input."""
    assert "make_dual" in DUAL_NUMBERS
    graded = grade({"forward_vs_reverse": DUAL_NUMBERS}, "-k", "forward_vs_reverse")
    assert graded.failed("forward_vs_reverse") == set(), graded.output


def test_forward_mode_by_backward_per_input_is_no_forward_mode_pass(grade) -> None:
    backward_per_input = VJP_AND_ALIASES.replace('''    columns = [push_forward(f, (x,), (e,))[1] for e in torch.eye(len(x), dtype=x.dtype)]
    return torch.stack(columns)''', '''    columns = []
    for i in range(len(x)):
        leaf = x.clone().requires_grad_(True)
        f(leaf).backward()
        columns.append(leaf.grad[i])
    return torch.stack(columns)''')
    graded = grade({"forward_vs_reverse": backward_per_input}, "-k", "forward_vs_reverse")
    assert graded.failed("forward_vs_reverse") == {"forward_mode_one_pass_per_input"}, graded.output
    # Named as reverse mode in place of forward mode, not as a wrong count of forward passes.
    check = graded.checks("forward_vs_reverse")["forward_mode_one_pass_per_input"]
    assert check["mistake"] == "reverse mode used where forward mode was asked", check["message"]


def test_a_forward_mode_without_jvp_is_not_called_reverse_mode_when_its_code_shows_jvp(grade) -> None:
    """Only code with no forward-mode API at all is said to use reverse mode instead."""
    both = VJP_AND_ALIASES.replace('''    columns = [push_forward(f, (x,), (e,))[1] for e in torch.eye(len(x), dtype=x.dtype)]
    return torch.stack(columns)''', '''    if len(x) == 0:
        return push_forward(f, (x,), (x,))[1]
    leaf = x.clone().requires_grad_(True)
    f(leaf).backward()
    return leaf.grad''')
    graded = grade({"forward_vs_reverse": both}, "-k", "forward_vs_reverse")
    check = graded.checks("forward_vs_reverse")["forward_mode_one_pass_per_input"]
    assert not check["passed"] and check["mistake"] is None, check


def test_reverse_mode_by_autograd_grad_scores_full_marks(grade) -> None:
    graded = grade({"forward_vs_reverse": submission("forward_vs_reverse", "correct_autograd_grad")},
                   "-k", "forward_vs_reverse")
    assert graded.failed("forward_vs_reverse") == set(), graded.output


def test_only_code_that_calls_vjp_counts_as_using_it(tmp_path: Path) -> None:
    cases = {
        '"""Use torch.func.vjp here."""\nimport torch\n': False,
        "import torch\n# vjp would also work\n": False,
        "import torch\ng = torch.func.vjp\n": True,
        "from torch.func import vjp as pull\n": True,
        "def broken(:\n    vjp\n": False,
    }
    for source, uses in cases.items():
        path = tmp_path / "submission.py"
        path.write_text(source)
        assert _code_uses_vjp(path) is uses, source


RIGHT_PASSES_NO_ANSWER = '''
import torch


def gradient_forward_mode(f, x):
    for e in torch.eye(len(x), dtype=x.dtype):
        torch.func.jvp(f, (x,), (e,))
    return torch.zeros_like(x)


def gradient_reverse_mode(f, x):
    f(x)
    return torch.zeros_like(x)


def passes_needed(n_inputs, n_outputs, mode):
    return 0
'''


def test_the_right_number_of_passes_earns_nothing_for_a_wrong_gradient(grade) -> None:
    graded = grade({"forward_vs_reverse": RIGHT_PASSES_NO_ANSWER}, "-k", "forward_vs_reverse")
    assert graded.exercise("forward_vs_reverse")["score"] == 0, graded.output


LOOPING_FORWARD = VJP_AND_ALIASES.replace(
    "def gradient_forward_mode(f, x):\n", "def gradient_forward_mode(f, x):\n    while True:\n        pass\n")


def test_a_forward_mode_that_loops_costs_only_its_own_checks(grade) -> None:
    # Both modes run through one driver in the worker: the timeout belongs to the student's function.
    # 3 s, not 1: the first vjp call loads functorch, which a loaded machine can stretch past a second.
    graded = grade({"forward_vs_reverse": LOOPING_FORWARD}, "--call-timeout", "3", "-m", "not hidden")
    failed = graded.failed("forward_vs_reverse")
    assert failed == {"forward_mode_matches_autograd", "forward_mode_one_pass_per_input"}, graded.output


COMPUTED_IN_FLOAT32 = VJP_AND_ALIASES.replace(
    "    columns = [push_forward(f, (x,), (e,))[1] for e in torch.eye(len(x), dtype=x.dtype)]\n",
    "    x = x.float()\n    columns = [push_forward(f, (x,), (e,))[1] for e in torch.eye(len(x))]\n")


def test_a_gradient_computed_in_float32_is_not_called_a_float32_buffer(grade) -> None:
    # Its values carry float32's rounding errors, not float64's values rounded once at the end.
    assert COMPUTED_IN_FLOAT32 != VJP_AND_ALIASES
    graded = grade({"forward_vs_reverse": COMPUTED_IN_FLOAT32}, "-k", "forward_mode_matches_autograd")
    check = graded.checks("forward_vs_reverse")["forward_mode_matches_autograd"]
    # Only the fact that holds whatever the cause: the result's dtype is not the one asked for.
    assert not check["passed"] and check["mistake"] == DTYPE_DIFFERS.name, check["message"]


AUTOGRAD_GRAD_TUPLE = VJP_AND_ALIASES.replace(
    "    out, pullback = tf.vjp(f, x.detach())\n    return pullback(torch.ones_like(out))[0]\n",
    "    leaf = x.detach().requires_grad_(True)\n    return torch.autograd.grad(f(leaf), leaf)\n")


def test_a_tuple_from_autograd_grad_is_not_called_vjps_tuple(grade) -> None:
    # The same 1-tuple of the right gradient, but no vjp was called: the name would blame a function never used.
    assert AUTOGRAD_GRAD_TUPLE != VJP_AND_ALIASES
    graded = grade({"forward_vs_reverse": AUTOGRAD_GRAD_TUPLE}, "-k", "reverse_mode_matches_autograd")
    check = graded.checks("forward_vs_reverse")["reverse_mode_matches_autograd"]
    assert not check["passed"] and check["mistake"] is None, check["message"]


def test_a_float32_tangent_is_named_where_a_float64_x_of_one_number_makes_jvp_raise(grade) -> None:
    """torch.eye(n) without x's dtype kept full marks while every float64 x had two numbers or more, where torch
    promotes the tangent (issue 44); the hidden check's float64 x of one number makes jvp raise, and says why."""
    graded = grade({"forward_vs_reverse": submission("forward_vs_reverse", "tangent_not_in_x_dtype")},
                   "-k", "forward_vs_reverse")
    assert graded.failed("forward_vs_reverse") == {"gradient_forward_mode_and_reverse_mode_on_fresh_functions"}, graded.output
    check = graded.checks("forward_vs_reverse")["gradient_forward_mode_and_reverse_mode_on_fresh_functions"]
    assert check["mistake"] == "tangent not in x's dtype", check["message"]


def test_an_unknown_mode_raising_a_subclass_of_value_error_scores_full_marks(grade) -> None:
    """The docstring asks for a ValueError; an `except ValueError` catches a subclass of it, so the check does too."""
    graded = grade({"forward_vs_reverse": submission("forward_vs_reverse", "correct_value_error_subclass")},
                   "-k", "forward_vs_reverse")
    assert graded.failed("forward_vs_reverse") == set(), graded.output


def test_an_error_that_only_takes_the_name_value_error_is_refused_and_shown_with_its_module(grade) -> None:
    look_alike = VJP_AND_ALIASES.replace("import torch\n", "import torch\n\n\nclass ValueError(Exception):\n    pass\n", 1)
    graded = grade({"forward_vs_reverse": look_alike}, "-k", "passes_needed_on_fixed_cases")
    check = graded.checks("forward_vs_reverse")["passes_needed_on_fixed_cases"]
    assert not check["passed"], graded.output
    assert ".ValueError: sideways" in check["message"] and "ValueError (or a subclass of it)" in check["message"], \
        check["message"]
