"""How the student's Value class builds `-`, `/` and unary minus, read from its source (never run).

A class may give `a - b` a backward step of its own or build it as `a + (-b)`; the grads of one expression often
fit a slip of either (micrograd_steps.BUILDS), and guessing from them alone told a student that a `-` of their own
was "built as a + (-b)". Where the source says which, only that way is tried. Where it cannot be followed (a helper,
a loop, anything but the plain shapes below), nothing is assumed: every way stays open, as before.

It also reads an operation that returns a new Value made from a number alone (`return Value(-self.data)`): a leaf with
no link to its operand, through which no gradient can flow.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

CLASS = "Value"  # the class the stub asks for
OWN, COMPOSED, UNLINKED, DELEGATED = "own", "composed", "unlinked", "delegated"
# The operation each method builds, as micrograd_steps names them.
METHODS = {"__sub__": "sub", "__rsub__": "sub", "__truediv__": "div", "__rtruediv__": "div", "__neg__": "neg"}
# The operator of the operation itself: a method whose result uses it (`Value(other) - self`) hands the work to
# another method of the same operation, not to other operations.
_OPERATOR = {"sub": ast.Sub, "div": ast.Div, "neg": ast.USub}
# A reflected method that hands the work to the plain one is built as that one is.
_REFLECTED = {"__rsub__": "__sub__", "__rtruediv__": "__truediv__"}


@dataclass(frozen=True)
class ClassBuild:
    """Whether each of `a - b`, `1 - v`, `a / b` and `2 / v` is composed from other operations (True), has a node of
    its own (False), or cannot be told (None); whether -a is built as a * -1; and the operations whose method returns
    a leaf with no link to its operands."""

    sub: bool | None = None
    rsub: bool | None = None
    div: bool | None = None
    rdiv: bool | None = None
    negated_by_mul: bool | None = None
    unlinked: tuple[str, ...] = ()

    def allows(self, build: tuple[bool, bool, bool], graph: list[tuple]) -> bool:
        """Whether a class built the way `build` (one of micrograd_steps.BUILDS) builds `graph` as this one does.
        BUILDS has one flag for `-` and `/` alike: a class that composes one and not the other is this way for a
        graph of only one of them, and no way for a graph of both."""
        composed, reflected, by_mul = build
        if self.negated_by_mul is not None and self.negated_by_mul != by_mul:
            return False
        for spec in graph:
            if spec[0] in ("sub", "div"):
                is_reflected = type(spec[1]) is float  # ("sub", 1.0, 0) is 1 - a: Python calls __rsub__
                known = getattr(self, ("r" if is_reflected else "") + spec[0])
                if known is not None and known != (reflected if is_reflected else composed):
                    return False
        return True


UNKNOWN = ClassBuild()


def _value_class(source: str | None) -> ast.ClassDef | None:
    """The module's one class named Value; None where there is none, two, or no source that parses."""
    if not source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == CLASS]
    return classes[0] if len(classes) == 1 else None


def read(source: str | None) -> ClassBuild:
    """The build of the module's one class named Value; UNKNOWN where there is none, two, or no source."""
    value = _value_class(source)
    if value is None:
        return UNKNOWN
    methods = {node.name: node for node in value.body if isinstance(node, ast.FunctionDef)}
    kinds = {name: _kind(methods[name], _OPERATOR[METHODS[name]]) for name in METHODS if name in methods}
    for reflected, plain in _REFLECTED.items():
        if kinds.get(reflected) == DELEGATED:
            kinds[reflected] = kinds.get(plain) if kinds.get(plain) != DELEGATED else None
    composed = {name: None if kinds.get(name) in (None, DELEGATED) else kinds[name] == COMPOSED for name in METHODS}
    return ClassBuild(sub=composed["__sub__"], rsub=composed["__rsub__"], div=composed["__truediv__"],
                      rdiv=composed["__rtruediv__"],
                      negated_by_mul=_negated_by_mul(methods.get("__neg__"), kinds.get("__neg__")),
                      unlinked=tuple(dict.fromkeys(METHODS[name] for name, kind in kinds.items() if kind == UNLINKED)))


def _negated_by_mul(method: ast.FunctionDef | None, kind: str | None) -> bool | None:
    if kind in (OWN, UNLINKED):
        return False
    if kind == COMPOSED and method is not None:
        returned = _returned(method)
        if isinstance(returned, ast.BinOp) and isinstance(returned.op, ast.Mult) and any(
                _minus_one(side) for side in (returned.left, returned.right)):
            return True
    return None  # built some other way (0 - a, a * Value(-1.0) ...): not one BUILDS knows


