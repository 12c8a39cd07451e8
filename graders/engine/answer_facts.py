"""Facts about a wrong tensor, read from it and the expected one alone, told where nothing else names the mistake.

A result of another shape, another dtype, the right values in another order, the right ones times one factor, or nan
where the right result is a number is a fact about the answer, true whatever the code did. The general mistakes (mistakes.py: SHAPE_DIFFERS, DTYPE_DIFFERS,
VALUES_REORDERED, SCALED_RESULT, NAN_WHERE_FINITE) keep
their names, so that results and the class report group them; their meaning here says which shapes, which dtypes or
which order, and so which kinds of step give exactly that, rather than a menu of every way a shape can go wrong.
A shape's kind and a dtype's words are also told without values (Mistake.without_values), for a hidden check.
"""

from __future__ import annotations

import dataclasses
import math

import torch

from graders.engine.compare import dtype_name
from graders.engine.mistakes import (DTYPE_DIFFERS, NAN_WHERE_FINITE, NOT_NONE_FOR_NONE, PLACES_LEFT_UNFILLED,
                                     SCALED_RESULT, SHAPE_DIFFERS, VALUES_REORDERED, Mistake)

_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_WHOLE = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def shape_fact(got: tuple[int, ...], expected: tuple[int, ...]) -> Mistake:
    """SHAPE_DIFFERS, its meaning saying how `got` stands to `expected` (both torch.Size or tuples); told without
    either shape too, for a hidden check (Mistake.without_values)."""
    got, expected = tuple(got), tuple(expected)
    kind = _shape_kind(got, expected, sizes=True)
    shown = f"Your result has shape {got} where {expected} belongs"
    if not got and len(expected) == 1:
        shown = f"Your result is a single number (a 0-d tensor) where a 1-D tensor of {expected[0]} belongs"
    told = f"{shown}: {kind}" if kind else f"{shown}."
    unsized = _shape_kind(got, expected, sizes=False)
    unshown = ("Your result is a single number (a 0-d tensor) where a 1-D tensor belongs" if not got and
               len(expected) == 1 else "Your result has another shape than the answer's")
    unit_free = [size for size in got if size != 1] == [size for size in expected if size != 1]
    # What a dimension of size 1 too many or too few is, for reading the code against it (code_facts).
    measured = (("size-1 dimension added",) if unit_free and len(got) > len(expected) else
                ("size-1 dimension removed",) if unit_free and len(got) < len(expected) else ())
    return dataclasses.replace(SHAPE_DIFFERS, explanation=f"{told} The checks compare shapes before values.",
                               without_values=f"{unshown}: {unsized} The checks compare shapes before values."
                               if unsized else "", measured=measured)


def _shape_kind(got: tuple[int, ...], expected: tuple[int, ...], sizes: bool) -> str:
    """How `got` stands to `expected` ("" where no kind fits); without `sizes`, in words that name neither shape nor
    any size of one, which a hidden check may show."""
    unit_free = [size for size in got if size != 1] == [size for size in expected if size != 1]
    if not got and len(expected) == 1:
        return ("its only dimension was squeezed or reduced away, an element was indexed out, or a 0-d input was "
                "handed on as it is.")
    if unit_free and len(got) < len(expected):
        return "a dimension of size 1 is missing (a squeeze, an index where a slice belongs, or a reshape)."
    if unit_free and len(got) > len(expected):
        return ("it has a dimension of size 1 too many (an unsqueeze, keepdim=True, or a (n, 1) column where a 1-D "
                "tensor belongs).")
    if len(expected) == 1 and got == (expected[0], expected[0]):
        return ("an n × n square where n values belong, what a (n, 1) column and a (n,) vector make when they meet in "
                "one operation (broadcasting pairs every element of one with every element of the other).")
    if len(got) == len(expected) == 2 and got == expected[::-1]:
        return "rows and columns swapped (a transpose, or a view with its sizes the other way round)."
    dropped = [axis for axis in range(len(expected)) if got == expected[:axis] + expected[axis + 1:]]
    if dropped and math.prod(got) < math.prod(expected):
        return (f"dimension {dropped[0]} was reduced away (a sum, mean or max over it, where the result keeps it), or "
                "an index took one position of it.")
    added = [axis for axis in range(len(got)) if expected == got[:axis] + got[axis + 1:]]
    if added and math.prod(got) > math.prod(expected):
        size = f" of size {got[added[0]]}" if sizes else ""
        return (f"it has one dimension too many, dimension {added[0]}{size} (a reduction over it left out, or two "
                "tensors that broadcast against each other).")
    if math.prod(got) == math.prod(expected):
        return "the right number of elements, arranged in another shape (a view or reshape's sizes)."
    return ""


