"""Checks of `neuron_chain_rule` (the single neuron of "Autograd: gradients for free").

Oracles: the reference neuron for the output, and torch.autograd on the reference neuron
for the gradient. Public checks use the lesson's w = [1, −2, 0.5] and inp = [3, 1, 4]
(in their twin run, three fresh weights and inputs of the same ranges); hidden ones use
seeded random weights and inputs of other sizes, float32 and float64.
"""

from __future__ import annotations

import dataclasses

import math
from types import ModuleType
from typing import Any

import torch

from graders.kit import (AUTOGRAD_IN_CODE, Mistake, Returned, Student, Suspect, argument_changed, checks_for,
                         code_lines,
                         collect_mistakes, describe, exercise, expect_tensor, expected, fail, origin, tensor_problem,
                         twin, twin_random, values_problem, needs_value)
from graders.lesson01.neuron_chain_rule.mistakes import (AUTOGRAD, CHAIN_RULE, FORGOT_ONE_MINUS_SIGMA, GRAPH_CUT,
                                                         NO_INP, NO_SUM, ONE_MINUS_SIGMA_ONLY, RESULT_TRACKS_W,
                                                         SIGMOID_BEFORE_SUM, SIGMOID_SIGN_FLIPPED, SIGN_FLIPPED,
                                                         SLOPE_WRITTEN_IN, W_FOR_INP, Z_FOR_SIGMA)
from graders.lesson01.neuron_chain_rule import mistakes as _mistakes
from graders.lesson01.neuron_chain_rule.drivers import backward_through_neuron, grads_around_a_step

EXERCISE = exercise("lesson01", "neuron_chain_rule")
check = checks_for("lesson01", EXERCISE.slug)


LESSON_CASE = "w = torch.tensor([1.0, -2.0, 0.5]), inp = torch.tensor([3.0, 1.0, 4.0])"
LESSON_Z = 3.0  # w · inp in the lesson's case
LESSON_SLOPE = math.exp(-LESSON_Z) / (1 + math.exp(-LESSON_Z)) ** 2  # σ′(3) = 0.045177, printed as 0.0452
SLOPE_ROUNDING = 5e-4  # a constant this close to σ′(3) is it rounded by hand: 0.045, 0.0452, 0.04518
AUTOGRAD_CALLS = ("Tensor.backward", "autograd.grad", "autograd.backward")
NEURON_HINT = "z = w · inp is one number; return torch.sigmoid of it as a 0-d tensor."
GRADIENT_HINT = "Chain the two local derivatives: d out / d z = σ(z)·(1 − σ(z)), d z / d w = inp."
DTYPE_HINT = ("Keep w's dtype, {dtype}: no .float() or .double() on the way, and no torch.tensor(...) of a Python "
              "number, which makes float32 (the docstring: \"{promise}\").")
NEURON_PROMISE = "A 0-d tensor of the dtype of `w`"
GRADIENT_SHAPE_HINT = ("Return one number per weight, shape {shape}, as w is: no reshape, unsqueeze or sum on the "
                       "way (the docstring: \"A tensor of shape (n,) and the dtype of `w`\").")


def lesson_case() -> tuple[torch.Tensor, torch.Tensor]:
    """The lesson's w and inp; in a public check's twin run, three fresh float32 weights in
    [−2, 1] and inputs in [1, 4], the lesson's ranges, with 0.5 ≤ |z| ≤ 3 as the lesson's z = 3
    is: there σ′(z) is large enough that a wrong gradient cannot pass for a right one."""
    if not twin():
        return torch.tensor([1.0, -2.0, 0.5]), torch.tensor([3.0, 1.0, 4.0])
    draw = twin_random()
    while True:  # two decimals, so that case_text can show the values exactly as torch.tensor takes them
        w = [round(draw.uniform(-2.0, 1.0), 2) for _ in range(3)]
        inp = [round(draw.uniform(1.0, 4.0), 2) for _ in range(3)]
        if 0.5 <= abs(sum(a * b for a, b in zip(w, inp))) <= 3.0:
            return torch.tensor(w), torch.tensor(inp)


