"""Named mistakes and how a wrong answer is matched to one.

Each exercise keeps a catalogue (its room's mistakes.py, collected by engine/collect.py). A mistake is
recognised in one of three ways: the student's output equals a wrong variant of the
reference run on the same input; a gradient is a known multiple of the right one (the
gradient signature); or a raised error matches the message that mistake produces.

A mistake is named only when nothing else the grader can see contradicts it (`contradicted_by`): a variant that
fits one answer may fit it by chance, and a name whose hint asks for what the code already does misleads more
than no name. Each predicate reads the student's facts (its source, read by engine/source_evidence.py, or its
own answers to other calls) and says why the mistake cannot be the cause, or "" when it may be.

Each mistake also names the lesson idea it breaks, a key of course_config.CONCEPTS, which the check
result carries beside the mistake's name so that the class report can count students per idea.
"""

from __future__ import annotations

import ast
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import torch

from course_config import CONCEPTS, FORGET_MISTAKES_VARIABLE
from graders.engine.compare import tensor_problem
from graders.engine.raised_causes import (backward_of_unrecorded, divides, exponentiates_floats, rebuilds_from_numbers,
                                          unpacks_a_tracked_tensor)

# The test switch of course_config.FORGET_MISTAKES_VARIABLE: these mistakes are graded as if unknown.
FORGOTTEN = frozenset(name.strip() for name in os.environ.get(FORGET_MISTAKES_VARIABLE, "").split(",") if name.strip())


@dataclass(frozen=True)
class Mistake:
    """One wrong idea a student may have, and what to tell them about it."""

    name: str  # short and stable: tests and results refer to it, e.g. "product rule missed"
    explanation: str  # one or two sentences: what the code did and why that gives this output
    hint: str  # one concrete thing to change
    section: str  # where in the lesson the right idea is taught
    error_pattern: str | None = None  # regex over "ErrorType: message" when the mistake raises
    # The idea of the lesson it breaks: a key of course_config.CONCEPTS, e.g. "accumulation" for gradients never
    # zeroed. Many mistakes of many exercises share one, so the class report groups them by it.
    concept: str = field(default="", kw_only=True)
    # What rules this mistake out whatever the answer: each, given the Student, says why it cannot be the cause
    # (the code seeds with its argument, its steps=0 answer is the zero start) or "" when it may be.
    contradicted_by: tuple["Contradiction", ...] = field(default=(), kw_only=True, compare=False, repr=False)
    # The explanation in words that name no value of the check's inputs (a fact about a result may say how its shape
    # stands to the answer's without either shape): what a hidden check shows in its place. "" where the catalogue's
    # own explanation is that already.
    without_values: str = field(default="", kw_only=True, compare=False, repr=False)
    # What a fact measured of the result, for reading the code against it (graders/engine/code_facts.py): for
    # DTYPE_DIFFERS, the dtype found and the one that belongs, as messages write them ("float32", "float64").
    measured: tuple[str, ...] = field(default=(), kw_only=True, compare=False, repr=False)

    def __post_init__(self) -> None:
        # A misspelt concept fails at import, naming the mistake, rather than splitting the report's groups.
        if self.concept and self.concept not in CONCEPTS:
            raise ValueError(f"mistake {self.name!r}: concept {self.concept!r} is not a key of course_config.CONCEPTS "
                             f"(they are: {', '.join(CONCEPTS)})")

    def matches_error(self, error_type: str, message: str) -> bool:
        return self.error_pattern is not None and re.search(self.error_pattern, f"{error_type}: {message}") is not None


# Given the Student whose answer is judged: why a mistake cannot be the cause, or "" when it may be.
Contradiction = Callable[[Any], str]


def contradiction(mistake: Mistake | None, student: Any) -> str:
    """Why the grader's own facts about `student` rule `mistake` out ("" when none does). A predicate that cannot
    run (the student's call raised, the source does not parse) rules nothing out."""
    if mistake is None or student is None:
        return ""
    for contradicted in mistake.contradicted_by:
        try:
            why = contradicted(student)
        except Exception:  # a fact the grader could not read rules nothing out; the check's own message stands
            why = ""
        if why:
            return why
    return ""


def unless_contradicted(mistake: Mistake | None, student: Any) -> Mistake | None:
    """`mistake`, or None when the grader can see that the code does not make it."""
    return None if contradiction(mistake, student) else mistake


