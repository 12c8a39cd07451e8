"""The plain-data format: values round-trip, and nothing a worker sends can become code
or anything but an exact tensor."""

from __future__ import annotations

import json
import math
import struct

import numpy as np
import pytest
import torch

from graders.sandbox import wire


def roundtrip(value):
    return wire.unpack(wire.pack(value))


def test_plain_values_round_trip() -> None:
    value = {"a": [1, 2.5, None, True, "x"], 3: (1, 2), "big": 2**70, "inf": math.inf, "c": 1 + 2j}
    assert roundtrip(value) == value
    assert math.isnan(roundtrip(math.nan))
    assert roundtrip(torch.Size([2, 3])) == torch.Size([2, 3])
    assert roundtrip(torch.float64) is torch.float64
    assert roundtrip(torch.device("cpu")) == torch.device("cpu")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool, torch.bfloat16,
                                   torch.complex64])
def test_tensors_come_back_as_exact_tensors_with_their_autograd_state(dtype: torch.dtype) -> None:
    tensor = (torch.arange(6).reshape(2, 3) % 2).to(dtype)
    back = roundtrip(tensor)
    assert type(back) is torch.Tensor and back.dtype == dtype and torch.equal(back, tensor)
    leaf = torch.ones(3, requires_grad=True)
    (leaf * 2).sum().backward()
    back, made = roundtrip([leaf, leaf * 3])
    assert wire.origin(back).grad is not None and torch.equal(wire.origin(back).grad, torch.full((3,), 2.0))
    assert wire.origin(made).grad_fn == "MulBackward0" and not wire.origin(made).is_leaf


def test_non_contiguous_and_empty_tensors_keep_their_values() -> None:
    x = torch.arange(12.0).reshape(3, 4).T
    assert torch.equal(roundtrip(x), x)
    assert roundtrip(torch.empty(0, 3)).shape == (0, 3)


def test_numpy_arrays_and_scalars_are_told_apart_from_python_numbers() -> None:
    array = np.arange(4.0)
    assert np.array_equal(roundtrip(array), array)
    scalar = roundtrip(np.float64(0.5))
    assert isinstance(scalar, wire.Scalar) and scalar.type_name == "numpy.float64"


def test_foreign_objects_and_tensor_subclasses_arrive_as_unsupported() -> None:
    class Liar:
        def __eq__(self, other):
            return True

    class Sub(torch.Tensor):
        pass

    liar, sub = roundtrip([Liar(), torch.zeros(2).as_subclass(Sub)])
    assert isinstance(liar, wire.Unsupported) and liar != liar and not liar.tensor_subclass
    assert isinstance(sub, wire.Unsupported) and sub.tensor_subclass


def forged(header: object, blob: bytes = b"") -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("!I", len(text)) + text + blob


@pytest.mark.parametrize("message", [
    b"\x00\x01",
    forged({"tensor": {"dtype": "torch.float32", "shape": [4], "blob": 0}}, b"\x00" * 8),
    forged({"tensor": {"dtype": "os.system", "shape": [1], "blob": 0}}, b"\x00" * 4),
    forged({"tensor": {"dtype": "torch.float32", "shape": [-1], "blob": 0}}),
    forged({"pickle": "cos\nsystem\n"}),
    forged({"dtype": "torch.evil"}),
    forged({"tensor": {"dtype": "torch.float32", "shape": [1], "blob": 1}}, b"\x00" * 4),
])
def test_malformed_or_forged_messages_are_refused(message: bytes) -> None:
    with pytest.raises(wire.WireError):
        wire.unpack(message)


def test_a_tensor_with_a_zero_stride_crosses() -> None:
    expanded = torch.tensor(2.0).expand(1)
    assert torch.equal(roundtrip(expanded), torch.tensor([2.0]))


def test_a_copy_is_what_a_second_unpack_would_give() -> None:
    leaf = torch.ones(3, requires_grad=True)
    (leaf * 2).sum().backward()
    message = wire.pack({"runs": [[1.0, 2.0], (3, (4, 5))], "leaf": leaf, "made": leaf * 3, "array": np.arange(3)})
    first = wire.unpack(message)
    second = wire.copy(first)
    assert second["runs"] == first["runs"] and second["runs"] is not first["runs"]
    second["runs"][0].append(9.0)  # a check that changes what it got changes nothing for the next
    second["array"][0] = 7
    assert first["runs"][0] == [1.0, 2.0] and first["array"][0] == 0
    for name in ("leaf", "made"):
        assert torch.equal(second[name], first[name]) and second[name] is not first[name]
        copied, decoded = wire.origin(second[name]), wire.origin(first[name])
        assert (copied.requires_grad, copied.is_leaf, copied.grad_fn) == (decoded.requires_grad, decoded.is_leaf,
                                                                           decoded.grad_fn)
    assert second["leaf"].requires_grad and torch.equal(wire.origin(second["leaf"]).grad, torch.full((3,), 2.0))
    second["leaf"].data.fill_(5.0)
    assert torch.equal(first["leaf"], torch.ones(3))