def case_text(w: torch.Tensor, inp: torch.Tensor) -> str:
    """How messages show the case passed in: the lesson's, or the twin run's own values."""
    if not twin():
        return LESSON_CASE
    return f"w = torch.tensor({_values(w)}), inp = torch.tensor({_values(inp)})"


def _values(t: torch.Tensor) -> str:
    return "[" + ", ".join(f"{v:g}" for v in t.tolist()) + "]"


def fresh_cases() -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """Seeded random weights and inputs; z stays moderate so that σ′(z) is not vanishingly small."""
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_inputs"))
    cases = []
    for size, dtype in ((5, torch.float64), (1, torch.float32), (8, torch.float64)):
        w = torch.randn(size, generator=generator, dtype=dtype) * 0.7
        inp = torch.randn(size, generator=generator, dtype=dtype)
        cases.append((f"{size} random {str(dtype).removeprefix('torch.')} weights and inputs", w, inp))
    return cases


def saturated_cases() -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """Saturated neurons, z = 125 and z = −800: torch.sigmoid gives 1 and 0 where e^z alone overflows float32 to inf at
    the first and math.exp(−z) raises OverflowError at the second. σ′ is 0 at both, so a hand gradient is asked there
    only after the fresh cases, where its formula is judged."""
    return [("2 float32 weights and inputs with z = 125", torch.tensor([30.0, 25.0]), torch.tensor([2.5, 2.0])),
            ("2 float32 weights and inputs with z = -800", torch.tensor([-100.0, -100.0]), torch.tensor([4.0, 4.0]))]


@expected
def autograd_gradient(reference: ModuleType, w: torch.Tensor, inp: torch.Tensor) -> torch.Tensor:
    """d out / d w by torch.autograd through the reference neuron, in this (trusted) process."""
    leaf = w.detach().clone().requires_grad_(True)
    reference.neuron(leaf, inp).backward()
    return leaf.grad.detach()


@expected
def wrong_gradients(w: torch.Tensor, inp: torch.Tensor) -> dict[str, list[torch.Tensor]]:
    """What each chain-rule mistake returns on (w, inp)."""
    z = (w * inp).sum()
    s = torch.sigmoid(z)
    slope = s * (1 - s)
    return {
        FORGOT_ONE_MINUS_SIGMA.name: [s * inp],
        # Either the bare 0-d σ′, or σ′ copied to every weight.
        NO_INP.name: [slope, slope * torch.ones_like(w)],
        W_FOR_INP.name: [slope * w],
        SIGN_FLIPPED.name: [-slope * inp],
        Z_FOR_SIGMA.name: [z * (1 - z) * inp],
        # exp(−z) / (1 + exp(−z)) with the square left off: 1 − σ(z).
        ONE_MINUS_SIGMA_ONLY.name: [(1 - s) * inp],
    }


