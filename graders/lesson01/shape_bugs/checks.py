"""Checks of `shape_bugs` ("Common pitfalls": shape mismatches that broadcast silently).

Inputs: the course texts' pairs, and hundreds of pairs drawn by hypothesis with a fixed
seed (graders/lesson01/cases.py). Oracles: torch's own broadcasting on every pair, and
`torch.nn.functional.mse_loss` differentiated by `torch.autograd`, both in this process.
Hundreds of pairs go to the worker in one request (a driver, graders/lesson01/shape_bugs/drivers.py,
loops over them there),
so a check costs one round trip. Wrong answers are matched against wrong variants of the
rules run on the same pairs, and a wrong loss by its ratio to torch's (the gradient
signature).

Reading order: the catalogue of mistakes; the inputs (fixed pairs, the lesson's data); the
expected values; reading the worker's answers and
showing them; the assertions; the checks.

Longer than most modules, on purpose: what computes an expected value or a wrong variant stays in
the checks module, because the student bundle releases a filtered copy of it (public checks and what
they use, expected values replaced by recorded data); a helper module would be released whole.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from typing import Any, Callable

import torch
import torch.nn.functional as F

from graders.kit import (Mistake, RECORD, RECORDING, Returned, Student, StudentError, Suspect, checks_for, describe,
                         drawn, exercise, expect_tensor, expected, fail)
from graders.lesson01.shape_bugs.mistakes import (ANY_DIFFERENCE_SILENT, ANY_STRETCH_SILENT, CLASH_COUNTED_SILENT,
                                                  DIVIDED_BY_BATCH, LEFT_TO_RIGHT, LOSS_BROADCASTS, LOSS_RESHAPES,
                                                  ELEMENTS_COMPARED, MEAN_OVER_SOME_DIMENSIONS,
                                                  MISSING_AS_INCOMPATIBLE, ONLY_SECOND_STRETCHED, PITFALL,
                                                  RANKS_COMPARED, RESULT_RANK_COMPARED, RULES,
                                                  SIZE_ZERO, SIZES_REVERSED, SUM_FOR_MEAN, UNCAUGHT_VALUE_ERROR,
                                                  WORKED)
from graders.lesson01.shape_bugs.drivers import broadcast_many, loss_probe, silently_many, torch_shape

EXERCISE = exercise("lesson01", "shape_bugs")
check = checks_for("lesson01", EXERCISE.slug)

Shape = tuple[int, ...]
Pair = tuple[Shape, Shape]


# ---------------------------------------------------------------- inputs

LESSON_PAIRS: list[Pair] = [((3, 4), (4,)), ((100, 1), (100,)), ((1, 1, 8, 8), (8, 8)),
                            ((32, 3, 224, 224), (3, 1, 1))]
# Every wrong variant above also refuses these, so this check grades the error alone.
ERROR_PAIRS: list[Pair] = [((3, 4), (2, 4)), ((5, 1, 4), (3, 5))]
# The lesson's pitfall both ways, equal shapes, a target stretched from another rank and from the same rank (which
# tells "any stretch" from "another number of dimensions"), and a pair that does not broadcast.
SILENT_PAIRS: list[Pair] = [((100, 1), (100,)), ((100,), (100, 1)), ((100, 1), (100, 1)), ((100,), (100,)),
                            ((3, 4), (4,)), ((3, 4), (1, 4)), ((3, 4), (3,))]
LOSS_SHAPES = ("pred.shape", "target.shape")  # how mse_loss's hints name the two shapes


FITTED = (2.965, -2.0)  # the w and b the worked example learns
LESSON_FIT = (f"pred = {FITTED[0]} * X - {-FITTED[1]} on the worked example's X and y "
              f"(seed {EXERCISE.seed('lesson_data')})")


def lesson_data() -> tuple[torch.Tensor, torch.Tensor]:
    """X (100, 1) and y (100, 1), drawn as the worked example draws them."""
    generator = torch.Generator().manual_seed(EXERCISE.seed("lesson_data"))
    X = torch.rand(100, 1, generator=generator) * 4 - 2
    return X, 3 * X - 2 + 0.3 * torch.randn(100, 1, generator=generator)


# ---------------------------------------------------------------- expected values (grader side)

def _torch_or_none(a: Shape, b: Shape) -> Shape | None:
    try:
        return torch_shape(a, b)
    except RuntimeError:
        return None


def _zero_as_one(a: Shape, b: Shape, zero_stretches: bool) -> Shape | None:
    """The rules with max() as the result size; with zero_stretches, 0 also matches anything."""
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    stretchy = (0, 1) if zero_stretches else (1,)
    if any(x != y and x not in stretchy and y not in stretchy for x, y in zip(a, b)):
        return None
    return tuple(max(x, y) for x, y in zip(a, b))


def _only_second_stretches(a: Shape, b: Shape) -> Shape | None:
    """The rules with rule 2 for b alone: a 1 in a (a padded one too) does not stretch."""
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    if any(x != y and y != 1 for x, y in zip(a, b)):
        return None
    return a


@expected
def torch_answers(pairs: list[Pair]) -> list[Shape | None]:
    """torch's broadcast shape of each pair; None where torch refuses it."""
    return [_torch_or_none(a, b) for a, b in pairs]


