"""Checks of `micrograd` (companion: "Building Autograd From Scratch").

A student's Value objects cannot leave the worker, so an expression travels as plain
data: a graph, a list of nodes in creation order, each a tuple such as ("leaf", 0.5),
("mul", 0, 2.0), ("pow", 1, 3) or ("tanh", 2). An operand is an int (the index of an
earlier node) or a float (a number, so ("sub", 1.0, 0) is `1 - a`). The last node is
the output. The driver `run_graphs` (graders/lesson01/micrograd/drivers.py) builds each graph from
the student's Value in the worker, calls backward() and sends back every node's data and grad as floats.

Oracles: the same graph in torch float64 with torch.autograd. Mistakes are recognised by
replaying the graph through small wrong evaluators (a tanh or relu derivative off, the
backward steps taken in a wrong order, a reused node's step run once per use or per path),
all of whose node grads, inner ones too, the student's must match; for assignment instead of
accumulation, by finding every grad equal to the share of one use of its node (or the sum of
only some); and for one operation's backward step (`*` swapped, `+` without out.grad, ...), by
which step the student's own node grads show wrong (graders/lesson01/micrograd/micrograd_steps.py).
Public checks use fixed expressions written as Python text (`expression`); hidden ones
expressions drawn by hypothesis (graders/lesson01/cases.py) and a chain a few hundred
nodes deep.

Longer than most modules, on purpose: what computes an expected value or a wrong variant stays in
the checks module, because the student bundle releases a filtered copy of it (public checks and what
they use, expected values replaced by recorded data); a helper module would be released whole.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import re
from collections import deque
from typing import Any, Callable

import torch

from graders.kit import (Meanwhile, Mistake, RECORD, RECORDING, Student, checks_for, drawn, exercise, expected, fail,
                         set_order_relied_on)
from graders.lesson01.micrograd.mistakes import (ASSIGNED, BUILT_IN_A_CIRCLE, CHAIN_RULE, EXP_DERIVATIVE,
                                                 GRADS_IN_ONE_TUPLE, NOT_SEEDED,
                                                 MERGED_BY_VALUE, UNLINKED_RESULT,
                                                 NO_TOPOLOGICAL_ORDER, ORDER_NOT_REVERSED, POWER_RULE,
                                                 REFLECTED_SWAPPED, RELU_AT_ZERO,
                                                 SCRATCH, STEP_MISTAKES, TANH_DERIVATIVE, VISITED_TWICE)
from graders.lesson01.micrograd import class_build
from graders.lesson01.micrograd import merged_walk
from graders.lesson01.micrograd import micrograd_steps as steps
from graders.lesson01.micrograd.drivers import read_fresh_value, run_graphs, second_graph_sharing_a_leaf
from graders.lesson01.micrograd.expression_graphs import BINARY, Graph, operands, path_counts, values

EXERCISE = exercise("lesson01", "micrograd")
check = checks_for("lesson01", EXERCISE.slug)



SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


# ---------------------------------------------------------------- graphs: written, printed, generated

class _Symbol:
    """A node while a fixed graph is written as Python text (see `expression`)."""

    def __init__(self, nodes: list[tuple], index: int) -> None:
        self.nodes, self.index = nodes, index

    def _add(self, *spec: Any) -> _Symbol:
        self.nodes.append(spec)
        return _Symbol(self.nodes, len(self.nodes) - 1)

    def _binary(self, kind: str, other: Any, reflected: bool) -> _Symbol:
        operand = other.index if isinstance(other, _Symbol) else float(other)
        return self._add(kind, operand, self.index) if reflected else self._add(kind, self.index, operand)

    __add__ = lambda s, o: s._binary("add", o, False)  # noqa: E731
    __radd__ = lambda s, o: s._binary("add", o, True)  # noqa: E731
    __sub__ = lambda s, o: s._binary("sub", o, False)  # noqa: E731
    __rsub__ = lambda s, o: s._binary("sub", o, True)  # noqa: E731
    __mul__ = lambda s, o: s._binary("mul", o, False)  # noqa: E731
    __rmul__ = lambda s, o: s._binary("mul", o, True)  # noqa: E731
    __truediv__ = lambda s, o: s._binary("div", o, False)  # noqa: E731
    __rtruediv__ = lambda s, o: s._binary("div", o, True)  # noqa: E731
    __neg__ = lambda s: s._add("neg", s.index)  # noqa: E731
    __pow__ = lambda s, k: s._add("pow", s.index, k)  # noqa: E731


def expression(text: str, **leaves: float) -> Graph:
    """A fixed graph from Python text over named leaves: expression("c = a * b; out = c * c + c", a=.5, b=-1.2)."""
    nodes: list[tuple] = [("leaf", float(value), name) for name, value in leaves.items()]
    names: dict[str, Any] = {name: _Symbol(nodes, i) for i, name in enumerate(leaves)}
    functions = {kind: (lambda k: lambda s: s._add(k, s.index))(kind) for kind in ("tanh", "relu", "exp")}
    exec(text, functions, names)  # our own constant texts only: this is how the public graphs are written
    return nodes


def _names(graph: Graph) -> dict[int, str]:
    """Leaves by their given names (else a, b, c, ...), then inner nodes used more than once."""
    uses = [0] * len(graph)
    for spec in graph:
        for i in operands(spec):
            uses[i] += 1
    letters = (f"x{n}" if n >= 26 else chr(ord("a") + n) for n in range(10**6))
    names: dict[int, str] = {}
    taken = {spec[2] for spec in graph if spec[0] == "leaf" and len(spec) > 2}
    for i, spec in enumerate(graph):
        if spec[0] == "leaf" or (uses[i] > 1 and i < len(graph) - 1):
            names[i] = spec[2] if spec[0] == "leaf" and len(spec) > 2 else next(n for n in letters if n not in taken)
    return names


def graph_text(graph: Graph, limit: int = 600) -> str:
    """A graph as readable Python, e.g. "c = a * b; out = (c * c) + c with a = 0.5, b = -1.2"."""
    names = _names(graph)

    def inline(i: int, root: bool = False, bare: bool = False) -> str:
        spec = graph[i]
        if spec[0] == "leaf" or (i in names and not root):
            return names[i]
        kind, show = spec[0], (lambda x: inline(x) if type(x) is int else repr(x))
        if kind in BINARY:
            text = f"{show(spec[1])} {SYMBOLS[kind]} {show(spec[2])}"
        elif kind == "neg":
            text = f"-{show(spec[1])}"
        elif kind == "pow":
            text = f"{show(spec[1])} ** {spec[2]!r}"
        else:
            return f"{kind}({inline(spec[1], bare=True)})"
        return text if bare else f"({text})"

    lines = [f"{names[i]} = {inline(i, True, True)}" for i in names if graph[i][0] != "leaf"]
    lines.append(f"out = {inline(len(graph) - 1, True, True)}")
    text = "; ".join(lines)
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + f" ... ({len(graph)} nodes in all)"
    leaves = ", ".join(f"{names[i]} = {spec[1]!r}" for i, spec in enumerate(graph) if spec[0] == "leaf")
    return f"{text} with {leaves}"


def chain_text(graph: Graph) -> str:
    leaves = ", ".join(f"{spec[2]} = {spec[1]!r}" for spec in graph[:3])
    return (f"x = x0, then {(len(graph) - 3) // 3} times x = tanh(x * w + b) (a chain {len(graph) - 3} nodes "
            f"deep), out = x, with {leaves}")


# ---------------------------------------------------------------- expected values (torch) and wrong variants

def _local_derivatives(spec: tuple, data: list[float], out: float, tanh_rule: str = "1 - t**2",
                       relu_at_zero: float = 0.0, pow_rule: str = "n * x**(n-1)", exp_rule: str = "out") -> list[list]:
    """[operand index, d node / d operand] for each operand slot of one node (a * a has two)."""
    kind = spec[0]
    if kind == "leaf":
        return []
    if kind in BINARY:
        x, y = (data[o] if type(o) is int else o for o in spec[1:3])
        local = {"add": lambda: (1.0, 1.0), "sub": lambda: (1.0, -1.0), "mul": lambda: (y, x),
                 "div": lambda: (1 / y, -x / y ** 2)}[kind]()
        return [[o, d] for o, d in zip(spec[1:3], local) if type(o) is int]
    x = data[spec[1]]
    tanh = {"1 - t**2": 1 - out ** 2, "1 - t": 1 - out, "1 - x**2": 1 - x ** 2}[tanh_rule]
    n = spec[2] if kind == "pow" else 0
    power = {"n * x**(n-1)": lambda: n * x ** (n - 1), "x**(n-1)": lambda: x ** (n - 1), "n * x**n": lambda: n * x ** n}
    local = {"neg": lambda: -1.0, "pow": power[pow_rule], "tanh": lambda: tanh,
             "relu": lambda: 1.0 if x > 0 else relu_at_zero if x == 0 else 0.0,
             "exp": lambda: out if exp_rule == "out" else x}[kind]()
    return [[spec[1], local]]


def _torch_node(spec: tuple, nodes: list[torch.Tensor]) -> torch.Tensor:
    kind = spec[0]
    if kind == "leaf":
        return torch.tensor(spec[1], dtype=torch.float64, requires_grad=True)
    if kind in BINARY:
        return BINARY[kind](*(nodes[x] if type(x) is int else x for x in spec[1:3]))
    x = nodes[spec[1]]
    return {"neg": lambda: -x, "pow": lambda: x ** spec[2], "tanh": lambda: torch.tanh(x),
            "relu": lambda: torch.relu(x), "exp": lambda: torch.exp(x)}[kind]()


@expected
def torch_results(graphs: list[Graph]) -> list[dict]:
    """Each graph in torch float64: every node's value and d out / d node by torch.autograd, and the
    local derivative of each operand slot (used to recognise assigned gradients)."""
    results = []
    for graph in graphs:
        nodes: list[torch.Tensor] = []
        for spec in graph:
            nodes.append(_torch_node(spec, nodes))
            nodes[-1].retain_grad()
        nodes[-1].backward()
        data = [n.item() for n in nodes]
        results.append({"data": data, "grad": [0.0 if n.grad is None else n.grad.item() for n in nodes],
                        "slots": [_local_derivatives(spec, data, data[i]) for i, spec in enumerate(graph)]})
    return results


# The orders a backward pass may wrongly take: (how, which operand first, operands deduplicated as in a set).
# The steps run in a topological order itself, leaves first: whichever that order is, each step runs before any
# node that uses it, so only the output's step hands on anything ("steps run in the sorted order, not its reverse").
# Named so where it fits every graph; it stays among the wrong orders too, for graphs that cannot tell it apart.
_SORTED_ORDER = [("forward", "left", False)]
_WRONG_ORDERS = [*_SORTED_ORDER, ("recursive", "left", False), ("recursive", "right", False),
                 ("recursive", "left", True), ("recursive", "right", True), ("once", "left", False),
                 ("once", "right", False), ("breadth", "left", False), ("breadth", "right", False)]
# A topological order in which a node comes up more than once, each time running its backward step: the sort
# without a visited set ("duplicated": once per path), a sort that appends a node each time it is reached but
# recurses only the first time ("appended": once per use), or each node's step repeated once per path where
# the right order runs it once ("per path").
_REPEATED_ORDERS = [(how, first, as_set) for how in ("duplicated", "appended", "per path")
                    for first in ("left", "right") for as_set in (False, True)]
_MOST_REPEATED_STEPS = 100_000  # a graph with more paths than this is not replayed once per path
# A Value that keeps its operands in a set visits them in an order of its own at each node, which changes from run
# to run: such walks are replayed with each choice of order at every node where the choice can matter, up to this
# many such nodes (beyond, the operands left first everywhere, then right first everywhere).
_MOST_SET_ORDERED_NODES = 6
_SET_ORDERED = ("recursive", "duplicated", "appended")  # the walks that take a node's operands as they come


def _backpropagate(slots: list[list], how: str = "reverse", first: str = "left", as_set: bool = False,
                   flipped: frozenset[int] = frozenset()) -> list[float]:
    """Run the backward steps (grad[operand] += local * grad[node]) in the order `how` says; at the nodes in
    `flipped`, the operands are visited the other way round."""
    grad = [0.0] * len(slots)
    grad[-1] = 1.0

    def step(node: int) -> None:
        for operand, local in slots[node]:
            grad[operand] += local * grad[node]

    def operands(node: int) -> list[int]:
        found = [o for o, _ in slots[node]]
        found = list(dict.fromkeys(found)) if as_set else found
        return found if (first == "left") != (node in flipped) else found[::-1]

    if how in ("reverse", "forward"):
        for node in (reversed(range(len(slots))) if how == "reverse" else range(len(slots))):
            step(node)
    elif how in ("duplicated", "appended"):
        # Post-order, as a topological sort does: a node after its operands, appended every time it is reached.
        order, stack, seen = [], [(len(slots) - 1, False)], set()
        while stack:
            node, expanded = stack.pop()
            if expanded or (how == "appended" and node in seen):
                order.append(node)
                continue
            seen.add(node)
            stack.append((node, True))
            stack.extend((o, False) for o in reversed(operands(node)))
        for node in reversed(order):
            step(node)
    elif how == "per path":
        paths = [0] * len(slots)
        paths[-1] = 1
        for node in reversed(range(len(slots))):
            for operand in operands(node):
                paths[operand] += paths[node]
            for _ in range(paths[node]):
                step(node)
    elif how in ("recursive", "once"):
        # A node's step right when the walk reaches it: every time ("recursive"), or the first time only.
        stack, seen = [len(slots) - 1], set()
        while stack:
            node = stack.pop()
            if how == "once" and node in seen:
                continue
            seen.add(node)
            step(node)
            stack.extend(reversed(operands(node)))
    else:
        queue, seen = deque([len(slots) - 1]), {len(slots) - 1}
        while queue:
            node = queue.popleft()
            step(node)
            for operand in operands(node):
                if operand not in seen:
                    seen.add(operand)
                    queue.append(operand)
    return grad


def _composed(graph: Graph) -> tuple[Graph, list[int]]:
    """The graph as the usual micrograd Value builds it: a - b = a + (-b), a / b = a * b ** -1.

    The extra nodes change the order in which a walk without a topological sort meets the
    others, so the wrong orders are tried on both forms. Also returns where each node went.
    """
    composed: list[tuple] = []
    where: list[int] = []

    def add(*spec: Any) -> int:
        composed.append(spec)
        return len(composed) - 1

    for spec in graph:
        kind = spec[0]
        moved = [] if kind == "leaf" else [where[x] if type(x) is int else x
                                           for x in spec[1:3 if kind in BINARY else 2]]
        if kind == "sub" and type(spec[2]) is int:
            negated = add("neg", moved[1])
            at = add("add", negated, moved[0]) if type(spec[1]) is float else add("add", moved[0], negated)
        elif kind == "div" and type(spec[2]) is int:
            inverse = add("pow", moved[1], -1)
            at = add("mul", inverse, moved[0]) if type(spec[1]) is float else add("mul", moved[0], inverse)
        elif kind in BINARY:
            at = add(kind, *moved)
        else:
            at = add(*spec) if kind == "leaf" else add(kind, moved[0], *spec[2:])
        where.append(at)
    return composed, where


def _forms(graph: Graph) -> list[tuple[Graph, list[int]]]:
    """The graph as written and, when it differs, as composed; each with where its nodes went."""
    composed = _composed(graph)
    return [(graph, list(range(len(graph))))] + ([composed] if composed[0] != graph else [])


def _where_order_matters(slots: list[list]) -> list[int]:
    """The nodes whose two operands lead to a common inner node: there, which operand a walk takes first decides in
    which order the common node's shares arrive, and so what it hands on. (Elsewhere the two sides meet at leaves at
    most, which hand nothing on, and a walk finishes one side before it starts the other.)"""
    below: list[set[int]] = []  # the inner nodes at or below each node
    for node, pairs in enumerate(slots):
        below.append(({node} if pairs else set()).union(*(below[o] for o, _ in pairs)))
    return [node for node, pairs in enumerate(slots)
            if len({o for o, _ in pairs}) == 2 and below[pairs[0][0]] & below[pairs[-1][0]]]


def _operand_orders(order: tuple[str, str, bool], slots: list[list]) -> list[frozenset[int]]:
    """The nodes to flip, for each way a walk of `order` may take the operands: every choice where a set gives the
    order (up to _MOST_SET_ORDERED_NODES nodes that matter), else the order as written."""
    how, first, as_set = order
    matters = _where_order_matters(slots)
    if not as_set or first != "left" or how not in _SET_ORDERED \
            or not 0 < len(matters) <= _MOST_SET_ORDERED_NODES:
        return [frozenset()]
    return [frozenset(chosen) for size in range(len(matters) + 1) for chosen in itertools.combinations(matters, size)]


def _distinct(found: list[list[float]]) -> list[list[float]]:
    return list({tuple(grads): grads for grads in found}.values())


def _wrong_orders(graph: Graph) -> list[list[float]]:
    """The node grads of every wrong order, on the graph as written and as composed."""
    return _orders_replayed(graph, _WRONG_ORDERS)


def _repeated_orders(graph: Graph) -> list[list[float]]:
    """The node grads of a backward pass that runs a node's step once per path (or per use), on the graph as
    written and as composed; none for a graph with too many paths to replay."""
    return _orders_replayed(graph, _REPEATED_ORDERS, most_steps=_MOST_REPEATED_STEPS)


def _orders_replayed(graph: Graph, orders: list[tuple[str, str, bool]],
                     most_steps: int | None = None) -> list[list[float]]:
    """The distinct node grads of `orders` (each in every operand order a set may give it), on each form of the
    graph with at most `most_steps` paths."""
    found = []
    for form, where in _forms(graph):
        if most_steps is not None and sum(path_counts(form)) > most_steps:
            continue
        data = values(form)
        slots = [_local_derivatives(spec, data, data[i]) for i, spec in enumerate(form)]
        # Deduplicating operands changes nothing unless some node uses one operand twice; a set's order may.
        repeats = any(len({o for o, _ in pairs}) < len(pairs) for pairs in slots)
        for order in (o for o in orders if repeats or not o[2] or o[0] in _SET_ORDERED):
            for flipped in _operand_orders(order, slots):
                grads = _backpropagate(slots, *order, flipped=flipped)
                found.append([grads[at] for at in where])
    return _distinct(found)


def _merged_walks(graph: Graph) -> list[list[float]]:
    """The node grads of every walk that takes equal values for one node (graders/lesson01/micrograd/merged_walk.py),
    on the graph as written and as composed."""
    found = []
    for form, where in _forms(graph):
        data = values(form)
        slots = [_local_derivatives(spec, data, data[i]) for i, spec in enumerate(form)]
        for composed in (False, True):  # numbers wrapped as written, or as a class that composes - and / wraps them
            found += [[grads[at] for at in where]
                      for grads in merged_walk.merged_walk_grads(form, data, slots, composed)]
    return found


def _with_rule(graph: Graph, **rule: str) -> list[list[float]]:
    """The node grads with one local rule changed, on the graph as written and as composed (where `/` is
    a power of −1, so a slip in the power rule shows in divisions too)."""
    found = []
    for form, where in _forms(graph):
        data = values(form)
        grads = _backpropagate([_local_derivatives(spec, data, data[i], **rule) for i, spec in enumerate(form)])
        found.append([grads[at] for at in where])
    return found


@expected
def wrong_results(graphs: list[Graph]) -> list[dict[str, list[list[float]]]]:
    """For each graph, the node grads each catalogued mistake gives (several ways for some)."""
    results = []
    for graph in graphs:
        data = values(graph)

        def slots(**rule: Any) -> list[list]:
            return [_local_derivatives(spec, data, data[i], **rule) for i, spec in enumerate(graph)]

        results.append({
            TANH_DERIVATIVE.name: [_backpropagate(slots(tanh_rule=r)) for r in ("1 - t", "1 - x**2")],
            RELU_AT_ZERO.name: [_backpropagate(slots(relu_at_zero=1.0))],
            ORDER_NOT_REVERSED.name: _orders_replayed(graph, _SORTED_ORDER),
            NO_TOPOLOGICAL_ORDER.name: _wrong_orders(graph),
            VISITED_TWICE.name: _repeated_orders(graph),
            MERGED_BY_VALUE.name: _merged_walks(graph),
            POWER_RULE.name: [grads for rule in ("x**(n-1)", "n * x**n") for grads in _with_rule(graph, pow_rule=rule)],
            EXP_DERIVATIVE.name: _with_rule(graph, exp_rule="x"),
        })
    return results


@expected
def step_rules(graphs: list[Graph]) -> list[dict[str, list[list]]]:
    """For each graph, the shares each node hands its operands when one operation's backward step slips
    ("mul: no out.grad", ...), on each way a Value class may build the graph (graders/lesson01/micrograd/micrograd_steps.py)."""
    def local_slots(form: Graph) -> list[list]:
        data = values(form)
        return [_local_derivatives(spec, data, data[i]) for i, spec in enumerate(form)]

    return [steps.slipped_tables(graph, local_slots) for graph in graphs]


# ---------------------------------------------------------------- comparing and diagnosing

def _close(got: Any, want: float) -> bool:
    tolerance = EXERCISE.tolerance("values")
    return type(got) is float and (got == want or abs(got - want) <= tolerance + tolerance * abs(want))


def _leaves_match(grads: list, want: list[float], graph: Graph) -> bool:
    return all(_close(grads[i], want[i]) for i, spec in enumerate(graph) if spec[0] == "leaf")


def _all_match(grads: list, want: list[float]) -> bool:
    return all(_close(got, w) for got, w in zip(grads, want))


def _partial_shares(grads: list, slots: list[list]) -> bool:
    """Whether every used node's grad is the share of one of its uses, or the sum of only some of them:
    what `grad = ...` in some backward steps (and `+=` in others) leaves."""
    shares: list[list[float]] = [[] for _ in grads]
    for node, pairs in enumerate(slots):
        for operand, local in pairs:
            if type(grads[node]) is float:
                shares[operand].append(local * grads[node])

    def explained(got: Any, options: list[float]) -> bool:
        if not options:
            return True
        if len(options) > 8:  # too many subsets to try: one share (`=` in every step) or all (`+=` in every one)
            return any(_close(got, s) for s in options) or _close(got, sum(options))
        sums: list[float] = []  # of every non-empty subset of the shares
        for share in options:
            sums += [total + share for total in sums] + [share]
        return any(_close(got, total) for total in sums)

    return _close(grads[-1], 1.0) and all(explained(g, options) for g, options in zip(grads, shares))


def _diagnose(failing: list[int], graphs: list[Graph], results: list[dict], truths: list[dict],
              wrongs: list[dict], rules: Callable[[], list[dict]] | None = None,
              build: class_build.ClassBuild = class_build.UNKNOWN) -> Mistake | None:
    """The one catalogued mistake that explains every failing graph, if any; `rules` gives `step_rules` of the
    graphs (by default asked of `graphs` as one list); `build`, how the student's class builds `-`, `/` and unary
    minus, as its source shows."""
    if all(all(g == 0 for g in results[i]["grad"]) for i in failing):
        return NOT_SEEDED
    unlinked = _unlinked(build, [graphs[i] for i in failing])
    if unlinked is not None:
        return unlinked
    # A recursion that runs a node's step as it reaches it, without a visited set, also runs it once per path;
    # but it hands gradients on before they are complete: that is the missing order, tried first. A variant
    # must give every node's grad, not only the leaves' (a wrong `+` can give relu's wrong leaf grads at 0),
    # and fit the graphs that pass too (a direct `/` that slipped is no power rule where `a ** -1` is right).
    for mistake in (TANH_DERIVATIVE, RELU_AT_ZERO, POWER_RULE, EXP_DERIVATIVE, ORDER_NOT_REVERSED,
                    NO_TOPOLOGICAL_ORDER, VISITED_TWICE, MERGED_BY_VALUE):
        # A slip of one operation's derivative must be on the way of every failing graph, as the class builds it:
        # a `/` with a step of its own does not go through `**`, whatever grads a power-rule slip would give.
        operation = _OPERATION_OF.get(mistake.name)
        if operation is not None and not all(_goes_through(graphs[i], operation, build) for i in failing):
            continue
        if _fits_every_graph(mistake, failing, results, wrongs):
            return mistake
    # Then one operation's step that slipped in a known way: it fits every node of every graph, where the
    # partial sums of `=` in place of `+=` may fit one graph by chance (a share of -1 and one of +1 cancel).
    evidence = steps.Evidence(graphs, [r["grad"] for r in results], [t["slots"] for t in truths], failing, _close,
                              STEP_MISTAKES, _called, build.allows)
    slipped = steps.known_slip(evidence, rules or (lambda: step_rules(graphs)))
    if slipped is not None:
        return slipped
    if all(_partial_shares(results[i]["grad"], truths[i]["slots"]) for i in failing):
        return ASSIGNED
    # Last, one operation's step wrong in some other way: which one the grads of every node show wrong.
    return steps.wrong_operation(evidence)


def _fits_every_graph(mistake: Mistake, failing: list[int], results: list[dict], wrongs: list[dict]) -> bool:
    """Whether some variant of the mistake gives every node's grad of every graph: a graph that passes may instead
    have no variant (the mistake changes nothing there)."""
    return all(any(_all_match(results[i]["grad"], w) for w in wrongs[i][mistake.name])
               or (i not in failing and not wrongs[i][mistake.name]) for i in range(len(results)))


# The operation whose local derivative each of these mistakes gets wrong.
_OPERATION_OF = {TANH_DERIVATIVE.name: "tanh", RELU_AT_ZERO.name: "relu", POWER_RULE.name: "pow",
                 EXP_DERIVATIVE.name: "exp"}
# An operation a class may build from another: `/` from `**` (a * b ** -1), `-` from unary minus (a + (-b)).
_BUILT_FROM_IT = {"pow": "div", "neg": "sub"}


def _goes_through(graph: Graph, operation: str, build: class_build.ClassBuild) -> bool:
    """Whether `graph` has a node of `operation`, or of one the class may build from it (where its source does not
    show the build otherwise)."""
    for spec in graph:
        if spec[0] == operation:
            return True
        if spec[0] == _BUILT_FROM_IT.get(operation):
            composed = getattr(build, ("r" if type(spec[1]) is float else "") + spec[0])
            if composed is not False:
                return True
    return False


# The written operation of each method class_build reads, and the operations a class may build from it.
_WRITTEN = {"neg": "-a", "sub": "a - b", "div": "a / b"}


def _unlinked(build: class_build.ClassBuild, failing: list[Graph]) -> Mistake | None:
    """UNLINKED_RESULT where the source shows an operation that returns a leaf and every failing graph goes through
    it: written, or in an operation the source shows is built from it (a - b as a + (-b))."""
    for kind in build.unlinked:
        through = {kind} | ({"sub"} if kind == "neg" and build.sub and build.rsub else set())
        if failing and all(any(spec[0] in through for spec in graph) for graph in failing):
            built = " (and a - b, which your class builds from it)" if through != {kind} else ""
            return dataclasses.replace(UNLINKED_RESULT, explanation=(
                f"Your {_WRITTEN[kind]} returns a new Value made from a number alone, with no operands recorded and "
                f"no backward step: the graph ends there, so what it was computed from never receives a "
                f"gradient{built}. Every expression that fails goes through it."))
    return None


def _number(x: Any) -> str:
    return "not a number" if x is None else f"{x:.6g}"


def _leaf_grads(graph: Graph, grads: list, limit: int = 6) -> str:
    names = _names(graph)
    shown = [f"{names[i]}.grad = {_number(grads[i])}" for i, spec in enumerate(graph) if spec[0] == "leaf"]
    return ", ".join(shown[:limit] + (["..."] if len(shown) > limit else []))


def _error_hint(error: str, doing: str) -> str:
    """What to change for an error raised while `doing` (e.g. "Building a * b"), where the error says what."""
    if "unsupported operand" in error or "can't multiply" in error or "not supported between" in error:
        return ("With a number on the left (2 * a, 1 - a, 1 + a, 2 / a) Python calls the Value's reflected "
                "method: define __radd__, __rsub__, __rmul__ and __rtruediv__ (and turn numbers into Values).")
    if error.startswith("RecursionError"):
        return ("These graphs are at most a few hundred nodes deep, within Python's recursion limit for a "
                "recursive topological sort with a visited set; look for a recursion that never stops, or one "
                "that goes through every node once per path instead of once.")
    if "not a Value" in error:
        return "Every operation must return a new Value (the result), not a number."
    return (f"It was raised while {doing[0].lower()}{doing[1:]}: the last line shown above is the line of your "
            "micrograd.py that raised it.")


def expect_graphs(student: Student, graphs: list[Graph], shown: str, *, backward: bool = True,
                  texts: list[str] | None = None, int_numbers: bool = False) -> None:
    """Build each graph from the student's Value, call backward(), compare with torch; fail with the first problem."""
    __tracebackhide__ = True
    from_torch = Meanwhile(lambda: torch_results(graphs))  # torch's answers, while the worker gives the student's
    returned = student.run(run_graphs, graphs, backward, int_numbers, shown_as=shown, meanwhile=from_torch)
    truths = from_torch.value
    # Needed only to name a mistake; but a recording from the reference must hold them too.
    if backward and RECORDING.mode == RECORD:
        for some in (graphs, ONE_STEP_GRAPHS):
            torch_results(some)
            wrong_results(some)
            step_rules(some)
        torch_results(DISTINCT_VALUES)
    texts = texts or [graph_text(graph) for graph in graphs]
    results = returned.value if type(returned.value) is list and len(returned.value) == len(graphs) else None
    if results is None or not all(_readable(r, len(g)) for r, g in zip(results, graphs)):
        fail("The worker sent back results the grader cannot read.", call=shown, got=str(returned.value)[:200],
             hint="Do not change the grader's modules from your code.", section=SCRATCH)
    by_size = sorted(range(len(graphs)), key=lambda i: (len(graphs[i]), i))
    call = (lambda i: f"{texts[i]}; out.backward()") if backward else (lambda i: texts[i])

    broken = [i for i in by_size if "error" in results[i]]
    if broken:
        i, got = broken[0], results[broken[0]]
        stage = {"build": f"Building {_node_text(graphs[i], got['at'])}", "backward": "Calling out.backward()",
                 "read": "Reading .data and .grad"}[got["stage"]]
        parts = dict(call=call(i), got="\n".join([got["error"], *got["frames"]]))
        error_type, _, message = got["error"].partition(": ")
        named = student.error_mistake(error_type, message)  # an error any exercise's code can raise, such as
        if named is not None:  # an exponential that overflows, where the student's code shows its cause
            fail(f"{stage} raised an error, in {len(broken)} of {len(graphs)} expressions.", **parts, mistake=named)
        circle = class_build.circle(student.evidence.source) if got["error"].startswith("RecursionError") else ()
        if circle:
            methods = " -> ".join((*circle, circle[0]))
            fail(f"{stage} raised an error, in {len(broken)} of {len(graphs)} expressions.", **parts,
                 mistake=BUILT_IN_A_CIRCLE.name, hint=BUILT_IN_A_CIRCLE.hint, section=BUILT_IN_A_CIRCLE.section,
                 meaning=f"{BUILT_IN_A_CIRCLE.explanation} In your class: {methods}.")
        fail(f"{stage} raised an error, in {len(broken)} of {len(graphs)} expressions.", **parts,
             hint=_error_hint(got["error"], stage), section=SCRATCH)

    for i in by_size:
        wrong = next((j for j, want in enumerate(truths[i]["data"]) if not _close(results[i]["data"][j], want)), None)
        if wrong is not None:
            summary = f"The value of {_node_text(graphs[i], wrong)} is wrong."
            if _is_swapped_reflection(graphs[i][wrong], truths[i]["data"], results[i]["data"][wrong]):
                fail(summary, call=call(i), got=_number(results[i]["data"][wrong]),
                     expected=_number(truths[i]["data"][wrong]), mistake=REFLECTED_SWAPPED)
            fail(summary, call=call(i),
                 got=_number(results[i]["data"][wrong]), expected=_number(truths[i]["data"][wrong]),
                 hint="Each operation returns a new Value whose data is the operation applied to its operands' "
                      "data (a number operand counts as a Value holding it).", section=SCRATCH)
    if not backward:
        return

    failing = [i for i in by_size if not _leaves_match(results[i]["grad"], truths[i]["grad"], graphs[i])]
    if not failing:
        _expect_inner_grads(graphs, results, truths, by_size, call)
        return
    i = failing[0]
    summary = f"After out.backward() the leaf grads are wrong in {len(failing)} of {len(graphs)} expressions."
    got, want = _leaf_grads(graphs[i], results[i]["grad"]), _leaf_grads(graphs[i], truths[i]["grad"])
    build = class_build.read(student.evidence.source)
    wrongs = wrong_results(graphs)
    mistake = _diagnose(failing, graphs, results, truths, wrongs, build=build)
    if mistake in (ORDER_NOT_REVERSED, NO_TOPOLOGICAL_ORDER, VISITED_TWICE) \
            and _merges_equal_values(student, failing, results, wrongs):
        mistake = MERGED_BY_VALUE
    if mistake is None or mistake in (ORDER_NOT_REVERSED, NO_TOPOLOGICAL_ORDER, VISITED_TWICE, MERGED_BY_VALUE):
        mistake = _order_or_step(student, mistake, failing, graphs, results, truths, build)
    if mistake is ASSIGNED and _grads_in_one_tuple(student.evidence.tree):
        mistake = GRADS_IN_ONE_TUPLE  # it adds, but a Value that is both operands gets one of its two shares
    if mistake is not None and mistake.name in _STEP_NAMES and set_order_relied_on(student.evidence, "backward"):
        # Operands zipped out of a set with their local derivatives meet the wrong ones: the shares look like some
        # step's slip, but the cause is the pairing, which the engine's pitfall names with its line.
        mistake = None
    if mistake is not None:
        fail(summary, call=call(i), got=got, expected=want, mistake=mistake)
    fail(summary, call=call(i), got=got, expected=want, section=CHAIN_RULE,
         hint="Check each operation's local derivative, that a node adds (+=) into its operands' grad, and that "
              "backward() seeds out.grad = 1 and visits the nodes in reverse topological order.")


