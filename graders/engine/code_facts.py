"""A fact about a wrong result, told by its cause where the student's code shows that cause outright.

A fact (graders/engine/answer_facts.py) is true whatever the code did: "your result still requires grad". Some
facts have a cause that a single keyword of the code gives away, read from the source the grader holds (never from
the worker's word): a gradient that still requires grad, from a function that asks for `create_graph=True`, was
told to keep its graph; a result in another dtype, from a function with a line that converts to that dtype (.float(),
NumPy's float64, numbers rebuilt with torch.tensor), is told that line; so is a result with a dimension of size 1
too many (keepdim=True, unsqueeze, an index with None) or too few (squeeze, flatten), and a result cut from the
graph that must stay in it is told the line that takes it out (.item(), .numpy(), .detach(), torch.no_grad(), ...),
a nan where a number belongs the line that takes an exponential, which overflows to inf, and places left
at 0 at one end of the result the loop bound that stops short of them. The check's own name, where it gave one,
comes first; this only names what the fact left as a menu.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

from graders.engine.feedback import Feedback
from graders.engine.mistakes import (CUT_FROM_THE_GRAPH, DTYPE_DIFFERS, GRAPH_OF_THE_GRADIENT_KEPT, NAN_WHERE_FINITE,
                                     PLACES_LEFT_UNFILLED, SHAPE_DIFFERS, STILL_TRACKED)
from graders.engine.results import called_function


# The steps that take a value out of autograd's graph, as the code names them (SourceEvidence.lines patterns).
_WAYS_OUT_OF_THE_GRAPH = ("no_grad", "inference_mode", "set_grad_enabled", "item", "tolist", "numpy", "detach",
                          "torch.tensor", "as_tensor", "from_numpy", "math")

# The steps that give a float dtype where the other belongs, as the code names them (SourceEvidence.lines patterns).
_STEPS_TO = {
    "float32": ("float", "float32", "tolist", "item", "tensor", "as_tensor"),
    "float64": ("double", "float64", "numpy", "np", "from_numpy"),
}


def told_by_the_code(feedback: Feedback, student: Any) -> Feedback | None:
    """The failure with its fact named by its cause, where the code of the function the check called shows it;
    None where it does not (or the failure names no such fact)."""
    if feedback.mistake not in (STILL_TRACKED.name, DTYPE_DIFFERS.name, SHAPE_DIFFERS.name, CUT_FROM_THE_GRAPH.name,
                                NAN_WHERE_FINITE.name, PLACES_LEFT_UNFILLED.name) or student is None:
        return None
    function = called_function(feedback.call).removesuffix("(...)")
    evidence = getattr(student, "evidence", None)
    if not function or evidence is None:
        return None
    if feedback.mistake == DTYPE_DIFFERS.name:
        return _dtype_step(feedback, evidence, function)
    if feedback.mistake == SHAPE_DIFFERS.name:
        return _shape_step(feedback, evidence, function)
    if feedback.mistake == NAN_WHERE_FINITE.name:
        return _overflowing_exponential(feedback, evidence, function)
    if feedback.mistake == PLACES_LEFT_UNFILLED.name:
        found = sorted(node.lineno for definition in evidence.definitions(function) for node in ast.walk(definition)
                       if _bound_one_short(node, feedback.measured))
        return _told_the_line(feedback, evidence, found[0], "sets such a bound") if found else None
    if feedback.mistake == CUT_FROM_THE_GRAPH.name:
        found = evidence.lines(function, _WAYS_OUT_OF_THE_GRAPH)
        return _told_the_line(feedback, evidence, found[0], "takes the value out of the graph") if found else None
    if not evidence.sets_keyword(function, "create_graph"):
        return None
    cause = GRAPH_OF_THE_GRADIENT_KEPT
    return dataclasses.replace(feedback, mistake=cause.name, meaning=cause.explanation, hint=cause.hint,
                               section=cause.section, concept=cause.concept, meaning_without_values="")


def _shape_step(feedback: Feedback, evidence: Any, function: str) -> Feedback | None:
    """A shape fact of a dimension of size 1 too many (or too few) with the first line of the function's code (or a
    helper's) that adds (or removes) one, where it has such a line."""
    adds = feedback.measured == ("size-1 dimension added",)
    if not adds and feedback.measured != ("size-1 dimension removed",):
        return None
    found = sorted(node.lineno for definition in evidence.definitions(function) for node in ast.walk(definition)
                   if (_adds_a_unit_dimension if adds else _removes_a_unit_dimension)(node))
    return _told_the_line(feedback, evidence, found[0]) if found else None


