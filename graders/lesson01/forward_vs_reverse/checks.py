"""Checks of `forward_vs_reverse` (companion: "Forward Mode vs. Reverse Mode").

The student's gradient functions take a Python function `f`, so a driver builds `f` in
the worker from plain data, counts its calls (one call of f is one pass: torch.func.jvp
and torch.func.vjp each call it exactly once) and counts the calls of torch.func.jvp and
vjp, patched for the duration of the call. Oracle: torch.autograd on the same `f`, in
this process. Public checks use the lesson's sigmoid neuron (d out / d w = [0.1355,
0.0452, 0.1807]) and a fixed tanh layer; hidden ones use fresh functions and sizes.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import torch
from torch import Tensor

from graders.kit import (Mistake, Returned, Student, Suspect, argument_changed, checks_for, describe, exercise,
                         expect_code_shows, expect_number, expect_tensor, expected, fail, needs_value, origin,
                         tensor_problem)
from graders.lesson01.forward_vs_reverse.mistakes import (BACKWARD_PER_COORDINATE, DIRECTIONS_PILED_UP,
                                                          FLOAT32_BUFFER, GRADIENT_TRACKS_X, JVP_OUTPUTS_SWAPPED,
                                                          MODES, MODE_READ_LOOSELY, MODIFIED_X, ONES_TANGENT,
                                                          REVERSE_ALWAYS_ONE, REVERSE_FOR_FORWARD, SKIPPED_COORDINATE,
                                                          SWAPPED_MODES, TANGENT_DTYPE, UNKNOWN_MODE_AS_REVERSE,
                                                          TANGENTS_READ_AFTER_THE_LEVEL, VJP_TUPLE_RETURNED)
from graders.lesson01.forward_vs_reverse.drivers import build, load_jvp_and_vjp, run_mode, warm_up

EXERCISE = exercise("lesson01", "forward_vs_reverse")
check = checks_for("lesson01", EXERCISE.slug)


def worker_warm_up(module_path: Path) -> Callable[[], None]:
    """What the zygote loads before it forks this exercise's workers (the plugin looks for
    `worker_warm_up`), so that torch.func's one-time loading counts against no call's time
    limit and a batch pays it once per grading process, not once per student. vjp's share
    only for code that uses vjp: the grader reads the file, it does not import it."""
    return load_jvp_and_vjp if _code_uses_vjp(module_path) else warm_up


def _code_uses_vjp(path: Path) -> bool:
    """Whether the code (not the docstrings: the stub's mentions vjp) names `vjp` anywhere."""
    try:
        tree = ast.parse(path.read_text(errors="replace"))
    except Exception:  # noqa: BLE001 - unreadable or broken files are reported by the checks
        return False
    return any(isinstance(node, ast.Name) and node.id == "vjp" or isinstance(node, ast.Attribute) and node.attr == "vjp"
               or isinstance(node, ast.alias) and node.name.split(".")[-1] == "vjp" for node in ast.walk(tree))


FORMULAS = {
    "neuron": "f(w) = torch.sigmoid((w * inp).sum()) with the lesson's inp = [3, 1, 4], at the lesson's w",
    "tanh_layer": "f(x) = torch.tanh(W @ x).sum() (seeded W)",
    "quadratic": "f(x) = x @ A @ x + b @ x (seeded A, b)",
    "logsumexp": "f(x) = torch.logsumexp(W @ x, dim=0) (seeded W)",
}
LESSON_W = [1.0, -2.0, 0.5]
LESSON_INPUT = [3.0, 1.0, 4.0]


# ---------------------------------------------------------------- test functions (built by drivers.py in both processes)

def make_spec(kind: str, n: int, generator: torch.Generator) -> dict[str, Any]:
    """A test function as plain data: its kind and seeded float64 coefficients."""
    def randn(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    if kind == "quadratic":
        return {"kind": kind, "A": randn(n, n) / 2, "b": randn(n)}
    return {"kind": kind, "W": randn(3, n)}


# ---------------------------------------------------------------- expected values (grader side)

@expected
def autograd_gradient(spec: dict, x: Tensor) -> Tensor:
    """The true gradient: one backward pass of torch.autograd, in x's dtype."""
    leaf = x.detach().clone().requires_grad_(True)
    build(spec)(leaf).backward()
    return leaf.grad.detach()


@expected
def value_everywhere(spec: dict, x: Tensor) -> Tensor:
    """f(x) in every entry: the gradient of a loop that kept jvp's first output, the value."""
    return build(spec)(x.detach()).detach().expand(x.shape).clone()


def lesson_neuron() -> tuple[dict, Tensor]:
    return {"kind": "neuron", "inp": torch.tensor(LESSON_INPUT)}, torch.tensor(LESSON_W)


def public_cases() -> list[tuple[dict, Tensor]]:
    generator = torch.Generator().manual_seed(EXERCISE.seed("public_functions"))
    x = torch.randn(4, generator=generator, dtype=torch.float64)
    return [lesson_neuron(), (make_spec("tanh_layer", 4, generator), x)]


def shown(function: str, spec: dict, x: Tensor) -> str:
    return f"{function}(f, x) with {FORMULAS[spec['kind']]}, x = {describe(x, 5)}"


def tolerance(x: Tensor) -> dict[str, float]:
    value = EXERCISE.tolerance("float64" if x.dtype == torch.float64 else "float32")
    return {"rtol": value, "atol": value}


def as_gradient(returned: Returned) -> Returned:
    return dataclasses.replace(returned, value=returned.value["gradient"])


def expect_gradient(returned: Returned, spec: dict, x: Tensor, hint: str) -> None:
    __tracebackhide__ = True
    truth = autograd_gradient(spec, x)
    # What a single jvp with a tangent of ones gives: the sum of the partial derivatives,
    # as a 0-d tensor, or spread over x's shape.
    summed = truth.sum()
    suspects = [Suspect(ONES_TANGENT, value) for value in (summed, summed.reshape(1), summed.expand(truth.shape))]
    suspects.append(Suspect(JVP_OUTPUTS_SWAPPED, value_everywhere(spec, x)))
    if returned.call.startswith("gradient_forward_mode"):  # their explanations are about forward mode's loop of jvps
        suspects.extend(skipped_coordinates(returned.value["gradient"], truth))
        suspects.append(Suspect(DIRECTIONS_PILED_UP, truth.cumsum(0)))  # pass i along e_0 + ... + e_i
        suspects.append(Suspect(TANGENTS_READ_AFTER_THE_LEVEL, torch.zeros_like(truth)))
    if x.dtype == torch.float64:  # float64 derivatives written into a float32 tensor: the same values, rounded
        suspects.append(Suspect(FLOAT32_BUFFER, truth.float()))
    if x.requires_grad:  # the right values, compared before requires_grad: only a result still tracked matches
        suspects.append(Suspect(GRADIENT_TRACKS_X, truth))
    gradient = returned.value["gradient"]
    if returned.value.get("vjp") and holds_only(gradient, truth, x):  # a tuple: no Suspect compares one by value
        fail_counted(returned, f"{returned.call.split('(')[0]} returned a tuple holding the gradient, not the "
                     "gradient.", describe(gradient), describe(truth), VJP_TUPLE_RETURNED)
    expect_tensor(as_gradient(returned), truth, **tolerance(x), requires_grad=False, suspects=suspects,
                  section=MODES, hint=hint)
    after = returned.value.get("x_after")
    if argument_changed(x, after):
        info = origin(after) if type(after) is Tensor else None
        leftover = ", and it holds a .grad" if info is not None and info.grad is not None else ""
        fail("The gradient is right, but the call changed the x it was given.", call=returned.call,
             got=describe(returned.value["gradient"]), changed=f"x after the call: {describe(after)}{leftover}",
             expected=f"x unchanged: {describe(x)}", mistake=MODIFIED_X)


def holds_only(got: Any, truth: Tensor, x: Tensor) -> bool:
    """Whether `got` is a 1-tuple of the right gradient (tracked or not), what vjp's pullback returns."""
    return (type(got) is tuple and len(got) == 1
            and tensor_problem(got[0], truth, requires_grad=None, **tolerance(x)) is None)


def skipped_coordinates(got: Any, truth: Tensor) -> list[Suspect]:
    """The true gradient with zeros where the student's has exact zeros: what a loop that skips
    those coordinates gives. Nothing for an all-zero gradient, which says nothing about a loop."""
    if type(got) is not Tensor or got.shape != truth.shape or not bool((got == 0).any()) or not bool(got.any()):
        return []
    return [Suspect(SKIPPED_COORDINATE, truth.masked_fill(got == 0, 0))]


def fail_counted(returned: Returned, summary: str, got: str, wanted: str, mistake: Mistake | None,
                 meaning: str = "", hint: str = "") -> None:
    __tracebackhide__ = True
    if mistake is not None:
        fail(summary, call=returned.call, got=got, expected=wanted, mistake=mistake)
    fail(summary, call=returned.call, got=got, expected=wanted, meaning=meaning, hint=hint, section=MODES)


FORWARD_HINT = "For each i: _, d = torch.func.jvp(f, (x,), (e_i,)), then gradient[i] = d."
REVERSE_HINT = "output, pullback = torch.func.vjp(f, x); (g,) = pullback(torch.ones_like(output)); return g."


def run_public(student: Student, function: str, spec: dict, x: Tensor) -> Returned:
    """The student's `function` (one mode) on a public case, through the driver that counts passes of f."""
    return student.run(run_mode, function, spec, x, runs=function, shown_as=shown(function, spec, x))


def expect_on_public_cases(student: Student, function: str, hint: str) -> None:
    """The student's `function` gives autograd's gradient on every public case."""
    __tracebackhide__ = True
    for spec, x in public_cases():
        expect_gradient(run_public(student, function, spec, x), spec, x, hint)


# ---------------------------------------------------------------- public checks

@check
def test_forward_mode_matches_autograd(student: Student) -> None:
    expect_on_public_cases(student, "gradient_forward_mode", FORWARD_HINT)


# Reverse-mode APIs as the grader reads them in the source: what a forward mode with no forward pass used instead.
REVERSE_IN_CODE = ("backward", "autograd.grad", "func.vjp", "func.grad", "func.jacrev", "functional.jacobian",
                   "functional.vjp")


def reverse_mode_in_code(student: Student, function: str) -> bool:
    """Whether the function's code (with the module's functions it calls) uses reverse mode and no forward mode:
    the run's count of passes is the student's word, the source is what the grader reads itself."""
    return (student.evidence.shows(function, REVERSE_IN_CODE)
            and not student.evidence.shows(function, ("jvp", "make_dual", "forward_ad", "jacfwd")))


@check
def test_forward_mode_one_pass_per_input(student: Student) -> None:
    spec, x = public_cases()[1]
    returned = run_public(student, "gradient_forward_mode", spec, x)
    # The right number of passes earns nothing for a wrong gradient (an all-ones tangent is named by its value).
    with needs_value():
        expect_gradient(returned, spec, x, FORWARD_HINT)
    # A forward-mode pass is a torch.func.jvp call or a dual input of torch.autograd.forward_ad: what the method
    # does is judged (one pass of f per input, each pushing a tangent), not which of the two APIs made it.
    n, calls = x.numel(), returned.value["f_calls"]
    passes = returned.value["jvp"] + returned.value.get("make_dual", 0)
    got = (f"{returned.value['jvp']} call(s) of torch.func.jvp, {returned.value.get('make_dual', 0)} dual input(s) "
           f"of torch.autograd.forward_ad, {calls} call(s) of f")
    wanted = f"{n} forward-mode passes, one per input, each calling f once"
    if passes == 0 and reverse_mode_in_code(student, "gradient_forward_mode"):
        fail_counted(returned, "gradient_forward_mode computed the gradient by reverse mode, with no forward-mode "
                               "pass.", got, wanted, REVERSE_FOR_FORWARD)
    if passes != n or calls != n:
        fail_counted(returned, f"gradient_forward_mode should make {n} forward-mode passes for n = {n} inputs.", got,
                     wanted, None, meaning="Forward mode pushes one tangent direction through f per pass (a "
                                           "torch.func.jvp call, or f of a dual tensor), so the gradient of a "
                                           "function of n inputs costs n passes.",
                     hint=FORWARD_HINT)
    expect_code_shows(student, returned, "gradient_forward_mode", ("jvp", "make_dual"),
                      "torch.func.jvp or torch.autograd.forward_ad", MODES)


@check
def test_reverse_mode_matches_autograd(student: Student) -> None:
    expect_on_public_cases(student, "gradient_reverse_mode", REVERSE_HINT)


@check
def test_reverse_mode_one_pass(student: Student) -> None:
    spec, x = public_cases()[1]
    returned = run_public(student, "gradient_reverse_mode", spec, x)
    with needs_value():
        expect_gradient(returned, spec, x, REVERSE_HINT)  # one pass earns nothing for a wrong gradient
    n, calls = x.numel(), returned.value["f_calls"]
    got, wanted = f"{calls} call(s) of f", "1 call of f, then one backward pass"
    if calls == n:
        fail_counted(returned, f"gradient_reverse_mode ran f {calls} times for n = {n} inputs.", got, wanted,
                     BACKWARD_PER_COORDINATE)
    if calls != 1:
        fail_counted(returned, f"gradient_reverse_mode ran f {calls} times; reverse mode needs one pass.", got,
                     wanted, None, meaning="One forward pass records the graph; one backward pass through it gives "
                                           "every partial derivative of the single output.", hint=REVERSE_HINT)
    expect_code_shows(student, returned, "gradient_reverse_mode", ("vjp", "backward", "autograd.grad"),
                      "torch.func.vjp, backward() or torch.autograd.grad", MODES)


def expect_passes(student: Student, reference: ModuleType, n_inputs: int, n_outputs: int, mode: str) -> None:
    __tracebackhide__ = True
    returned = student.call("passes_needed", n_inputs, n_outputs, mode,
                            shown_as=f"passes_needed({n_inputs}, {n_outputs}, {mode!r})")
    other = "reverse" if mode == "forward" else "forward"
    swapped = Suspect(SWAPPED_MODES, reference.passes_needed(n_inputs, n_outputs, other))
    # The lesson's scalar loss taken as the rule: one backward pass, however many outputs.
    always_one = [Suspect(REVERSE_ALWAYS_ONE, 1)] if mode == "reverse" else []
    if type(returned.value) is float:  # 3.0 for 3 is the right count in the wrong type
        fail(f"passes_needed returned the float {returned.value!r}; a number of passes is an int.",
             call=returned.call, got=describe(returned.value), hint="Return n_inputs or n_outputs as they are.",
             section=MODES)
    expect_number(returned, reference.passes_needed(n_inputs, n_outputs, mode), rtol=0, atol=0, section=MODES,
                  what="the number of passes", suspects=[swapped, *always_one],
                  hint="Forward mode: one pass per input. Reverse mode: one pass per output.")


def expect_value_error(student: Student, mode: str) -> None:
    __tracebackhide__ = True
    n_inputs, n_outputs = 10, 1
    returned = student.call("passes_needed", n_inputs, n_outputs, mode,
                            shown_as=f"passes_needed({n_inputs}, {n_outputs}, {mode!r})", allow_raise=True)
    if returned.error is None or not returned.error.is_a(ValueError):  # a subclass of ValueError is one too
        got = (describe(returned.value) if returned.error is None
               else f"{returned.error.shown_type()}: {returned.error.message}")
        loose = {"forward": n_inputs, "reverse": n_outputs}.get(mode.strip().lower())
        if returned.error is None and type(returned.value) is int and returned.value in (loose, n_outputs):
            fail_counted(returned, f"passes_needed should raise ValueError for mode {mode!r}.", got, "ValueError",
                         MODE_READ_LOOSELY if returned.value == loose else UNKNOWN_MODE_AS_REVERSE)
        fail(f"passes_needed should raise ValueError for mode {mode!r}.", call=returned.call, got=got,
             expected="ValueError (or a subclass of it)", hint="End with: raise ValueError(f\"unknown mode {mode!r}\").",
             section=MODES)


@check
def test_passes_needed_on_fixed_cases(student: Student, reference: ModuleType) -> None:
    # The lesson's case first: one scalar loss, very many parameters.
    for n_inputs, n_outputs, mode in ((1_000_000, 1, "forward"), (1_000_000, 1, "reverse"), (3, 50, "forward"),
                                      (3, 50, "reverse")):
        expect_passes(student, reference, n_inputs, n_outputs, mode)
    expect_value_error(student, "sideways")


# ---------------------------------------------------------------- hidden checks

# torch's words when one operation meets float32 and float64 tensors ("... but got Float, Double", "expected scalar
# type Double but found Float", ...).
DTYPES_MIXED = re.compile(r"Float\b.*\bDouble|Double\b.*\bFloat|float32.*float64|float64.*float32")


def run_fresh(student: Student, function: str, spec: dict, x: Tensor, first: Tensor | None = None) -> Returned:
    """The student's `function` on a fresh case (with `first`, the same f asked at `first` just before). A forward
    mode that raised on mixing float32 and float64 at a float64 x is named: nothing but its tangents can bring float32
    there (f's coefficients follow x's dtype)."""
    __tracebackhide__ = True
    call = shown(function, spec, x) + ("" if first is None else ", the same f asked at another x just before")
    returned = student.run(run_mode, function, spec, x, first, runs=function, shown_as=call, allow_raise=True)
    error = returned.error
    if error is None:
        return returned
    if function == "gradient_forward_mode" and x.dtype == torch.float64 and DTYPES_MIXED.search(error.message):
        numbers = "one number" if x.numel() == 1 else f"{x.numel()} numbers"
        fail(f"gradient_forward_mode raised {error.type} for a float64 x of {numbers}.",
             call=returned.call, got=f"{error.type}: {error.message}", expected=describe(autograd_gradient(spec, x)),
             mistake=TANGENT_DTYPE)
    student.fail_raised(returned, function)


@check
def test_gradient_forward_mode_and_reverse_mode_on_fresh_functions(student: Student) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_functions"))
    # One x requires grad, as a parameter would: the docstrings promise a result that does not, and x untouched.
    # The last has one number in float64: there a float32 tangent meets x in f's matrix-vector product and raises
    # (for more numbers torch happens to promote it), so only that size shows a tangent not made in x's dtype.
    for n, dtype, kind, tracked in ((2, torch.float64, "quadratic", False), (7, torch.float64, "logsumexp", True),
                                    (5, torch.float32, "tanh_layer", False), (6, torch.float32, "quadratic", False),
                                    (1, torch.float64, "tanh_layer", False)):
        spec = make_spec(kind, n, generator)
        x = torch.randn(n, generator=generator, dtype=torch.float64).to(dtype).requires_grad_(tracked)
        for function, hint in (("gradient_forward_mode", FORWARD_HINT), ("gradient_reverse_mode", REVERSE_HINT)):
            expect_gradient(run_fresh(student, function, spec, x), spec, x, hint)
    # A caller keeps its function and asks for its gradient at another point: the answer is the new point's.
    spec = make_spec("tanh_layer", 4, generator)
    first, x = (torch.randn(4, generator=generator, dtype=torch.float64) for _ in range(2))
    for function, hint in (("gradient_forward_mode", FORWARD_HINT), ("gradient_reverse_mode", REVERSE_HINT)):
        expect_gradient(run_fresh(student, function, spec, x, first), spec, x, hint)


@check
def test_passes_needed_on_generated_cases(student: Student, reference: ModuleType) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_functions") + 1)
    sizes = torch.randint(1, 10_000, (4, 2), generator=generator).tolist()
    for n_inputs, n_outputs in sizes:
        for mode in ("forward", "reverse"):
            expect_passes(student, reference, n_inputs, n_outputs, mode)
    for mode in ("both", "", "jvp", "Forward", " forward"):  # the docstring's names, exactly
        expect_value_error(student, mode)