@expected
def wrong_answers(pairs: list[Pair]) -> dict[str, list[Shape | None]]:
    """What each wrong variant of the rules gives on each pair."""
    def left_to_right(a: Shape, b: Shape) -> Shape | None:
        # Lining up on the left is lining up the reversed shapes on the right.
        result = _torch_or_none(a[::-1], b[::-1])
        return None if result is None else result[::-1]

    return {
        LEFT_TO_RIGHT.name: [left_to_right(a, b) for a, b in pairs],
        MISSING_AS_INCOMPATIBLE.name: [_torch_or_none(a, b) if len(a) == len(b) else None for a, b in pairs],
        "zero max": [_zero_as_one(a, b, False) for a, b in pairs],
        "zero stretches": [_zero_as_one(a, b, True) for a, b in pairs],
        ONLY_SECOND_STRETCHED.name: [_only_second_stretches(a, b) for a, b in pairs],
    }


@expected
def silent_answers(pairs: list[Pair]) -> list[bool]:
    return [(r := _torch_or_none(a, b)) is not None and r != a for a, b in pairs]


@expected
def stretch_answers(pairs: list[Pair]) -> list[bool]:
    """silently_broadcasts with ANY_STRETCH_SILENT: True for every pair that broadcasts and differs."""
    return [_torch_or_none(a, b) is not None and tuple(a) != tuple(b) for a, b in pairs]


@expected
def rank_answers(pairs: list[Pair]) -> list[bool]:
    """silently_broadcasts with RANKS_COMPARED: True for every pair that broadcasts with another number of
    dimensions."""
    return [_torch_or_none(a, b) is not None and len(a) != len(b) for a, b in pairs]


@expected
def result_rank_answers(pairs: list[Pair]) -> list[bool]:
    """silently_broadcasts with RESULT_RANK_COMPARED: True for every pair whose broadcast shape has more dimensions
    than pred's."""
    return [(r := _torch_or_none(a, b)) is not None and len(r) != len(a) for a, b in pairs]


@expected
def element_answers(pairs: list[Pair]) -> list[bool]:
    """silently_broadcasts with ELEMENTS_COMPARED: True for every pair whose broadcast shape holds another number of
    elements than pred's."""
    return [(r := _torch_or_none(a, b)) is not None and math.prod(r) != math.prod(a) for a, b in pairs]


@expected
def clash_answers(pairs: list[Pair]) -> list[bool]:
    """silently_broadcasts with CLASH_COUNTED_SILENT: True also for every pair that does not broadcast."""
    return [(r := _torch_or_none(a, b)) is None or r != a for a, b in pairs]


@expected
def difference_answers(pairs: list[Pair]) -> list[bool]:
    """silently_broadcasts with ANY_DIFFERENCE_SILENT: True for every pair of unequal shapes."""
    return [tuple(a) != tuple(b) for a, b in pairs]


@expected
def torch_loss(pred: torch.Tensor, target: torch.Tensor) -> list[torch.Tensor]:
    """torch's mse_loss and its gradient with respect to pred."""
    leaf = pred.detach().clone().requires_grad_(True)
    loss = F.mse_loss(leaf, target)
    loss.backward()
    return [loss.detach(), leaf.grad]


@expected
def wrong_losses(pred: torch.Tensor, target: torch.Tensor) -> dict[str, float | None]:
    """What a loss that broadcasts, or one that flattens both sides, gives (None where it cannot)."""
    broadcast = _torch_or_none(tuple(pred.shape), tuple(target.shape)) is not None
    return {
        LOSS_BROADCASTS.name: ((pred - target) ** 2).mean().item() if broadcast else None,
        LOSS_RESHAPES.name: F.mse_loss(pred.reshape(-1), target.reshape(-1)).item()
        if pred.numel() == target.numel() else None,
    }


