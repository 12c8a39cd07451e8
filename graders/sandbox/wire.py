"""Plain data across the process boundary, without pickle.

The worker runs student code, so everything it sends is untrusted. A message is JSON
(which can only describe data) plus raw byte blobs for tensor and array contents. The
grader rebuilds every tensor itself with `torch.frombuffer`, from a whitelisted dtype
and a validated shape, so what it holds is always an exact `torch.Tensor` that no
student class ever touched. Anything else a student returns arrives as `Unsupported`,
a description that compares equal to nothing.
"""

from __future__ import annotations

import enum
import json
import math
import struct
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.utils.weak import WeakIdKeyDictionary

_DTYPES: dict[str, torch.dtype] = {
    str(dtype): dtype
    for dtype in (
        torch.float16, torch.bfloat16, torch.float32, torch.float64,
        torch.complex64, torch.complex128, torch.bool, torch.uint8,
        torch.int8, torch.int16, torch.int32, torch.int64,
    )
}
_NUMPY_DTYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
                 "complex64", "complex128"}
_MAX_DEPTH = 64
_PLAIN = (bool, str, int, float)  # what JSON gives back as it was sent
_WORDS = frozenset((bool, str, type(None)))
_IMMUTABLE = frozenset((bool, str, int, float, type(None)))


class Refusal(enum.StrEnum):
    """Why a message was refused, as data: the engine words it (graders/engine/sandbox_words.py)."""

    SHORT_MESSAGE = "short_message"
    HEADER_PAST_END = "header_past_end"
    TOO_MANY_CONTAINERS = "too_many_containers"  # count: the lists and dicts found; limit: how many may be
    NOT_JSON = "not_json"  # found: the JSON parser's error
    TOO_DEEP = "too_deep"
    UNEXPECTED_NODE = "unexpected_node"  # found: the node, cut short
    UNKNOWN_NODE = "unknown_node"  # found: its first keys
    UNKNOWN_DTYPE = "unknown_dtype"  # found: the dtype's name
    UNKNOWN_TENSOR_DTYPE = "unknown_tensor_dtype"  # found: the dtype's name
    SCALAR_NOT_NUMBER = "scalar_not_a_number"
    TENSOR_SPEC_NOT_OBJECT = "tensor_spec_not_an_object"
    GRAD_NOT_TENSOR = "grad_not_a_tensor"
    BAD_NDARRAY_SPEC = "bad_ndarray_spec"
    BLOB_OUT_OF_ORDER = "blob_out_of_order"
    BLOB_PAST_END = "blob_past_end"
    NOT_A_LIST = "not_a_list"
    NOT_A_PAIR = "not_a_pair"
    NOT_A_STRING = "not_a_string"
    BAD_DIMENSION = "bad_dimension"
    UNHASHABLE_KEY = "unhashable_key"
    NOT_A_DICT = "not_a_dict"  # the reply itself
    UNKNOWN_STATUS = "unknown_status"  # found: the status, cut short
    BAD_FACT = "bad_fact"  # a worker's fact without a kind of its own
    ERROR_RAISED = "error_raised"  # found: the Python error met rebuilding it ("KeyError: ...")


class WireError(Exception):
    """A message that does not follow the format: the worker is broken or hostile. It carries why, as data."""

    def __init__(self, refusal: Refusal, found: str = "", *, count: int = 0, limit: int = 0) -> None:
        super().__init__(refusal, found)
        self.refusal = refusal
        self.found = found
        self.count = count
        self.limit = limit

    def __str__(self) -> str:  # for a log or a traceback: the refusal's code and what was found
        return f"{self.refusal}: {self.found}" if self.found else str(self.refusal)


class DecodeTimeout(Exception):
    """Rebuilding the message took past its deadline (an answer built to be slow to decode)."""


_NODES_BETWEEN_CLOCK_READS = 4096
# json.loads cannot be stopped midway, and nested lists cost it ~0.5 us each (1.5 s for a
# forged 15 MB message of them): the number of brackets is capped before it starts. An honest
# answer holds a few thousand containers at most; bulk numbers travel as tensors or flat lists.
_MAX_CONTAINERS = 200_000


@dataclass(frozen=True)
class Unsupported:
    """A value of a type that may not cross (a student class, a Tensor subclass, ...)."""

    type_name: str
    text: str  # the worker's repr of it, cut short: for messages only
    tensor_subclass: bool = False  # a subclass of torch.Tensor: its methods are the student's

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__


@dataclass(frozen=True)
class Scalar:
    """A number of a type other than Python's own (numpy.float64, numpy.int64, ...)."""

    value: float | int | complex
    type_name: str


@dataclass(frozen=True)
class TensorOrigin:
    """What the student's tensor was, beyond its values: its autograd state."""

    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    grad: torch.Tensor | None
    is_parameter: bool


