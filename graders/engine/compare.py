"""Comparing a student's value with the expected one, in the order a student can act on:
type, shape, dtype, requires_grad, then values. Runs in the grader only, with the
grader's own torch, which student code never touched."""

from __future__ import annotations

import math
from typing import Any

import torch

from graders.engine.feedback import cut
from graders.sandbox import Scalar, Unsupported, origin


def describe(value: Any, limit: int = 6) -> str:
    """A short, readable account of a value for a feedback message."""
    if type(value) is torch.Tensor:
        info = origin(value)
        grad = ", requires_grad=True" if value.requires_grad or (info and info.requires_grad) else ""
        return f"tensor of shape {tuple(value.shape)}, {dtype_name(value.dtype)}{grad}: {_preview(value, limit)}"
    if isinstance(value, Unsupported):
        kind = "a Tensor subclass" if value.tensor_subclass else "an object"
        shown = f" {value.text}" if value.text else ""
        return cut(f"{kind} of type {value.type_name}{shown}")
    if isinstance(value, Scalar):
        return f"{value.type_name} {value.value!r}"
    if type(value) is float:
        return _number(value)
    if type(value) in (list, tuple) and len(value) > limit:
        head = ", ".join(describe(v, 2) for v in value[:limit - 2])
        kind = "list" if type(value) is list else "tuple"
        return f"{kind} of {len(value)}: [{head}, ..., {describe(value[-1], 2)}]"
    if type(value) is list:
        return cut("[" + ", ".join(describe(v, 2) for v in value) + "]")
    if type(value) is tuple:
        return cut("(" + ", ".join(describe(v, 2) for v in value) + ("," if len(value) == 1 else "") + ")")
    if type(value) is dict and len(value) > limit:
        shown = ", ".join(f"{describe(k, 2)}: {describe(v, 2)}" for k, v in list(value.items())[:limit])
        return cut(f"dict of {len(value)}: {{{shown}, ...}}")
    return cut(repr(value))


def dtype_name(dtype: torch.dtype) -> str:
    """A dtype as a message writes it: float32, not torch.float32."""
    return str(dtype).removeprefix("torch.")


def _number(value: float) -> str:
    if not math.isfinite(value) or value == 0:
        return repr(value)
    return f"{value:.6g}"


def _preview(tensor: torch.Tensor, limit: int) -> str:
    flat = tensor.detach().reshape(-1)
    if flat.numel() == 0:
        return "[]"
    items = flat.tolist()
    shown = [_element(v) for v in items[:limit]] if len(items) <= limit else (
        [_element(v) for v in items[:limit - 2]] + ["...", _element(items[-1])])
    return "[" + ", ".join(shown) + "]"


def _element(value: Any) -> str:
    return f"{value:.6g}" if type(value) is float else repr(value)  # float32 keeps ~7 digits: show 6


def tensor_problem(got: Any, expected: torch.Tensor, *, rtol: float, atol: float,
                   requires_grad: bool | None = False, what: str = "the result") -> str | None:
    """The first way in which `got` differs from `expected`, or None when it matches."""
    if isinstance(got, Unsupported) and got.tensor_subclass:
        return (f"{what} is a Tensor subclass ({got.type_name}), not a plain torch.Tensor: "
                "return an ordinary tensor")
    if type(got) is not torch.Tensor:
        return f"{what} should be a torch.Tensor but is {describe(got)}"
    if got.shape != expected.shape:
        return f"{what} has shape {tuple(got.shape)}; expected {tuple(expected.shape)}"
    if got.dtype != expected.dtype:
        return f"{what} has dtype {dtype_name(got.dtype)}; expected {dtype_name(expected.dtype)}"
    info = origin(got)
    if requires_grad is not None and info is not None and info.requires_grad != requires_grad:
        if info.requires_grad:
            return f"{what} still requires grad (it is attached to the autograd graph); return it detached"
        return f"{what} does not require grad; it should be part of the autograd graph"
    return values_problem(got, expected, rtol=rtol, atol=atol, what=what)


def values_problem(got: torch.Tensor, expected: torch.Tensor, *, rtol: float, atol: float,
                   what: str = "the result") -> str | None:
    """Where two tensors of the same shape differ by more than the tolerance."""
    got_d, expected_d = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    if got.is_complex() or expected.is_complex():
        got_d, expected_d = got.detach().to(torch.complex128), expected.detach().to(torch.complex128)
    same_nan = torch.isnan(got_d) & torch.isnan(expected_d)
    same_inf = torch.isinf(got_d) & (got_d == expected_d)
    gap = (got_d - expected_d).abs()
    # Around an infinite expected value the tolerance, rtol x inf, is infinite too: only inf itself may match it.
    within = ~torch.isinf(expected_d) & (gap <= atol + rtol * expected_d.abs())
    bad = ~(same_nan | same_inf | within)
    if not bool(bad.any()):
        return None
    index = tuple(int(i) for i in bad.nonzero()[0]) if got.dim() else ()
    where = f" at index {index}" if index else ""
    count = int(bad.sum())
    shown_got, shown_expected = _distinct(got_d[index].item(), expected_d[index].item())
    return (f"{what} differs from the expected values in {count} of {bad.numel()} places; "
            f"first{where}: {shown_got} instead of {shown_expected}")


def _distinct(got: Any, expected: Any) -> tuple[str, str]:
    """Both numbers with just enough digits to show that they differ."""
    if type(got) is not float or type(expected) is not float:
        return _element(got), _element(expected)
    for digits in range(4, 18):
        shown = f"{got:.{digits}g}", f"{expected:.{digits}g}"
        if shown[0] != shown[1]:
            return shown
    return repr(got), repr(expected)


def number_problem(got: Any, expected: float, *, rtol: float, atol: float, what: str = "the result") -> str | None:
    """Whether a Python number matches, with the tolerance; bools and tensors are refused."""
    if isinstance(got, Scalar):
        return f"{what} should be a Python number but is a {got.type_name}: convert it with float() or .item()"
    if type(got) is torch.Tensor:
        return f"{what} should be a Python number but is a tensor: convert it with .item()"
    if type(got) not in (int, float):
        return f"{what} should be a Python number but is {describe(got)}"
    if not close(got, expected, rtol=rtol, atol=atol):
        try:
            shown = _number(float(got))
        except OverflowError:
            shown = "an integer too large for a float"
        return f"{what} is {shown}; expected {_number(expected)}"
    return None


def close(got: float, expected: float, *, rtol: float, atol: float) -> bool:
    """Whether a number is within the tolerance of the expected one. nan matches nan only, and an infinite
    expected value only itself: the tolerance around it, rtol x inf, is infinite and would take any number."""
    if math.isnan(expected):
        return math.isnan(got)
    if math.isinf(expected):
        return got == expected
    try:
        return abs(got - expected) <= atol + rtol * abs(expected)
    except OverflowError:  # an int too large for a float: no finite expected value is near it
        return False


def argument_changed(before: torch.Tensor, after: Any) -> bool:
    """Whether a tensor a call was given came back different: other values or shape, made to
    require grad (or no longer), holding a .grad, or no longer a tensor at all."""
    if type(after) is not torch.Tensor:
        return True
    info = origin(after)
    changed_grad = info is not None and (info.requires_grad != before.requires_grad or info.grad is not None)
    return changed_grad or after.shape != before.shape or not torch.equal(after.detach(), before)
