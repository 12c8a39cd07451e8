"""Single edits of a reference module, each with its family and a plain-words account of the edit.

A student's wrong answer is often the right code with one thing changed: a sign, an operator, a bound, a
call left out. Every such edit of the reference is a *mutant*; the grader runs them where no catalogued
mistake explains an answer (graders/engine/single_edits.py). Here they are only enumerated, in one fixed
order, so that an index names the same edit on every machine while the reference's text is the same.

A description says what the edit does in words filled from the code around it ("the sign of one term
flipped: the term with sin x"), short, never a line of the reference.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass
from typing import Callable, Iterator

# family -> the short name a student sees as the mistake's name, and the hint that goes with it
# family -> (the short name a student reads as the mistake's name, the edit in general words where edits of the
# family differ, the hint that goes with it)
FAMILIES: dict[str, tuple[str, str, str]] = {
    "sign": ("one sign flipped", "one sign flipped", "Look for the one term or factor whose sign differs from the "
                                                     "formula's."),
    "operator": ("one operation changed", "one operation changed (× for ÷, a power for a product)",
                 "Look for the one operation that is not the formula's."),
    "constant": ("one number changed", "one of its numbers changed", "Compare each number your code uses with the "
                                                                     "docstring and the lesson."),
    "off_by_one": ("a whole number off by one", "one whole number (a count, a bound, a size) off by one",
                   "Look at each count and bound: where it starts, where it stops, whether the boundary is in or out."),
    "reduction": ("another reduction", "another reduction (a sum for a mean, or a mean for a sum)",
                  "Check how the values are reduced to one: a sum and a mean differ by a factor."),
    # A size read along another dimension (X.shape[1] for X.shape[0]) is this family too: the index of a dimension is
    # not a count, and "a whole number off by one" would send the student looking at counts and bounds.
    "axis": ("another dimension", "another dimension (a reduction along it, or a size read along it)",
             "Check the dimension each reduction runs along and each size is read along."),
    "order_statistic": ("another order statistic", "another of the values taken (the smallest for the largest, or "
                                                   "the other way)",
                        "Check which of the values is taken: the largest, the smallest, or another."),
    "missing_call": ("one call left out", "one call left out", "Look for the one step of the recipe that your code "
                                                               "does not take."),
    # Things a loop treats alike (the parameters a, b and c) where one of them misses a step: the others are right.
    "left_out_for_one": ("one of them left out", "one of the things treated alike left out of a step",
                         "Check that each of the things treated alike gets every step, not all of them but one."),
    "swapped": ("two things swapped", "two things in the wrong order", "Check the order of the two things named: "
                                                                       "which comes first."),
    "dropped_branch": ("one case left out", "one case left out", "Look for the case your code does not treat apart."),
    "distribution": ("another random distribution", "numbers drawn from another distribution",
                     "Check which random function draws the numbers: torch.rand is uniform on [0, 1), torch.randn "
                     "is normal."),
    "function": ("another function", "one function of the formula replaced by another",
                 "Check each function of the formula against the lesson's."),
    # A term of a sum the code does not have: `X @ weight.T` for `X @ weight.T + bias`.
    "term": ("one term left out", "one term of a sum left out",
             "Compare the terms of your formula with the docstring's: one of them is missing."),
    # An argument the code never reads: the default stands in for whatever the caller gives.
    "ignored_argument": ("an argument ignored", "one argument ignored (its default always used)",
                         "Check that each argument is used where the docstring says: a call with another value must "
                         "change the result."),
    # Brackets the formula has that the code left out: `s * 1 - s * x` for `s * (1 - s) * x`.
    "brackets": ("brackets left out", "the brackets around one part of the formula left out",
                 "Check the order of operations: * and / bind before + and −, so a sum or difference that a factor "
                 "multiplies needs its brackets."),
}

_SPOKEN_CHARS = 32  # past this, a piece of code is not spoken in words: the description stays general
_MATH = {"sin", "cos", "tan", "tanh", "sigmoid", "log", "sqrt", "abs", "relu"}
_OPS = {ast.Add: "+", ast.Sub: "−", ast.Mult: "·", ast.Div: "/", ast.Pow: "^", ast.MatMult: "@"}
_COMPARISONS = {ast.Lt: "<", ast.LtE: "≤", ast.Gt: ">", ast.GtE: "≥", ast.Eq: "=", ast.NotEq: "≠"}
# One function for another of its kind: the two trigonometric ones, the two squashing activations of the lesson.
_SWAPPED_FUNCTIONS = {"sin": "cos", "cos": "sin", "sigmoid": "tanh", "tanh": "sigmoid"}
_REDUCTIONS = {"sum": "mean", "mean": "sum"}
_ORDER = {"max": "min", "min": "max", "argmax": "argmin", "argmin": "argmax", "amax": "amin", "amin": "amax"}
# A value's position for the value: the index of the largest where the largest belongs.
_POSITION = {"max": "argmax", "min": "argmin", "amax": "argmax", "amin": "argmin"}
_DISTRIBUTIONS = {"rand": "randn", "randn": "rand", "rand_like": "randn_like", "randn_like": "rand_like",
                  "uniform_": "normal_", "normal_": "uniform_"}
_DRAWS = {"rand": "uniformly from [0, 1)", "randn": "from the normal distribution", "rand_like": "uniformly from [0, 1)",
          "randn_like": "from the normal distribution", "uniform_": "uniformly", "normal_": "from the normal distribution"}
_DROPPABLE_METHODS = {"detach", "clone", "abs", "float", "double", "t", "squeeze", "contiguous", "item", "sum",
                      "mean", "flatten"}


@dataclass(frozen=True)
class Mutant:
    """One single edit of a reference module."""

    index: int  # its place in mutants()'s order: the same edit while the reference's text is the same
    function: str  # the top-level function whose code it edits
    family: str  # a key of FAMILIES
    edit: str  # what the edit does, in words: "the sign of one term flipped: the term with sin x"
    source: str  # the whole edited module
    # A case left out (family dropped_branch): its condition as `case_text` reads it, so that the grader can see
    # whether a student's function tests that very case (then "one case left out" is not what it does); else "".
    case: str = ""


@dataclass(frozen=True)
class _Edit:
    path: tuple[tuple[str, int | None], ...]  # from the module to the node: (field, index in a list or None)
    make: Callable[[ast.AST], ast.AST]  # the edited node, from a copy of the original
    family: str
    edit: str
    case: str = ""


def spoken(node: ast.AST) -> str | None:
    """A short piece of code in words ("sin x", "e^(−x)", "w.grad"); None when it would be long or unclear."""
    text = _speak(node)
    return text if text is not None and len(text) <= _SPOKEN_CHARS else None


def _speak(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return f"{node.value:g}"
    if isinstance(node, ast.Attribute):
        inner = _speak(node.value)
        return None if inner is None else (node.attr if inner in ("torch", "math", "np") else f"{inner}.{node.attr}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _speak(node.operand)
        return None if inner is None else f"−{_grouped(node.operand, inner)}"
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _speak(node.left), _speak(node.right)
        if left is None or right is None:
            return None
        return f"{_grouped(node.left, left)} {_OPS[type(node.op)]} {_grouped(node.right, right)}"
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        name, argument = _called(node), _speak(node.args[0])
        if name == "exp" and argument is not None:
            return f"e^({argument})"
        if name in _MATH and argument is not None:
            return f"{name} {argument}" if isinstance(node.args[0], ast.Name) else f"{name}({argument})"
    if isinstance(node, ast.Call):
        return _speak_call(node)
    if isinstance(node, ast.Subscript) and _simple(node.slice):
        inner, index = _speak(node.value), _speak_simple(node.slice)
        return None if inner is None or index is None else f"{inner}[{index}]"
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARISONS:
        left, right = _speak(node.left), _speak(node.comparators[0])
        if left is None or right is None:
            return None
        return f"{left} {_COMPARISONS[type(node.ops[0])]} {right}"
    return None


def _simple(node: ast.AST) -> bool:
    """An argument or index short enough to say as it is: a name, a number, a short string, an attribute of a name,
    a negative number (`-1`), `x.shape[0]`; never a call (a call within a call is no longer short to say)."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, bool) or node.value is None or (
            type(node.value) is str and len(node.value) <= 12)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float)
    if isinstance(node, ast.Attribute):
        return _simple(node.value) and not isinstance(node.value, ast.Constant)
    if isinstance(node, ast.Subscript):
        return _simple(node.value) and _simple(node.slice)
    return isinstance(node, ast.Name)