@expected
def partial_means(pred: torch.Tensor, target: torch.Tensor) -> list[torch.Tensor]:
    """The squared errors averaged over each proper, non-empty set of pred's dimensions."""
    squared = (pred.detach() - target) ** 2
    dims = range(squared.dim())
    return [squared.mean(dim=chosen) for size in range(1, squared.dim())
            for chosen in itertools.combinations(dims, size)]


# ---------------------------------------------------------------- reading the worker's answers, and showing them

class _Answer:
    """One call's outcome: the value it returned, or the error it raised."""

    def __init__(self, raw: Any) -> None:
        ok = type(raw) is list and len(raw) in (2, 3, 4) and raw[0] in ("returned", "raised")
        self.raised = ok and raw[0] == "raised" and len(raw) in (3, 4)
        self.value = raw[1] if ok and not self.raised else None
        self.error_type = str(raw[1]) if self.raised else ""
        self.message = str(raw[2]) if self.raised else ""
        lineage = raw[3] if self.raised and len(raw) == 4 and type(raw[3]) is list else []
        # Judged as the worker's errors are (StudentError.is_a): a subclass of ValueError is a ValueError.
        self.error = StudentError(self.error_type, self.message, [], False,
                                  tuple(name for name in lineage if type(name) is str))
        self.error_type = self.error.shown_type()

    def raised_value_error(self) -> bool:
        """Whether it raised an error that `except ValueError` catches."""
        return self.raised and self.error.is_a(ValueError)

    def shape(self) -> Shape | None | object:
        """The returned shape, None when it raised, or a fresh object (equal to nothing) for any other value."""
        if self.raised:
            return None
        if type(self.value) in (tuple, torch.Size) and all(type(n) is int for n in self.value):
            return tuple(self.value)
        return object()

    def shown(self) -> str:
        """What the call did, as a verb phrase: "returned (3, 4)", "raised ValueError: ..."."""
        return f"raised {self.error_type}: {self.message}" if self.raised else f"returned {describe(self.value)}"

    def got(self) -> str:
        """What the call gave, for the message's "returned:" line (which already says "returned")."""
        return f"{self.error_type}: {self.message}" if self.raised else describe(self.value)


def _named(mistake: Mistake) -> dict[str, str]:
    """The parts of a message that name a recognised mistake."""
    return {"mistake": mistake.name, "meaning": mistake.explanation, "hint": mistake.hint,
            "section": mistake.section}


def _expect_defined(returned: Returned) -> None:
    """A driver found no function of that name: say so, with the file's close matches."""
    __tracebackhide__ = True
    value = returned.value
    if type(value) is not dict or set(value) != {"missing", "defined"}:
        return
    name = str(value["missing"])
    defined = [str(n) for n in value["defined"]] if type(value["defined"]) is list else []
    found = ", ".join(difflib.get_close_matches(name, defined, n=3) or defined) or "no functions"
    fail(f"`{name}` is not defined in your file: did you rename it? (found: {found})", call=returned.call,
         hint=f"Keep the name `{name}` exactly as the stub defines it, so that callers (and the checks) find it.",
         section=EXERCISE.section)


def _answers(returned: Returned, count: int) -> list[_Answer]:
    __tracebackhide__ = True
    _expect_defined(returned)
    if type(returned.value) is not list or len(returned.value) != count:
        fail(f"{returned.call} could not be graded: the answers did not come back as sent.", call=returned.call,
             hint="Do not change the grader's modules from your code.", section=EXERCISE.section)
    return [_Answer(raw) for raw in returned.value]


def _names_shape(message: str, shape: Shape) -> bool:
    """Whether the sizes of `shape` appear in order, e.g. "(3, 4)", "[3, 4]" or "torch.Size([3, 4])"."""
    sizes = r"\D{1,4}".join(str(n) for n in shape) if shape else r"\(\)"
    return re.search(rf"(?<!\d){sizes}(?!\d)", message) is not None


def _shown_shape(shape: Shape | None) -> str:
    return "raises ValueError" if shape is None else f"returns {shape}"


