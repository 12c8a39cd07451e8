"""A fact about a wrong result, told by its cause where the student's code shows that cause outright.

A fact (graders/engine/answer_facts.py) is true whatever the code did: "your result still requires grad". Some
facts have a cause that a single keyword of the code gives away, read from the source the grader holds (never from
the worker's word): a gradient that still requires grad, from a function that asks for `create_graph=True`, was
told to keep its graph. The check's own name, where it gave one, comes first; this only names what the fact left
as a menu.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from graders.engine.feedback import Feedback
from graders.engine.mistakes import GRAPH_OF_THE_GRADIENT_KEPT, STILL_TRACKED
from graders.engine.results import called_function


def told_by_the_code(feedback: Feedback, student: Any) -> Feedback | None:
    """The failure with its fact named by its cause, where the code of the function the check called shows it;
    None where it does not (or the failure names no such fact)."""
    if feedback.mistake != STILL_TRACKED.name or student is None:
        return None
    function = called_function(feedback.call).removesuffix("(...)")
    evidence = getattr(student, "evidence", None)
    if not function or evidence is None or not evidence.sets_keyword(function, "create_graph"):
        return None
    cause = GRAPH_OF_THE_GRADIENT_KEPT
    return dataclasses.replace(feedback, mistake=cause.name, meaning=cause.explanation, hint=cause.hint,
                               section=cause.section, concept=cause.concept, meaning_without_values="")
