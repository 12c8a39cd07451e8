"""Drivers of `micrograd`: build expressions from the student's Value class, in the worker.

An expression travels as plain data (graders/lesson01/micrograd/expression_graphs.py describes the form): a list
of nodes in creation order, ("leaf", 0.5), ("mul", 0, 2.0), ("pow", 1, 3), ("tanh", 2), ...
`run_graphs` builds each from the student's Value, calls backward() and sends back every
node's data and grad as floats; the grader compares them with torch's.
"""

from __future__ import annotations

import operator
import traceback
from types import ModuleType
from typing import Any

# The four binary operations by name, as the graphs spell them (no oracle here: only the operators).
BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}
Graph = list  # of node tuples


def run_graphs(module: ModuleType, graphs: list[Graph], backward: bool, int_numbers: bool = False) -> list[dict]:
    """Runs in the worker: build each graph from the student's Value, call backward(), read back numbers.
    With `int_numbers`, a number operand that is whole goes in as a Python int (`a + 1`, not `a + 1.0`)."""
    if not isinstance(getattr(module, "Value", None), type):
        missing = {"error": "NameError: there is no class Value in your file: did you rename it?", "stage": "build",
                   "at": 0, "frames": []}
        return [missing for _ in graphs]
    return [_run_graph(module, graph, backward, int_numbers) for graph in graphs]


def second_graph_sharing_a_leaf(module: ModuleType) -> dict[str, float]:
    """Runs in the worker: c = a * b and c.backward(); a's and b's grads set back to 0; then e = a + x and
    e.backward(). Returns a.grad and x.grad, which are 1 and 1 when a backward runs the steps of its own graph only
    (the first graph's steps, run again, would add b's value into a.grad)."""
    value_class = module.Value
    a, b = value_class(2.0), value_class(3.0)
    (a * b).backward()
    a.grad, b.grad = 0.0, 0.0
    x = value_class(5.0)
    (a + x).backward()
    return {"a": _float(a.grad), "x": _float(x.grad)}


def _run_graph(module: ModuleType, graph: Graph, backward: bool, int_numbers: bool) -> dict:
    value_class, stage, at = module.Value, "build", 0
    try:
        nodes: list[Any] = []
        for at, spec in enumerate(graph):
            node = _make(value_class, spec, nodes, int_numbers)
            if not isinstance(node, value_class):
                return {"error": f"it returned {type(node).__name__} {node!r:.60}, not a Value", "stage": stage,
                        "at": at, "frames": []}
            nodes.append(node)
        if backward:
            stage = "backward"
            nodes[-1].backward()
        stage = "read"
        return {"data": [_float(n.data) for n in nodes], "grad": [_float(n.grad) for n in nodes]}
    except NotImplementedError:
        raise  # the grader turns it into "not implemented yet"
    except Exception as error:  # noqa: BLE001 - RecursionError, TypeError of a missing operator, ...
        frames = [f"line {f.lineno}, in {f.name}: {(f.line or '').strip()}"
                  for f in traceback.extract_tb(error.__traceback__) if f.filename == module.__file__]
        try:
            message = str(error)[:300]
        except Exception:  # noqa: BLE001 - an exception whose message itself fails
            message = "(its message could not be read)"
        return {"error": f"{type(error).__name__}: {message}", "stage": stage, "at": at, "frames": frames[-4:]}


def _make(value_class: type, spec: tuple, nodes: list, int_numbers: bool = False) -> Any:
    """One node built from the student's Value; with `int_numbers`, a whole number operand goes in as an int."""
    kind = spec[0]
    if kind == "leaf":
        return value_class(spec[1])
    if kind in BINARY:
        left, right = (nodes[x] if type(x) is int else int(x) if int_numbers and x.is_integer() else x
                       for x in spec[1:3])
        return BINARY[kind](left, right)
    if kind == "neg":
        return -nodes[spec[1]]
    if kind == "pow":
        return nodes[spec[1]] ** spec[2]
    return getattr(nodes[spec[1]], kind)()


def _float(x: Any) -> float | None:
    try:
        return float(x)
    except Exception:  # noqa: BLE001 - anything that is not a number is reported as such
        return None


def read_fresh_value(module: ModuleType) -> dict:
    """Runs in the worker: a fresh Value(0.5), as numbers and text, and the type of Value(3).data."""
    v = module.Value(0.5)
    return {"data": _float(v.data), "grad": _float(v.grad), "repr": repr(v)[:200],
            "int_data_type": type(module.Value(3).data).__name__[:40]}