def _kind(method: ast.FunctionDef, operator: type) -> str | None:
    """OWN: a node of its own (a nested function or lambda, a `_backward` set, `Value(data, children)` returned, or a
    call handed `(self, ...)` as operands);
    UNLINKED: it returns `Value(number)`, a leaf; COMPOSED: it returns an expression of other operations; DELEGATED:
    an expression that uses its own operator (another method does the work); None: anything else."""
    inner = [node for node in ast.walk(method) if node is not method]
    if any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for node in inner) or any(
            isinstance(node, ast.Attribute) and node.attr == "_backward" and isinstance(node.ctx, ast.Store)
            for node in inner):
        return OWN
    returns = [node for node in inner if isinstance(node, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return None
    returned = returns[0].value
    if isinstance(returned, ast.Call) and isinstance(returned.func, ast.Name) and returned.func.id == CLASS:
        # Value(number) is a leaf; Value(number, (self, ...)) a node of its own, whatever its step.
        return UNLINKED if len(returned.args) == 1 and not returned.keywords else OWN
    if isinstance(returned, ast.Call) and any(_holds_self(argument) for argument in
                                              [*returned.args, *(keyword.value for keyword in returned.keywords)]):
        # A helper that makes the node, handed its operands: `Value._node(data, (self, other), grads, "/")`.
        return OWN
    if isinstance(returned, (ast.BinOp, ast.UnaryOp)):
        # A negative number (`self * -1`) is written with a unary minus too, but on a number, not on a Value.
        uses_itself = any(isinstance(node, (ast.BinOp, ast.UnaryOp)) and isinstance(node.op, operator)
                          and not (isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant))
                          for node in ast.walk(returned))
        return DELEGATED if uses_itself else COMPOSED
    return None


def _holds_self(node: ast.expr) -> bool:
    """Whether `node` is a tuple or list written with `self` among its items: a node's operands, as handed on."""
    return isinstance(node, (ast.Tuple, ast.List)) and any(isinstance(item, ast.Name) and item.id == "self"
                                                           for item in node.elts)


def _returned(method: ast.FunctionDef) -> ast.expr | None:
    returns = [node for node in ast.walk(method) if isinstance(node, ast.Return)]
    return returns[0].value if len(returns) == 1 else None


def _minus_one(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant) and node.value in (-1, -1.0) and type(node.value) is not bool:
        return True
    return (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
            and node.operand.value in (1, 1.0) and type(node.operand.value) is not bool)


# The method Python calls for an operator: its own with a Value on the left, the reflected one with a number there.
_CALLS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.Pow: "pow"}


def circle(source: str | None) -> tuple[str, ...]:
    """Operator methods of the class Value that are built from each other in a circle, none with a step of its own
    (`__neg__` as `0 - self` and `__rsub__` as `other + (-self)`): each calls the next, without end. Empty where
    there is none, or the source cannot be followed."""
    value = _value_class(source)
    if value is None:
        return ()
    calls: dict[str, set[str]] = {}
    for method in value.body:
        if isinstance(method, ast.FunctionDef) and method.name.startswith("__") and _returned(method) is not None \
                and _kind(method, type(None)) != OWN:
            calls[method.name] = _called_methods(method)
    for start in sorted(calls):
        path = _path_back(start, start, calls, [])
        if path:
            return tuple(path)
    return ()


def _called_methods(method: ast.FunctionDef) -> set[str]:
    """The operator methods the expression `method` returns calls: `-x` calls __neg__; `a - b` calls __sub__, or
    __rsub__ where a is a number (a literal, or the number argument of a reflected method)."""
    number = method.args.args[1].arg if method.name.startswith("__r") and len(method.args.args) > 1 else None
    called = set()
    for node in ast.walk(_returned(method)):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not isinstance(node.operand,
                                                                                              ast.Constant):
            called.add("__neg__")
        elif isinstance(node, ast.BinOp) and type(node.op) in _CALLS:
            left_is_number = isinstance(node.left, ast.Constant) or (isinstance(node.left, ast.Name)
                                                                      and node.left.id == number)
            called.add(f"__{'r' if left_is_number else ''}{_CALLS[type(node.op)]}__")
    return called


def _path_back(start: str, at: str, calls: dict[str, set[str]], seen: list[str]) -> list[str]:
    for nxt in sorted(calls.get(at, ())):
        if nxt == start:
            return [*seen, at]
        if nxt not in seen and nxt != at and nxt in calls:
            found = _path_back(start, nxt, calls, [*seen, at])
            if found:
                return found
    return []
