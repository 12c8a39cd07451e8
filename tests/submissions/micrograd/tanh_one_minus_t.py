# mistake: tanh's local derivative wrong
# fails: tanh_and_exp, random_graphs, deep_chain
"""tanh's backward step uses 1 - t instead of 1 - t²."""

from __future__ import annotations

import math
from typing import Callable, Union

Number = Union[int, float]


class Value:
    """One scalar in a computation graph: its number, its gradient, and how it was made.

    Every operation on Values returns a new Value that remembers its operands and knows
    its own local derivatives; `backward()` on the final Value then applies the chain
    rule through the whole graph, from the output back to the leaves.

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
        """self + other, where other is a Value or a number."""
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward() -> None:
            # += and not =: a node used twice receives a share from each use.
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other: Value | Number) -> Value:
        """self * other, where other is a Value or a number."""
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, exponent: Number) -> Value:
        """self ** exponent, for a number exponent (int or float)."""
        assert isinstance(exponent, (int, float)), "only a number exponent is supported"
        out = Value(self.data ** exponent, (self,), f"**{exponent}")

        def _backward() -> None:
            self.grad += exponent * self.data ** (exponent - 1) * out.grad

        out._backward = _backward
        return out

    def __neg__(self) -> Value:
        """-self."""
        return self * -1

    def __sub__(self, other: Value | Number) -> Value:
        """self - other."""
        return self + (-other)

    def __truediv__(self, other: Value | Number) -> Value:
        """self / other."""
        return self * other ** -1

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
        return self ** -1 * other

    def tanh(self) -> Value:
        """tanh(self); its local derivative is 1 − tanh²."""
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward() -> None:
            self.grad += (1 - t) * out.grad

        out._backward = _backward
        return out

    def relu(self) -> Value:
        """max(0, self); its local derivative is 1 where data > 0 and 0 elsewhere (0 at 0, as in torch)."""
        out = Value(self.data if self.data > 0 else 0.0, (self,), "relu")

        def _backward() -> None:
            self.grad += (self.data > 0) * out.grad

        out._backward = _backward
        return out

    def exp(self) -> Value:
        """e ** self; it is its own local derivative."""
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward() -> None:
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def backward(self) -> None:
        """Fill `grad` of every node this Value depends on, with d(self)/d(node).

        Seeds this node's grad with 1, sorts the graph topologically (each node after
        everything it was computed from), then calls each node's local backward step in
        the reverse of that order, so that a node passes its gradient on only once every
        use of it has contributed. Graphs are at most a few hundred nodes deep, so a
        recursive sort stays within Python's recursion limit.
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