def dtype_fact(got: torch.dtype, expected: torch.dtype) -> Mistake:
    """DTYPE_DIFFERS, its meaning saying which dtype stands for which, and which steps give that one; its hint the
    dtype the result must have (the check's, so true whatever the input's dtype was)."""
    wanted = dtype_name(expected)
    # Its words name the two dtypes and no value, so a hidden check may show them as they are.
    words = _dtype_words(got, expected)
    return dataclasses.replace(DTYPE_DIFFERS, explanation=words, without_values=words,
                               measured=(dtype_name(got), wanted),
                               hint=f"The result must be {wanted}: make it in that dtype, or convert it with "
                                    f".to(torch.{wanted}), as the docstring asks; print the dtype of each tensor on "
                                    "the way to see where it changes.")


def _dtype_words(got: torch.dtype, expected: torch.dtype) -> str:
    shown = f"Your result is {dtype_name(got)} where {dtype_name(expected)} belongs"
    if got == torch.float32 and expected == torch.float64:
        return (f"{shown}: a tensor made on the way with torch's default dtype (torch.tensor of Python floats, "
                "torch.zeros or torch.eye with no dtype=) or converted with .float() carries float32 into the result.")
    if got == torch.float64 and expected == torch.float32:
        return (f"{shown}: float64 came in on the way, NumPy's default (torch.from_numpy keeps the array's dtype), "
                "a .double(), or a dtype= of float64.")
    if got in _WHOLE and expected in _FLOATS:
        return (f"{shown}: whole numbers where floats belong, from a tensor made of Python ints (torch.tensor([1, "
                "2]), torch.arange(n) with no dtype=) or an integer conversion, never made float.")
    if got in _FLOATS and expected in _WHOLE:
        return (f"{shown}: floats where whole numbers belong (class labels and counts are int64); convert with "
                ".long(), or keep the integers' own dtype.")
    if got in _WHOLE and expected in _WHOLE:
        return f"{shown}: another integer type; class labels and indices are int64 in torch (.long())."
    return f"{shown}: the checks compare dtypes as well as values."


def order_fact(got: torch.Tensor, expected: torch.Tensor) -> Mistake | None:
    """VALUES_REORDERED where `got` (same shape and dtype as `expected`, other values) holds exactly the expected
    values in another order, its meaning saying which order where it is a simple one; None otherwise."""
    if got.shape != expected.shape or got.dtype != expected.dtype or got.numel() < 2 or got.is_complex():
        return None
    flat_got, flat_expected = got.detach().reshape(-1), expected.detach().reshape(-1)
    if torch.equal(flat_got, flat_expected) or not torch.equal(flat_got.sort().values, flat_expected.sort().values):
        return None
    return dataclasses.replace(VALUES_REORDERED, explanation=_order_words(got.detach(), expected.detach()))