# Keyed by identity: a tensor's own == is elementwise and cannot serve as a dict key.
_origins = WeakIdKeyDictionary()


def origin(tensor: torch.Tensor) -> TensorOrigin | None:
    """The autograd state of a tensor as it was on the student's side, if it came from there."""
    return _origins.get(tensor)


# ---------------------------------------------------------------- encoding (either side)

def pack(value: Any) -> bytes:
    """One message: 4-byte JSON length, JSON, then the blobs it points into."""
    blobs: list[bytes] = []
    tree = _encode(value, blobs, 0)
    header = json.dumps(tree, allow_nan=False).encode()
    return struct.pack("!I", len(header)) + header + b"".join(blobs)


def _encode(value: Any, blobs: list[bytes], depth: int) -> Any:
    if depth > _MAX_DEPTH:
        return {"unsupported": "nesting", "text": f"nested deeper than {_MAX_DEPTH} levels"}
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if abs(value) < 2**53 else {"int": str(value)}
    if kind is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if kind is complex:
        return {"complex": [repr(value.real), repr(value.imag)]}
    if kind is list:  # a row of numbers, the common list, is on the wire as it is: no call per item
        return value if _as_json_already(value) else [_encode(item, blobs, depth + 1) for item in value]
    if kind is tuple:
        if _as_json_already(value):
            return {"tuple": list(value)}  # the common shape (3, 4): no call per item
        return {"tuple": [_encode(item, blobs, depth + 1) for item in value]}
    if kind is dict:  # a str key or a plain value is itself on the wire: no call for it (most replies are such dicts)
        return {"dict": [[k if type(k) is str else _encode(k, blobs, depth + 1),
                          v if v is None or type(v) is str or type(v) is bool else _encode(v, blobs, depth + 1)]
                         for k, v in value.items()]}
    if kind is torch.Tensor or kind is torch.nn.Parameter:
        return _encode_tensor(value, blobs, depth)
    if kind is torch.Size:
        return {"size": [int(n) for n in value]}
    if kind is torch.dtype:
        return {"dtype": str(value)}
    if kind is torch.device:
        return {"device": str(value)}
    if kind is np.ndarray and str(value.dtype) in _NUMPY_DTYPES:
        data = np.ascontiguousarray(value).tobytes()
        blobs.append(data)
        return {"ndarray": {"dtype": str(value.dtype), "shape": list(value.shape), "blob": len(blobs) - 1}}
    if isinstance(value, np.generic) and str(value.dtype) in _NUMPY_DTYPES:
        return {"scalar": _encode(value.item(), blobs, depth + 1), "type": f"numpy.{kind.__name__}"}
    if isinstance(value, torch.Tensor):
        return {"unsupported": _type_name(value), "text": "", "subclass_of": "torch.Tensor"}
    return {"unsupported": _type_name(value), "text": _safe_repr(value)}


def _as_json_already(items: list | tuple) -> bool:
    """Whether JSON carries these items as they are: None, bools, strings, finite floats and ints that a double
    holds exactly. Where they are all of one kind (rows of floats, shapes), decided in passes that run in C."""
    kinds = set(map(type, items))
    if kinds <= _WORDS:
        return True
    if kinds == {float}:
        return all(map(math.isfinite, items))
    if kinds == {int}:
        return -2**53 < min(items) and max(items) < 2**53
    return kinds <= _IMMUTABLE and all((type(item) is not float or math.isfinite(item)) and
                                       (type(item) is not int or abs(item) < 2**53) for item in items)


def _encode_tensor(tensor: torch.Tensor, blobs: list[bytes], depth: int) -> Any:
    if tensor.layout != torch.strided or str(tensor.dtype) not in _DTYPES or tensor.is_quantized:
        return {"unsupported": f"tensor ({tensor.dtype}, {tensor.layout})", "text": ""}
    blobs.append(tensor_bytes(tensor))
    grad = tensor.grad if tensor.is_leaf else None
    return {"tensor": {
        "dtype": str(tensor.dtype),
        "shape": list(tensor.shape),
        "blob": len(blobs) - 1,
        "requires_grad": tensor.requires_grad,
        "is_leaf": tensor.is_leaf,
        "grad_fn": type(tensor.grad_fn).__name__ if tensor.grad_fn is not None else None,
        "grad": _encode(grad, blobs, depth + 1) if type(grad) is torch.Tensor else None,
        "parameter": type(tensor) is torch.nn.Parameter,
    }}


def tensor_bytes(tensor: torch.Tensor) -> bytes:
    """A dense tensor's values as the wire carries them, in row-major order."""
    # A fresh dense copy: .contiguous() keeps odd strides such as a size-1 expanded dim.
    flat = tensor.detach().to("cpu").reshape(-1).clone(memory_format=torch.contiguous_format)
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""