def _bound_one_short(node: ast.AST, measured: tuple[str, ...]) -> bool:
    """A loop bound that leaves out the last index (`range(n - 1)`, `range(0, len(x) - 1)`, a slice `[:-1]`) where
    the last places went unfilled, or the first (`range(1, n)`, a slice `[1:]`) where the first did."""
    last = measured == ("last",)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and node.args:
        if last:
            stop = node.args[0] if len(node.args) == 1 else node.args[1]
            return (isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub) and isinstance(stop.right, ast.Constant)
                    and stop.right.value == 1)
        return len(node.args) >= 2 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 1
    if isinstance(node, ast.Slice) and node.step is None:
        bound, other = (node.upper, node.lower) if last else (node.lower, node.upper)
        return other is None and bound is not None and _literal(bound) == (-1 if last else 1)
    return False


def _literal(node: ast.AST) -> object:
    """The value a literal expression writes (`1`, `-1`), None for anything else."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None


def _adds_a_unit_dimension(node: ast.AST) -> bool:
    """`keepdim=True`, `.unsqueeze(...)`, `x[..., None]` or `[:, None]`: steps that add a dimension of size 1."""
    if isinstance(node, ast.keyword):
        return node.arg == "keepdim" and isinstance(node.value, ast.Constant) and node.value.value is True
    if isinstance(node, ast.Attribute):
        return node.attr in ("unsqueeze", "unsqueeze_", "atleast_1d", "atleast_2d")
    if isinstance(node, ast.Subscript):
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(isinstance(i, ast.Constant) and i.value is None for i in index)
    return False


def _removes_a_unit_dimension(node: ast.AST) -> bool:
    """`.squeeze(...)`, `.flatten()`, `.ravel()`: steps that remove a dimension of size 1."""
    return isinstance(node, ast.Attribute) and node.attr in ("squeeze", "squeeze_", "flatten", "ravel")


def _told_the_line(feedback: Feedback, evidence: Any, line_number: int, what: str = "is such a step") -> Feedback:
    line = evidence.source.splitlines()[line_number - 1].strip()
    where = f" In your code, line {line_number} {what}: `{line[:120]}`."
    return dataclasses.replace(feedback, meaning=feedback.meaning + where,
                               meaning_without_values=(feedback.meaning_without_values or feedback.meaning) + where)


def _overflowing_exponential(feedback: Feedback, evidence: Any, function: str) -> Feedback | None:
    """A nan where a number belongs, from code that takes an exponential: told that line and how e^z turns into nan
    (inf past the float's range, then inf / inf or inf − inf), where the code has one."""
    found = evidence.lines(function, ("exp",))
    if not found:
        return None
    line = evidence.source.splitlines()[found[0] - 1].strip()
    meaning = (f"{NAN_WHERE_FINITE.explanation} In your code, line {found[0]} takes an exponential: `{line[:120]}`. "
               "e^z is inf once z passes about 88 in float32 (709 in float64), and inf / inf or inf − inf is nan, "
               "although the quantity the formula stands for is an ordinary number there.")
    return dataclasses.replace(feedback, meaning=meaning, meaning_without_values=meaning, hint=_NO_OVERFLOW,
                               about_the_code=True)


_NO_OVERFLOW = ("Use torch's own function where there is one (torch.sigmoid, torch.tanh, torch.logsumexp, "
                "torch.nn.functional.softplus), or write the formula so that its exponent is never positive (e^(−|z|), "
                "choosing the form by the sign of z).")


def _dtype_step(feedback: Feedback, evidence: Any, function: str) -> Feedback | None:
    """A dtype fact with the first line of the function's code (or a helper's) that gives the dtype found, where the
    two are floats and the code has such a line."""
    if len(feedback.measured) != 2 or set(feedback.measured) != {"float32", "float64"}:
        return None
    # An array handed to torch.from_numpy brings its dtype with it: where NumPy made float64 (its default, or a
    # Python float meeting a float32 array), that is the line it becomes the result, not a .numpy() on the way in.
    arrays_in = evidence.lines(function, ("from_numpy",)) if feedback.measured[0] == "float64" else []
    found = arrays_in or evidence.lines(function, _STEPS_TO[feedback.measured[0]])
    return _told_the_line(feedback, evidence, found[0]) if found else None
