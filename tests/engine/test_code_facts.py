"""A fact about a result is named by its cause only where the code of the function the check called shows it."""

from __future__ import annotations

import dataclasses
import types

import torch

from graders.engine.code_facts import told_by_the_code
from graders.engine.feedback import Feedback
from graders.engine.answer_facts import shape_fact
from graders.engine.mistakes import DTYPE_DIFFERS, GRAPH_OF_THE_GRADIENT_KEPT, SHAPE_DIFFERS, STILL_TRACKED
from graders.engine.source_evidence import SourceEvidence

SOURCE = '''
import torch

def kept(f, x):
    leaf = x.detach().clone().requires_grad_(True)
    f(leaf).backward(create_graph=True)
    return leaf.grad

def tracked(f, x):
    return f(x)
'''


def _student(source: str) -> types.SimpleNamespace:
    return types.SimpleNamespace(evidence=SourceEvidence(source))


def _still_tracked(call: str) -> Feedback:
    return Feedback("kept: the result still requires grad.", call=call, mistake=STILL_TRACKED.name,
                    meaning=STILL_TRACKED.explanation, hint=STILL_TRACKED.hint)


def test_a_tracked_gradient_from_code_that_asks_for_create_graph_is_named_so() -> None:
    told = told_by_the_code(_still_tracked("kept(f, x) with x = tensor([1.0])"), _student(SOURCE))
    assert told is not None and told.mistake == GRAPH_OF_THE_GRADIENT_KEPT.name
    assert told.meaning == GRAPH_OF_THE_GRADIENT_KEPT.explanation and told.call.startswith("kept(")


def test_the_fact_stays_where_the_code_does_not_show_the_cause() -> None:
    assert told_by_the_code(_still_tracked("tracked(f, x) with x = tensor([1.0])"), _student(SOURCE)) is None
    assert told_by_the_code(_still_tracked("a run of 3 steps"), _student(SOURCE)) is None  # no function called
    assert told_by_the_code(_still_tracked("kept(f, x)"), None) is None  # no student: nothing to read
    other = Feedback("kept: wrong values.", call="kept(f, x)", mistake="the right result times one factor")
    assert told_by_the_code(other, _student(SOURCE)) is None


DTYPES = '''
import numpy as np
import torch

def rebuilt(x):
    values = x.tolist()
    return torch.tensor(values)

def through_numpy(x):
    return torch.from_numpy(np.cos(x.numpy()))

def kept(x):
    return x * 2

def promoted_by_numpy(w, inp):
    w_np = w.detach().numpy()
    s = 1.0 / (1.0 + np.exp(-float(np.dot(w_np, inp.numpy()))))
    return torch.from_numpy(s * (1.0 - s) * inp.numpy())
'''


def _wrong_dtype(call: str, got: str, wanted: str) -> Feedback:
    return Feedback(f"{call}: the result has dtype {got}.", call=f"{call}(x) with x = ...", mistake=DTYPE_DIFFERS.name,
                    meaning=f"Your result is {got} where {wanted} belongs.", measured=(got, wanted),
                    meaning_without_values=f"Your result is {got} where {wanted} belongs.")


def test_a_dtype_fact_is_told_the_line_of_the_code_that_gives_the_dtype_found() -> None:
    student = _student(DTYPES)
    told = told_by_the_code(_wrong_dtype("rebuilt", "float32", "float64"), student)
    assert told is not None and told.mistake == DTYPE_DIFFERS.name
    assert "line 6 is such a step: `values = x.tolist()`" in told.meaning and "line 6" in told.meaning_without_values
    told = told_by_the_code(_wrong_dtype("through_numpy", "float64", "float32"), student)
    assert told is not None and "torch.from_numpy(np.cos(x.numpy()))" in told.meaning
    # float64 made by NumPy on the way (a Python float meets a float32 array): told where the array becomes the
    # result, not at the .numpy() of a float32 tensor that brought the values in.
    told = told_by_the_code(_wrong_dtype("promoted_by_numpy", "float64", "float32"), student)
    assert told is not None and "return torch.from_numpy(s * (1.0 - s) * inp.numpy())" in told.meaning
    assert told_by_the_code(_wrong_dtype("kept", "float32", "float64"), student) is None  # no such line: the fact stays
    assert told_by_the_code(_wrong_dtype("rebuilt", "int64", "float32"), student) is None  # not two floats


SHAPES = '''
import torch

def kept_dimension(w, x):
    z = (w * x).sum(dim=0, keepdim=True)
    return torch.sigmoid(z)

def indexed_with_none(x):
    return x[:, None] * 2

def squeezed(x):
    return x.squeeze()

def plain(x):
    return x * 2
'''


def _wrong_shape(call: str, got: tuple[int, ...], expected: tuple[int, ...]) -> Feedback:
    fact = shape_fact(got, expected)
    return Feedback(f"{call}: the shape differs.", call=f"{call}(x) with x = ...", mistake=SHAPE_DIFFERS.name,
                    meaning=fact.explanation, meaning_without_values=fact.without_values, measured=fact.measured)