def _number(value: Any) -> float | None:
    """A returned one-element tensor or Python number as a float; None for anything else."""
    if type(value) is torch.Tensor and value.numel() == 1 and not value.is_complex():
        return float(value.detach().reshape(()))
    return float(value) if type(value) in (int, float) else None


def _pairs_text(name: str, seed_name: str, pairs: list[Pair]) -> str:
    rank = max(len(s) for pair in pairs for s in pair)
    size = max(n for pair in pairs for s in pair for n in s)
    return (f"{name}(a, b) on {len(pairs)} pairs of shapes drawn by hypothesis with seed {EXERCISE.seed(seed_name)} "
            f"(ranks 0 to {rank}, sizes 0 to {size})")


# ---------------------------------------------------------------- assertions

def expect_shapes(returned: Returned, pairs: list[Pair]) -> None:
    """Every pair's answer is torch's shape (any raised error where torch refuses)."""
    __tracebackhide__ = True
    answers = _answers(returned, len(pairs))
    got, truth = [answer.shape() for answer in answers], torch_answers(pairs)
    if RECORDING.mode == RECORD:  # the variants name a mistake only, but a recording must hold them for replay
        wrong_answers(pairs)
    wrong = [i for i, (g, t) in enumerate(zip(got, truth)) if g != t]
    if not wrong:
        _expect_value_errors(returned, pairs, answers)
        return
    mistake = _diagnose(pairs, got, wrong, wrong_answers(pairs), truth)
    shown = wrong[:3]
    odd = sum(got[i] is not None and type(got[i]) is not tuple for i in wrong)
    summary = (f"broadcast_shape should return a tuple of ints, but on {odd} of {len(pairs)} pairs it "
               "returned something else." if odd and mistake is None else
               f"broadcast_shape is wrong on {len(wrong)} of {len(pairs)} pairs of shapes.")
    advice = _named(mistake) if mistake else {
        "hint": "Return a tuple of Python ints, e.g. tuple(result)." if odd else
        "Work one example from the list by hand with the three rules, reading from the right.", "section": RULES}
    fail(summary, call=returned.call,
         got="\n".join(f"broadcast_shape{pairs[i]} {answers[i].shown()}" for i in shown),
         expected="\n".join(f"broadcast_shape{pairs[i]} {_shown_shape(truth[i])}" for i in shown), **advice)


def _expect_value_errors(returned: Returned, pairs: list[Pair], answers: list[_Answer]) -> None:
    """Where torch refuses a pair, the docstring promises a ValueError, not just any error."""
    __tracebackhide__ = True
    other = [i for i, answer in enumerate(answers) if answer.raised and not answer.raised_value_error()]
    if other:
        shown = other[:3]
        fail(f"broadcast_shape raised {answers[other[0]].error_type} on {len(other)} of {len(pairs)} pairs; "
             "it should raise ValueError.", call=returned.call,
             got="\n".join(f"broadcast_shape{pairs[i]} {answers[i].shown()}" for i in shown),
             expected="\n".join(f"broadcast_shape{pairs[i]} raises ValueError" for i in shown),
             hint='raise ValueError(f"shapes {a} and {b} do not broadcast"), whatever made the pair fail.',
             section=RULES)


def _diagnose(pairs: list[Pair], got: list, wrong: list[int], variants: dict[str, list],
              truth: list) -> Mistake | None:
    by_variant = {LEFT_TO_RIGHT.name: LEFT_TO_RIGHT, MISSING_AS_INCOMPATIBLE.name: MISSING_AS_INCOMPATIBLE,
                  "zero max": SIZE_ZERO, "zero stretches": SIZE_ZERO,
                  ONLY_SECOND_STRETCHED.name: ONLY_SECOND_STRETCHED}
    for name, answers in variants.items():
        if all(g == a for g, a in zip(got, answers)):
            return by_variant[name]
    # Every shape torch gives, turned round, and nothing else wrong: the sizes were collected from the right.
    if all(type(truth[i]) is tuple and got[i] == truth[i][::-1] for i in wrong):
        return SIZES_REVERSED
    # Right on every pair without a 0 and wrong only on pairs with one: a size-0 rule of its own.
    if all(0 in pairs[i][0] or 0 in pairs[i][1] for i in wrong):
        return SIZE_ZERO
    return None


