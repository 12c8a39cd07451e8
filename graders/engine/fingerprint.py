"""The digest that names an expected value: which function, on which arguments.

Every check looks up its expected values by a digest of the arguments, several hundred
times per submission, on the same course inputs for every student of a batch. Packing
the arguments into a wire message only to hash it cost more than the lookups themselves
(lists of a few hundred shape pairs, tensors); here the common kinds are written straight
into the hash, and anything else falls back to its wire message, so that two arguments
get one digest only when they would cross the wire as the same message.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import torch

from graders.sandbox import pack, tensor_bytes

_PLAIN = (bool, int, float, str)
_SCALARS = frozenset((*_PLAIN, type(None)))
_MAX_DEPTH = 32  # deeper than any argument a check passes; below it, the wire's own limit applies


def digest(value: Any) -> str:
    """32 hex digits that differ whenever the wire would carry `value` differently."""
    sink = hashlib.sha256()
    _feed(value, sink, 0)
    return sink.hexdigest()[:32]


def _feed(value: Any, sink: Any, depth: int) -> None:
    kind = type(value)
    if depth > _MAX_DEPTH:
        _feed_message(value, sink)
        return
    # repr() of these is exact (floats round-trip, strings are quoted and escaped) and tells
    # apart 1, 1.0, True and "1"; the closing comma ends each token, so none runs into the next.
    if value is None or kind in _PLAIN:
        sink.update(repr(value).encode("utf-8", "surrogatepass") + b",")
    elif kind is list or kind is tuple:
        if _only_plain(value, 0):  # shapes, pairs of shapes, rows of numbers: one repr for them all
            sink.update(b"R" + repr(value).encode("utf-8", "surrogatepass") + b",")
            return
        sink.update(b"[" if kind is list else b"(")
        for item in value:
            _feed(item, sink, depth + 1)
        sink.update(b"]")
    elif kind is dict:
        sink.update(b"{")
        for key, item in value.items():
            _feed(key, sink, depth + 1)
            _feed(item, sink, depth + 1)
        sink.update(b"}")
    elif kind is torch.Tensor or kind is torch.nn.Parameter:
        _feed_tensor(value, sink, depth)
    else:  # numpy values, dtypes, sizes, devices, what may not cross: as the wire writes them
        _feed_message(value, sink)


def _feed_message(value: Any, sink: Any) -> None:
    message = pack(value)
    sink.update(b"W" + struct.pack("!Q", len(message)) + message)


def _only_plain(items: list | tuple, depth: int) -> bool:
    """Whether these are numbers, strings, None, and lists and tuples of them (a few levels deep):
    what repr() writes exactly, brackets telling lists from tuples."""
    kinds = set(map(type, items))  # one pass in C: most arguments are rows of numbers
    if kinds <= _SCALARS:
        return True
    if depth >= 3 or not kinds <= _SCALARS | {list, tuple}:
        return False
    return all(_only_plain(item, depth + 1) for item in items if type(item) is list or type(item) is tuple)


def _feed_tensor(tensor: torch.Tensor, sink: Any, depth: int) -> None:
    try:
        if tensor.layout != torch.strided or tensor.is_quantized:
            raise TypeError("not a dense tensor")
        data = tensor_bytes(tensor)  # a view's strides and a conjugate bit left behind, as the wire does
    except (TypeError, RuntimeError):
        _feed_message(tensor, sink)  # the wire's own account of it
        return
    grad = tensor.grad if tensor.is_leaf else None
    header = (tensor.dtype, tuple(tensor.shape), tensor.requires_grad, tensor.is_leaf,
              type(tensor.grad_fn).__name__ if tensor.grad_fn is not None else None, type(tensor) is torch.nn.Parameter)
    sink.update(b"X" + repr(header).encode() + b",")
    sink.update(data)
    _feed(grad if type(grad) is torch.Tensor else None, sink, depth + 1)