def _speak_call(call: ast.Call) -> str | None:
    """A short call as it is written (`value.to(device)`, `X.size(1)`, `cuda.is_available()`), torch's prefix left
    out as for attributes; None where an argument is not simple (`_simple`) or is unpacked."""
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    if not all(_simple(a) for a in call.args) or not all(k.arg and _simple(k.value) for k in call.keywords):
        return None
    func = _speak(call.func)
    pieces = [*(_speak_simple(a) for a in call.args), *(f"{k.arg}={_speak_simple(k.value)}" for k in call.keywords)]
    if func is None or any(piece is None for piece in pieces):
        return None
    return f"{func}({', '.join(pieces)})"  # type: ignore[arg-type]


def _speak_simple(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and type(node.value) is str:
        return f'"{node.value}"'
    if isinstance(node, ast.Constant) and (type(node.value) is bool or node.value is None):
        return str(node.value)
    return _speak(node)


def _grouped(node: ast.AST, text: str) -> str:
    return f"({text})" if isinstance(node, ast.BinOp) else text


def _called(call: ast.Call) -> str:
    """The name a call calls: `sum` for torch.sum(...) and for x.sum()."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _with(term: str | None, general: str, particular: str) -> str:
    return general if term is None else f"{general}: {particular.format(term=term)}"


def _node_edits(node: ast.AST) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    """(make, family, edit) for every single edit of this node itself."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        flipped = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        yield (lambda n, o=flipped: ast.BinOp(n.left, o, n.right), "sign",
               _with(spoken(node.right), "the sign of one term flipped", "the term with {term}"))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and spoken(node.right):
        yield lambda n: n.left, "term", f"the term {spoken(node.right)} left out"
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Div)):
        left, right = spoken(node.left), spoken(node.right)
        what = "subtraction" if isinstance(node.op, ast.Sub) else "division"
        both = f"{left} and {right}" if left and right else None
        yield (lambda n: ast.BinOp(n.right, n.op, n.left), "swapped",
               _with(both, f"the two sides of one {what} swapped", "{term}"))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        other = ast.Div() if isinstance(node.op, ast.Mult) else ast.Mult()
        verb = "dividing where it should multiply" if isinstance(node.op, ast.Mult) else \
            "multiplying where it should divide"
        term = spoken(node.right)
        yield (lambda n, o=other: ast.BinOp(n.left, o, n.right), "operator",
               f"{term} {verb}" if term else f"one factor {verb}")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        yield (lambda n: ast.BinOp(n.left, ast.Mult(), n.right), "operator",
               _with(spoken(node.left), "a power computed as a product", "{term} multiplied, not raised"))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) \
            and node.right.value == 2:
        # A square's sibling: the size of an error measured by its absolute value (an L1 for an L2).
        yield (lambda n: ast.Call(ast.Name("abs", ast.Load()), [n.left], []), "function",
               f"the absolute value of {spoken(node.left)} taken where its square belongs" if spoken(node.left)
               else "an absolute value taken where a square belongs")
    if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
        flipped = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        # Which update: a loop may update several things alike (w and b), and one of them alone is flipped.
        yield (lambda n, o=flipped: ast.AugAssign(n.target, o, n.value), "sign",
               _with(spoken(node.target), "the sign of one update flipped", "{term} goes the other way"))
    if isinstance(node, ast.Call) and _called(node) in ("clamp", "clip") and len(node.keywords) == 1 \
            and node.keywords[0].arg in ("min", "max"):
        bound, other = node.keywords[0].arg, {"min": "max", "max": "min"}[node.keywords[0].arg]
        said = spoken(node.keywords[0].value)
        words = {"min": "a floor", "max": "a ceiling"}
        yield (lambda n, o=other: ast.Call(n.func, n.args, [ast.keyword(o, n.keywords[0].value)]), "order_statistic",
               f"{words[other]} ({other}={said}) where {words[bound]} ({bound}={said}) belongs" if said else
               f"{words[other]} where {words[bound]} belongs")
    if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and 3 <= len(node.value.elts) <= 4:
        yield (lambda n: ast.Return(ast.Tuple(list(reversed(n.value.elts)), ast.Load())), "swapped",
               "the results returned in reverse order")
    if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and 2 <= len(node.value.elts) <= 4:
        for i in range(len(node.value.elts) - 1):
            first, second = spoken(node.value.elts[i]), spoken(node.value.elts[i + 1])
            yield (lambda n, i=i: ast.Return(ast.Tuple([*n.value.elts[:i], n.value.elts[i + 1], n.value.elts[i],
                                                        *n.value.elts[i + 2:]], ast.Load())), "swapped",
                   f"{first} and {second} returned in each other's place" if first and second else
                   "two of the results returned in each other's place")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _is_count(node.right):
        for op, sign in ((ast.Sub(), "−"), (ast.Add(), "+")):
            yield (lambda n, o=op: ast.BinOp(n.left, n.op, ast.BinOp(n.right, o, ast.Constant(1))), "off_by_one",
                   _with(spoken(node.right), "a division by a count off by one",
                         f"divided by {{term}} {sign} 1 where {{term}} belongs"))
    if isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
        for op, sign in ((ast.Add(), "+"), (ast.Sub(), "−")):
            yield (lambda n, o=op: ast.Return(ast.BinOp(n.value, o, ast.Constant(1))), "off_by_one",
                   f"{node.value.id} {sign} 1 returned where {node.value.id} belongs")
    if isinstance(node, (ast.Return, ast.Assign, ast.AugAssign)) and node.value is not None:
        yield from _bracket_edits(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield (lambda n: n.operand, "sign", _with(spoken(node.operand), "a minus sign dropped", "the one before {term}"))
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        yield from _constant_edits(node.value)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        swap = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}.get(type(node.ops[0]))
        if swap is not None:
            edited = ast.Compare(node.left, [swap()], node.comparators)
            both = f"{spoken(edited)} where {spoken(node)} belongs" if spoken(node) else None
            yield (lambda n, s=swap: ast.Compare(n.left, [s()], n.comparators), "off_by_one",
                   _with(both, "the boundary case of one comparison counted on the wrong side", "{term}"))
    if isinstance(node, ast.IfExp):
        yield lambda n: n.orelse, "dropped_branch", _one_value_always(node)
    if isinstance(node, ast.Call):
        yield from _call_edits(node)