def _merges_equal_values(student: Student, failing: list[int], results: list[dict], wrongs: list[dict]) -> bool:
    """Where a wrong order and a walk that takes equal values for one node give the same grads (the lesson's
    neuron: 1 / x composed as x ** -1 * 1 holds one number twice, and skipping either step leaves every grad 0),
    the student's class is asked for a graph whose values all differ, with a reused node: a wrong order spoils it,
    a walk that merges equal values cannot."""
    if not _fits_every_graph(MERGED_BY_VALUE, failing, results, wrongs):
        return False
    probe = student.run(run_graphs, DISTINCT_VALUES, True, shown_as="an expression whose values all differ, to tell "
                                                                    "a wrong order from equal values merged")
    got = probe.value
    if type(got) is not list or len(got) != len(DISTINCT_VALUES) or not all(
            _readable(r, len(g)) and "error" not in r for r, g in zip(got, DISTINCT_VALUES)):
        return False
    truths = torch_results(DISTINCT_VALUES)
    return all(_all_match(r["grad"], t["grad"]) for r, t in zip(got, truths))


_STEP_NAMES = frozenset(mistake.name for mistake in STEP_MISTAKES.values())


def _grads_in_one_tuple(tree: ast.Module) -> bool:
    """Whether the code assigns two or more `.grad`s in one tuple assignment (`self.grad, other.grad = ...`)."""
    return any(isinstance(node, ast.Assign) and any(
        isinstance(target, ast.Tuple) and sum(isinstance(e, ast.Attribute) and e.attr == "grad" for e in target.elts) > 1
        for target in node.targets) for node in ast.walk(tree))


