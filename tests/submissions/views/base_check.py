# mistake: compared ._base instead of storage
# fails: shares_memory_on_lesson_pairs, shares_memory_on_fresh_pairs
"""Lesson 1, companion "Reshape vs. View vs. Contiguous": new shapes over the same memory,
and copies only where they cannot be avoided.

Write the body of each function below, then check your work with

    pytest exercises/ -k views

Each function's docstring says what it takes and what it must return.
"""

import torch
from torch import Tensor


def as_grid(x: Tensor, rows: int) -> Tensor:
    """The flat tensor `x` seen as a grid of `rows` rows, without copying a single element.

    Args:
        x: a contiguous 1-D tensor of any dtype whose length is a multiple of `rows`.
        rows: how many rows the grid has.

    Returns:
        A tensor of shape (rows, len(x) // rows) and x's dtype that holds x's elements row
        by row and shares x's storage (it is a view: a change to one shows in the other).
    """
    return x.view(rows, -1)


def flatten(x: Tensor) -> Tensor:
    """All elements of `x` in one dimension, in row-major order (the order `x.tolist()`
    lists them), copying only when it must.

    When `x` is contiguous, its memory already holds the elements in that order, so the
    result must be a view of it. When it is not (after a transpose, for instance), no view
    can list the elements in that order, and a copy is the right answer.

    Args:
        x: a tensor of any shape and dtype, contiguous or not.

    Returns:
        A 1-D tensor of x.numel() elements and x's dtype; a view that shares x's storage
        whenever x is contiguous.
    """
    return x.reshape(-1)


def shares_memory(a: Tensor, b: Tensor) -> bool:
    """Whether `a` and `b` use the same storage (the block of memory holding the elements),
    even when they look at different parts of it.

    Args:
        a, b: two tensors.

    Returns:
        True when they share a storage (a tensor and a view of it, two views of one tensor,
        a tensor and its transpose, a tensor and a slice of it), False when they do not (a
        tensor and its clone, two tensors that merely hold equal values). A Python bool.
    """
    if a is b:
        return True
    return a._base is b or b._base is a