def _is_count(node: ast.AST) -> bool:
    """A name, or a size read (`len(x)`, `x.numel()`, `x.shape[0]`, `x.size(0)`): what a count divides by."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Call):
        return _called(node) in ("len", "numel", "size")
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"


# An opening bracket that groups, not one that calls or indexes (`f(a + b)`, `x[(i + 1)]` keep theirs).
_GROUPING = r"(?<![\w\)\]])\("


def _bracket_edits(value: ast.expr) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    """The expression with the brackets around one of its parts left out, read again as Python reads it:
    `s * (1 - s) * x` becomes `s * 1 - s * x`."""
    text = ast.unparse(value)
    for part in ast.walk(value):
        if not isinstance(part, ast.BinOp):
            continue
        inner = ast.unparse(part)
        found = re.search(_GROUPING + re.escape(inner) + r"\)", text)
        if found is None:
            continue
        try:
            dropped = ast.parse(text[:found.start()] + inner + text[found.end():], mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            continue
        if ast.dump(dropped) != ast.dump(value):
            said = spoken(part)
            yield (lambda n, d=dropped: _with_value(n, d), "brackets",
                   f"the brackets around {said} left out" if said else "the brackets around one part left out")


def _with_value(statement: ast.AST, value: ast.expr) -> ast.AST:
    edited = copy.copy(statement)
    edited.value = copy.deepcopy(value)  # type: ignore[attr-defined]
    return edited


def _one_value_always(node: ast.IfExp) -> str:
    """The words of `body if test else orelse` become `orelse`: which value is always taken, which never, and the
    case that no longer makes the difference, as far as each is short to say."""
    kept, lost, when = spoken(node.orelse), spoken(node.body), spoken(node.test)
    if kept and lost:
        said = f"{kept} always taken, never {lost}" + (f", not even when {when}" if when else "")
    elif kept:
        said = f"{kept} always taken" + (f", even when {when}" if when else "")
    elif lost:
        said = f"{lost} never taken" + (f", not even when {when}" if when else "")
    else:
        return "one case left out: one of two values always taken"
    return f"one case left out: {said}"


def _dimension_indices(function: ast.AST) -> dict[int, tuple[int, str | None] | None]:
    """The whole numbers of a function that index a dimension (`X.shape[0]`, `X.size(0)`, `dim=0`), by id of their
    node: (the index, the size's code with {k} for the index, or None where it is long to say), or None for a number
    whose own edits are left out (the `1` of `-1`, a `dim=` keyword's, which `_call_edits` edits as an axis)."""
    found: dict[int, tuple[int, str | None] | None] = {}

    def index(node: ast.AST, code: str | None) -> None:
        value = _whole(node)
        if value is None:
            return
        found[id(node)] = value, code
        if isinstance(node, ast.UnaryOp):
            found[id(node.operand)] = None

    for node in ast.walk(function):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            owner = spoken(node.value.value)
            index(node.slice, None if owner is None else f"{owner}.shape[{{k}}]")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
                and len(node.args) == 1 and not node.keywords:
            owner = spoken(node.func.value)
            index(node.args[0], None if owner is None else f"{owner}.size({{k}})")
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "dim" and _whole(keyword.value) is not None:
                    found[id(keyword.value)] = None
                    if isinstance(keyword.value, ast.UnaryOp):
                        found[id(keyword.value.operand)] = None
    return found


def _whole(node: ast.AST) -> int | None:
    """The whole number a node writes (`0`, `-1`), or None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    return None


def _dimension(k: int) -> str:
    return {-1: "the last dimension", -2: "the second-to-last dimension"}.get(k, f"dimension {k}")


def _dimension_edits(value: int, code: str | None) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    """An index of a dimension one off, said as a dimension: the size along another one, not a count off by one."""
    for changed in (value + 1, value - 1):
        size = None if code is None else code.format(k=f"{changed}".replace("-", "−"))
        shown = f" ({size})" if size is not None and len(size) <= _SPOKEN_CHARS else ""
        yield (lambda n, v=changed: ast.Constant(v), "axis",
               f"the size along {_dimension(changed)}{shown} taken where {_dimension(value)}'s belongs")


def _constant_edits(value: int | float) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    if type(value) is int:
        for changed in (value + 1, value - 1):
            yield (lambda n, v=changed: ast.Constant(v), "off_by_one", f"the whole number {value} changed to {changed}")
    elif value != 0:
        for changed in (value * 2, value / 2):
            yield (lambda n, v=changed: ast.Constant(v), "constant", f"the number {value:g} changed to {changed:g}")


def _call_edits(node: ast.Call) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    name = _called(node)
    func = node.func
    renames = ((_SWAPPED_FUNCTIONS, "function", "{new} in place of {old}"),
               (_REDUCTIONS, "reduction", "a {new} taken where a {old} belongs"),
               (_ORDER, "order_statistic", "the {new} taken where the {old} belongs"),
               (_POSITION, "order_statistic", "the {new} taken where the {old} belongs"),
               (_DISTRIBUTIONS, "distribution", "numbers drawn {new_draw} where numbers drawn {old_draw} belong"))
    for table, family, template in renames:
        if name in table and (isinstance(func, ast.Attribute) or isinstance(func, ast.Name)):
            new = table[name]
            words = template.format(new=_word(new), old=_word(name), new_draw=_DRAWS.get(new, ""),
                                    old_draw=_DRAWS.get(name, ""))
            yield (lambda n, new=new: _renamed(n, new), family, words)
    dim = next((k for k in node.keywords if k.arg == "dim" and isinstance(k.value, ast.Constant)
                and type(k.value.value) is int), None)
    if dim is not None:
        other = 1 if dim.value.value in (0, -2) else 0
        yield (lambda n, o=other: _with_dim(n, o), "axis",
               f"the {_word(name)} taken along dimension {other} instead of {dim.value.value}")
    if isinstance(func, ast.Attribute) and name in _DROPPABLE_METHODS and not node.args and not node.keywords:
        on = spoken(func.value)
        yield (lambda n: n.func.value, "missing_call", _with(on, f"the {name}() left out", f"the one on {on}"))
    if len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args[:2]):
        yield (lambda n: ast.Call(n.func, [n.args[1], n.args[0], *n.args[2:]], n.keywords), "swapped",
               f"the first two arguments of {name or 'one call'} swapped")
    if isinstance(func, ast.Name) and name == "range" and len(node.args) == 1 and not node.keywords \
            and not isinstance(node.args[0], (ast.Constant, ast.Starred)):
        yield from _bound_edits(node.args[0])


def _bound_edits(stop: ast.expr) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    """A loop's `range(stop)` off by one pass: one fewer, one more, or started at 1 (a number's own edits are the
    constant's)."""
    said = spoken(stop)
    yield (lambda n: ast.Call(n.func, [ast.BinOp(n.args[0], ast.Sub(), ast.Constant(1))], []), "off_by_one",
           _with(said, "a loop that runs one pass fewer", "{term} − 1 passes where {term} belong"))
    yield (lambda n: ast.Call(n.func, [ast.BinOp(n.args[0], ast.Add(), ast.Constant(1))], []), "off_by_one",
           _with(said, "a loop that runs one pass more", "{term} + 1 passes where {term} belong"))
    yield (lambda n: ast.Call(n.func, [ast.Constant(1), n.args[0]], []), "off_by_one",
           "a loop that starts at 1 where it starts at 0 (its first pass left out)")


def _word(name: str) -> str:
    return {"argmax": "position of the largest", "argmin": "position of the smallest", "max": "largest",
            "min": "smallest", "amax": "largest", "amin": "smallest"}.get(name, name)


def _renamed(call: ast.Call, new: str) -> ast.Call:
    func = call.func
    renamed = ast.Attribute(func.value, new, ast.Load()) if isinstance(func, ast.Attribute) else ast.Name(new, ast.Load())
    return ast.Call(renamed, call.args, call.keywords)


def _with_dim(call: ast.Call, dim: int) -> ast.Call:
    keywords = [ast.keyword("dim", ast.Constant(dim)) if k.arg == "dim" else k for k in call.keywords]
    return ast.Call(call.func, call.args, keywords)


def _statement_edits(body: list[ast.stmt], index: int, each: tuple[str, str] | None
                     ) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    """Edits of one statement of a block: a call left out, a branch dropped. `each`: the block is a loop's over a
    few named things, (the loop's name, those things in words), so that words speak of them, not of the loop's name."""
    statement = body[index]
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        words = _left_out(statement.value)
        if each is not None and words.startswith(f"{each[0]}'s gradient never"):
            words = f"the gradients of {each[1]} never cleared, so that they grow step after step"
        yield lambda n: ast.Pass(), "missing_call", words
    if isinstance(statement, ast.If):
        condition = spoken(statement.test)
        yield (lambda n: ast.If(ast.Constant(False), [ast.Pass()], n.orelse or [ast.Pass()]), "dropped_branch",
               _with(condition, "one case left out", "the case when {term}"))


def _cleared(call: ast.Call) -> str | None:
    """Whose gradient `call` clears (`p` for `p.grad.zero_()`), or None for another call."""
    func = call.func
    owner = spoken(func.value) if isinstance(func, ast.Attribute) else None
    if _called(call) == "zero_" and owner and owner.endswith(".grad"):
        return owner.removesuffix(".grad")
    return None


def _left_out(call: ast.Call) -> str:
    name = _called(call)
    if _cleared(call):
        return f"{_cleared(call)}'s gradient never cleared, so that it grows step after step"
    if name == "zero_grad":
        return "the gradients never cleared, so that they grow step after step"
    if name == "manual_seed":
        return "the seed never set before the numbers are drawn"
    if name == "backward":
        return "one backward() never called"
    if name == "step":
        return "the optimiser's step never taken"
    return f"the call to {name}() left out" if name else "one call left out"


def _loop_edits(loop: ast.For) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    """A loop over a few named things (`for p in (a, b, c)`) whose one call or one update is skipped for one of them,
    or whose one update goes the other way for one of them: code that writes a step per thing slips on one alone."""
    if not (isinstance(loop.target, ast.Name) and isinstance(loop.iter, (ast.Tuple, ast.List))
            and all(isinstance(e, ast.Name) for e in loop.iter.elts)):
        return
    for position, statement in enumerate(loop.body):
        if _updates(statement, loop.target.id):
            for element in loop.iter.elts:
                yield (lambda n, p=position, name=element.id: _skipping(n, p, name), "left_out_for_one",
                       f"{element.id} never updated: the update left out for {element.id} alone")
                verbs = "adds where it should subtract" if isinstance(statement.op, ast.Sub) else \
                    "subtracts where it should add"
                yield (lambda n, p=position, name=element.id: _flipping(n, p, name), "sign",
                       f"{element.id} alone moved the other way: its update {verbs}, the others' do not")
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
            continue
        for element in loop.iter.elts:
            said = _left_out(statement.value).replace(f"{loop.target.id}'s", f"{element.id}'s")
            if said.startswith(f"{element.id}'s"):
                words = said
            else:
                words = f"for {element.id} alone, {said}"
            yield (lambda n, p=position, name=element.id: _skipping(n, p, name), "missing_call", words)


def _updates(statement: ast.stmt, name: str) -> bool:
    """`name += ...` or `name -= ...`: an in-place update of the loop's own name."""
    return (isinstance(statement, ast.AugAssign) and isinstance(statement.op, (ast.Add, ast.Sub))
            and isinstance(statement.target, ast.Name) and statement.target.id == name)


def _skipping(loop: ast.For, position: int, name: str) -> ast.For:
    body = list(loop.body)
    guard = ast.Compare(ast.Name(loop.target.id, ast.Load()), [ast.IsNot()], [ast.Name(name, ast.Load())])
    body[position] = ast.If(guard, [body[position]], [])
    return ast.For(loop.target, loop.iter, body, loop.orelse)


def _flipping(loop: ast.For, position: int, name: str) -> ast.For:
    body = list(loop.body)
    update = body[position]
    flipped = ast.AugAssign(update.target, ast.Sub() if isinstance(update.op, ast.Add) else ast.Add(), update.value)
    guard = ast.Compare(ast.Name(loop.target.id, ast.Load()), [ast.IsNot()], [ast.Name(name, ast.Load())])
    body[position] = ast.If(guard, [update], [flipped])
    return ast.For(loop.target, loop.iter, body, loop.orelse)


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef, tuple]]:
    """The module's top-level functions and its top-level classes' methods (a student's class, as micrograd's
    Value, is code a single edit can break too), each with its name and its path in the tree."""
    for position, node in enumerate(tree.body):
        if isinstance(node, ast.FunctionDef):
            yield node.name, node, (("body", position),)
        elif isinstance(node, ast.ClassDef):
            for inner, method in enumerate(node.body):
                if isinstance(method, ast.FunctionDef):
                    yield f"{node.name}.{method.name}", method, (("body", position), ("body", inner))