def test_a_size_1_dimension_too_many_or_too_few_is_told_the_line_that_makes_it() -> None:
    student = _student(SHAPES)
    told = told_by_the_code(_wrong_shape("kept_dimension", (1,), ()), student)
    assert told is not None and told.mistake == SHAPE_DIFFERS.name
    assert "line 5 is such a step: `z = (w * x).sum(dim=0, keepdim=True)`" in told.meaning
    assert "line 5" in told.meaning_without_values and "(1,)" not in told.meaning_without_values
    told = told_by_the_code(_wrong_shape("indexed_with_none", (4, 1), (4,)), student)
    assert told is not None and "`return x[:, None] * 2`" in told.meaning
    told = told_by_the_code(_wrong_shape("squeezed", (4,), (4, 1)), student)
    assert told is not None and "`return x.squeeze()`" in told.meaning
    assert told_by_the_code(_wrong_shape("plain", (4, 1), (4,)), student) is None  # no such line: the fact stays
    assert told_by_the_code(_wrong_shape("squeezed", (4, 1), (4,)), student) is None  # a squeeze adds no dimension
    assert told_by_the_code(_wrong_shape("kept_dimension", (4, 4), (4,)), student) is None  # not a size-1 dimension


CUTS = '''
import torch

def through_numpy(pred, target):
    gap = (pred.detach().numpy() - target.numpy()) ** 2
    return torch.tensor(gap.mean())

def kept(pred, target):
    return ((pred - target) ** 2).mean()
'''


def test_a_result_cut_from_the_graph_is_told_the_line_that_takes_it_out() -> None:
    from graders.engine.mistakes import CUT_FROM_THE_GRAPH

    cut = Feedback("the loss does not require grad.", call="through_numpy(pred, target) with ...",
                   mistake=CUT_FROM_THE_GRAPH.name, meaning=CUT_FROM_THE_GRAPH.explanation)
    told = told_by_the_code(cut, _student(CUTS))
    assert told is not None and "line 5 takes the value out of the graph: `gap = (pred.detach().numpy()" in told.meaning
    assert told_by_the_code(dataclasses.replace(cut, call="kept(pred, target)"), _student(CUTS)) is None


EXPONENTIALS = '''
import torch

def own_sigmoid(z):
    e = torch.exp(z)
    return e / (1 + e)

def ratio(a, b):
    return a / b
'''


def test_a_nan_from_code_that_takes_an_exponential_is_told_that_line_and_how_it_overflows() -> None:
    from graders.engine.answer_facts import nan_fact

    fact = nan_fact(torch.tensor([float("nan")]), torch.tensor([1.0]))
    assert fact is not None
    failed = Feedback("own_sigmoid: wrong values.", call="own_sigmoid(z) with z = ...", mistake=fact.name,
                      meaning=fact.explanation, hint=fact.hint)
    told = told_by_the_code(failed, _student(EXPONENTIALS))
    assert told is not None and told.mistake == fact.name and told.about_the_code
    assert "line 5 takes an exponential: `e = torch.exp(z)`" in told.meaning and "torch.sigmoid" in told.hint
    # Without an exponential in the code, the fact keeps its own words: its cause may be any 0/0.
    assert told_by_the_code(dataclasses.replace(failed, call="ratio(a, b) with ..."), _student(EXPONENTIALS)) is None


LOOPS = '''
import torch

def one_short(x):
    out = torch.zeros_like(x)
    for i in range(x.numel() - 1):
        out[i] = x[i] * 2
    return out

def late_start(x):
    out = torch.zeros_like(x)
    for i in range(1, len(x)):
        out[i] = x[i] * 2
    return out

def sliced(x):
    out = torch.zeros_like(x)
    out[:-1] = x[:-1] * 2
    return out

def whole(x):
    return x * 2
'''


def _unfilled(function: str, got: list[float]) -> Feedback:
    from graders.engine.answer_facts import unfilled_fact
    fact = unfilled_fact(torch.tensor(got), torch.tensor([2.0, 4.0, 6.0]))
    assert fact is not None
    return Feedback(f"{function}: wrong values.", call=f"{function}(x) with x = tensor([1., 2., 3.])",
                    mistake=fact.name, meaning=fact.explanation, hint=fact.hint, measured=fact.measured)


def test_places_left_unfilled_are_told_the_loop_bound_that_stops_short_of_them() -> None:
    student = _student(LOOPS)
    told = told_by_the_code(_unfilled("one_short", [2.0, 4.0, 0.0]), student)
    assert told is not None and "`for i in range(x.numel() - 1):`" in told.meaning
    told = told_by_the_code(_unfilled("late_start", [0.0, 4.0, 6.0]), student)
    assert told is not None and "`for i in range(1, len(x)):`" in told.meaning
    told = told_by_the_code(_unfilled("sliced", [2.0, 4.0, 0.0]), student)
    assert told is not None and "`out[:-1] = x[:-1] * 2`" in told.meaning
    assert told_by_the_code(_unfilled("whole", [2.0, 4.0, 0.0]), student) is None  # no such bound: the fact stays
    assert told_by_the_code(_unfilled("late_start", [2.0, 4.0, 0.0]), student) is None  # a late start leaves the first
