"""What the student's source shows about an error it raised: the grader reads the code (never runs it) for the one
construct that makes the error, so that the error's cause is named only where the code has it.

An error message alone fits many causes ("does not require grad" follows a no_grad block, a detach, an .item(), a
leaf made without requires_grad...). Each predicate here says whether the source has one of them; a source that does
not parse, or that the grader cannot follow, shows nothing.
"""

from __future__ import annotations

import ast
from typing import Iterator

# Blocks under which autograd records nothing.
_NOT_RECORDING = {"no_grad", "inference_mode"}


def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _functions(source: str) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function the source defines, nested ones too (none where it does not parse)."""
    tree = _parsed(source)
    return (node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))) \
        if tree is not None else iter(())


def divides(source: str) -> bool:
    """Whether the code divides with `/` anywhere (a true division always gives a float in Python 3)."""
    tree = _parsed(source)
    return tree is not None and any(isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Div)
                                    for node in ast.walk(tree))


def exponentiates_floats(source: str) -> bool:
    """Whether the code calls an exponential of Python floats (math.exp, math.pow, math.cosh, ...) or raises a number
    to a power with ** : the float operations that raise OverflowError when the result passes about 1.8e308."""
    tree = _parsed(source)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("exp", "pow", "cosh", "sinh", "expm1", "ldexp"):
                return True
    return False


def unpacks_a_tracked_tensor(source: str) -> bool:
    """Whether the code unpacks or indexes names out of a tensor it makes with requires_grad
    (`a, b, c = torch.zeros(3, requires_grad=True)`, or `.requires_grad_()` on the right): each name is then a view,
    not a leaf, and backward() fills no .grad of its own."""
    tree = _parsed(source)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(target, (ast.Tuple, ast.List)) for target in node.targets):
            if _makes_tracked(node.value):
                return True
    return False


def _makes_tracked(value: ast.AST) -> bool:
    for inner in ast.walk(value):
        if isinstance(inner, ast.Call):
            if any(keyword.arg == "requires_grad" and not (isinstance(keyword.value, ast.Constant)
                                                           and keyword.value.value in (False, None))
                   for keyword in inner.keywords):
                return True
            if isinstance(inner.func, ast.Attribute) and inner.func.attr == "requires_grad_":
                return True
    return False


def _not_recording(block: ast.With) -> bool:
    for item in block.items:
        call = item.context_expr
        if isinstance(call, ast.Call):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in _NOT_RECORDING:
                return True
    return False


def backward_of_unrecorded(source: str) -> bool:
    """Whether a function calls `x.backward()` where x was computed inside a `with torch.no_grad():` (or
    inference_mode) block of that same function, or calls backward() inside such a block."""
    for function in _functions(source):
        unrecorded: set[str] = set()
        inside: set[int] = set()  # the ids of the nodes under such a block
        for block in ast.walk(function):
            if isinstance(block, ast.With) and _not_recording(block):
                for statement in block.body:
                    for node in ast.walk(statement):
                        inside.add(id(node))
                        if isinstance(node, ast.Assign):
                            unrecorded |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        # A name also assigned outside such a block may hold a recorded value when backward() runs: not followed.
        unrecorded -= {t.id for node in ast.walk(function) if isinstance(node, ast.Assign) and id(node) not in inside
                       for t in node.targets if isinstance(t, ast.Name)}
        for call in ast.walk(function):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "backward":
                receiver = call.func.value
                if id(call) in inside or (isinstance(receiver, ast.Name) and receiver.id in unrecorded):
                    return True
    return False


# Calls that turn tensor values into plain numbers, and calls that build a new tensor out of numbers.
_TO_NUMBERS = {"item", "tolist", "numpy"}
_FROM_NUMBERS = {"tensor", "as_tensor", "from_numpy"}


def rebuilds_from_numbers(source: str) -> bool:
    """Whether one function of the code takes values out as plain numbers (.item(), .tolist(), .numpy(), or a
    math-module function) and builds a tensor from numbers (torch.tensor, torch.as_tensor, torch.from_numpy): the
    tensor built so is a new one, with no graph behind it, whatever its values."""
    for function in _functions(source):
        calls = [node.func for node in ast.walk(function) if isinstance(node, ast.Call)]
        out = any(isinstance(func, ast.Attribute) and (func.attr in _TO_NUMBERS or (
            isinstance(func.value, ast.Name) and func.value.id == "math")) for func in calls)
        back = any(isinstance(func, ast.Attribute) and func.attr in _FROM_NUMBERS for func in calls)
        if out and back:
            return True
    return False