def _order_words(got: torch.Tensor, expected: torch.Tensor) -> str:
    shown = "Your result holds exactly the expected values, in another order"
    flat_got, flat_expected = got.reshape(-1), expected.reshape(-1)
    if torch.equal(flat_got, flat_expected.flip(0)):
        return f"{shown}: the whole order reversed."
    if got.dim() == 2 and torch.equal(got.T.reshape(-1), flat_expected):
        return (f"{shown}: the grid filled column by column where row by row belongs (torch fills and lists "
                "elements row by row, the last dimension fastest).")
    n = flat_got.numel()
    for rows in range(2, n):
        if n % rows == 0 and torch.equal(flat_got, flat_expected.reshape(rows, n // rows).T.reshape(-1)):
            return (f"{shown}: listed column by column (as of a {rows} × {n // rows} grid) where row by row belongs "
                    "(torch lists elements row by row, the last dimension fastest; a transposed tensor is a view "
                    "whose memory is in the other order).")
    return f"{shown}: look at each transpose, permute, sort and index on the way."


def scale_fact(got: object, expected: object) -> Mistake | None:
    """SCALED_RESULT where the tensor `got` is the expected one times one constant other than 1 (same shape and dtype,
    zero where the expected one is, one ratio on at least two values), its meaning saying which; None otherwise."""
    # A tensor only, with two values at least to agree on the factor: any wrong number is some multiple of the right
    # one, which says nothing.
    if type(got) is torch.Tensor and type(expected) is torch.Tensor:
        if got.shape != expected.shape or got.dtype != expected.dtype or got.is_complex() or got.numel() == 0:
            return None
        g, e = got.detach().to(torch.float64).reshape(-1), expected.detach().to(torch.float64).reshape(-1)
        if not (bool(torch.isfinite(g).all()) and bool(torch.isfinite(e).all())):
            return None
        nonzero = e != 0
        if int(nonzero.sum()) < 2 or bool((g[~nonzero] != 0).any()):
            return None
        ratios = g[nonzero] / e[nonzero]
        ratio = float(ratios[0])
        if not bool(torch.isclose(ratios, torch.full_like(ratios, ratio), rtol=_SAME_RATIO, atol=0).all()):
            return None
    else:
        return None
    if ratio == 0 or math.isclose(ratio, 1.0, rel_tol=_SAME_RATIO):
        return None
    return dataclasses.replace(SCALED_RESULT, explanation=_scale_words(ratio))


_SAME_RATIO = 1e-6  # one factor everywhere, up to rounding
_A_COUNT = 1000  # up to this, a whole factor may be a count of values (a sum for a mean); past it, a factor alone


def _scale_words(ratio: float) -> str:
    shown = "Your result is the expected one"
    if math.isclose(ratio, -1.0, rel_tol=_SAME_RATIO):
        return f"{shown} with every sign flipped (−1 times it): a minus sign too many or too few, for the whole result."
    whole, inverse = round(ratio), round(1 / ratio)
    if not 2 <= max(abs(whole), abs(inverse)) <= _A_COUNT:
        return f"{shown} times {ratio:.6g}, everywhere: one factor of the formula is off."
    if abs(whole) >= 2 and math.isclose(ratio, whole, rel_tol=_SAME_RATIO):
        return (f"{shown} times {whole}, everywhere: a sum of {abs(whole)} values where their mean belongs, or a "
                f"factor of {abs(whole)} too many (a 2 of a derivative counted twice, a count not divided out).")
    if abs(inverse) >= 2 and math.isclose(1 / ratio, inverse, rel_tol=_SAME_RATIO):
        return (f"{shown} divided by {inverse}, everywhere: a mean of {abs(inverse)} values where their sum belongs, "
                f"or a division by {abs(inverse)} too many (a factor of a derivative left out).")
    return f"{shown} times {ratio:.6g}, everywhere: one factor of the formula is off."


def nan_fact(got: object, expected: object) -> Mistake | None:
    """NAN_WHERE_FINITE where `got` (a tensor of the expected shape, or a Python float) holds nan in places where the
    expected one is finite, its meaning saying how many and, where every such place expects 0, that 0/0 is the likely
    source."""
    if type(got) is float and type(expected) in (int, float):
        got, expected = torch.tensor(got, dtype=torch.float64), torch.tensor(float(expected), dtype=torch.float64)
    if type(got) is not torch.Tensor or type(expected) is not torch.Tensor or got.shape != expected.shape:
        return None
    if not (got.is_floating_point() and expected.is_floating_point()):
        return None
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    places = torch.isnan(g) & torch.isfinite(e)
    count = int(places.sum())
    if count == 0:
        return None
    zero = bool((e[places] == 0).all())
    if g.numel() == 1:
        words = f"Your result is nan where the right one is {float(e.reshape(-1)[0]):g}"
    else:
        words = f"Your result holds nan in {count} of {g.numel()} places where the right one is a number" + (
            ", each where the right one is 0" if zero else "")
    words += (": a 0/0 there (zero divided by zero); a floor on the denominator, or a guard for that case, keeps it "
              "out." if zero else ": some step makes 0/0, inf − inf, 0 × inf, or the root or log of a negative number.")
    return dataclasses.replace(NAN_WHERE_FINITE, explanation=words)


def unfilled_fact(got: object, expected: object) -> Mistake | None:
    """PLACES_LEFT_UNFILLED where the tensor `got` (the expected shape) is right everywhere but a run of places at
    the start or the end along the first dimension, each of which holds 0 where the expected one does not; its
    meaning says which. `measured` carries which end ("first" or "last"), for reading the code (code_facts.py)."""
    if type(got) is not torch.Tensor or type(expected) is not torch.Tensor or got.shape != expected.shape:
        return None
    if got.dim() == 0 or got.shape[0] < 2 or got.is_complex() or expected.is_complex():
        return None
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    rows = (~torch.isclose(g, e, rtol=1e-4, atol=1e-6)).reshape(len(g), -1).any(dim=1).tolist()
    wrong = [index for index, differs in enumerate(rows) if differs]
    if not wrong or len(wrong) == len(rows):
        return None
    at_start, at_end = wrong == list(range(len(wrong))), wrong == list(range(len(rows) - len(wrong), len(rows)))
    if not (at_start or at_end) or bool((g[wrong] != 0).any()) or not bool((e[wrong] != 0).any()):
        return None
    if not bool(g.any()):  # all zeros, right only where the answer happens to be 0: nothing was filled at all
        return None
    end = "first" if at_start else "last"
    places = (f"the {end} index, {wrong[0]}, which holds" if len(wrong) == 1 else
              f"the {end} {len(wrong)} indices ({wrong[0]} to {wrong[-1]}), which hold")
    words = (f"Your result is right everywhere along its first dimension except at {places} 0 where "
             "the right answer does not: those places were never filled in, what a loop that "
             f"{'starts late (range(1, n))' if at_start else 'stops early (range(n - 1))'} leaves.")
    unshown = (f"Your result is right everywhere except at the {end} place(s) along its first dimension, which hold 0:"
               " those places were never filled in.")
    return dataclasses.replace(PLACES_LEFT_UNFILLED, explanation=words, without_values=unshown, measured=(end,))


# The values a function may return for "no answer" in place of None: each is also an answer some caller may take.
_STAND_INS = (-1, 0, False, "", float("inf"), float("-inf"))


def none_fact(got: object, expected: object) -> Mistake | None:
    """NOT_NONE_FOR_NONE where `expected` is None and `got` is a stand-in for it (-1, 0, False, an empty string or
    list, infinity, nan), its meaning saying which; None otherwise."""
    if expected is not None:
        return None
    stand_in = (type(got) in (int, float, bool, str) and got in _STAND_INS) or (type(got) in (list, tuple) and not got)
    if type(got) is float and math.isnan(got):
        stand_in = True
    if not stand_in:
        return None
    return dataclasses.replace(NOT_NONE_FOR_NONE, explanation=(
        f"Your function returns {got!r} where the docstring asks for None (there is no answer for this input): None "
        "is what says so, while a caller may take " + repr(got) + " for an answer."))