@expected
def unsummed_neuron(w: torch.Tensor, inp: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(w * inp)


@expected
def flipped_neuron(w: torch.Tensor, inp: torch.Tensor) -> torch.Tensor:
    """1 / (1 + exp(z)) in place of the sigmoid: σ(−z)."""
    return torch.sigmoid(-(w * inp).sum())


@expected
def sum_of_sigmoids(w: torch.Tensor, inp: torch.Tensor) -> torch.Tensor:
    """The sigmoid of each product w_i · inp_i, then the sum: Σ σ(w_i · inp_i)."""
    return torch.sigmoid(w * inp).sum()


def _tolerance(t: torch.Tensor) -> dict[str, float]:
    value = EXERCISE.tolerance("float64" if t.dtype == torch.float64 else "float32")
    return {"rtol": value, "atol": value}


def fitting_hint(value: Any, expected: torch.Tensor, values_hint: str, *, gradient: bool) -> str:
    """The hint for how a returned tensor differs: the formula's hint only where the values are what differ, so
    that a lost dtype or shape is not answered with calculus."""
    if type(value) is not torch.Tensor:
        return values_hint
    if value.shape != expected.shape and gradient:
        return GRADIENT_SHAPE_HINT.format(shape=tuple(expected.shape))
    if value.shape == expected.shape and value.dtype != expected.dtype:
        promise = "A tensor of shape (n,) and the dtype of `w`" if gradient else NEURON_PROMISE
        return DTYPE_HINT.format(dtype=str(expected.dtype).removeprefix("torch."), promise=promise)
    return values_hint


def _mistakes_by_name() -> dict[str, Mistake]:
    return {mistake.name: mistake for mistake in collect_mistakes(_mistakes)}


def expect_neuron(returned: Returned, reference: ModuleType, w: torch.Tensor, inp: torch.Tensor) -> None:
    __tracebackhide__ = True
    right = reference.neuron(w, inp)
    expect_tensor(returned, right, **_tolerance(w), requires_grad=None, what="the output",
                  suspects=[Suspect(NO_SUM, unsummed_neuron(w, inp)),
                            Suspect(SIGMOID_SIGN_FLIPPED, flipped_neuron(w, inp)),
                            Suspect(SIGMOID_BEFORE_SUM, sum_of_sigmoids(w, inp))],
                  section=AUTOGRAD,
                  hint=fitting_hint(returned.value, right, NEURON_HINT, gradient=False))


def slope_written_in(student: Student, got: Any, w: torch.Tensor, inp: torch.Tensor) -> float | None:
    """The student's constant slope c when their gradient is c·inp with c the lesson's σ′(3), rounded, and stays
    c·inp for w = 0, where the slope is 0.25: a number written in, not one computed (too roughly) from w."""
    factor = _lesson_slope_factor(got, inp)
    if factor is None:
        return None
    zeros = torch.zeros_like(w)
    probe = student.call("neuron_grad_by_hand", zeros, inp, allow_raise=True,
                         shown_as=f"neuron_grad_by_hand(w, inp) with w = zeros and inp = {describe(inp)}")
    again = _lesson_slope_factor(probe.value, inp) if probe.error is None else None
    return factor if again is not None and math.isclose(again, factor, rel_tol=1e-6) else None


def _lesson_slope_factor(value: Any, inp: torch.Tensor) -> float | None:
    """c when `value` is c·inp (c fitted by least squares) with c within SLOPE_ROUNDING of σ′(3); else None."""
    if type(value) is not torch.Tensor or value.shape != inp.shape or value.is_complex():
        return None
    g, x = value.detach().to(torch.float64).reshape(-1), inp.detach().to(torch.float64).reshape(-1)
    if float(x @ x) == 0:
        return None
    factor = float(g @ x) / float(x @ x)
    if abs(factor - LESSON_SLOPE) > SLOPE_ROUNDING or values_problem(g, factor * x, **_tolerance(inp)) is not None:
        return None
    return factor


def expect_hand_gradient(student: Student, returned: Returned, reference: ModuleType, w: torch.Tensor,
                         inp: torch.Tensor) -> None:
    __tracebackhide__ = True
    by_name = _mistakes_by_name()
    suspects = [Suspect(by_name[name], value) for name, values in wrong_gradients(w, inp).items() for value in values]
    right = autograd_gradient(reference, w, inp)
    # The student is asked again (w = 0) only for a wrong answer, to tell a constant from a rough computation.
    wrong = tensor_problem(returned.value, right, **_tolerance(w), requires_grad=None) is not None
    factor = slope_written_in(student, returned.value, w, inp) if wrong else None
    if factor is not None:
        suspects.append(Suspect(SLOPE_WRITTEN_IN, factor * inp))  # the variant with the student's own constant
    expect_tensor(returned, right, **_tolerance(w), requires_grad=None,
                  what="the gradient", suspects=suspects, section=CHAIN_RULE,
                  hint=fitting_hint(returned.value, right, GRADIENT_HINT, gradient=True))


# ---------------------------------------------------------------- public checks

@check
def test_neuron_on_lesson_case(student: Student, reference: ModuleType) -> None:
    w, inp = lesson_case()
    expect_neuron(student.call("neuron", w, inp, shown_as=f"neuron(w, inp) with {case_text(w, inp)}"),
                  reference, w, inp)


# The ways out of the autograd graph, each as the code shows it and in words: the name says the ones neuron's code
# has (read from the source, with the functions of the file it calls), never a list of ones it does not.
_CUTS = ((("no_grad", "inference_mode", "set_grad_enabled"),
          "it runs under torch.no_grad() (or inference_mode), as a with block or a decorator, where autograd records "
          "nothing"),
         (("item", "tolist", "numpy"), "it takes the numbers out of their tensor (.item(), .tolist() or .numpy())"),
         (("float", "math"), "it computes with Python floats (float() or the math module)"),
         (("torch.tensor", "torch.as_tensor"), "it builds a new tensor from numbers (torch.tensor(...)), which "
                                                "starts a graph of its own"),
         (("detach", "data"), "it detaches a tensor on the way (.detach() or .data)"))


def _graph_cut_as_written(student: Student) -> Mistake:
    """GRAPH_CUT, its meaning naming the ways out of the graph that neuron's code shows; as catalogued where it shows
    none the grader can read."""
    found = [words for patterns, words in _CUTS if student.evidence.shows("neuron", patterns)]
    if not found:
        return GRAPH_CUT
    unrecorded = found[0] == _CUTS[0][1]
    return dataclasses.replace(GRAPH_CUT, explanation=(
        "Your neuron returns the right number, but backward() cannot reach w through it: the value left the autograd "
        f"graph, because {'; and '.join(found)}."), hint=(
        "Take neuron out of torch.no_grad(): drop the decorator or the with block, so that autograd records what "
        "neuron computes from w." if unrecorded else GRAPH_CUT.hint))


@check
def test_neuron_keeps_the_graph(student: Student, reference: ModuleType) -> None:
    w, inp = lesson_case()
    shown = f"out = neuron(w, inp); out.backward() with {case_text(w, inp)}, w requiring grad"
    returned = student.run(backward_through_neuron, w, inp, shown_as=shown)
    got = returned.value if type(returned.value) is dict else {}
    out = got.get("out")
    if type(out) is not torch.Tensor or out.dim() != 0:
        if type(out) is torch.Tensor and out.shape == w.shape:
            fail("neuron returned one value per weight, so there is no single output to call backward() on.",
                 call=shown, got=describe(out), mistake=NO_SUM)
        fail("neuron must return a 0-d tensor, so that out.backward() can run.", call=shown, got=describe(out),
             hint="Return torch.sigmoid(z) with z a 0-d tensor; do not call .item() on it.", section=AUTOGRAD)
    # A graph that carries a wrong output earns nothing (σ(z) + 1 has the right gradient).
    with needs_value():
        expect_neuron(Returned(shown, out), reference, w, inp)
    if got.get("grad") is None:
        summary = ("After out.backward(), w.grad is still None: autograd could not follow neuron back to w."
                   if got.get("requires_grad") else
                   "neuron's output does not require grad although w does, so out.backward() cannot reach w.")
        fail(summary, call=shown, got=f"out = {describe(out)}, w.grad = None", mistake=_graph_cut_as_written(student))
    expect_tensor(Returned(shown, got["grad"]), autograd_gradient(reference, w, inp), **_tolerance(w),
                  requires_grad=None, what="w.grad", section=AUTOGRAD,
                  hint="neuron should be σ(w · inp) built from torch operations; autograd then does the rest.")


@check
def test_grad_by_hand_on_lesson_case(student: Student, reference: ModuleType) -> None:
    w, inp = lesson_case()
    returned = student.call("neuron_grad_by_hand", w, inp, return_args=True,
                            shown_as=f"neuron_grad_by_hand(w, inp) with {case_text(w, inp)}")
    expect_hand_gradient(student, returned, reference, w, inp)
    expect_arguments_kept(returned, w, inp)


def expect_arguments_kept(returned: Returned, w: torch.Tensor, inp: torch.Tensor) -> None:
    """The caller's w and inp come back as they were given: a gradient worked out in place (inp.mul_(...)) is right
    once and leaves the caller's inputs overwritten."""
    __tracebackhide__ = True
    for name, given, after in zip(("w", "inp"), (w, inp), returned.args or (w, inp)):
        if argument_changed(given, after):
            fail(f"neuron_grad_by_hand changed the {name} it was given.", call=returned.call,
                 got=describe(returned.value), changed=f"{name} = {describe(after)}",
                 expected=f"{name} left as it was: {describe(given)}",
                 hint=f"Compute into a new tensor ({name} * factor), not in place ({name}.mul_(...), {name} *= ...): "
                      "the caller's tensors are not the function's to overwrite.", section=CHAIN_RULE)


@check
def test_grad_by_hand_without_autograd(student: Student, reference: ModuleType) -> None:
    w, inp = lesson_case()
    returned = student.call("neuron_grad_by_hand", w, inp, trace=True,
                            shown_as=f"neuron_grad_by_hand(w, inp) with {case_text(w, inp)}")
    expect_hand_gradient(student, returned, reference, w, inp)  # no points for a wrong gradient made without autograd
    # The run's record is the student's word: the code the grader reads must not show autograd either.
    used = code_lines(student, returned, "neuron_grad_by_hand", AUTOGRAD_CALLS, AUTOGRAD_IN_CODE)
    info = origin(returned.value) if type(returned.value) is torch.Tensor else None
    if used or (info is not None and info.requires_grad):
        where = f" (line {', '.join(str(line) for line in used if line)})" if any(used) else ""
        fail(f"neuron_grad_by_hand uses autograd{where}; it must be the chain rule worked out by hand.",
             call=returned.call, section=CHAIN_RULE,
             meaning="The point of this function is to check autograd's answer against your own derivation.",
             hint="Work the chain rule out by hand from σ(z) and z = w · inp, with plain tensor arithmetic and "
                  "no backward().")


# ---------------------------------------------------------------- hidden checks

@check
def test_neuron_on_fresh_inputs(student: Student, reference: ModuleType) -> None:
    for text, w, inp in [*fresh_cases(), *saturated_cases()]:
        expect_neuron(student.call("neuron", w, inp, shown_as=f"neuron(w, inp) with {text}"), reference, w, inp)


@check
def test_neuron_grad_by_hand_on_fresh_inputs(student: Student, reference: ModuleType) -> None:
    for text, w, inp in [*fresh_cases(), *saturated_cases()]:
        returned = student.call("neuron_grad_by_hand", w, inp, shown_as=f"neuron_grad_by_hand(w, inp) with {text}")
        expect_hand_gradient(student, returned, reference, w, inp)
    # The docstring's "does not require grad" holds for the weights of a model too, which require grad.
    text, w, inp = fresh_cases()[0]
    tracked = w.clone().requires_grad_(True)
    returned = student.call("neuron_grad_by_hand", tracked, inp,
                            shown_as=f"neuron_grad_by_hand(w, inp) with {text}, w requiring grad")
    expect_hand_gradient(student, returned, reference, w, inp)
    info = origin(returned.value) if type(returned.value) is torch.Tensor else None
    if info is not None and info.requires_grad:
        fail("neuron_grad_by_hand returned a tensor that requires grad.", call=returned.call,
             got=describe(returned.value), expected="the same values, in a tensor that does not require grad",
             mistake=RESULT_TRACKS_W)
    # Trained weights change in place between calls: the same tensor asked again after a step gets its new gradient.
    text, w, inp = fresh_cases()[2]
    step = torch.full_like(w, 0.25)
    shown = f"neuron_grad_by_hand(w, inp) with {text}, asked again of the same w after w += 0.25 in place"
    moved = student.run(grads_around_a_step, w, inp, step, shown_as=shown)
    got = moved.value if type(moved.value) is dict else {}
    expect_hand_gradient(student, Returned(shown, got.get("second")), reference, w + step, inp)