def code_calls_outside_block(call: str, block: str, why: str) -> Contradiction:
    """A contradiction, unless the module has a `with` block whose context names `block` (`fwAD.dual_level()`) and
    also calls `call` (`unpack_dual`) somewhere outside every such block, as a helper called after it does; `why`
    says what the code shows instead. A source that does not parse shows nothing, so it contradicts."""
    def shown(student: Any) -> str:
        try:
            tree = ast.parse(student.evidence.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return why
        blocks = [node for node in ast.walk(tree) if isinstance(node, (ast.With, ast.AsyncWith))
                  and any(block in ast.unparse(item.context_expr) for item in node.items)]
        inside = {id(node) for found in blocks for node in ast.walk(found)}
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and call in (
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", ""),)]
        return "" if blocks and any(id(node) not in inside for node in calls) else why
    return shown


def code_passes(function: str, patterns: tuple[str, ...], parameter: int, why: str) -> Contradiction:
    """A contradiction: `function`'s code (or a function of the module it calls) calls one of `patterns` with its
    own parameter number `parameter` (e.g. torch.manual_seed with the seed argument). `why` says what it shows."""
    def shown(student: Any) -> str:
        name = student.evidence.parameter(function, parameter)
        return why if name and student.evidence.passes(function, patterns, name) else ""
    return shown


def code_binds_default(function: str, name: str, why: str) -> Contradiction:
    """A contradiction: `function` takes the module's `name` as the default of one of its parameters (`fn=f`),
    so it does use `name`, as the module held it when the `def` ran. `why` may say {parameter}."""
    def bound(student: Any) -> str:
        found = [p for p, path in student.evidence.defaults(function).items() if path == name]
        return why.format(parameter=found[0]) if found else ""
    return bound


def code_holds_from_import(function: str, name: str, why: str) -> Contradiction:
    """A contradiction: `function` uses a module-level value that holds the module's `name` as it was when the module
    ran (`functools.partial(derive, f)`, an alias `g = f`), so it does use `name`, an old one. `why` may say {line}."""
    def held(student: Any) -> str:
        line = student.evidence.held_from_import(function, name)
        return why.format(line=line) if line else ""
    return held


def own_answer(function: str, *args: Any, equals: Any, why: str, **kwargs: Any) -> Contradiction:
    """A contradiction: the student's own `function(*args, **kwargs)` returns `equals` (compared as a tuple: a list
    of the same numbers is the same answer), e.g. fit_quadratic with steps=0 returning the zero start."""
    def answered(student: Any) -> str:
        returned = student.call(function, *args, allow_raise=True, shown_as=f"{function}(...), to see what the code does", **kwargs)
        value = returned.value
        same = type(value) in (tuple, list) and tuple(value) == tuple(equals)
        return why if returned.error is None and same else ""
    return answered


def source_lacks(cause: Callable[[str], Any], why: str) -> Contradiction:
    """A contradiction: the student's module, read by `cause` (a predicate over the source, never run), does not have
    the construct that makes this mistake; `why` says what it lacks."""
    def lacking(student: Any) -> str:
        return "" if cause(student.evidence.source) else why
    return lacking


def code_shows(function: str, patterns: tuple[str, ...], why: str) -> Contradiction:
    """A contradiction: `function`'s code (or a function of the module it calls) names one of `patterns`."""
    def shown(student: Any) -> str:
        return why if student.evidence.shows(function, patterns) else ""
    return shown


@dataclass(frozen=True)
class Suspect:
    """A mistake together with what it would have returned on this input."""

    mistake: Mistake
    value: Any


def first_matching_variant(got: Any, suspects: Iterable[Suspect], *, rtol: float, atol: float) -> Mistake | None:
    """The first mistake whose wrong output equals the student's (tensors compared by value only)."""
    for suspect in suspects:
        if type(suspect.value) is torch.Tensor:
            if tensor_problem(got, suspect.value, rtol=rtol, atol=atol, requires_grad=None) is None:
                return suspect.mistake
        elif type(got) is type(suspect.value) and got == suspect.value:
            return suspect.mistake
    return None


@dataclass(frozen=True)
class GradientSignature:
    """How a student's gradient relates to the true one: g_student ≈ scale · g_true."""

    scale: float  # k = <g_s, g_r> / <g_r, g_r>
    cosine: float  # 1 when the two point the same way


def gradient_signature(got: torch.Tensor, expected: torch.Tensor) -> GradientSignature | None:
    """Fit the scale and the cosine; None when either gradient is (close to) zero."""
    g = got.detach().to(torch.float64).reshape(-1)
    r = expected.detach().to(torch.float64).reshape(-1)
    if g.shape != r.shape or not bool(torch.isfinite(g).all()):
        return None
    rr, gg = float(r @ r), float(g @ g)
    if rr < 1e-24 or gg < 1e-24:
        return None
    return GradientSignature(scale=float(g @ r) / rr, cosine=float(g @ r) / math.sqrt(rr * gg))


def is_scaled(signature: GradientSignature | None, factor: float, *, tolerance: float = 1e-3) -> bool:
    """Whether a gradient is `factor` times the true one (same direction, that length)."""
    return (signature is not None and abs(abs(signature.cosine) - 1) < tolerance
            and abs(signature.scale - factor) < tolerance * max(1.0, abs(factor)))


# Mistakes any exercise can make, recognised by the error they raise (after an exercise's own catalogue).
MIXED_DTYPES = Mistake(
    "float32 and float64 mixed in one operation",
    "One operation got a float64 tensor and a float32 one. PyTorch promotes dtypes in elementwise arithmetic, "
    "but a matrix multiply (and so nn.Linear) needs both sides in one dtype, and a tensor assigned to a parameter's "
    ".grad needs the parameter's: float64 usually comes from NumPy (torch.from_numpy, torch.tensor on an array) or "
    "from dtype=torch.float64, float32 from torch's defaults (torch.zeros(shape) without a dtype).",
    "Print the dtype of each tensor on the line the error points to, and convert one side with .float() or "
    ".to(other.dtype); make a new tensor like the one it meets (torch.zeros_like(p), dtype=p.dtype).",
    '"Common pitfalls", "Mixing dtypes"',
    error_pattern=r"must have the same dtype|expected scalar type \w+ but found \w+|"
                  r"[Ff]ound dtype \w+ but expected \w+|expected both (inputs|vectors) to have same dtype|"
                  r"assign a gradient with dtype '\w+' to a tensor with grad_dtype",
    concept="dtypes",
)

# What a tensor's own properties say when no mistake of the exercise explains it (feedback.fail's `otherwise`): facts
# about the student's result against what was asked, true whatever the inputs, so that a hidden check may say them
# (engine/expect.py's expect_tensor). Never named where a catalogued mistake or a single edit explains the answer.
DTYPE_DIFFERS = Mistake(
    "result in another dtype",
    "Your result holds its numbers in another dtype than the one asked for (the checks compare dtypes as well as "
    "values): float32 and float64 round differently, and a result made with torch's defaults is float32 whatever "
    "the input was.",
    "Print the result's dtype beside the input's. Make new tensors in the input's dtype (torch.zeros_like(x), "
    "torch.eye(n, dtype=x.dtype), x.new_ones(...)) or convert with .to(x.dtype), as the docstring asks.",
    '"Common pitfalls", "Mixing dtypes"',
    concept="dtypes",
)
SHAPE_DIFFERS = Mistake(
    "result in another shape",
    "Your result has another shape than the one asked for (the checks compare shapes before values): a dimension "
    "squeezed away or added, a reduction over the wrong dimension, or a (n, 1) column where (n,) belongs.",
    "Print the result's shape for a small input and compare it with the docstring's; look at each squeeze, "
    "unsqueeze, reshape, view, keepdim and reduction on the way.",
    '"Common pitfalls", "Shape mismatches that broadcast silently"',
    concept="broadcasting",
)
STILL_TRACKED = Mistake(
    "result still attached to the graph",
    "Your result still requires grad: it was computed from tensors that autograd tracks and never detached (a clone "
    "copies the graph link too), so whoever uses it can backpropagate into your inputs.",
    "Return result.detach() (or compute it inside torch.no_grad()) where the docstring asks for a plain tensor.",
    '"Common pitfalls", "Calling .numpy() on a tracked tensor"',
    concept="detach_and_no_grad",
)
# STILL_TRACKED where the code itself shows why (graders/engine/code_facts.py): a gradient asked to keep its graph.
CUT_FROM_THE_GRAPH = Mistake(
    "result cut from the graph",
    "Your result does not require grad, so backward() from it cannot reach the inputs: somewhere on the way the value "
    "left autograd's graph (.item(), .tolist() or .numpy(), .detach(), a new torch.tensor of its numbers, Python "
    "floats or the math module, or a torch.no_grad() block).",
    "Compute the result from the inputs with torch operations only, outside torch.no_grad(), and return that tensor "
    "as it is.",
    '"Autograd: gradients for free"',
    concept="detach_and_no_grad",
)
GRAPH_OF_THE_GRADIENT_KEPT = Mistake(
    "gradient taken with create_graph=True",
    "Your result requires grad because your code asks torch.autograd.grad (or backward) for create_graph=True: that "
    "records the gradient's own computation as a graph, which is what a second derivative needs, and leaves the "
    "gradient attached to it. A first derivative returned as an answer needs no graph.",
    "Leave create_graph out (it is False by default), or return the gradient .detach()ed where you do need it.",
    '"Autograd: gradients for free"',
    concept="detach_and_no_grad",
)
VALUES_REORDERED = Mistake(
    "the right values in another order",
    "Your result holds exactly the expected values, in another order.",
    "Print your result beside x.tolist() for a small input: torch lists and fills elements row by row (the last "
    "dimension fastest); look at each transpose, permute, sort and index on the way.",
    '"Operations, broadcasting and reshaping", and the companion\'s "Reshape vs. View vs. Contiguous"',
    concept="views",
)
SCALED_RESULT = Mistake(
    "the right result times one factor",
    "Your result is the expected one times one factor, everywhere.",
    "Look for the one factor your formula has more or less than the docstring's: a sum where a mean belongs (or the "
    "other way), a count not divided out, a constant of a derivative, a minus sign for the whole result.",
    '"Common pitfalls"',
    concept="chain_rule",
)
NAN_WHERE_FINITE = Mistake(
    "nan where a number belongs",
    "Your result holds nan (not a number) where the right one is a finite number.",
    "nan comes from 0/0, inf − inf, 0 × inf, or the square root or log of a negative number: find the case your "
    "formula meets it (both values zero, say) and guard it as the docstring asks (a floor on a denominator, "
    "clamp(min=...)).",
    '"Common pitfalls"',
    concept="gradient_checking",
)
PLACES_LEFT_UNFILLED = Mistake(
    "places never filled",
    "Your result is right in every place but the first or last few along its first dimension, and those hold 0: "
    "the step that fills them never ran for them.",
    "Check the bounds of the loop that fills the result: range(n) visits 0 to n − 1; range(n − 1) stops before the "
    "last index and range(1, n) starts after the first.",
    '"Operations, broadcasting and reshaping"',
    concept="python_semantics",
)
NOT_NONE_FOR_NONE = Mistake(
    "another value for 'none'",
    "Your function returns a stand-in value where the docstring asks for None.",
    "Return None itself where there is no answer: a caller tests `is None`, and a number such as -1 or 0 may be "
    "taken for an answer.",
    '"Try it yourself"',
    concept="learning_rate",
)
# Errors whose cause the student's source shows (raised_causes.py): named only where it does.
FLOAT_FOR_WHOLE = Mistake(
    "a float where a whole number belongs",
    "Your code hands a float to something that takes whole numbers only (a size, a count, an index, range()): in "
    "Python 3 `/` always gives a float, even 12 / 4 = 3.0.",
    "Use // where a division must give a whole number (a size, a count, an index), or int(...) where a float is "
    "whole by design.",
    '"Operations, broadcasting and reshaping"',
    error_pattern=r"(tuple of ints, ?but got float|tuple of ints, not float|'float' object cannot be interpreted as an "
                  r"integer|invalid combination of arguments - got \([^)]*float|\(got float\)|not float$)",
    concept="views",
    contradicted_by=(source_lacks(divides, "the code divides nowhere with /"),),
)
FORWARD_UNDER_NO_GRAD = Mistake(
    "forward pass under torch.no_grad()",
    "The value your backward() starts from is computed inside `with torch.no_grad():`, where autograd records "
    "nothing, so there is no graph for backward() to go back through.",
    "Compute the prediction and the loss outside the no_grad block; keep only what must not be recorded (the "
    "parameter update, inference) inside it.",
    '"Autograd: gradients for free"',
    error_pattern=r"does not require grad and does not have a grad_fn",
    concept="detach_and_no_grad",
    contradicted_by=(source_lacks(backward_of_unrecorded,
                                  "no backward() of a value computed under no_grad in the code"),),
)
GRAPH_CUT_THROUGH_NUMBERS = Mistake(
    "a tensor rebuilt from plain numbers",
    "Your code takes values out of a tensor as plain Python or NumPy numbers (.item(), .tolist(), .numpy(), a math "
    "function) and builds a new tensor from them (torch.tensor, torch.as_tensor, torch.from_numpy). The values are "
    "right, but autograd cannot follow numbers: the new tensor has no graph behind it, so backward() from it finds "
    "nothing that leads back to the leaf.",
    "Stay with torch operations on the tensor itself (torch.sin(x) * torch.exp(-x) works on every element at once), "
    "so that each step is recorded; leave .item() and friends for the final number you report.",
    '"Autograd: gradients for free"',
    error_pattern=r"does not require grad and does not have a grad_fn",
    concept="requires_grad",
    contradicted_by=(source_lacks(rebuilds_from_numbers,
                                  "no function of the code turns values into numbers and builds a tensor of them"),),
)
DIVIDED_BY_ZERO = Mistake(
    "a division by a value that is zero here",
    "Your code divides by a plain Python number that is 0 for this input, and Python raises ZeroDivisionError (a "
    "tensor would give inf or nan). Where a quantity is written with a division it does not need, such as n·xⁿ / x "
    "for n·xⁿ⁻¹, the rewritten form breaks at exactly the input (x = 0) where the original is an ordinary number.",
    "Look at each division whose divisor can be 0 for an allowed input: write the quantity without dividing by the "
    "input (n * x ** (n - 1)), or give the zero case its own answer.",
    '"Common pitfalls"',
    error_pattern=r"^ZeroDivisionError:",
    concept="python_semantics",
    contradicted_by=(source_lacks(divides, "the code divides nowhere with /"),),
)
FLOAT_OVERFLOW = Mistake(
    "an exponential too large for a float",
    "Your code raises a Python float to a size no float holds (above about 1.8e308): math.exp(x) for x above about "
    "709, or a ** of a large base, raises OverflowError. A formula written with e^(2x), such as (e^(2x) − 1) / "
    "(e^(2x) + 1) for tanh, overflows at inputs whose answer is perfectly ordinary (tanh(400) is 1).",
    "Use the library's own function where there is one (math.tanh, torch.tanh, torch.sigmoid), or write the formula "
    "with e^(−|x|), which never grows past 1, choosing the form by the sign of x.",
    '"Common pitfalls"',
    error_pattern=r"^OverflowError: (math range error|\(34, 'Numerical result out of range'\))",
    concept="dtypes",  # a float's range: the limit of what the dtype holds
    contradicted_by=(source_lacks(exponentiates_floats, "the code takes no exponential or power of a float"),),
)
UNPACKED_PARAMETERS = Mistake(
    "parameters unpacked from one tracked tensor",
    "Your code makes one tensor that requires grad and unpacks (or indexes) the parameters out of it, as in "
    "`a, b, c = torch.zeros(3, requires_grad=True)`. Each name is then a view of that tensor, not a leaf of its "
    "own: backward() fills the .grad of the tensor they came from, and theirs stays None, so the update's "
    "lr * p.grad multiplies by None (torch also warns that a non-leaf's .grad is being read).",
    "Make each parameter a leaf of its own: `a = torch.zeros(1, requires_grad=True)`, and the same for b and c (or "
    "keep one tensor of three and update it whole: `params -= lr * params.grad`).",
    '"Worked example: fitting a line by gradient descent"',
    error_pattern=r"unsupported operand type\(s\) for [-+*/]+=?: .*'NoneType'",
    concept="requires_grad",
    contradicted_by=(source_lacks(unpacks_a_tracked_tensor,
                                  "the code unpacks no parameters out of a tensor that requires grad"),),
)
TRACKED_TO_NUMPY = Mistake(
    ".numpy() of a tensor that requires grad",
    "Your code calls .numpy() on a tensor autograd tracks (an input that requires grad, or one computed from it): "
    "PyTorch refuses with \"Can't call numpy() on Tensor that requires grad\", because a NumPy array cannot keep "
    "the graph. Inputs that require grad are ordinary in training code, and a check hands you one.",
    "Cut the tensor from the graph first, t.detach().numpy(), or stay with torch operations throughout (under "
    "torch.no_grad() where no graph is wanted).",
    '"Common pitfalls", "Calling .numpy() on a tracked tensor"',
    error_pattern=r"Can't call numpy\(\) on Tensor that requires grad",
    concept="detach_and_no_grad",
    contradicted_by=(source_lacks(re.compile(r"\.numpy\s*\(").search, "the code calls no .numpy()"),),
)
# Python's pitfalls that the code shows outright, told where a failed check names nothing else
# (graders/engine/code_pitfalls.py). The lesson teaches none of them: the check's own lesson section is kept.
LATE_BOUND_LOOP_VARIABLE = Mistake(
    "functions made in a loop read its variable late",
    "Your code makes a function (a lambda or a def) inside a loop or comprehension and keeps it to call later, and "
    "that function reads a variable the loop changes. Python looks such a name up when the function is called, not "
    "when it is made, so by the time any of them runs the loop has finished and every one sees the last value: "
    "all of them do the last iteration's work.",
    "Bind the value when the function is made, as a default argument (`lambda t, i=i: ...`) or with "
    "functools.partial, or call each function inside the loop, in the iteration it belongs to.",
    "",
    concept="python_semantics",
)
CACHED_FIRST_ANSWER = Mistake(
    "a cached answer from an earlier call",
    "A function your code calls is wrapped in functools.cache or lru_cache, and what it answers depends on more "
    "than its arguments (the machine's devices, a setting, a random draw). The cache hands every later call the "
    "answer of the first call with the same arguments, so a call made after that state changed gets a stale answer; "
    "and it hands back the very objects it returned before, with every change a caller has made to them since.",
    "Drop the cache: compute the answer at each call, as the docstring asks (asking torch is cheap).",
    "",
    concept="python_semantics",
)
BYTES_REINTERPRETED = Mistake(
    "bytes reinterpreted with .view(dtype)",
    "Your code calls .view with a dtype. On a tensor or a NumPy array that does not convert any number: it reads the "
    "same bytes of memory as another type, so 2.0 as float64 bytes read as int64 is 4611686018427387904, and "
    "types of different widths change the last dimension's size (two int32 become one int64).",
    "Convert the values instead: .to(torch.int64) or .long() for a tensor, .astype(np.int64) for an array, or "
    "torch.as_tensor(values, dtype=...).",
    '"Tensors", the three attributes every tensor has (dtype)',
    concept="dtypes",
)
OTHER_GENERATOR = Mistake(
    "numbers drawn from another random generator",
    "Your code draws its numbers from NumPy's or Python's random generator. The numbers the lesson prints (and the "
    "checks expect) come from torch's own generator, seeded with torch.manual_seed(seed): another generator gives "
    "other numbers, even seeded with the same seed, so the data and everything computed from it differ.",
    "Draw with torch (torch.rand, torch.randn, ...) right after torch.manual_seed(seed), in the order the recipe "
    "gives.",
    "",
    concept="seeds_and_arguments",
)
RETURN_IN_LOOP = Mistake(
    "the loop ends in its first pass",
    "Your code does its work in a loop and then returns (or breaks) inside the loop's body, not after it: the "
    "return or break runs in the first pass, so only the first item is ever handled and the rest of the loop "
    "never runs. Indentation decides it: one level too deep puts the line inside the loop.",
    "Move the return (or break) out of the loop, one indentation level up, so that it runs once the loop is done.",
    "",
    concept="python_semantics",
)
MUTABLE_DEFAULT = Mistake(
    "a default argument that keeps its changes",
    "A function your code calls has a list, dict, set or tensor as a default argument and changes it in place. A "
    "default is made once, when the def runs, and every call that leaves that argument out shares the same object: "
    "what one call added or wrote is still there at the next call, so later answers carry the earlier calls' work.",
    "Default to None and make a fresh object inside the function (`if acc is None: acc = []`), or build the value "
    "locally without a parameter.",
    "",
    concept="python_semantics",
)
STATE_KEPT_BETWEEN_CALLS = Mistake(
    "state kept at module level between calls",
    "The code your function runs changes something the module made once, when it was imported: a list, dict, set, "
    "tensor, model or optimiser bound outside any function, or a name declared global. That object lives as long as "
    "the module, so each call starts from what the calls before it left there: the first call after an import can "
    "be right, and the later ones carry its work (a longer list, a model trained already, a count that went on). "
    "The checks call each function many times.",
    "Make what a call changes inside the function (a fresh list, a fresh model and optimiser, fresh parameters), so "
    "that every call starts from the same place; keep only constants at module level.",
    "",
    concept="python_semantics",
)
SET_ORDER_RELIED_ON = Mistake(
    "a set's items paired by position",
    "Your code zips the items of a set with another sequence, as if the set kept them in the order they were added. "
    "A set keeps no such order (it lists its items as their hashes fall) and holds a repeated item once: in "
    "`a * a` the two operands become one. So items meet the wrong partners, and a repeated one is left out.",
    "Keep items whose order or count matters in a tuple or list (`self._prev = tuple(_children)`), and pair them "
    "where they are made; use a set only to ask whether an item was seen.",
    "",
    concept="python_semantics",
)
ONE_OBJECT_KEPT_EACH_PASS = Mistake(
    "one object kept at every pass",
    "Your code keeps the same tensor (or list) at every pass of a loop, appended or yielded, and changes it in place "
    "between passes. Keeping an object keeps a reference to it, not a copy of its values: every kept item is that one "
    "object, so all of them show what the last pass left in it.",
    "Make a new object in each pass (`e = torch.zeros(n); e[i] = 1`), or keep a copy of it (`e.clone()`, "
    "`list(row)`).",
    "",
    concept="python_semantics",
)
ITERATOR_USED_TWICE = Mistake(
    "an iterator used up before it is used again",
    "Your code keeps an iterator (model.parameters(), a generator expression, zip, map) in a name and goes through "
    "it more than once, or in a loop that repeats. An iterator hands out its items once: the first pass uses them "
    "all up, and every later pass sees none, so whatever the later pass should do (an update, a zeroing, a sum) "
    "silently does nothing.",
    "Turn it into a list once (`params = list(model.parameters())`) or call the method again where you need the "
    "items again.",
    "",
    concept="python_semantics",
)
LOOP_VARIABLE_REUSED = Mistake(
    "an inner loop reuses the outer loop's variable",
    "Your code nests two loops that bind the same name. The inner loop rebinds it, so after the inner loop ends the "
    "outer loop's body reads the inner loop's last value instead of its own, and whatever the outer loop indexes "
    "with that name goes to the wrong place.",
    "Give the inner loop a variable of its own (for j in ... inside for i in ...).",
    "",
    concept="python_semantics",
)
GRAD_STILL_NONE = Mistake(
    "a .grad read while it is still None",
    "Your code uses a tensor's .grad (its .item(), .zero_(), .clone(), ...) at a moment it is None. .grad stays None "
    "until a backward() reaches that tensor: before the first backward() of a run, and always for a tensor that "
    "does not require grad or is not a leaf (a result of an operation, or a view).",
    "Read .grad only after the backward() that fills it, and of the leaf you made with requires_grad=True; to clear "
    "it before the first backward(), test `if p.grad is not None:` or set `p.grad = None`.",
    '"Autograd: gradients for free"',
    error_pattern=r"^AttributeError: 'NoneType' object has no attribute '\w+'",
    concept="requires_grad",
    contradicted_by=(source_lacks(re.compile(r"\.grad\s*\.\s*\w+").search,
                                  "the code reads no attribute of a .grad"),),
)
RESULT_THROWN_AWAY = Mistake(
    "a result computed and thrown away",
    "Your code calls a method that makes a new tensor (.to, .float, .detach, .reshape, ...) as a statement of its "
    "own, without keeping what it returns. These methods leave the tensor they are called on as it was and hand "
    "back the changed copy, so the line does nothing: the tensor you go on using is the unchanged one.",
    "Keep the result: `value = value.to(device)`, or use it directly where it belongs (`moved[key] = value.to(device)`).",
    "",
    concept="python_semantics",
)
FUNCTION_AS_TRUTH = Mistake(
    "a function tested without calling it",
    "Your code tests a function itself (such as `if torch.cuda.is_available:`), not its answer: the brackets are "
    "missing. A function object is always true, so that branch is always taken, whatever the function would have "
    "answered.",
    "Call it: `if torch.cuda.is_available():`.",
    "",
    concept="python_semantics",
)
TRUTH_OF_MANY_VALUES = Mistake(
    "Python's max, min, if or and on a tensor of many values",
    "Your code asks a tensor of several numbers for one True or False: Python's own max(), min(), sorted(), if, "
    "while, and, or and not all do that, comparing whole objects. A tensor of many values refuses, because it holds "
    "one answer per element (\"Boolean value of Tensor with more than one value is ambiguous\").",
    "Use torch's elementwise forms: torch.clamp(t, min=...) or torch.maximum(t, other) for max(number, t), "
    "t.max() for its largest value, torch.where(cond, a, b) for an if per element, (t > 0).all() or .any() to get one "
    "answer.",
    "",
    error_pattern=r"Boolean value of Tensor with more than one (value|element) is ambiguous",
    concept="python_semantics",
)
LIST_OF_ONE_OBJECT = Mistake(
    "one object repeated by list multiplication",
    "Your code makes a list with `[thing] * n` and uses its items as separate objects. Multiplying a list repeats "
    "the reference, not the object: every item is the same tensor (or list), so changing, training or filling one "
    "changes them all, and what should be n independent values is one value n times.",
    "Make each item separately: `[torch.zeros(1, requires_grad=True) for _ in range(n)]`, or write them out one by "
    "one.",
    "",
    concept="python_semantics",
)
PARAMETER_REBOUND = Mistake(
    "a helper that only rebinds its own parameter",
    "A helper function of yours assigns a new value to one of its own parameters (`param = param - lr * grad`) and "
    "hands nothing back. That rebinds the helper's local name only: the caller's tensor is untouched, so the change "
    "is lost as soon as the helper returns.",
    "Change the object in place (under torch.no_grad(): `param -= lr * param.grad`), or return the new value and "
    "assign it where the helper is called.",
    "",
    concept="python_semantics",
)
SETTING_LEFT_CHANGED = Mistake(
    "a global setting changed and left so",
    "Your code switches one of torch's global settings with a plain call (torch.set_grad_enabled(False), "
    "torch.set_default_dtype(...)) and never switches it back. The setting holds for everything that runs after, "
    "in every function, not only the lines meant: later code records no graph, or makes tensors in another dtype.",
    "Use the setting as a context, which restores it on leaving: `with torch.no_grad():` or "
    "`with torch.set_grad_enabled(False):` around the lines it is meant for.",
    "",
    concept="python_semantics",
)
TUPLE_BY_COMMA = Mistake(
    "a trailing comma that makes a tuple",
    "A line of yours ends its value with a comma (`answer = \"d\",`). In Python the comma, not the brackets, makes a "
    "tuple: the name holds a tuple of one item, not the item itself, so it compares unequal to the value meant.",
    "Remove the trailing comma.",
    "",
    concept="python_semantics",
)
ANY_EXERCISE = [MIXED_DTYPES, DTYPE_DIFFERS, SHAPE_DIFFERS, STILL_TRACKED, CUT_FROM_THE_GRAPH, GRAPH_OF_THE_GRADIENT_KEPT, VALUES_REORDERED,
                SCALED_RESULT, NAN_WHERE_FINITE, PLACES_LEFT_UNFILLED, NOT_NONE_FOR_NONE, FLOAT_FOR_WHOLE, FORWARD_UNDER_NO_GRAD,
                GRAPH_CUT_THROUGH_NUMBERS, DIVIDED_BY_ZERO, FLOAT_OVERFLOW, UNPACKED_PARAMETERS, TRACKED_TO_NUMPY, LATE_BOUND_LOOP_VARIABLE, CACHED_FIRST_ANSWER,
                BYTES_REINTERPRETED, OTHER_GENERATOR, RETURN_IN_LOOP, MUTABLE_DEFAULT, STATE_KEPT_BETWEEN_CALLS,
                ITERATOR_USED_TWICE, SET_ORDER_RELIED_ON, ONE_OBJECT_KEPT_EACH_PASS,
                LOOP_VARIABLE_REUSED, GRAD_STILL_NONE, RESULT_THROWN_AWAY, FUNCTION_AS_TRUTH, TRUTH_OF_MANY_VALUES, LIST_OF_ONE_OBJECT,
                PARAMETER_REBOUND, SETTING_LEFT_CHANGED, TUPLE_BY_COMMA]


def concept_of(name: str | None, catalogue: Iterable[Mistake]) -> str:
    """The concept of the mistake called `name`, from an exercise's catalogue or the ones any exercise can make;
    "" when none is called so. For a check that names a mistake by its name alone (having reworded its
    explanation for the case at hand), so that its result still carries the mistake's concept."""
    mistake = catalogued(name, catalogue)
    return mistake.concept if mistake is not None else ""


def catalogued(name: str | None, catalogue: Iterable[Mistake]) -> Mistake | None:
    """The mistake called `name` in an exercise's catalogue or the ones any exercise can make; None when none is."""
    return next((mistake for mistake in (*catalogue, *ANY_EXERCISE) if name and mistake.name == name), None)
