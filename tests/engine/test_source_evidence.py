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