def _order_or_step(student: Student, mistake: Mistake | None, failing: list[int], graphs: list[Graph],
                   results: list[dict], truths: list[dict], build: class_build.ClassBuild) -> Mistake | None:
    """An order mistake or equal values merged (or none), unless a graph of one operation goes wrong too: then a
    step is, and the diagnosis is made again with those graphs beside the check's own.

    Where a check has one expression (the lesson's neuron, the deep chain) or few that tell them apart, a step
    that never runs (no `out._backward = _backward`) leaves the same grads as a pass in the wrong order, or as a
    walk that skips the step's node for another of equal value. But a single step has no order to get wrong and
    no other node to be taken for: a one-operation graph that fails is the step's."""
    probe = student.run(run_graphs, ONE_STEP_GRAPHS, True, shown_as="one-operation graphs, to tell a wrong "
                                                                    "order from a wrong step")
    got = probe.value
    if type(got) is not list or len(got) != len(ONE_STEP_GRAPHS) or not all(
            _readable(r, len(g)) and "error" not in r for r, g in zip(got, ONE_STEP_GRAPHS)):
        return mistake  # a probe that cannot be read or raised tells nothing about the order
    probe_truths = torch_results(ONE_STEP_GRAPHS)
    wrong = [j for j, graph in enumerate(ONE_STEP_GRAPHS) if not _leaves_match(got[j]["grad"], probe_truths[j]["grad"],
                                                                               graph)]
    if not wrong:
        return mistake
    n = len(graphs)
    # Failing ones of the check first: the message shows the first.
    return _diagnose(failing + [n + j for j in wrong], graphs + ONE_STEP_GRAPHS, results + got, truths + probe_truths,
                     wrong_results(graphs) + wrong_results(ONE_STEP_GRAPHS),
                     rules=lambda: step_rules(graphs) + step_rules(ONE_STEP_GRAPHS), build=build)


