"""What the grader reads in a submitted source: the evidence behind checks of how, and reaches for its
internals. No honest answer of the project's (references, stubs, the catalogue of mistakes) reaches for
anything; every way of reaching written below is found, on its line."""

from __future__ import annotations

import pytest

from mistake_catalogue import changes
from conftest import ROOT, STUBS
from graders.engine.source_evidence import AUTOGRAD_IN_CODE, SourceEvidence

FILES = sorted([*(ROOT / "reference" / "lesson01").glob("*.py"), *(STUBS / "lesson01").glob("*.py")])
HONEST = [(f"{p.parent.name}/{p.stem}", p.read_text()) for p in FILES] + [
    (f"{c.slug}/{c.name}", c.text()) for c in changes()]


@pytest.mark.parametrize("source", [text for _, text in HONEST], ids=[name for name, _ in HONEST])
def test_no_honest_answer_reaches_for_anything(source: str) -> None:
    assert SourceEvidence.read(source).reaches == []


def test_plain_computations_of_the_standard_library_are_followed() -> None:
    # A binary search with bisect or a topological order with graphlib runs nothing but the functions handed to it.
    source = "import bisect\nimport heapq\nfrom graphlib import TopologicalSorter\n\ndef f(xs):\n    return bisect.bisect(xs, 1)\n"
    assert SourceEvidence.read(source).reaches == []


REACHES = [
    ("import gc", "garbage collector"),
    ("import sys\nframe = sys._getframe(1)", "frames"),
    ("import inspect\nframes = inspect.stack()", "frames"),
    ("def f(e):\n    return e.__traceback__.tb_frame.f_back.f_globals", "frame"),
    ("import sys\nm = sys.modules['graders.lesson01.micrograd.checks']", "every module"),
    ("import torch\nwith torch._C.DisableTorchFunction():\n    pass", "trace"),
    ("from torch._C import DisableTorchFunction", "trace"),
    ("from torch.overrides import TorchFunctionMode", "intercepts"),
    ("import ctypes", "memory"),
    ("import graders.lesson01.micrograd.drivers as d", "grader's code"),
    ("from graders.drivers import micrograd", "grader's code"),
    ("import course_config", "seeds"),
    ("x = __import__('gra' + 'ders')", "computed names"),
    ("exec('print(1)')", "cannot read"),
    ("import torch\ngetattr(torch, '_' + 'C')", "not write out"),
    ("name = 'graders.drivers'", "names 'graders.drivers'"),
    ("import sys\nsys.settrace(None)", "every frame"),
    ("object.__subclasses__()", "every class"),
    # Issue 42's ways past a list of known spellings: each is a line the reader cannot follow.
    ("c = vars(torch)['_' + 'C']", "namespace"),
    ("c = torch.__dict__['_' + 'C']", "insides"),
    ("import operator\nc = operator.attrgetter('_' + 'C')(torch)", "compute"),
    ("c = type(torch).__getattribute__(torch, '_' + 'C')", "insides"),
    ("import sys\nm = vars(sys)['modules']", "interpreter"),
    ("b = globals()['__buil' + 'tins__']", "namespace"),
    ("e = exec\ne('x = 1')", "cannot read"),
    ("imp = __import__\nm = imp('o' + 's')", "computed names"),
    ("import timeit", "strings"),
    ("import code", "strings"),
    ("import runpy", "other modules"),
    ("import pickle", "bytes"),
    ("import threading\nthreading.Thread(target=print).start()", "threads"),
    ("from concurrent.futures import ThreadPoolExecutor", "threads"),
    ("future = torch.jit.fork(torch.relu, torch.ones(1))", "threads"),
    ("g = getattr\nc = g(torch, 'relu')", "alias"),
    ("torch.Tensor.backward = lambda self: None", "rebinds"),
    ("setattr(torch, 'allclose', max)", "attributes"),
    ("loader = torch.utils.data.DataLoader([], num_workers=2)", "worker processes"),
    ("c = getattr(torch, '_C')", "C core"),
    ("import numpy\nc = numpy._core", "private part"),
    ("import some_module_nobody_listed", "does not follow"),
]


@pytest.mark.parametrize("code, why", REACHES, ids=[c.splitlines()[-1][:40] for c, _ in REACHES])
def test_each_way_of_reaching_for_the_graders_internals_is_found_on_its_line(code: str, why: str) -> None:
    source = "import torch\n\n\n" + code + "\n"
    reaches = SourceEvidence.read(source).reaches
    assert any(why in reach.why for reach in reaches), reaches
    assert all(4 <= reach.line <= 3 + len(code.splitlines()) for reach in reaches), reaches
    assert reaches[-1].text("mine.py").startswith(f"mine.py line {reaches[-1].line}: ")