def expect_bools(returned: Returned, pairs: list[Pair]) -> None:
    __tracebackhide__ = True
    answers = _answers(returned, len(pairs))
    truth = silent_answers(pairs)
    variants = (stretch_answers, difference_answers, clash_answers, rank_answers, element_answers, result_rank_answers)
    if RECORDING.mode == RECORD:  # the variants name a mistake only, but a recording must hold them for replay
        for variant in variants:
            variant(pairs)
    gave = [a.value if not a.raised and type(a.value) is bool else None for a in answers]
    wrong = [i for i, (g, t) in enumerate(zip(gave, truth)) if g != t]
    if not wrong:
        return
    shown = wrong[:3]
    stretched, differ, clashing, ranks, elements, result_ranks = (variant(pairs) for variant in variants)
    mistake = (ANY_STRETCH_SILENT if gave == stretched else ANY_DIFFERENCE_SILENT if gave == differ
               else CLASH_COUNTED_SILENT if gave == clashing else RANKS_COMPARED if gave == ranks
               else ELEMENTS_COMPARED if gave == elements else RESULT_RANK_COMPARED if gave == result_ranks
               else UNCAUGHT_VALUE_ERROR if _let_through(answers, pairs, truth) else None)
    advice = _named(mistake) if mistake else {
        "hint": "Broadcast the two shapes; the answer is True only when they broadcast and the result "
                "differs from pred_shape. Return False when broadcast_shape raises ValueError.",
        "section": PITFALL}
    fail(f"silently_broadcasts is wrong on {len(wrong)} of {len(pairs)} pairs of shapes.", call=returned.call,
         got="\n".join(f"silently_broadcasts{pairs[i]} {answers[i].shown()}" for i in shown),
         expected="\n".join(f"silently_broadcasts{pairs[i]} returns {truth[i]}" for i in shown), **advice)


def _let_through(answers: list[_Answer], pairs: list[Pair], truth: list[bool]) -> bool:
    """Whether silently_broadcasts is right on every pair that broadcasts and, on every pair that does not,
    raised broadcast_shape's own ValueError instead of returning False."""
    for answer, pair, right in zip(answers, pairs, truth):
        if _torch_or_none(*pair) is None:
            if not UNCAUGHT_VALUE_ERROR.matches_error(answer.error_type, answer.message):
                return False
        elif answer.raised or type(answer.value) is not bool or answer.value != right:
            return False
    return True


def expect_value_error(who: str, call: str, answer: _Answer, shapes: Pair, section: str,
                       names: tuple[str, str] = ("a", "b")) -> None:
    """The call raised ValueError and its message names both shapes; `who` is the call in brief,
    `names` the expressions that hold the two shapes inside the student's function."""
    __tracebackhide__ = True
    hint = f'raise ValueError(f"... {{{names[0]}}} and {{{names[1]}}} ...") with the two shapes in the message.'
    expected_error = f"ValueError naming {shapes[0]} and {shapes[1]}"
    if not answer.raised:
        fail(f"{who} should raise ValueError, but it {answer.shown()}.", call=call, got=answer.got(),
             expected=expected_error, hint=hint[0].upper() + hint[1:], section=section)
    if not answer.raised_value_error():
        fail(f"{who} raised {answer.error_type}; it should raise ValueError.", call=call, got=answer.got(),
             expected=expected_error,
             hint=f"Check the shapes yourself before anything else can fail, and {hint}", section=section)
    missing = [s for s in shapes if not _names_shape(answer.message, s)]
    if missing:
        fail(f"{who} raised {answer.error_type}, but its message does not name {missing[0]}.", call=call,
             got=answer.got(), expected=f"a message that names both {shapes[0]} and {shapes[1]}",
             meaning="Whoever meets this error needs both shapes to find which tensor is wrong.",
             hint=hint[0].upper() + hint[1:], section=section)


def _tolerance(tensor: torch.Tensor) -> dict[str, float]:
    value = EXERCISE.tolerance("float64" if tensor.dtype == torch.float64 else "float32")
    return {"rtol": value, "atol": value}


def _probe(student: Student, pred: torch.Tensor, target: torch.Tensor, shown_as: str) -> tuple[Returned, dict]:
    __tracebackhide__ = True
    shuffle = torch.Generator().manual_seed(EXERCISE.seed("shuffle"))
    order = torch.randperm(target.shape[0], generator=shuffle)
    returned = student.run(loss_probe, pred, target, order, shown_as=shown_as)
    _expect_defined(returned)
    probe = returned.value
    if type(probe) is not dict or set(probe) != {"first", "grad", "shuffled"}:
        fail(f"{shown_as} could not be graded: the answer did not come back as sent.", call=shown_as,
             hint="Do not change the grader's modules from your code.", section=PITFALL)
    return returned, probe