def _expect_inner_grads(graphs: list[Graph], results: list[dict], truths: list[dict], by_size: list[int],
                        call: Callable[[int], str]) -> None:
    """backward() promises d out / d node for every node, not only the leaves: torch keeps no grad on an
    inner tensor, but a Value does."""
    __tracebackhide__ = True
    for i in by_size:
        wrong = next((j for j, want in enumerate(truths[i]["grad"]) if not _close(results[i]["grad"][j], want)), None)
        if wrong is not None:
            fail(f"After out.backward() the leaf grads are right, but the grad of {_node_text(graphs[i], wrong)} "
                 "is wrong.", call=call(i), got=_number(results[i]["grad"][wrong]),
                 expected=_number(truths[i]["grad"][wrong]),
                 meaning="backward() fills the grad of every node the output depends on, the inner ones too: "
                         "each holds d out / d node once the pass is over, as the lesson's micrograd keeps them.",
                 hint="Leave every node's grad as its backward step left it: do not reset or overwrite the "
                      "grads of inner nodes once their step has run.", section=CHAIN_RULE)


def _readable(result: Any, size: int) -> bool:
    """A driver's answer for one graph: an error report, or `size` data and `size` grads."""
    if type(result) is not dict:
        return False
    if "error" in result:
        return type(result["error"]) is str and result.get("stage") in ("build", "backward", "read") \
            and type(result.get("at")) is int and 0 <= result["at"] < size and type(result.get("frames")) is list
    return all(type(result.get(key)) is list and len(result[key]) == size for key in ("data", "grad"))