CODE = '''
import torch
import torch.autograd as ag
from torch.autograd import grad as autograd_grad


def _helper(x):
    return x.data * 2


def by_hand(x):
    return _helper(x) + 1


def with_autograd(x):
    leaf = x.detach().clone().requires_grad_(True)
    g, = ag.grad(leaf.sum(), leaf)
    h, = autograd_grad(leaf.sum(), leaf)
    leaf.sum().backward()
    return leaf.grad


def untouched(f, x):
    return f(x)
'''


def test_a_function_is_read_with_the_functions_of_the_module_it_calls() -> None:
    evidence = SourceEvidence.read(CODE)
    assert evidence.lines("by_hand", ["data"]) == [8]  # in _helper, which by_hand calls
    assert evidence.lines("with_autograd", ["data"]) == []
    assert evidence.lines("with_autograd", AUTOGRAD_IN_CODE) == [17, 18, 19]  # aliases and imported names too
    assert evidence.lines("by_hand", AUTOGRAD_IN_CODE) == []
    assert evidence.parameter("untouched", 0) == "f" and evidence.shows("untouched", ["f"])
    assert evidence.lines("missing", ["data"]) == [] and evidence.parameter("missing", 0) is None


def test_a_source_that_does_not_parse_shows_nothing_and_reaches_for_nothing() -> None:
    evidence = SourceEvidence.read("def f(:\n")
    assert not evidence.parsed and evidence.reaches == [] and evidence.lines("f", ["data"]) == []


FOLLOWED = '''
import functools

import torch
import torch.nn.functional as F

FIT = functools.partial(torch.optim.SGD, lr=0.1)
_h = None


def _helper(x):
    return x.data * 2


_h = _helper
square = lambda t: t * t


def through_an_alias(x):
    return _h(x)


def through_a_partial(params):
    return FIT(params)


def through_a_literal_getattr(params):
    return getattr(torch.optim, "SGD")(params, lr=0.1)


def with_a_default(x, act=F.relu):
    return act(x)


def a_variable_named_backward(f, x):
    backward = (f(x + 1e-20j).imag / 1e-20).real
    return backward


def through_an_autograd_alias(x):
    leaf = x.detach().requires_grad_(True)
    return GRAD(square(leaf).sum(), leaf)


GRAD = torch.autograd.grad
'''


def test_the_reader_follows_aliases_partials_defaults_and_literal_getattr_without_a_flag() -> None:
    evidence = SourceEvidence.read(FOLLOWED)
    assert evidence.reaches == []
    assert evidence.lines("through_an_alias", ["data"]) == [12]  # _h = _helper, then _helper's body
    assert evidence.shows("through_a_partial", ["optim.SGD"])  # the module-level functools.partial
    assert evidence.shows("through_a_literal_getattr", ["optim.SGD"])
    assert evidence.shows("with_a_default", ["functional.relu"])
    assert evidence.lines("through_an_autograd_alias", AUTOGRAD_IN_CODE) == [45]  # GRAD = torch.autograd.grad


def test_a_variable_named_like_an_api_is_not_that_api() -> None:
    # Issue 42: a local variable called `backward` satisfied "must use autograd" while a complex step did the work.
    assert SourceEvidence.read(FOLLOWED).lines("a_variable_named_backward", AUTOGRAD_IN_CODE) == []
    assert SourceEvidence.read(CODE).shows("untouched", ["f"])  # a parameter is still the name it is


@pytest.mark.parametrize("api", ["torch.func.grad_and_value(f)(x)", "torch.func.linearize(f, x)",
                                 "Square.apply(x)"])
def test_every_api_that_computes_gradients_reads_as_autograd(api: str) -> None:
    source = ("import torch\n\n\nclass Square(torch.autograd.Function):\n    pass\n\n\n"
              f"def g(f, x):\n    return {api}\n")
    assert SourceEvidence.read(source).shows("g", AUTOGRAD_IN_CODE), api


def test_the_students_own_modules_beside_it_are_followed() -> None:
    source = "import torch\nimport helpers\nfrom helpers import twice\n"
    assert SourceEvidence.read(source, own_modules=["helpers"]).reaches == []
    assert [r.line for r in SourceEvidence.read(source).reaches] == [2, 3]  # unknown: not followed


@pytest.mark.parametrize("body, in_place", [
    ("for p in params:\n        p -= lr * p.grad", True),
    ("for p in params:\n        p.sub_(lr * p.grad)", True),
    ("for p in params:\n        p.copy_(p - lr * p.grad)", True),
    ("for p in params:\n        p = p - lr * p.grad\n        p.grad.zero_()", False),  # a rebinding; only .grad cleared
    ("for p in params:\n        p.grad -= p.grad", False),  # a gradient changed, no parameter
])
def test_an_update_in_place_is_an_augmented_assignment_or_an_in_place_arithmetic_method_on_no_grad(
        body: str, in_place: bool) -> None:
    evidence = SourceEvidence.read(f"def sgd_step(params, lr):\n    {body}\n")
    assert evidence.updates_in_place("sgd_step") is in_place


