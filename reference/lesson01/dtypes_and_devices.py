"""Lesson 1, "Tensors" and "Common pitfalls": the right dtype for data and labels, and one
device for every tensor.

Reference solution. The stub in exercises/lesson01/ has the same names, signatures and
docstrings.
"""

import numpy as np
import torch
from torch import Tensor


def to_features(a: np.ndarray) -> Tensor:
    """The values of a NumPy array as a float32 tensor, ready for a model's float32 weights.

    NumPy makes float64 arrays by default, and `torch.from_numpy` keeps the array's dtype,
    so a converted array must be cast.

    Args:
        a: a NumPy array of numbers (float64, float32 or integer) of any shape, laid out as
            np.array and np.loadtxt make arrays (torch.from_numpy refuses a reversed view
            such as a[::-1]).

    Returns:
        A tensor of the same shape as `a`, dtype torch.float32, holding `a`'s values
        (rounded to float32).
    """
    return torch.from_numpy(a).float()


def to_labels(a: np.ndarray) -> Tensor:
    """Class labels from a NumPy array, as the int64 (torch.long) tensor that classifiers expect.

    Args:
        a: class indices as a NumPy array of whole numbers of any shape, laid out as
            np.array and np.loadtxt make arrays. Its dtype may be an integer type (int64,
            int32) or a float type whose values are whole numbers, as when labels are read
            from a text file (e.g. np.array([1.0, 0.0, 2.0])).

    Returns:
        A tensor of the same shape as `a`, dtype torch.int64, holding the same labels.
    """
    return torch.from_numpy(a).long()


def pick_device() -> torch.device:
    """The best device this machine offers: CUDA if available, else MPS (Apple silicon),
    else the CPU.

    Ask torch at call time: `torch.cuda.is_available()` and
    `torch.backends.mps.is_available()`.

    Returns:
        torch.device("cuda"), torch.device("mps") or torch.device("cpu"), in that order of
        preference.
    """
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def move_batch(batch: dict[str, Tensor], device: torch.device | str) -> dict[str, Tensor]:
    """A batch with every tensor moved to `device`, as a training loop needs before the
    forward pass (all inputs to an operation must share a device).

    Args:
        batch: a dict from names to values. Most values are tensors; others (a list of
            names, a number, None, ...) may appear too.
        device: where the tensors should go: a torch.device or a string such as "cpu",
            "cuda" or "meta".

    Returns:
        A new dict with the same keys. Each tensor is moved to `device` with its dtype and
        shape unchanged; every value that is not a tensor is kept as it is. `batch` itself
        is left as it was: the caller may still use it.
    """
    return {key: value.to(device) if isinstance(value, Tensor) else value for key, value in batch.items()}