def _is_swapped_reflection(spec: tuple, data: list[float], got: Any) -> bool:
    """Whether a number-on-the-left `-` or `/` came out as the operation the other way round."""
    if spec[0] not in ("sub", "div") or type(spec[1]) is not float or type(spec[2]) is not int:
        return False
    number, operand = spec[1], data[spec[2]]
    if spec[0] == "div" and number == 0:
        return False
    swapped = operand - number if spec[0] == "sub" else operand / number
    return not _close(swapped, number - operand if spec[0] == "sub" else number / operand) and _close(got, swapped)


def _called(graph: Graph, index: int) -> str:
    """A node as the printed expression calls it: its name if it has one (c in `c = a * b; ...`), else written out."""
    return _names(graph).get(index) or _node_text(graph, index)


def _node_text(graph: Graph, index: int) -> str:
    """One node of a graph, written out (a leaf, or the operation that made it)."""
    names = _names(graph)
    if graph[index][0] == "leaf":
        return names[index]
    if index > 40:  # a deep chain: name the node rather than print it nested a hundred levels
        return f"node {index} of {len(graph)} ({graph[index][0]})"
    return graph_text(graph[:index + 1]).split(" with ")[0].split("; ")[-1].removeprefix("out = ")


# ---------------------------------------------------------------- the public expressions