def _type_name(value: Any) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", "?")
    return name if module in ("builtins", "") else f"{module}.{name}"


def _safe_repr(value: Any) -> str:
    try:
        text = object.__repr__(value) if isinstance(value, torch.Tensor) else repr(value)
    except BaseException:  # a student's __repr__ may raise anything
        text = "<repr failed>"
    return text if len(text) <= 200 else text[:197] + "..."


def copy(value: Any) -> Any:
    """A copy of a value `unpack` built, equal to what a second `unpack` of its message would give:
    new lists, dicts, tensors and arrays (tensors with their origins), tuples rebuilt around any
    of those; what cannot change (numbers, strings, tuples of them, dict keys) is shared. For
    values the grader decoded once and hands out many times, so that no check can change what
    the next one gets."""
    kind = type(value)
    if kind is list:  # a row of numbers: a new list of the same (immutable) items
        return value[:] if set(map(type, value)) <= _IMMUTABLE else [copy(item) for item in value]
    if kind is tuple:
        return value if set(map(type, value)) <= _IMMUTABLE else tuple(copy(i) for i in value)
    if kind is dict:
        return {key: copy(item) for key, item in value.items()}
    if kind is torch.Tensor:
        fresh = value.detach().clone()
        if value.requires_grad:
            fresh.requires_grad_(True)
        known = _origins.get(value)
        if known is not None:
            _origins[fresh] = TensorOrigin(known.requires_grad, known.is_leaf, known.grad_fn,
                                           copy(known.grad) if known.grad is not None else None, known.is_parameter)
        return fresh
    if kind is np.ndarray:
        return value.copy()
    return value  # None, numbers, strings, dtypes, devices, sizes, Scalar, Unsupported: immutable


# ---------------------------------------------------------------- decoding (grader side)

def unpack(message: bytes, deadline: float = math.inf) -> Any:
    """Rebuild a value from a message, trusting nothing in it; past `deadline` (time.monotonic)
    it stops with DecodeTimeout, so that decoding counts against the call's time limit."""
    if len(message) < 4:
        raise WireError(Refusal.SHORT_MESSAGE)
    (length,) = struct.unpack("!I", message[:4])
    if length > len(message) - 4:
        raise WireError(Refusal.HEADER_PAST_END)
    header = message[4:4 + length]
    containers = header.count(b"[") + header.count(b"{")
    if containers > _MAX_CONTAINERS:
        raise WireError(Refusal.TOO_MANY_CONTAINERS, count=containers, limit=_MAX_CONTAINERS)
    try:
        tree = json.loads(header)
    except ValueError as error:
        raise WireError(Refusal.NOT_JSON, str(error)) from None
    data = memoryview(message)[4 + length:]
    try:
        return _Decoder(data, deadline).decode(tree, 0)
    except (WireError, DecodeTimeout):
        raise
    except Exception as error:  # RecursionError, a bad device name, an overflow...: all malformed input
        raise WireError(Refusal.ERROR_RAISED, f"{type(error).__name__}: {error}"[:200]) from None


