"""Lesson 1's generated inputs: shape pairs for `shape_bugs`, expression graphs for `micrograd`.

Each recipe draws one check's inputs with the seed course_config.py gives them, under the
same name. Hypothesis leans towards small and boundary values, which is what these checks
want: sizes 0 and 1, empty shapes, leaves that are exactly 0, a node reused at once.
Imported only through graders/engine/case_recipes.py: by the drawing helper, where a case is drawn
in place, and by shipped_cases.py; never by a checks module (a student bundle replays the cases instead).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from hypothesis import assume
from hypothesis import strategies as st

import course_config
from graders.engine.drawing import distinct  # not the kit: the drawing helper imports this module before torch
from graders.lesson01.micrograd.expression_graphs import BINARY, KINDS, Graph, operands, path_counts, python_value

SHAPE_BUGS = course_config.LESSON_01.exercise("shape_bugs")
MICROGRAD = course_config.LESSON_01.exercise("micrograd")

Shape = tuple[int, ...]
Pair = tuple[Shape, Shape]

# ---------------------------------------------------------------- shape_bugs

# (count, largest rank before a prefix of up to two sizes, largest size) of the shape pairs.
PUBLIC_PAIRS, HIDDEN_PAIRS = (300, 4, 5), (400, 6, 7)


@st.composite
def shape_pairs(draw: Callable, max_rank: int, max_size: int) -> Pair:
    """Two shapes, often compatible: the second starts as a tail of the first, each size kept,
    made 1 or drawn afresh, with a size or two put in front; then the two may swap places."""
    size = st.integers(0, max_size)
    a = draw(st.lists(size, max_size=max_rank))
    tail = a[draw(st.integers(0, len(a))):]
    # sampled_from favours its first option, so most sizes are kept and most pairs broadcast.
    b = [{"keep": s, "one": 1}.get(how, None) for s, how in
         zip(tail, (draw(st.sampled_from(("keep", "one", "any"))) for _ in tail))]
    b = [draw(size) if s is None else s for s in b]
    b = draw(st.lists(size, max_size=2)) + b
    return (tuple(b), tuple(a)) if draw(st.booleans()) else (tuple(a), tuple(b))


def _pairs(name: str, space: tuple[int, int, int]) -> list[Pair]:
    count, max_rank, max_size = space
    return distinct(shape_pairs(max_rank, max_size), count, SHAPE_BUGS.seed(name))


# ---------------------------------------------------------------- micrograd

NUMBERS = (-3.0, -2.0, -0.5, 0.5, 1.0, 2.0, 3.0)  # constants on one side of + - * /
EXPONENTS = (2, 3, -1, 0.5, 1.5)


@st.composite
def _operation(draw: Callable, data: list[float], leaves: int) -> tuple | None:
    """One operation on earlier nodes, or None where its value would be awkward (a tiny divisor,
    a root of a negative number, a value past 20)."""
    kind = draw(st.sampled_from(KINDS))
    # Hypothesis favours 0 here, that is the newest node: graphs grow deep, and drawing the
    # same node twice reuses it.
    node = st.integers(0, len(data) - 1).map(lambda back: len(data) - 1 - back)
    if kind in BINARY:
        left, right = draw(node), draw(node)
        number = draw(st.one_of(st.none(), st.sampled_from(NUMBERS)))
        if number is not None:
            left, right = (number, right) if draw(st.booleans()) else (left, number)
        divisor = data[right] if type(right) is int else right
        if kind == "div" and abs(divisor) < 0.3:
            return None
        spec: tuple = (kind, left, right)
    elif kind == "pow":
        base, exponent = draw(node), draw(st.sampled_from(EXPONENTS))
        if (exponent < 0 and abs(data[base]) < 0.3) or (type(exponent) is float and data[base] < 0.2):
            return None
        spec = ("pow", base, exponent)
    else:
        # relu'(0) is a convention worth testing: relu often takes a leaf that is exactly 0 (a
        # zero made inside the graph, such as a - a, may carry no gradient to the leaves).
        zeros = [i for i in range(leaves) if data[i] == 0]
        operand = draw(st.sampled_from(zeros)) if kind == "relu" and zeros and draw(st.booleans()) else draw(node)
        if kind == "exp" and data[operand] > 2.5:
            return None
        spec = (kind, operand)
    value = python_value(spec, data)
    return spec if math.isfinite(value) and abs(value) < 20 else None


@st.composite
def expression_graphs(draw: Callable, most_operations: int, most_paths: int) -> tuple:
    """Two to four leaves (often one exactly 0), 4 to `most_operations` operations, then the sum
    of every node nothing uses, so that each node counts towards the output. A tuple, so that
    it can be compared."""
    leaves = draw(st.lists(st.integers(-200, 200).map(lambda k: k / 100), min_size=2, max_size=4))
    if draw(st.booleans()):  # about half the graphs get a leaf that is exactly 0, for relu's kink
        leaves[draw(st.integers(0, len(leaves) - 1))] = 0.0
    graph: Graph = [("leaf", x) for x in leaves]
    data = list(leaves)
    wanted = draw(st.integers(4, most_operations))
    for _ in range(20 * wanted):  # tries: an awkward operation is drawn again
        if len(graph) - len(leaves) == wanted:
            break
        spec = draw(_operation(data, len(leaves)))
        if spec is not None:
            graph.append(spec)
            data.append(python_value(spec, data))
    # Hypothesis's simplest graphs add a node to itself over and over: ask for some variety.
    assume(len({spec[0] for spec in graph[len(leaves):]}) >= 3)
    used = {i for spec in graph for i in operands(spec)}
    loose = [i for i in range(len(graph)) if i not in used]
    while len(loose) > 1:
        graph.append(("add", loose.pop(0), loose.pop(0)))
        loose.append(len(graph) - 1)
    assume(max(path_counts(graph)) <= most_paths)
    return tuple(graph)


@st.composite
def deep_chains(draw: Callable, depth: int) -> tuple:
    """x = tanh(x * w + b), depth // 3 times; w near 1 and b near 0 keep the gradient alive to x0."""
    graph: Graph = [("leaf", draw(st.integers(500, 1500)) / 1000, "x0"),
                    ("leaf", draw(st.integers(970, 1000)) / 1000, "w"),
                    ("leaf", draw(st.integers(-20, 20)) / 1000, "b")]
    x = 0
    for _ in range(depth // 3):
        graph.append(("mul", 1, x) if draw(st.booleans()) else ("mul", x, 1))
        graph.append(("add", 2, len(graph) - 1) if draw(st.booleans()) else ("add", len(graph) - 1, 2))
        graph.append(("tanh", len(graph) - 1))
        x = len(graph) - 1
    return tuple(graph)


def _random_graphs() -> list[Graph]:
    count, most = (int(MICROGRAD.tolerance(name)) for name in ("random_graph_count", "random_graph_nodes"))
    strategy = expression_graphs(most, int(MICROGRAD.tolerance("max_paths")))
    return [list(graph) for graph in distinct(strategy, count, MICROGRAD.seed("generated_expressions"))]


def _chain() -> Graph:
    # The first example hypothesis draws is its simplest (x0 = 0.5, every operand in one
    # order); the chain is the next one, so that the seed decides it.
    first, chain = distinct(deep_chains(int(MICROGRAD.tolerance("chain_depth"))), 2, MICROGRAD.seed("chain"))
    return list(chain)


RECIPES: dict[str, dict[str, Callable[[], Any]]] = {
    SHAPE_BUGS.slug: {
        "generated_pairs": lambda: _pairs("generated_pairs", PUBLIC_PAIRS),
        "fresh_pairs": lambda: _pairs("fresh_pairs", HIDDEN_PAIRS),
    },
    MICROGRAD.slug: {
        "generated_expressions": _random_graphs,
        "chain": _chain,
    },
}