ARITHMETIC = [
    expression("a + b", a=0.5, b=-1.2),
    expression("a * b + c", a=0.5, b=-1.2, c=2.0),
    expression("a - b", a=0.5, b=-1.2),
    expression("-a", a=0.5),
    expression("a + 3.0", a=-0.7),
    expression("2.0 * a", a=-0.7),
    expression("1.0 - a", a=0.25),
    expression("1.0 + a", a=0.25),
    expression("a * -2.0", a=1.5),
    expression("(a - 4.0) * b", a=1.5, b=-0.5),
    expression("3.0 - a * b", a=0.8, b=1.5),
    # Each operation once away from the output, where out.grad is not 1: a step that leaves out.grad out shows.
    expression("(1.0 - a) * b", a=0.25, b=-2.0),
]
INT_ARITHMETIC = [  # sent with their whole numbers as ints: `a + 1`, as the Value docstring writes them
    expression("a + 1.0", a=0.7),
    expression("2.0 * a", a=-0.7),
    expression("1.0 - a", a=0.25),
    expression("2.0 / a", a=0.8),
]
POWERS_AND_QUOTIENTS = [
    expression("a ** 2", a=-1.5),
    expression("a ** 3", a=0.8),
    expression("a ** 0.5", a=2.25),
    expression("a ** 1.5", a=1.44),
    expression("a ** -1", a=-0.4),
    expression("a / b", a=0.6, b=-1.5),
    expression("2.0 / a", a=0.8),
    expression("a / 4.0", a=0.6),
    expression("(a * b) ** 2", a=0.7, b=-2.0),
    expression("b * a ** 3", a=0.8, b=-1.5),  # away from the output too (see ARITHMETIC)
    expression("(2.0 / a) * b", a=0.8, b=-1.5),
]
TANH_AND_EXP = [
    expression("tanh(a)", a=0.5),
    expression("exp(a)", a=-0.3),
    expression("tanh(a * b + c)", a=0.5, b=-1.2, c=0.3),
    expression("exp(-a) * b", a=0.4, b=1.5),
    expression("tanh(2.0 * a) - 1.0", a=-0.6),
    expression("exp(a * b)", a=0.5, b=1.2),
    expression("tanh(a) * b", a=0.8, b=-1.5),
    # Far out, where tanh is 1 to every digit: e^(2a) overflows a float, so only math.tanh (as the docstring asks)
    # gives the value.
    expression("tanh(a)", a=400.0),
]
RELUS = [
    expression("relu(a)", a=0.7),
    expression("relu(a)", a=-0.7),
    expression("relu(a + b)", a=0.5, b=-0.5),  # exactly 0: relu'(0) = 0
    expression("relu(a) * b", a=0.0, b=2.0),
    expression("relu(a * b) + c", a=1.3, b=0.0, c=0.4),
    expression("relu(a) * b", a=0.6, b=-1.5),
]
LESSON_NEURON = expression("1.0 / (1.0 + exp(-(w1 * x1 + w2 * x2 + w3 * x3)))",
                           w1=1.0, w2=-2.0, w3=0.5, x1=3.0, x2=1.0, x3=4.0)