class _Decoder:
    def __init__(self, data: memoryview, deadline: float = math.inf) -> None:
        self.data = data
        self.deadline = deadline
        self.nodes = 0
        self.offsets = [0]

    def decode(self, tree: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH + 2:
            raise WireError(Refusal.TOO_DEEP)
        self.nodes += 1
        if self.nodes % _NODES_BETWEEN_CLOCK_READS == 0 and time.monotonic() > self.deadline:
            raise DecodeTimeout()
        if tree is None or type(tree) in _PLAIN:
            return tree
        if type(tree) is list:
            if set(map(type, tree)) <= _IMMUTABLE:  # JSON already built them: a list of numbers, say
                self.nodes += len(tree)
                return tree
            return [self.decode(item, depth + 1) for item in tree]
        if type(tree) is not dict or len(tree) not in (1, 2, 3):
            raise WireError(Refusal.UNEXPECTED_NODE, str(tree)[:80])
        if "tuple" in tree:
            items = self._list(tree["tuple"])
            if set(map(type, items)) <= _IMMUTABLE:  # a shape such as (3, 4): no call per item
                self.nodes += len(items)
                return tuple(items)
            return tuple(self.decode(item, depth + 1) for item in items)
        if "dict" in tree:  # str keys and plain values are taken as JSON built them, with no call each
            built = {}
            for pair in self._list(tree["dict"]):
                key, item = self._pair(pair)
                self.nodes += 2
                built[key if type(key) is str else self._key(self.decode(key, depth + 1))] = \
                    item if item is None or type(item) in _PLAIN else self.decode(item, depth + 1)
            return built
        if "int" in tree:
            return int(self._str(tree["int"]))
        if "float" in tree:
            return float(self._str(tree["float"]))
        if "complex" in tree:
            real, imag = self._list(tree["complex"])
            return complex(float(self._str(real)), float(self._str(imag)))
        if "tensor" in tree:
            return self._tensor(tree["tensor"], depth)
        if "ndarray" in tree:
            return self._ndarray(tree["ndarray"])
        if "size" in tree:
            return torch.Size([self._count(n) for n in self._list(tree["size"])])
        if "dtype" in tree:
            name = self._str(tree["dtype"])
            if name not in _DTYPES:
                raise WireError(Refusal.UNKNOWN_DTYPE, name[:40])
            return _DTYPES[name]
        if "device" in tree:
            return torch.device(self._str(tree["device"]))
        if "scalar" in tree:
            value = self.decode(tree["scalar"], depth + 1)
            if type(value) not in (int, float, bool, complex):
                raise WireError(Refusal.SCALAR_NOT_NUMBER)
            return Scalar(value, self._str(tree.get("type", "?")))
        if "unsupported" in tree:
            return Unsupported(self._str(tree["unsupported"]), self._str(tree.get("text", "")),
                               tree.get("subclass_of") == "torch.Tensor")
        raise WireError(Refusal.UNKNOWN_NODE, str(sorted(tree)[:3]))

    def _tensor(self, spec: Any, depth: int) -> torch.Tensor:
        if type(spec) is not dict:
            raise WireError(Refusal.TENSOR_SPEC_NOT_OBJECT)
        name = self._str(spec.get("dtype"))
        if name not in _DTYPES:
            raise WireError(Refusal.UNKNOWN_TENSOR_DTYPE, name[:40])
        dtype = _DTYPES[name]
        shape = [self._count(n) for n in self._list(spec.get("shape"))]
        blob = self._blob(spec.get("blob"), math.prod(shape) * dtype.itemsize)
        tensor = (torch.frombuffer(bytearray(blob), dtype=dtype) if len(blob) else torch.empty(0, dtype=dtype)).reshape(shape)
        requires_grad = spec.get("requires_grad") is True
        if requires_grad and (dtype.is_floating_point or dtype.is_complex):
            tensor.requires_grad_(True)
        grad = spec.get("grad")
        grad_tensor = self.decode(grad, depth + 1) if grad is not None else None
        if grad_tensor is not None and type(grad_tensor) is not torch.Tensor:
            raise WireError(Refusal.GRAD_NOT_TENSOR)
        grad_fn = spec.get("grad_fn")
        _origins[tensor] = TensorOrigin(
            requires_grad=requires_grad,
            is_leaf=spec.get("is_leaf") is not False,
            grad_fn=self._str(grad_fn) if grad_fn is not None else None,
            grad=grad_tensor,
            is_parameter=spec.get("parameter") is True,
        )
        return tensor

    def _ndarray(self, spec: Any) -> np.ndarray:
        if type(spec) is not dict or self._str(spec.get("dtype")) not in _NUMPY_DTYPES:
            raise WireError(Refusal.BAD_NDARRAY_SPEC)
        dtype = np.dtype(spec["dtype"])
        shape = [self._count(n) for n in self._list(spec.get("shape"))]
        blob = self._blob(spec.get("blob"), math.prod(shape) * dtype.itemsize)
        return np.frombuffer(bytearray(blob), dtype=dtype).reshape(shape).copy()

    def _blob(self, index: Any, size: int) -> bytes:
        # Blobs are laid end to end in the order they are referenced.
        if type(index) is not int or index != len(self.offsets) - 1:
            raise WireError(Refusal.BLOB_OUT_OF_ORDER)
        start = self.offsets[-1]
        if start + size > len(self.data):
            raise WireError(Refusal.BLOB_PAST_END)
        self.offsets.append(start + size)
        return bytes(self.data[start:start + size])

    # What a well-formed message holds where each is read; anything else is refused with the reason.
    @staticmethod
    def _list(value: Any) -> list:
        return _expect(value, type(value) is list, Refusal.NOT_A_LIST)

    @staticmethod
    def _pair(value: Any) -> list:
        return _expect(value, type(value) is list and len(value) == 2, Refusal.NOT_A_PAIR)

    @staticmethod
    def _str(value: Any) -> str:
        return _expect(value, type(value) is str, Refusal.NOT_A_STRING)

    @staticmethod
    def _count(value: Any) -> int:
        return _expect(value, type(value) is int and 0 <= value <= 2**40, Refusal.BAD_DIMENSION)

    @staticmethod
    def _key(value: Any) -> Any:
        if type(value) not in (str, int, float, bool, tuple) and value is not None:
            raise WireError(Refusal.UNHASHABLE_KEY)
        return value


def _expect(value: Any, well_formed: bool, problem: Refusal) -> Any:
    """`value`, if the decoder's test of it holds; else the message is refused, saying why."""
    if not well_formed:
        raise WireError(problem)
    return value