def _edits(tree: ast.Module) -> Iterator[tuple[str, _Edit]]:
    """Every single edit of the module's functions and methods, in one fixed order, with the function it edits."""
    for name, function, root in _functions(tree):
        # A method's edit says where it is: the check's call names only the function the student's code was run by.
        where = f" (in {name})" if "." in name else ""
        dimensions, local = _dimension_indices(function), _local_names(function)
        for path, node in _walk(function, root):
            if _is_docstring(node) or path[-1][0] in ("annotation", "returns"):
                continue
            if id(node) in dimensions:
                index = dimensions[id(node)]
                own = () if index is None else _dimension_edits(*index)
            else:
                own = _node_edits(node)
            for make, family, words in own:
                case = case_text(node.test, local) if isinstance(node, ast.IfExp) and family == "dropped_branch" \
                    else ""
                yield name, _Edit(path, make, family, words + where, case)
            if isinstance(node, ast.For):
                for make, family, words in _loop_edits(node):
                    yield name, _Edit(path, make, family, words + where)
            if node is function:
                for make, family, words in _ignored_arguments(function):
                    yield name, _Edit(path, make, family, words + where)
            each = _loop_names(node)
            for field in ("body", "orelse"):
                block = getattr(node, field, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    for make, family, words in _order_edits(block, field):
                        yield name, _Edit(path, make, family, words + where)
                    for index in range(len(block)):
                        statement = block[index]
                        for make, family, words in _statement_edits(block, index, each if field == "body" else None):
                            case = case_text(statement.test, local) if isinstance(statement, ast.If) \
                                and family == "dropped_branch" else ""
                            yield name, _Edit((*path, (field, index)), make, family, words + where, case)


def _step(statement: ast.stmt) -> str | None:
    """A simple statement in words, for the order of two steps: a call by what it does (never as written: a whole
    line of the reference), an update or an assignment by what it sets."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        return _done_by(statement.value)
    if isinstance(statement, ast.AugAssign) and spoken(statement.target):
        return f"the update of {spoken(statement.target)}"
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and spoken(statement.targets[0]):
        return f"{spoken(statement.targets[0])} = ..."
    return None


def _done_by(call: ast.Call) -> str:
    name = _called(call)
    if _cleared(call):
        return f"the clearing of {_cleared(call)}'s gradient"
    return {"zero_grad": "the clearing of the gradients", "backward": "backward()", "step": "the optimiser's step",
            "manual_seed": "the seeding"}.get(name, f"the call to {name}()" if name else "one call")


def _order_edits(block: list[ast.stmt], field: str) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    """Two steps next to each other done in the other order (the gradients cleared before the update that needs
    them): an edit of the block's owner, which gets the block with the two swapped."""
    for index in range(len(block) - 1):
        first, second = _step(block[index]), _step(block[index + 1])
        if first and second and first != second:
            yield (lambda n, i=index: _with_block(n, field, i), "swapped",
                   f"{second} done before {first}, where it comes after")


def _with_block(owner: ast.AST, field: str, index: int) -> ast.AST:
    edited = copy.copy(owner)
    block = list(getattr(owner, field))
    block[index], block[index + 1] = block[index + 1], block[index]
    setattr(edited, field, block)
    return edited


def parameters_with_defaults(arguments: ast.arguments) -> list[tuple[ast.arg, ast.expr]]:
    """A signature's parameters that have a default, each with its default's expression (positional ones take the
    last defaults, keyword-only ones their own)."""
    positional = [*arguments.posonlyargs, *arguments.args]
    return [*zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults),
            *((a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None)]


def _ignored_arguments(function: ast.FunctionDef) -> Iterator[tuple[Callable[[ast.AST], ast.AST], str, str]]:
    """Each argument with a number for its default, never read: every use of it in the body reads the default."""
    for argument, default in parameters_with_defaults(function.args):
        if isinstance(default, ast.Constant) and type(default.value) in (int, float):
            yield (lambda n, a=argument.arg, d=default.value: _reading_default(n, a, d), "ignored_argument",
                   f"the argument {argument.arg} ignored: its default {default.value!r} always used")


def _reading_default(function: ast.AST, name: str, value: int | float) -> ast.AST:
    class Reading(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.Constant(value) if node.id == name and isinstance(node.ctx, ast.Load) else node

    edited = copy.deepcopy(function)
    edited.body = [Reading().visit(statement) for statement in edited.body]  # type: ignore[attr-defined]
    return edited


def _local_names(function: ast.AST) -> set[str]:
    """The names a function binds but its parameters: what its author may call anything (the parameters are the
    stub's, the same in the reference and in every student's code)."""
    parameters = {a.arg for a in ast.walk(function) if isinstance(a, ast.arg)}
    bound = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return bound - parameters


def case_text(test: ast.expr, local: set[str]) -> str:
    """A condition as the same test reads whatever its author names things: each of the function's own names is
    `_`, and a name taken from torch, NumPy or math is its last part (`torch.Tensor` and `Tensor` alike)."""
    class Plain(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.Name("_" if node.id in local else node.id, ast.Load())

        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if isinstance(node.value, ast.Name) and node.value.id in ("torch", "np", "numpy", "math") \
                    and node.value.id not in local:
                return ast.Name(node.attr, ast.Load())
            return ast.Attribute(self.visit(node.value), node.attr, ast.Load())

    return ast.dump(Plain().visit(copy.deepcopy(test)), include_attributes=False)


def tested_cases(source: str, function: str) -> set[str] | None:
    """The conditions (`case_text`) that the function `function` ("name" or "Class.method") of a module tests in an
    `if`, a conditional expression, a `while` or a comprehension's `if`; None where the source does not parse or has
    no such function (nothing is known of it)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found = next((node for name, node, _ in _functions(tree) if name == function), None)
    if found is None:
        return None
    local = _local_names(found)
    tests = [n.test for n in ast.walk(found) if isinstance(n, (ast.If, ast.IfExp, ast.While))]
    tests += [t for n in ast.walk(found) if isinstance(n, ast.comprehension) for t in n.ifs]
    return {case_text(test, local) for test in tests}


def _loop_names(node: ast.AST) -> tuple[str, str] | None:
    """For `for p in (a, b, c)`: ("p", "a, b and c"); None for any other node."""
    if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name)
            and isinstance(node.iter, (ast.Tuple, ast.List)) and node.iter.elts
            and all(isinstance(e, ast.Name) for e in node.iter.elts)):
        return None
    names = [e.id for e in node.iter.elts]
    return node.target.id, names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _walk(node: ast.AST, path: tuple) -> Iterator[tuple[tuple, ast.AST]]:
    yield path, node
    for field, value in ast.iter_fields(node):
        if field in ("annotation", "returns", "decorator_list", "type_comment"):
            continue
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _walk(item, (*path, (field, index)))
        elif isinstance(value, ast.AST):
            yield from _walk(value, (*path, (field, None)))


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _applied(tree: ast.Module, edit: _Edit) -> str:
    edited = copy.deepcopy(tree)
    parent: ast.AST = edited
    for field, index in edit.path[:-1]:
        parent = getattr(parent, field) if index is None else getattr(parent, field)[index]
    field, index = edit.path[-1]
    if index is None:
        setattr(parent, field, edit.make(getattr(parent, field)))
    else:
        getattr(parent, field)[index] = edit.make(getattr(parent, field)[index])
    return ast.unparse(ast.fix_missing_locations(edited))


def mutants(source: str) -> list[Mutant]:
    """Every single edit of the module `source`, each as a whole edited module; edits that change nothing of the
    code (the same text once unparsed) are left out, the order and indices staying those of the enumeration."""
    tree = ast.parse(source)
    plain = ast.unparse(tree)
    found = []
    for index, (function, edit) in enumerate(_edits(tree)):
        edited = _applied(tree, edit)
        if edited != plain:
            found.append(Mutant(index, function, edit.family, edit.edit, edited, edit.case))
    return found
