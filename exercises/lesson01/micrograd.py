"""Companion, "Building Autograd From Scratch": a scalar autograd engine in one class.

Write the body of every method of `Value` below, then check your work with

    pytest exercises/ -k micrograd

The checks build expressions from your Values (for example tanh((a * b) + a) with
a = 0.5, b = -1.2), call backward() on the result, and compare every value and every
leaf's grad with what torch.autograd gives for the same expression in float64. How you
store the operands and the backward step (`_children`, `_backward` below) is up to you:
only `data`, `grad`, repr, the operators, tanh, relu, exp and backward are checked.
"""

from __future__ import annotations

import math
from typing import Callable, Union

Number = Union[int, float]


class Value:
    """One scalar in a computation graph: its number, its gradient, and how it was made.

    Every operation has the same shape: compute the result's data, wrap it in a new Value
    that remembers its operands, and give that Value a backward step, a small function
    that adds (local derivative × the result's grad) into each operand's grad. Then
    `backward()` on the final Value runs those steps through the whole graph, from the
    output back to the leaves: the chain rule, one node at a time.

    A number on either side of an operator counts as a Value holding it, so `a + 1`,
    `2 * a`, `1 - a` and `2 / a` all work (Python calls __radd__, __rmul__, __rsub__
    or __rtruediv__ when the number is on the left).

    Attributes:
        data: the number this node holds (a Python float).
        grad: d(output)/d(this node) after `output.backward()`; 0.0 until then.
    """

    def __init__(self, data: float, _children: tuple = (), _op: str = "") -> None:
        """A node holding `data`, with `grad` 0.0.

        Args:
            data: the node's value (an int or a float; store it as a float).
            _children: the Values this one was computed from (empty for a leaf).
            _op: a short name of the operation that made it, for printing.
        """
        # TODO: write this method.
        raise NotImplementedError

    def __repr__(self) -> str:
        """`Value(data=0.5, grad=0.0)`."""
        # TODO: write this method.
        raise NotImplementedError

    def __add__(self, other: Value | Number) -> Value:
        """self + other, where other is a Value or a number; returns a new Value."""
        # TODO: write this method.
        raise NotImplementedError

    def __mul__(self, other: Value | Number) -> Value:
        """self * other, where other is a Value or a number; returns a new Value."""
        # TODO: write this method.
        raise NotImplementedError

    def __pow__(self, exponent: Number) -> Value:
        """self ** exponent, for a number exponent (an int or a float, never a Value); returns a new Value.

        With a float exponent the base must be positive, as for Python floats.
        """
        # TODO: write this method.
        raise NotImplementedError

    def __neg__(self) -> Value:
        """-self, a new Value (it may be built from the operations above)."""
        # TODO: write this method.
        raise NotImplementedError

    def __sub__(self, other: Value | Number) -> Value:
        """self - other, for a Value or a number other (it may be built from + and unary -)."""
        # TODO: write this method.
        raise NotImplementedError

    def __truediv__(self, other: Value | Number) -> Value:
        """self / other, for a Value or a number other (it may be built from * and ** -1)."""
        # TODO: write this method.
        raise NotImplementedError

    def __radd__(self, other: Number) -> Value:
        """other + self, for a number on the left (as in `1 + v`)."""
        # TODO: write this method.
        raise NotImplementedError

    def __rmul__(self, other: Number) -> Value:
        """other * self, for a number on the left (as in `2 * v`)."""
        # TODO: write this method.
        raise NotImplementedError

    def __rsub__(self, other: Number) -> Value:
        """other - self, for a number on the left (as in `1 - v`)."""
        # TODO: write this method.
        raise NotImplementedError

    def __rtruediv__(self, other: Number) -> Value:
        """other / self, for a number on the left (as in `2 / v`)."""
        # TODO: write this method.
        raise NotImplementedError

    def tanh(self) -> Value:
        """tanh(self) as a new Value; use math.tanh for the data."""
        # TODO: write this method.
        raise NotImplementedError

    def relu(self) -> Value:
        """max(0, self) as a new Value.

        Its local derivative is 1 where the input is positive and 0 elsewhere, at exactly 0
        too (torch's convention, which the checks follow).
        """
        # TODO: write this method.
        raise NotImplementedError

    def exp(self) -> Value:
        """e ** self as a new Value; use math.exp for the data."""
        # TODO: write this method.
        raise NotImplementedError

    def backward(self) -> None:
        """Fill `grad` of every node this Value depends on with d(self)/d(node).

        Seed this node's grad with 1 (d self / d self), sort the graph topologically
        (every node after the nodes it was computed from), then run each node's backward
        step in the reverse of that order. A node must pass its gradient on only after
        every node that uses it has added its share, and only once.

        The checks build graphs at most a few hundred nodes deep, so a recursive
        topological sort (with a set of visited nodes) stays within Python's recursion
        limit of 1000. Call backward() once per graph: grads are not cleared.
        """
        # TODO: write this method.
        raise NotImplementedError
