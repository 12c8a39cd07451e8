# mistake: broadcast_shape's ValueError not caught
# fails: silently_broadcasts_lesson_cases, silently_broadcasts_fresh_pairs
"""Lesson 1, "Common pitfalls": shape mismatches that broadcast silently.

Write the body of each function below, then check your work with

    pytest exercises/ -k shape_bugs

Each function's docstring says what it takes, what it must return and what it must raise.
"""

import torch
from torch import Tensor


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that broadcasting gives for operands of shapes `a` and `b`.

    Apply the three rules of the companion text, comparing the two shapes from the
    right (the last dimension first):

    1. two sizes match when they are equal;
    2. they also match when one of them is 1, which is stretched to the other size;
    3. a dimension missing on the left of the shorter shape counts as a 1.

    Any other pair of sizes, such as 3 against 4 or 0 against 3, does not match. A size
    of 0 is an ordinary size: it matches 0 and 1, and the result keeps the 0.

    Examples: (3, 4) and (4,) give (3, 4); (100, 1) and (100,) give (100, 100);
    () and (2, 0) give (2, 0).

    Args:
        a: the first shape, a tuple of non-negative ints (it may be empty, for a 0-d tensor).
        b: the second shape, the same kind of tuple.

    Returns:
        The broadcast shape as a tuple of Python ints, as long as the longer of `a` and `b`.

    Raises:
        ValueError: when the shapes do not broadcast; the message names both shapes.
    """
    a, b = tuple(a), tuple(b)
    rank = max(len(a), len(b))
    result = []
    for i in range(1, rank + 1):  # -1 is the last dimension: the rules read right to left
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            result.append(x)
        elif x == 1:
            result.append(y)
        else:
            raise ValueError(f"shapes {a} and {b} do not broadcast: size {x} meets size {y} "
                             f"in dimension {-i}")
    return tuple(reversed(result))


def silently_broadcasts(pred_shape: tuple[int, ...], target_shape: tuple[int, ...]) -> bool:
    """Whether `pred - target` quietly gives a shape other than `pred_shape`.

    This is the lesson's pitfall: pred of shape (100, 1) minus a target of shape (100,)
    runs without an error and gives (100, 100), so a loss would average 10,000 pairs.

    Shapes that do not broadcast at all return False: `pred - target` then raises an
    error, which is loud, not silent. Shapes whose result is `pred_shape` also return
    False, even when the target is stretched (e.g. (3, 4) and (4,)). You may call
    `broadcast_shape` above.

    Args:
        pred_shape: the shape of the predictions, a tuple of non-negative ints.
        target_shape: the shape of the targets, the same kind of tuple.

    Returns:
        A Python bool.
    """
    out_shape = broadcast_shape(pred_shape, target_shape)
    return out_shape != tuple(pred_shape)


def mse_loss(pred: Tensor, target: Tensor) -> Tensor:
    """The mean squared error of `pred` against `target`, refusing shapes that differ.

    When the shapes are equal, the result equals `torch.nn.functional.mse_loss(pred,
    target)`, and its gradient with respect to `pred` is the same as torch's. When they
    differ in any way (even if they would broadcast), nothing is reshaped or stretched:
    the function raises instead.

    Args:
        pred: a floating-point tensor of any shape, possibly requiring grad.
        target: a tensor of the same dtype.

    Returns:
        A 0-d tensor of pred's dtype, attached to the autograd graph when `pred` requires grad.

    Raises:
        ValueError: when `pred.shape != target.shape`; the message names both shapes.
    """
    if pred.shape != target.shape:
        raise ValueError(f"mse_loss: pred has shape {tuple(pred.shape)} but target has shape "
                         f"{tuple(target.shape)}; make them equal before computing the loss")
    return ((pred - target) ** 2).mean()