def expect_loss(student: Student, pred: torch.Tensor, target: torch.Tensor, shown_as: str) -> None:
    """Equal shapes: the loss and its gradient w.r.t. pred are torch's."""
    __tracebackhide__ = True
    returned, probe = _probe(student, pred, target, shown_as)
    first = _Answer(probe["first"])
    if first.raised:
        fail(f"mse_loss raised {first.error_type}, but pred and target have the same shape "
             f"{tuple(pred.shape)}.", call=shown_as,
             got=first.got(), hint="Raise only when pred.shape != target.shape.", section=PITFALL)
    loss, grad = torch_loss(pred, target)
    partial = [Suspect(MEAN_OVER_SOME_DIMENSIONS, value) for value in partial_means(pred, target)]
    # A sum is N times the mean, and so is its gradient; a sum over len(pred) is N / len(pred) times it
    # (with a single row the two are one and the same: that is a sum).
    scaled = {float(pred.numel()): SUM_FOR_MEAN}
    if pred.dim() and 1 < len(pred) < pred.numel():
        scaled[pred.numel() / len(pred)] = DIVIDED_BY_BATCH
    expect_tensor(Returned(shown_as, first.value), loss, **_tolerance(pred), requires_grad=True, what="the loss",
                  scaled=scaled, suspects=partial, section=WORKED,
                  hint="The mean squared error is ((pred - target) ** 2).mean(), kept as a tensor (no .item()) "
                       "so that backward() can reach pred.")
    expect_tensor(Returned(f"the gradient of {shown_as} with respect to pred", probe["grad"]), grad,
                  **_tolerance(pred), requires_grad=None, what="the gradient", scaled=scaled, section=WORKED,
                  hint="Build the loss from pred with torch operations only, without .detach() or .item().")


def expect_refusal(student: Student, pred: torch.Tensor, target: torch.Tensor, shown_as: str) -> None:
    """Different shapes: ValueError naming both; a returned loss is diagnosed by shuffling the targets."""
    __tracebackhide__ = True
    returned, probe = _probe(student, pred, target, shown_as)
    first, shapes = _Answer(probe["first"]), (tuple(pred.shape), tuple(target.shape))
    who = f"mse_loss on shapes {shapes[0]} and {shapes[1]}"
    wrong, tolerance = wrong_losses(pred, target), _tolerance(pred)["rtol"]  # before any return: see expect_shapes
    if first.raised:
        expect_value_error(who, shown_as, first, shapes, PITFALL, LOSS_SHAPES)
        return
    loss, shuffled = _number(first.value), _number(_Answer(probe["shuffled"]).value)
    summary = f"mse_loss returned a loss for shapes {shapes[0]} and {shapes[1]}; it should raise ValueError."
    same = lambda x, y: x is not None and y is not None and math.isclose(x, y, rel_tol=tolerance,  # noqa: E731
                                                                         abs_tol=tolerance)
    # The metamorphic test: a loss over every (prediction, target) pair ignores their order.
    if same(loss, wrong[LOSS_BROADCASTS.name]) and same(loss, shuffled):
        fail(summary, call=shown_as, got=f"a loss of {loss:.6g}, and {shuffled:.6g} again with the targets "
             "shuffled",
             expected=f"ValueError naming {shapes[0]} and {shapes[1]} (pred - target would have shape "
             f"{_torch_or_none(*shapes)})", **_named(LOSS_BROADCASTS))
    if same(loss, wrong[LOSS_RESHAPES.name]):
        fail(summary, call=shown_as, got=describe(first.value), expected=f"ValueError naming {shapes[0]} and "
             f"{shapes[1]}", **_named(LOSS_RESHAPES))
    # Neither variant: a test that looks at part of the shapes only (the rows, the number of dimensions or
    # of elements) and lets this pair through.
    fail(summary, call=shown_as, got=first.got(), expected=f"ValueError naming {shapes[0]} and {shapes[1]}",
         hint="The docstring asks for a refusal whenever the shapes differ in any way, even when they would "
              "broadcast: compare the whole shapes, pred.shape != target.shape, before computing anything, and "
              'raise ValueError(f"... {pred.shape} and {target.shape} ...").',
         section=PITFALL)


