"""No misleading word: a mistake is named only where nothing the grader can see of the code contradicts it
(graders/engine/mistakes.py, `contradicted_by`). The predicates read the student's source as the grader reads it
(engine/source_evidence.py) or the student's own answers; the net in engine/registration.py takes the name off a
failure whose mistake the student's facts rule out."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from graders.engine.feedback import CheckFailed, fail
from graders.engine.mistakes import (Mistake, code_binds_default, code_calls_outside_block, code_passes, code_shows,
                                     contradiction)
from graders.engine.registration import _named_only_where_not_contradicted
from graders.engine.source_evidence import SourceEvidence

SEEDED_LATE = """
import torch

def make(n, seed=0):
    X = torch.rand(n, 1)
    torch.manual_seed(seed)
    return X
"""
SEEDED_WITH_42 = SEEDED_LATE.replace("torch.manual_seed(seed)", "torch.manual_seed(42)")
PARTLY_NO_GRAD = """
import torch

def predict(weight, bias, X):
    with torch.no_grad():
        product = X @ weight.T
    return product + bias
"""
DEFAULT_BOUND = """
def f(x):
    return x

def derivative(x, function=f):
    return function(x)
"""


@dataclass
class Submission:
    """What a contradiction reads of a student: the source as the grader reads it (no worker is needed here)."""

    evidence: SourceEvidence


def _student(source: str) -> Submission:
    return Submission(SourceEvidence.read(source))


def test_the_source_shows_a_call_with_the_functions_own_argument() -> None:
    late, hard_coded = SourceEvidence.read(SEEDED_LATE), SourceEvidence.read(SEEDED_WITH_42)
    assert late.passes("make", ("manual_seed",), "seed")
    assert not hard_coded.passes("make", ("manual_seed",), "seed")
    assert not late.passes("make", ("manual_seed",), "n") and not late.passes("absent", ("manual_seed",), "seed")
    assert SourceEvidence.read(DEFAULT_BOUND).defaults("derivative") == {"function": "f"}
    assert SourceEvidence.read(DEFAULT_BOUND).defaults("f") == {}


def test_a_mistake_is_contradicted_only_by_what_the_code_shows() -> None:
    ignored = Mistake("the seed argument ignored", "", "", "",
                      contradicted_by=(code_passes("make", ("manual_seed",), 1, "it seeds with its argument"),))
    assert contradiction(ignored, _student(SEEDED_LATE)) == "it seeds with its argument"
    assert contradiction(ignored, _student(SEEDED_WITH_42)) == ""
    no_block = Mistake("no no_grad", "", "", "", contradicted_by=(code_shows("predict", ("no_grad",), "has one"),))
    assert contradiction(no_block, _student(PARTLY_NO_GRAD)) == "has one"
    assert contradiction(no_block, _student(PARTLY_NO_GRAD.replace("with torch.no_grad():", "if True:"))) == ""
    bound = Mistake("f not differentiated", "", "", "",
                    contradicted_by=(code_binds_default("derivative", "f", "f is the default of {parameter}"),))
    assert contradiction(bound, _student(DEFAULT_BOUND)) == "f is the default of function"
    assert contradiction(bound, None) == "" and contradiction(None, _student(DEFAULT_BOUND)) == ""


def test_a_fact_the_grader_cannot_read_rules_nothing_out() -> None:
    def unreadable(student: object) -> str:
        raise RuntimeError("the student's call raised")

    mistake = Mistake("m", "", "", "", contradicted_by=(unreadable,))
    assert contradiction(mistake, _student(SEEDED_LATE)) == ""


def test_the_net_takes_a_contradicted_name_off_a_failure_and_keeps_its_values() -> None:
    def test_predict_records_no_graph(student: Submission) -> None:
        fail("predict returned a tensor with grad_fn=AddBackward0.", call="predict(weight, bias, X)", got="tensor",
             mistake=Mistake("no no_grad in predict", "predict computes with autograd recording.",
                             "Put the computation inside `with torch.no_grad():`.", "the triangle"))

    # A check of the stopping_gradients room, whose catalogue says what contradicts "no no_grad in predict".
    test_predict_records_no_graph.__module__ = "graders.lesson01.stopping_gradients.checks"
    netted = _named_only_where_not_contradicted(test_predict_records_no_graph)
    with pytest.raises(CheckFailed) as told:
        netted(student=_student(PARTLY_NO_GRAD))
    feedback = told.value.feedback
    assert feedback.mistake is None and feedback.hint == "" and "no_grad" not in feedback.text(), feedback.text()
    assert feedback.summary.startswith("predict returned") and feedback.got == "tensor"
    without_block = PARTLY_NO_GRAD.replace("with torch.no_grad():", "if True:")
    with pytest.raises(CheckFailed) as told:
        netted(student=_student(without_block))
    assert told.value.feedback.mistake == "no no_grad in predict"


TANGENTS_AFTER = """
import torch.autograd.forward_ad as fwAD

def _tangent(out):
    return fwAD.unpack_dual(out).tangent

def forward(f, x, v):
    with fwAD.dual_level():
        out = f(fwAD.make_dual(x, v))
    return _tangent(out)
"""
TANGENTS_INSIDE = """
import torch.autograd.forward_ad as fwAD

def forward(f, x, v):
    with fwAD.dual_level():
        out = f(fwAD.make_dual(x, v))
        return fwAD.unpack_dual(out).tangent
"""


def test_a_call_outside_every_block_of_its_kind_is_seen_and_one_inside_rules_the_name_out() -> None:
    outside = code_calls_outside_block("unpack_dual", "dual_level", "no tangent read outside the level")
    assert outside(_student(TANGENTS_AFTER)) == ""
    assert outside(_student(TANGENTS_INSIDE)) == "no tangent read outside the level"
    assert outside(_student("def f(x):\n    return x\n")) == "no tangent read outside the level"  # no block at all
    assert outside(_student("def f(:\n")) == "no tangent read outside the level"  # does not parse
