"""A backward pass whose walk takes two nodes that hold the same number for one node.

A topological sort must mark the nodes it has visited by the nodes themselves. One that marks them by
`node.data`, by `(node._op, node.data)`, or by a Value class whose `__eq__` and `__hash__` go by the data, takes
the second node of equal value it meets for one it has seen: it never puts that node in the order, so its
backward step never runs and nothing below it receives its share (except through other paths).

Which of two equal nodes the walk meets first depends on the order it visits operands in, and a Value that keeps
its operands in a set visits them in an order that changes from run to run. So the grads are not told from one
order: every choice of which node of each equal group the walk keeps is replayed, and the mistake is named only
where, for every expression of the check, some choice gives exactly the student's grads of every node. A graph
whose choices are too many to replay rules the name out rather than guess.

The checks replay it on the graph as written and as the reference's class composes it (`a / b` as
`a * b ** -1`, whose two inner nodes hold the same number where a is 1), from the values and local derivatives
they compute for every wrong variant; the result is an expected value like theirs.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from graders.lesson01.micrograd.expression_graphs import BINARY, Graph, operands

MOST_CHOICES = 4096  # ways of keeping one node per group of equal ones, replayed per graph at most

# The keys a walk may mark nodes by: the value alone, or the operation with it (`(v._op, v.data)`).
KEYS: dict[str, Callable[[str, float], Any]] = {
    "value": lambda kind, data: data,
    "operation and value": lambda kind, data: (kind, data),
}


def merged_walk_grads(graph: Graph, data: Sequence[float], slots: list, composed: bool) -> list[list[float]]:
    """The node grads of every walk that takes equal values for one node, by each key of `KEYS` and each choice
    of the node it keeps; none where no key merges a node with a backward step, or the choices are too many to
    replay (then the name is not given on a guess). `data` is every node's value, `slots` each node's
    [operand, local derivative] pairs, `composed` as in `_Walked.of`."""
    walked = _Walked.of(graph, data, composed)
    found: dict[tuple, list[float]] = {}
    merges = False
    for key in KEYS.values():
        groups = walked.equal_groups(key)
        firsts = [[node for node in group if walked.may_come_first(node, group)] for group in groups]
        if math.prod(len(nodes) for nodes in firsts) > MOST_CHOICES:
            return []
        merges = merges or bool(groups)
        for kept in itertools.product(*firsts):  # one empty choice where the key merges nothing: the right grads
            grads = walked.replayed(slots, groups, kept)
            if grads is not None:
                found.setdefault(tuple(grads), grads)
    return list(found.values()) if merges else []


def _operation(spec: tuple, composed: bool) -> str:
    """A node's operation as a class names it in `_op`: a power with its exponent (`**2`), and in a class that
    builds -a, a - 2.0 and a / 2.0 from + and *, as the operation that makes the node."""
    kind = spec[0]
    if kind == "pow":
        return f"pow {spec[2]}"
    if composed:
        return {"neg": "mul", "sub": "add", "div": "mul"}.get(kind, kind)
    return kind


@dataclass(frozen=True)
class _Walked:
    """The nodes a walk meets: the graph's, then one leaf per number operand (a Value class wraps `a + 2.0`'s 2.0
    in a Value of its own, which a key by value alone can take for a node of the graph)."""

    kinds: list[str]
    data: list[float]
    children: list[list[int]]  # each node's operands, numbers' leaves included
    size: int  # how many of the nodes are the graph's

    @classmethod
    def of(cls, graph: Graph, data: Sequence[float], composed: bool) -> "_Walked":
        """The walk's nodes; `composed`, with the numbers a class that builds `-` and `/` from `+`, `*` and `**`
        wraps (`a - 2.0` as a + Value(-2.0), `a / 4.0` as a * Value(4.0 ** -1), `-a` as a * Value(-1)), and the
        values such a class computes (a / 4.0 is then a * 0.25, which may differ in the last bit)."""
        kinds = [_operation(spec, composed) for spec in graph]
        values, children = list(data), [operands(spec) for spec in graph]
        for node, spec in enumerate(graph):
            numbers = [(position, float(x)) for position, x in enumerate(spec[1:3]) if type(x) is not int] \
                if spec[0] in BINARY else []
            if composed:
                numbers = [(p, -x if spec[0] == "sub" and p == 1 else x ** -1 if spec[0] == "div" and p == 1 else x)
                           for p, x in numbers] + ([(1, -1.0)] if spec[0] == "neg" else [])
                if spec[0] == "div" and type(spec[2]) is not int:
                    values[node] = values[spec[1]] * numbers[0][1]
            for _, number in numbers:
                children[node].append(len(values))
                kinds.append("leaf")
                values.append(number)
                children.append([])
        return cls(kinds, values, children, len(graph))

    def equal_groups(self, key: Callable[[str, float], Any]) -> list[list[int]]:
        """The groups of two or more nodes the key takes for one, each in creation order; leaves alone left out (a
        leaf has no backward step, so merging leaves changes nothing)."""
        by_key: dict[Any, list[int]] = {}
        for node, (kind, value) in enumerate(zip(self.kinds, self.data)):
            by_key.setdefault(key(kind, value), []).append(node)
        return [nodes for nodes in by_key.values()
                if len(nodes) > 1 and any(self.kinds[node] != "leaf" for node in nodes)]

    def may_come_first(self, node: int, group: list[int]) -> bool:
        """Whether a walk from the output can reach `node` without passing another node of its group: one that is
        only reached through another never comes first, so the walk never keeps it (in a chain whose `x * w + b`
        has b = 0, the sum is always met before the product it equals)."""
        others, stack, seen = set(group) - {node}, [self.size - 1], set()
        while stack:
            at = stack.pop()
            if at == node:
                return True
            if at in seen or at in others:
                continue
            seen.add(at)
            stack.extend(self.children[at])
        return False

    def replayed(self, slots: list, groups: list[list[int]], kept: tuple[int, ...]) -> list[float] | None:
        """The graph's node grads when the walk keeps `kept` of each group and skips the others; None where no walk
        could keep them (a group's kept node is never reached while another of its group is)."""
        group_of = {node: g for g, nodes in enumerate(groups) for node in nodes}
        output = self.size - 1
        if output in group_of and kept[group_of[output]] != output:
            return None  # the walk starts at the output: it is the one its group keeps
        visited, reached, stack = set(), set(), [output]
        while stack:
            node = stack.pop()
            if node in reached:
                continue
            reached.add(node)
            if node in group_of and kept[group_of[node]] != node:
                continue  # taken for its group's kept node: not in the order, its operands not visited through it
            visited.add(node)
            stack.extend(self.children[node])
        if any(kept[g] not in reached for g, nodes in enumerate(groups) if any(n in reached for n in nodes)):
            return None
        # Creation order is a topological order, and every order that puts each node after its users gives the
        # same sums: the steps of the visited nodes, from the output down.
        grad = [0.0] * self.size
        grad[output] = 1.0
        for node in reversed(range(self.size)):
            if node in visited:
                for operand, local in slots[node]:
                    grad[operand] += local * grad[node]
        return grad
