# mistake: backward step of a / b wrong
# fails: arithmetic_with_numbers, pow_and_div, lesson_neuron, reused_leaves, random_graphs
# named: pow_and_div, random_graphs
"""__truediv__ and __rtruediv__ have their own backward steps, which give the divisor +a/b² · out.grad, not -a/b².

Where no expression has a power of its own (lesson_neuron, reused_leaves) the grads are those of a
power rule slipped in a / b = a * b ** -1, the way the stub suggests: that is the name there.
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
        self.data = float(data)
        self.grad = 0.0
        self._children = _children
        self._op = _op
        # A leaf has nothing to pass its gradient on to.
        self._backward: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        """`Value(data=0.5, grad=0.0)`."""
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other: Value | Number) -> Value:
        """self + other, where other is a Value or a number; returns a new Value."""
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            # += and not =: a node used twice receives a share from each use.
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other: Value | Number) -> Value:
        """self * other, where other is a Value or a number; returns a new Value."""
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, exponent: Number) -> Value:
        """self ** exponent, for a number exponent (an int or a float, never a Value); returns a new Value.

        With a float exponent the base must be positive, as for Python floats.
        """
        assert isinstance(exponent, (int, float)), "only a number exponent is supported"
        out = Value(self.data ** exponent, (self,), f"**{exponent}")

        def _backward() -> None:
            self.grad += exponent * self.data ** (exponent - 1) * out.grad

        out._backward = _backward
        return out

    def __neg__(self) -> Value:
        """-self, a new Value (it may be built from the operations above)."""
        return self * -1

    def __sub__(self, other: Value | Number) -> Value:
        """self - other, for a Value or a number other (it may be built from + and unary -)."""
        return self + (-other)

    def __truediv__(self, other: Value | Number) -> Value:
        """self / other, for a Value or a number other (it may be built from * and ** -1)."""
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data / other.data, (self, other), "/")

        def _backward() -> None:
            self.grad += out.grad / other.data
            other.grad += self.data / other.data ** 2 * out.grad

        out._backward = _backward
        return out

    def __radd__(self, other: Number) -> Value:
        """other + self, for a number on the left (as in `1 + v`)."""
        return self + other

    def __rmul__(self, other: Number) -> Value:
        """other * self, for a number on the left (as in `2 * v`)."""
        return self * other

    def __rsub__(self, other: Number) -> Value:
        """other - self, for a number on the left (as in `1 - v`)."""
        return (-self) + other

    def __rtruediv__(self, other: Number) -> Value:
        """other / self, for a number on the left (as in `2 / v`)."""
        other = Value(other)
        out = Value(other.data / self.data, (self, other), "/")

        def _backward() -> None:
            self.grad += other.data / self.data ** 2 * out.grad
            other.grad += out.grad / self.data

        out._backward = _backward
        return out

    def tanh(self) -> Value:
        """tanh(self) as a new Value; use math.tanh for the data."""
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward() -> None:
            self.grad += (1 - t * t) * out.grad

        out._backward = _backward
        return out

    def relu(self) -> Value:
        """max(0, self) as a new Value.

        Its local derivative is 1 where the input is positive and 0 elsewhere, at exactly 0
        too (torch's convention, which the checks follow).
        """
        out = Value(self.data if self.data > 0 else 0.0, (self,), "relu")

        def _backward() -> None:
            self.grad += (self.data > 0) * out.grad

        out._backward = _backward
        return out

    def exp(self) -> Value:
        """e ** self as a new Value; use math.exp for the data."""
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward() -> None:
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

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
        order: list[Value] = []
        seen: set[int] = set()

        def visit(node: Value) -> None:
            if id(node) not in seen:
                seen.add(id(node))
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