REUSED_LEAVES = [
    expression("a * a", a=-1.5),
    expression("a + a", a=0.5),
    expression("a * b + a", a=0.5, b=-1.2),
    expression("(a + b) * (a - b)", a=1.5, b=0.5),
    expression("a * a * a", a=0.7),
    expression("a / (a + b)", a=0.6, b=1.1),
    expression("b - a * b", a=0.3, b=-2.0),
]
SHARED_SUBEXPRESSIONS = [
    expression("c = a * b; out = c * c + c", a=0.5, b=-1.2),
    expression("c = a * b; d = c + 1.0; out = d * c * d", a=0.8, b=1.5),
    expression("b = a * a; c = b * b; out = c * b - c", a=0.9),
    expression("c = a + b; d = c * 2.0; e = d * c; out = e + d * e", a=0.3, b=0.4),
    expression("c = a * b; out = (c + a) * (c - b) + c", a=1.2, b=-0.7),
]
# One operation each, and one that no Value class builds from others (a - b may be a + (-b)): run only to tell an
# order mistake from a wrong step, since a single step has no order to get wrong.
# One graph per operation that is one step of the Value class, the reflected + and * (a number on the left, which
# Python hands to __radd__ and __rmul__) too: a step that fails alone is the step's, never the order's. (- and / are
# built of two steps by most classes, so an order can go wrong inside them.)
ONE_STEP_GRAPHS = [expression("a + b", a=0.6, b=-1.3), expression("a * b", a=0.6, b=-1.3),
                   expression("a ** 3", a=0.6), expression("tanh(a)", a=0.6), expression("exp(a)", a=0.6),
                   expression("relu(a)", a=0.6), expression("2.0 + a", a=0.6), expression("2.0 * a", a=0.6)]