CLEARED_BEFORE_UPDATE = {
    "each gradient cleared after backward(), then the updates": (
        "def fit(ps, loss, lr):\n    loss.backward()\n    for p in ps:\n        p.grad = None\n"
        "    for p in ps:\n        p -= lr * p.grad\n", True),
    "the optimiser's zero_grad() between backward() and the update": (
        "def fit(opt, loss, w, lr):\n    loss.backward()\n    opt.zero_grad()\n    w.sub_(lr * w.grad)\n", True),
    "a gradient's data zeroed before its update": (
        "def fit(w, loss, lr):\n    loss.backward()\n    w.grad.data.zero_()\n    w -= lr * w.grad\n", True),
    "the lesson's order: update, then clear": (
        "def fit(a, b, loss, lr):\n    loss.backward()\n    a -= lr * a.grad\n    a.grad.zero_()\n"
        "    b -= lr * b.grad\n    b.grad.zero_()\n", False),  # a's clear comes before b's update: b's is not cleared
    "cleared at the top of the loop, before backward()": (
        "def fit(w, loss, lr):\n    for _ in range(3):\n        w.grad.zero_()\n        loss.backward()\n"
        "        w.sub_(lr * w.grad)\n", False),
    "cleared in a helper it calls: lines of two functions are not ordered": (
        "def clear(w):\n    w.grad.zero_()\n\ndef fit(w, loss, lr):\n    loss.backward()\n    clear(w)\n"
        "    w -= lr * w.grad\n", False),
}


@pytest.mark.parametrize("source, cleared", CLEARED_BEFORE_UPDATE.values(), ids=CLEARED_BEFORE_UPDATE)
def test_a_gradient_cleared_between_backward_and_its_own_update_is_read_in_line_order(source: str,
                                                                                      cleared: bool) -> None:
    assert SourceEvidence(source).clears_gradients_before_update("fit") is cleared


def test_names_bound_in_one_chained_assignment_are_read_together_and_nothing_else_is() -> None:
    source = ("def train(X):\n    w = b = torch.zeros(1)\n    lr = 0.1\n    x, y = 1, 2\n    p = q = r = []\n"
              "    return w\n")
    assert SourceEvidence(source).bound_together("train") == [{"w", "b"}, {"p", "q", "r"}]
    assert SourceEvidence(source).bound_together("missing") == []


def test_a_keyword_set_is_found_in_the_function_or_a_helper_it_calls_but_not_where_it_is_false() -> None:
    evidence = SourceEvidence('''
import torch

def _take(y, x, keep):
    return torch.autograd.grad(y, x, create_graph=keep)

def gradient(f, x):
    return _take(f(x), x, True)

def plain(f, x):
    (g,) = torch.autograd.grad(f(x), x, create_graph=False, retain_graph=None)
    return g
''')
    assert evidence.sets_keyword("gradient", "create_graph")  # through the helper, whose value is a name
    assert not evidence.sets_keyword("plain", "create_graph") and not evidence.sets_keyword("plain", "retain_graph")
    assert not evidence.sets_keyword("missing", "create_graph")


def test_clearing_a_gradient_or_making_a_leaf_in_a_loop_is_seen_and_its_absence_too() -> None:
    assert SourceEvidence("def f(p):\n    p.grad.zero_()\n").clears_or_remakes_gradients()
    assert SourceEvidence("def f(p):\n    p.grad = None\n").clears_or_remakes_gradients()
    assert SourceEvidence("import torch\ndef f(w, parts):\n    for part in parts:\n"
                          "        leaf = w.detach().clone().requires_grad_(True)\n").clears_or_remakes_gradients()
    assert not SourceEvidence("import torch\ndef f(w, parts):\n    leaf = w.detach().requires_grad_(True)\n"
                              "    for part in parts:\n        (leaf * part).sum().backward()\n"
                              "    return leaf.grad\n").clears_or_remakes_gradients()
    assert SourceEvidence("def f(:\n").clears_or_remakes_gradients()  # cannot be read: rules nothing out


def test_an_optimisers_step_after_zero_grad_after_backward_is_a_clear_before_the_update() -> None:
    code = '''
import torch

def fit(model, X, y, lr, steps):
    optimiser = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        loss = ((model(X) - y) ** 2).mean()
        loss.backward()
        optimiser.zero_grad()
        optimiser.step()

def right(model, X, y, lr, steps):
    optimiser = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        optimiser.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        loss.backward()
        optimiser.step()
'''
    evidence = SourceEvidence(code)
    assert evidence.clears_gradients_before_update("fit")
    assert not evidence.clears_gradients_before_update("right")
