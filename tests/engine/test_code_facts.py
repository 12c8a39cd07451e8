"""A fact about a result is named by its cause only where the code of the function the check called shows it."""

from __future__ import annotations

import types

from graders.engine.code_facts import told_by_the_code
from graders.engine.feedback import Feedback
from graders.engine.mistakes import GRAPH_OF_THE_GRADIENT_KEPT, STILL_TRACKED
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