# Every value different and an inner node reused: a wrong order spoils its grads, merging equal values cannot.
DISTINCT_VALUES = [expression("c = a * b; out = c * c + c", a=0.6, b=-1.3)]
PUBLIC = ARITHMETIC + POWERS_AND_QUOTIENTS + TANH_AND_EXP + RELUS + [LESSON_NEURON] + REUSED_LEAVES \
    + SHARED_SUBEXPRESSIONS


def expect_backward(student: Student, graphs: list[Graph]) -> None:
    """Each graph built from the student's Value, then out.backward(): every node's data and grad as torch's."""
    __tracebackhide__ = True
    expect_graphs(student, graphs, f"out.backward() {_listed(graphs)}")


def _listed(graphs: list[Graph]) -> str:
    texts = [graph_text(g) for g in graphs]
    more = f" and {len(texts) - 3} more" if len(texts) > 3 else ""
    return "for each of: " + "; ".join(f"[{t}]" for t in texts[:3]) + more


# ---------------------------------------------------------------- public checks

@check
def test_value_holds_data_and_grad(student: Student) -> None:
    shown = "v = Value(0.5); v.data, v.grad, repr(v)"
    got = student.run(read_fresh_value, shown_as=shown).value
    got = got if type(got) is dict else {}
    if not (_close(got.get("data"), 0.5) and got.get("grad") == 0.0):
        fail("A new Value must hold its number in .data and start with .grad = 0.0.", call=shown,
             got=f"data = {_number(got.get('data'))}, grad = {_number(got.get('grad'))}",
             expected="data = 0.5, grad = 0", hint="In __init__: self.data = data and self.grad = 0.0.",
             section=SCRATCH)
    text = got.get("repr", "")
    if not (text.startswith("Value(") and "data=0.5" in text and "grad=0.0" in text):
        fail("repr(Value(0.5)) should show the data and the grad.", call=shown, got=repr(text),
             expected="'Value(data=0.5, grad=0.0)'",
             hint='Define __repr__ to return f"Value(data={self.data}, grad={self.grad})".', section=SCRATCH)
    if got.get("int_data_type") != "float":
        fail("Value(3).data should be the float 3.0: __init__ stores its number as a float, an int too.",
             call="Value(3).data", got=f"a {got.get('int_data_type')}", expected="the float 3.0",
             meaning="Every node holds a float, whatever it was built from, so that data and grads print and "
                     "compute alike (3 / 2 and 3.0 / 2 agree, but repr shows data=3 against data=3.0).",
             hint="In __init__: self.data = float(data).", section=SCRATCH)


@check
def test_forward_values(student: Student) -> None:
    expect_graphs(student, PUBLIC, f"building every public expression (no backward) {_listed(PUBLIC)}",
                  backward=False)


@check
def test_arithmetic_with_numbers(student: Student) -> None:
    expect_backward(student, ARITHMETIC)
    # The class docstring's own examples, with Python ints as they are written there.
    texts = [re.sub(r"(?<![\d.])(\d+)\.0(?!\d)", r"\1", graph_text(graph)) for graph in INT_ARITHMETIC]
    expect_graphs(student, INT_ARITHMETIC, f"out.backward() with int numbers, for each of: {'; '.join(texts)}",
                  texts=texts, int_numbers=True)


@check
def test_pow_and_div(student: Student) -> None:
    expect_backward(student, POWERS_AND_QUOTIENTS)


@check
def test_tanh_and_exp(student: Student) -> None:
    expect_backward(student, TANH_AND_EXP)


@check
def test_relu(student: Student) -> None:
    expect_backward(student, RELUS)


@check
def test_lesson_neuron(student: Student) -> None:
    expect_graphs(student, [LESSON_NEURON], f"{graph_text(LESSON_NEURON)}; out.backward() (the lesson's neuron: "
                                            "out = 0.9526, d out / d w = [0.1355, 0.0452, 0.1807])")


@check
def test_reused_leaves(student: Student) -> None:
    expect_backward(student, REUSED_LEAVES)


@check
def test_shared_subexpressions(student: Student) -> None:
    expect_backward(student, SHARED_SUBEXPRESSIONS)


# ---------------------------------------------------------------- hidden checks

@check
def test_value_backward_on_random_graphs(student: Student) -> None:
    graphs = drawn("lesson01", EXERCISE.slug, "generated_expressions")
    seed = EXERCISE.seed("generated_expressions")
    expect_graphs(student, graphs, f"out.backward() on {len(graphs)} random expressions (drawn by hypothesis, "
                                   f"seed {seed})")
    expect_a_second_graph(student)


SECOND_GRAPH = ("backward() of a second graph that reuses a leaf: c = a * b; c.backward(); a.grad = b.grad = 0; "
                "e = a + x; e.backward() with a = 2.0, b = 3.0, x = 5.0")


def expect_a_second_graph(student: Student) -> None:
    """backward() runs the steps of the graph it is called on, and only those: a second graph's backward, which the
    docstring allows (once per graph), leaves a leaf the two graphs share with the second graph's share alone."""
    __tracebackhide__ = True
    returned = student.run(second_graph_sharing_a_leaf, shown_as=SECOND_GRAPH, runs="backward", allow_raise=True)
    if returned.error is not None:
        student.fail_raised(returned, "backward")
    got = returned.value
    if type(got) is dict and got == {"a": 1.0, "x": 1.0}:
        return
    shown = ", ".join(f"{name}.grad = {value}" for name, value in got.items()) if type(got) is dict else repr(got)
    fail("After a first graph's backward(), a second graph that reuses leaf a gets the wrong grads.",
         call=SECOND_GRAPH, got=shown, expected="a.grad = 1, x.grad = 1",
         hint="Make the sort's visited set and its list anew in every backward() call, so that it sorts and runs "
              "the steps of the graph it is called on, and nothing left from an earlier call.",
         section=SCRATCH)


@check
def test_value_backward_on_a_deep_chain(student: Student) -> None:
    graph = drawn("lesson01", EXERCISE.slug, "chain")
    expect_graphs(student, [graph], f"{chain_text(graph)}; out.backward()", texts=[chain_text(graph)])