# ---------------------------------------------------------------- public checks

@check
def test_broadcast_shape_lesson_cases(student: Student) -> None:
    expect_shapes(run_on_listed_pairs(student, broadcast_many, "broadcast_shape(a, b) for the pairs", LESSON_PAIRS),
                  LESSON_PAIRS)


@check
def test_broadcast_shape_generated_pairs(student: Student) -> None:
    expect_shapes(*run_on_drawn_pairs(student, broadcast_many, "broadcast_shape", "generated_pairs"))


@check
def test_broadcast_shape_error_names_shapes(student: Student) -> None:
    returned = student.run(broadcast_many, ERROR_PAIRS, runs="broadcast_shape",
                           shown_as="broadcast_shape on shapes that do not broadcast")
    for pair, answer in zip(ERROR_PAIRS, _answers(returned, len(ERROR_PAIRS))):
        expect_value_error(f"broadcast_shape{pair}", f"broadcast_shape{pair}", answer, pair, RULES)


@check
def test_silently_broadcasts_lesson_cases(student: Student) -> None:
    expect_bools(run_on_listed_pairs(student, silently_many, "silently_broadcasts(pred_shape, target_shape) for",
                                     SILENT_PAIRS), SILENT_PAIRS)


@check
def test_mse_loss_matches_torch(student: Student) -> None:
    X, y = lesson_data()
    expect_loss(student, torch.zeros(100, 1), y, "mse_loss(pred, y) with pred = zeros(100, 1) and the worked "
                "example's y (step 0, where the lesson prints loss 15.4288)")
    expect_loss(student, X * FITTED[0] + FITTED[1], y, f"mse_loss(pred, y) with {LESSON_FIT}, both (100, 1)")


@check
def test_mse_loss_refuses_mismatched_shapes(student: Student) -> None:
    X, y = lesson_data()
    expect_refusal(student, X * FITTED[0] + FITTED[1], y.reshape(-1),
                   f"mse_loss(pred, y) with {LESSON_FIT}, pred of shape (100, 1) and y of shape (100,)")


def run_on_listed_pairs(student: Student, driver: Callable, call: str, pairs: list[Pair]) -> Returned:
    """The student's function (named first in `call`) on these pairs, each shown in the message."""
    function = call.split("(")[0]
    shown = f"{call} " + ", ".join(f"{a} and {b}" for a, b in pairs)
    return student.run(driver, pairs, runs=function, shown_as=shown)


def run_on_drawn_pairs(student: Student, driver: Callable, function: str, seed: str) -> tuple[Returned, list]:
    """The student's `function` on every shape pair drawn with the seed `seed`: their answers, and the pairs."""
    pairs = drawn("lesson01", EXERCISE.slug, seed)
    return student.run(driver, pairs, runs=function, shown_as=_pairs_text(function, seed, pairs)), pairs


# ---------------------------------------------------------------- hidden checks

@check
def test_broadcast_shape_fresh_pairs(student: Student) -> None:
    expect_shapes(*run_on_drawn_pairs(student, broadcast_many, "broadcast_shape", "fresh_pairs"))


@check
def test_silently_broadcasts_fresh_pairs(student: Student) -> None:
    expect_bools(*run_on_drawn_pairs(student, silently_many, "silently_broadcasts", "fresh_pairs"))


@check
def test_mse_loss_fresh_inputs(student: Student) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_tensors"))
    draw = lambda *shape, dtype=torch.float32: torch.randn(*shape, generator=generator, dtype=dtype)  # noqa: E731
    expect_loss(student, draw(7, 3, dtype=torch.float64), draw(7, 3, dtype=torch.float64),
                "mse_loss(pred, target) with random pred and target of shape (7, 3), float64")
    expect_loss(student, draw(50) * 3, draw(50),
                "mse_loss(pred, target) with random pred and target of shape (50,)")
    # (5, 3) against (5, 1): as many rows and dimensions, so an answer comparing only those lets it through.
    for pred_shape, target_shape in (((32, 1), (32,)), ((4,), (4, 1)), ((3,), (4,)), ((6, 2), (2,)), ((5, 3), (5, 1))):
        expect_refusal(student, draw(*pred_shape), draw(*target_shape),
                       f"mse_loss(pred, target) with random pred of shape {pred_shape} and target of shape "
                       f"{target_shape}")
