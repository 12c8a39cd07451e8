"""Scalar expression graphs as plain data, and their value in Python floats.

A graph is a list of nodes in creation order, each a tuple such as ("leaf", 0.5),
("mul", 0, 2.0), ("pow", 1, 3) or ("tanh", 2); an operand is an int (the index of an
earlier node) or a float (a number, so ("sub", 1.0, 0) is `1 - a`); the last node is the
output. micrograd's checks build graphs in the student's Value from this form, and the
hypothesis strategies of graders/cases/ draw them. No torch here: the process that draws
graphs starts before torch is imported.
"""

from __future__ import annotations

import math
import operator

Graph = list  # of node tuples, see above

BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}
UNARY = ("neg", "pow", "tanh", "relu", "exp")  # pow's exponent is a number, not a node
KINDS = (*BINARY, *UNARY)


def operands(spec: tuple) -> list[int]:
    """The node indices a node uses, in operand order (numbers left out)."""
    if spec[0] == "leaf":
        return []
    return [x for x in (spec[1:3] if spec[0] in BINARY else spec[1:2]) if type(x) is int]


def python_value(spec: tuple, data: list[float]) -> float:
    """A node's value in Python floats, given the values of the nodes before it."""
    kind = spec[0]
    if kind == "leaf":
        return spec[1]
    if kind in BINARY:
        left, right = (data[x] if type(x) is int else x for x in spec[1:3])
        return BINARY[kind](left, right)
    x = data[spec[1]]
    return {"neg": lambda: -x, "pow": lambda: x ** spec[2], "tanh": lambda: math.tanh(x),
            "relu": lambda: x if x > 0 else 0.0, "exp": lambda: math.exp(x)}[kind]()


def values(graph: Graph) -> list[float]:
    """Every node's value in Python floats, in creation order."""
    data: list[float] = []
    for spec in graph:
        data.append(python_value(spec, data))
    return data


def path_counts(graph: Graph) -> list[int]:
    """How many paths lead from the output to each node: the work of a backward pass without a visited set."""
    paths = [0] * len(graph)
    paths[-1] = 1
    for i in reversed(range(len(graph))):
        for j in operands(graph[i]):
            paths[j] += paths[i]
    return paths
