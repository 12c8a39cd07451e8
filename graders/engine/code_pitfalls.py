"""Python's own pitfalls, read from the code of the function a failed check called, told where the check could name no
mistake of its own.

A check names a mistake by its values: a catalogued variant or a single edit that gives the student's answer. Some
wrong answers come from no edit of the reference at all but from a rule of Python that holds whatever the exercise: a
lambda made in a loop reads the loop's variable when it is called; a cached function answers from its first call;
`.view(dtype)` reinterprets bytes; NumPy's generator is not torch's; a return inside a loop ends it in its first
pass; a default list lives across calls, and so does a list, tensor or model the module made at import; a set's items
zipped with a list meet the wrong partners; one tensor kept at every pass and changed in between holds only the last
pass's values; an iterator runs out after one pass; an inner loop that rebinds the outer one's variable leaves it
pointing elsewhere; `x.to(device)` alone on a line changes nothing; a function tested without its brackets is always
true; `[t] * 3` is one object three times; a helper that rebinds its parameter changes nothing outside; a global
switch of torch stays switched; a trailing comma makes a tuple. Each of these is a pattern the code shows outright
and whose effect is known wherever it is written, so a failure of a function whose code has one is told that pattern,
with its line. Read from the source the grader holds (graders/engine/source_evidence.py), never from the worker's
word. A check's own name comes first: a pitfall fills in a failure that names nothing, and takes the place only of a
fact about the result that it explains (the shape or dtype that bytes read as another type change; the factor or
order of an answer left from an earlier call), or of a name whose hint asks for the very call whose result the code
throws away (a `.float()` alone on a line).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Any, Callable, Iterator

import torch

from graders.engine.feedback import Feedback
from graders.engine.mistakes import (BYTES_REINTERPRETED, CACHED_FIRST_ANSWER, DTYPE_DIFFERS, FUNCTION_AS_TRUTH,
                                     ITERATOR_USED_TWICE, LATE_BOUND_LOOP_VARIABLE, LIST_OF_ONE_OBJECT,
                                     LOOP_VARIABLE_REUSED, MUTABLE_DEFAULT, ONE_OBJECT_KEPT_EACH_PASS, OTHER_GENERATOR,
                                     PARAMETER_REBOUND, PLACES_LEFT_UNFILLED, RESULT_THROWN_AWAY, RETURN_IN_LOOP, SCALED_RESULT,
                                     SET_ORDER_RELIED_ON, SETTING_LEFT_CHANGED, SHAPE_DIFFERS, STATE_KEPT_BETWEEN_CALLS,
                                     STILL_TRACKED, TUPLE_BY_COMMA, VALUES_REORDERED, Contradiction, Mistake)
from graders.engine.results import called_function
from graders.engine.source_evidence import SourceEvidence

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Calls that keep what they are handed for later: a function handed to one of them outlives its iteration.
_KEEPING = frozenset({"append", "extend", "insert", "add", "setdefault", "update"})
_DTYPES = frozenset({"float16", "float32", "float64", "bfloat16", "half", "float", "double", "int8", "int16", "int32",
                     "int64", "uint8", "uint16", "uint32", "uint64", "long", "int", "short", "bool", "complex64",
                     "complex128", "cfloat", "cdouble", "bool_", "intc", "intp", "float_", "longlong"})
# What a function's answer may depend on beyond its arguments: reading one of these under a cache freezes it.
_STATE = ("torch.cuda", "torch.backends", "torch.get_default_dtype", "torch.get_default_device", "os.environ",
          "os.getenv", "random", "numpy.random", "torch.rand", "torch.randn", "torch.randint", "time")
_CACHES = ("functools.cache", "functools.lru_cache", "functools.cached_property")
_OTHER_GENERATORS = ("numpy.random", "random")


def told_by_a_pitfall(feedback: Feedback, student: Any) -> Feedback | None:
    """The failure told the Python pitfall that the code of the function it called shows, with its line; None where
    no function was called, the code shows none, or the check's own name stands (see the module's docstring)."""
    evidence = getattr(student, "evidence", None)
    function = _function_run(feedback.call, evidence)
    if evidence is None or not function:
        return None
    for mistake, explains, find in _PITFALLS:
        line = find(evidence, function)
        if not line:
            continue
        code = evidence.source.splitlines()[line - 1].strip()
        # A name stands unless the pitfall explains its fact, or its hint asks for the call whose result the line
        # throws away (a .float()): that hint asks for what the code already does.
        thrown_away_asked_for = mistake is RESULT_THROWN_AWAY and _asks_for(feedback.hint, code)
        if not feedback.mistake or feedback.mistake in explains or thrown_away_asked_for:
            meaning = f"{mistake.explanation} In your code, line {line}: `{code[:120]}`."
            return dataclasses.replace(feedback, mistake=mistake.name, meaning=meaning, hint=mistake.hint,
                                       section=mistake.section or feedback.section, concept=mistake.concept,
                                       meaning_without_values=meaning)
    return None


def _function_run(call: str, evidence: SourceEvidence | None) -> str:
    """The student's function a check's call ran: the one it begins with (`predict(...)`), else, for a call written
    as a run of statements (`out = a * b; out.backward()`), the first method it calls that the module defines."""
    function = called_function(call).removesuffix("(...)").rpartition(".")[2]
    if function or evidence is None:
        return function
    return next((name for name in re.findall(r"\.(\w+)\(", call) if evidence.definitions(name)), "")


def code_ends_its_loop_at_once(function: str, why: str) -> Contradiction:
    """A contradiction (graders/engine/mistakes.py): a loop of `function` (or of a helper) returns or breaks in its
    first pass, so an answer of too few passes comes from that, not from a bound off by one."""
    def ends(student: Any) -> str:
        return why if return_in_loop(student.evidence, function) else ""
    return ends


def _code_run(evidence: SourceEvidence, function: str) -> list[ast.AST]:
    """The code a call of `function` runs: its definitions (SourceEvidence.definitions), and those of the methods it
    calls on self (`self._sorted()`), which a name alone does not reach."""
    found = list(evidence.definitions(function))
    seen = {function}
    queue = [function]
    while queue:
        for node in _walk(evidence.definitions(queue.pop())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                    and node.attr not in seen:
                seen.add(node.attr)
                queue.append(node.attr)
                found += [d for d in evidence.definitions(node.attr) if d not in found]
    return found


def _asks_for(hint: str, code: str) -> bool:
    """Whether `hint` asks for a method call that the line `code` makes (`.float()` in both)."""
    return any(f".{method}(" in hint for method in re.findall(r"\.(\w+)\(", code))


def late_bound_loop_variable(evidence: SourceEvidence, function: str) -> int:
    """The line of a function made in a loop or comprehension, kept past its iteration, that reads a name the loop
    binds (0 where there is none). A function called within its own iteration, or handed to a call there, sees the
    value it was meant to; only one kept for later sees the last."""
    for node in _walk(_code_run(evidence, function)):
        if isinstance(node, _COMPREHENSIONS):
            bound = {name for generator in node.generators for name in _stored(generator.target)}
            for kept in _kept_in_comprehension(node):
                if _free_names(kept) & bound:
                    return kept.lineno
        elif isinstance(node, _LOOPS):
            bound = _bound_in_loop(node)
            for kept in _kept_in_loop(node):
                if _free_names(kept) & bound:
                    return kept.lineno
    return 0


def cached_first_answer(evidence: SourceEvidence, function: str) -> int:
    """The line of a cache on a function the call runs whose answer depends on more than its arguments: one with no
    parameters, or one that reads devices, settings or random draws (0 where there is none)."""
    for node in _walk(_code_run(evidence, function)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        cache = next((d for d in node.decorator_list if _names(evidence, d.func if isinstance(d, ast.Call) else d,
                                                                _CACHES)), None)
        if cache is None:
            continue
        arguments = node.args
        parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        if parameters and parameters[0].arg in ("self", "cls"):
            parameters = parameters[1:]
        if not parameters or any(_names(evidence, inner, _STATE) for inner in ast.walk(node)):
            return cache.lineno
    return 0


def bytes_reinterpreted(evidence: SourceEvidence, function: str) -> int:
    """The line of a `.view(dtype)` the call runs: a dtype where a shape belongs (0 where there is none)."""
    for node in _walk(_code_run(evidence, function)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "view"):
            continue
        given = [*node.args, *(k.value for k in node.keywords if k.arg == "dtype")]
        if len(given) == 1 and _is_dtype(evidence, given[0]):
            return node.lineno
    return 0


def other_generator(evidence: SourceEvidence, function: str) -> int:
    """The line of a draw from NumPy's or Python's generator in a function that is handed a seed or seeds torch (0
    where there is none): its numbers are the lesson's only when torch draws them."""
    definitions = _code_run(evidence, function)
    called = next((node for node in definitions if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and node.name == function), None)
    if called is None:
        return 0
    takes_a_seed = any("seed" in a.arg for a in [*called.args.args, *called.args.kwonlyargs])
    if not (takes_a_seed or evidence.shows(function, ("manual_seed",))):
        return 0
    for node in _walk(definitions):
        if isinstance(node, ast.Call) and _names(evidence, node.func, _OTHER_GENERATORS):
            return node.lineno
    return 0


def return_in_loop(evidence: SourceEvidence, function: str) -> int:
    """The line of a return or break that stands in a loop's own body, after work of the loop and under no
    condition, so that the loop ends in its first pass (0 where there is none). A loop whose body is that return
    alone takes the first item on purpose; one with a continue may come round again."""
    for node in _walk(_code_run(evidence, function)):
        if not isinstance(node, _LOOPS):
            continue
        ending = next((s for s in node.body if _always_leaves(s)), None)
        comes_round = any(isinstance(inner, ast.Continue) for inner in _outside_functions(node.body))
        only_the_exit = len(node.body) == 1 and isinstance(ending, (ast.Return, ast.Break))  # the first item, meant
        if ending is not None and not only_the_exit and not comes_round:
            return ending.lineno
    return 0


def _always_leaves(statement: ast.stmt) -> bool:
    """Whether a statement of a loop's body leaves the loop whichever way it goes: a return or break, or an if whose
    every branch ends in one (`if found: return i` / `else: return None`)."""
    if isinstance(statement, (ast.Return, ast.Break)):
        return True
    return (isinstance(statement, ast.If) and bool(statement.orelse) and _always_leaves(statement.body[-1])
            and _always_leaves(statement.orelse[-1]))


def result_thrown_away(evidence: SourceEvidence, function: str) -> int:
    """The line of a statement that only calls a method making a new tensor (`value.to(device)`, `x.float()`), its
    result kept nowhere (0 where there is none)."""
    definitions = _code_run(evidence, function)
    modules = _module_names(evidence, definitions)
    for node in _walk(definitions):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in _NEW_TENSOR_METHODS:
            receiver = node.value.func.value
            if not (isinstance(receiver, ast.Name) and receiver.id in modules):
                return node.lineno
    return 0


def _module_names(evidence: SourceEvidence, definitions: list[ast.AST]) -> set[str]:
    """The names that hold an nn.Module (made by torch.nn's classes or a class of the file), and `self`: a module's
    .to(device) or .float() changes it in place, as a statement rightly does."""
    classes = {node.name for node in _walk(definitions) if isinstance(node, ast.ClassDef)}
    names = {"self"}
    for node in _walk(definitions):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            made = evidence.dotted(node.value.func)
            if made.startswith("torch.nn.") or made in classes:
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def function_as_truth(evidence: SourceEvidence, function: str) -> int:
    """The line of a test (if, while, a conditional expression, and/or/not) whose value is a function of torch's
    itself, not its answer: `if torch.cuda.is_available:` (0 where there is none)."""
    for node in _walk(_code_run(evidence, function)):
        tests = ([node.test] if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)) else
                 node.values if isinstance(node, ast.BoolOp) else
                 [node.operand] if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) else [])
        for test in tests:
            if isinstance(test, (ast.Name, ast.Attribute)) and _is_a_torch_function(evidence.dotted(test)):
                return test.lineno
    return 0


def list_of_one_object(evidence: SourceEvidence, function: str) -> int:
    """The line of `[thing] * n` (or `n * [thing]`) where the thing is made by a call or is a list: n references to
    one object, not n objects (0 where there is none)."""
    for node in _walk(_code_run(evidence, function)):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
            continue
        for repeated in (node.left, node.right):
            if isinstance(repeated, ast.List) and any(isinstance(e, (ast.Call, ast.List, ast.Dict)) for e in repeated.elts):
                return node.lineno
    return 0


def parameter_rebound(evidence: SourceEvidence, function: str) -> int:
    """The line where a function the call runs assigns to one of its own parameters and hands no value back, so the
    assignment is lost on return (0 where there is none). Only helpers: the called function's own rebinding is
    its own business."""
    for node in _code_run(evidence, function):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name == function:
            continue
        parameters = {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
        inside = list(_outside_functions(node.body))
        if any(isinstance(n, ast.Return) and n.value is not None for n in inside):
            continue
        for inner in inside:
            if isinstance(inner, ast.Assign) and any(isinstance(t, ast.Name) and t.id in parameters
                                                     for t in inner.targets):
                return inner.lineno
    return 0


def setting_left_changed(evidence: SourceEvidence, function: str) -> int:
    """The line of a statement that switches a global setting of torch (`torch.set_grad_enabled(False)`) outside a
    `with`, where nothing switches it back in the same function (0 where there is none). Any function of the module:
    the setting, once switched, holds for the checks of every function called after it."""
    for node in ast.walk(evidence.tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = [n for n in _outside_functions(node.body) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
                 and evidence.dotted(n.value.func) in _GLOBAL_SETTINGS]
        if len({evidence.dotted(c.value.func) for c in calls}) == len(calls) == 1:  # set once, never set back
            return calls[0].lineno
    return 0


def tuple_by_comma(evidence: SourceEvidence, function: str) -> int:
    """The line of an assignment whose value is a tuple of one item made by a trailing comma, with no brackets
    (`q10 = "d",`) (0 where there is none)."""
    lines = evidence.source.splitlines()
    for node in _walk(_code_run(evidence, function)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 1:
            text = lines[node.value.lineno - 1][node.value.col_offset:] if node.value.lineno <= len(lines) else ""
            if not text.startswith("("):
                return node.lineno
    return 0


def mutable_default(evidence: SourceEvidence, function: str) -> int:
    """The line of a def whose default list, dict, set or tensor its body changes in place (0 where there is none)."""
    for node in _walk(_code_run(evidence, function)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        positional = [*node.args.posonlyargs, *node.args.args]
        pairs = [*zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults),
                 *((a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None)]
        shared = {a.arg for a, default in pairs if _makes_a_container(evidence, default)}
        if shared and any(_changes_in_place(inner, shared) for inner in _outside_functions(node.body)):
            return node.lineno
    return 0


def state_kept_between_calls(evidence: SourceEvidence, function: str) -> int:
    """The line where the code a call runs changes a value the module made at import (a list, dict, set, tensor, nn
    module or optimiser bound at module level: changed in place, stepped, or handed to an optimiser), or adds to a
    module-level name it declares global (0 where there is none). A function that clears or remakes that value
    itself (`log.clear()`, `global log; log = []`, `w.zero_()`) starts afresh at each call and is left alone."""
    run = _code_run(evidence, function)
    at_module_level = [node for node in run if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None]
    bound = {name for node in at_module_level for name in _assigned(node)}
    kept = {name for node in at_module_level if _makes_state(evidence, node.value) for name in _assigned(node)}
    found = []
    for definition in run:
        if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = list(_outside_functions(definition.body))
        declared = {name for node in body if isinstance(node, ast.Global) for name in node.names}
        local = {node.id for node in body if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        once = _made_once(evidence, body)
        kept_here = kept | ({name for name, _ in once} & declared)
        made_once = {id(statement) for _, statement in once}
        remade = {name for node in body if isinstance(node, ast.Assign) and id(node) not in made_once
                  for name in _assigned(node)} & declared
        reset = remade | {node.func.value.id for node in body if isinstance(node, ast.Call)
                          and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                          and node.func.attr in _RESETS}
        shared = ((kept - local - _parameters(definition)) | (kept_here & declared)) - reset
        shared |= _aliases(body, shared)
        counted = (bound & declared) - reset
        found += [node.lineno for node in body
                  if _changes_in_place(node, shared) or _stepped_or_trained(evidence, node, shared)
                  or (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
                      and node.target.id in counted)]
    return min(found, default=0)


def pitfall_shown(finder: Callable[[SourceEvidence, str], int], function: str, why: str) -> Callable[[Any], str]:
    """A contradiction (engine/mistakes.py's Contradiction) for a room's mistake that a pitfall explains otherwise:
    `function`'s code shows the pitfall `finder` finds (state_kept_between_calls, list_of_one_object, ...)."""
    def shown(student: Any) -> str:
        return why if finder(student.evidence, function) else ""
    return shown


def set_order_relied_on(evidence: SourceEvidence, function: str) -> int:
    """The line where the code a call runs pairs a set's items by position with another sequence's (`zip(node._prev,
    node._local)`, `zip(seen, values)`), where `_prev` or `seen` is made a set somewhere in the module (0 where there
    is none). A set keeps neither the order items were added in nor a repeated item."""
    made_sets = {name for node in ast.walk(evidence.tree) if isinstance(node, (ast.Assign, ast.AnnAssign))
                 and node.value is not None and _makes_a_set(evidence, node.value) for name in _target_names(node)}
    for node in _walk(_code_run(evidence, function)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip" \
                and len(node.args) > 1 and any(_last_name(argument) in made_sets for argument in node.args):
            return node.lineno
    return 0


def one_object_kept_each_pass(evidence: SourceEvidence, function: str) -> int:
    """The line where a loop keeps a name (appends it to a list, or yields it from a generator whose items the module
    lists with list() or tuple()) that the same loop changes in place and never rebinds (0 where there is none): every
    kept item is that one object, in its last state. A `+=` is left alone: on a number it makes a new one."""
    listed = {evidence.dotted(node.args[0].func) for node in ast.walk(evidence.tree) if isinstance(node, ast.Call)
              and evidence.dotted(node.func) in ("list", "tuple", "sorted") and node.args
              and isinstance(node.args[0], ast.Call)}
    found = []
    for definition in _code_run(evidence, function):
        if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for loop in (node for node in _outside_functions(definition.body) if isinstance(node, _LOOPS)):
            body = list(_outside_functions(loop.body))
            rebound = {node.id for node in body if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
            for node in body:
                kept = _kept_by_name(node, definition.name in listed) - rebound
                if kept and any(not isinstance(other, ast.AugAssign) and _changes_in_place(other, kept)
                                for other in body if other is not node):
                    found.append(node.lineno)
    return min(found, default=0)


def _kept_by_name(node: ast.AST, yields_are_listed: bool) -> set[str]:
    """The plain names `node` keeps for later: appended or inserted into a list, or yielded where the generator's
    items are listed."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "insert"):
        return {argument.id for argument in node.args[-1:] if isinstance(argument, ast.Name)}
    if isinstance(node, ast.Yield) and yields_are_listed and isinstance(node.value, ast.Name):
        return {node.value.id}
    return set()


def iterator_used_twice(evidence: SourceEvidence, function: str) -> int:
    """The line where a name holding an iterator (`.parameters()`, a generator expression, zip, map, ...) is gone
    through a second time, or the line of its one pass where a loop that did not make it repeats that pass (0 where
    there is none)."""
    for definition in _code_run(evidence, function):
        if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        made: dict[str, tuple[ast.AST, ...]] = {}  # a name bound to an iterator, and the loops around that binding
        others: set[str] = set()
        for node, loops in _with_loops(definition):
            if isinstance(node, ast.Assign):
                for target in (t for t in node.targets if isinstance(t, ast.Name)):
                    if _makes_an_iterator(evidence, node.value):
                        made.setdefault(target.id, loops)
                    else:
                        others.add(target.id)
        for name in set(made) - others:
            passes = [(node, loops) for node, loops in _with_loops(definition) if _goes_through(node, name)]
            if len(passes) > 1:
                return sorted(node.lineno for node, _ in passes)[1]
            if passes and set(passes[0][1]) - set(made[name]):
                return passes[0][0].lineno
    return 0


def loop_variable_reused(evidence: SourceEvidence, function: str) -> int:
    """The line of a loop nested in another that binds the same name, where the outer loop's body reads that name
    after the inner loop (0 where there is none)."""
    for node in _walk(_code_run(evidence, function)):
        if not isinstance(node, (ast.For, ast.AsyncFor)):
            continue
        outer = _stored(node.target)
        for position, statement in enumerate(node.body):
            inner = next((n for n in _outside_functions([statement]) if isinstance(n, (ast.For, ast.AsyncFor))
                          and _stored(n.target) & outer), None)
            if inner is None:
                continue
            shared = _stored(inner.target) & outer
            later = [n for s in node.body[position + 1:] for n in _outside_functions([s])]
            if any(isinstance(n, ast.Name) and n.id in shared and isinstance(n.ctx, ast.Load) for n in later):
                return inner.lineno
    return 0


# What an answer left from an earlier call looks like against the right one: another call's values, often the right
# ones times a factor or in another order, or of another shape. A fact says how it differs; the pitfall says why.
_A_STALE_ANSWER = frozenset({SCALED_RESULT.name, VALUES_REORDERED.name, SHAPE_DIFFERS.name})

# Each pitfall, the facts about a result it explains (a failure naming one of them may be told the pitfall), and how
# it is found. In this order: the first the code shows is told.
_PITFALLS: tuple[tuple[Mistake, frozenset[str], Callable[[SourceEvidence, str], int]], ...] = (
    (BYTES_REINTERPRETED, frozenset({SHAPE_DIFFERS.name, DTYPE_DIFFERS.name}), bytes_reinterpreted),
    (LATE_BOUND_LOOP_VARIABLE, frozenset(), late_bound_loop_variable),
    (CACHED_FIRST_ANSWER, _A_STALE_ANSWER, cached_first_answer),
    (OTHER_GENERATOR, frozenset(), other_generator),
    (RETURN_IN_LOOP, frozenset({PLACES_LEFT_UNFILLED.name}), return_in_loop),  # the places after the first pass
    (MUTABLE_DEFAULT, frozenset(), mutable_default),
    (STATE_KEPT_BETWEEN_CALLS, _A_STALE_ANSWER, state_kept_between_calls),
    (ITERATOR_USED_TWICE, frozenset(), iterator_used_twice),
    (SET_ORDER_RELIED_ON, frozenset(), set_order_relied_on),
    (ONE_OBJECT_KEPT_EACH_PASS, frozenset(), one_object_kept_each_pass),
    (LOOP_VARIABLE_REUSED, frozenset(), loop_variable_reused),
    (RESULT_THROWN_AWAY, frozenset({SHAPE_DIFFERS.name, DTYPE_DIFFERS.name, STILL_TRACKED.name}), result_thrown_away),
    (FUNCTION_AS_TRUTH, frozenset(), function_as_truth),
    (LIST_OF_ONE_OBJECT, frozenset(), list_of_one_object),
    (PARAMETER_REBOUND, frozenset(), parameter_rebound),
    (SETTING_LEFT_CHANGED, frozenset(), setting_left_changed),
    (TUPLE_BY_COMMA, frozenset(), tuple_by_comma),
)


# Tensor methods that hand back a new tensor and leave the one they are called on as it was.
_NEW_TENSOR_METHODS = frozenset({"to", "float", "double", "half", "long", "int", "bool", "cpu", "cuda", "detach",
                                 "clone", "contiguous", "reshape", "view", "squeeze", "unsqueeze", "flatten", "t",
                                 "transpose", "permute", "abs", "neg", "sub", "mul", "div", "pow", "sqrt",
                                 "exp", "log", "clamp", "type", "expand", "repeat", "numpy", "tolist"})
# torch's global switches that a plain call leaves switched for everything after.
_GLOBAL_SETTINGS = frozenset({"torch.set_grad_enabled", "torch.set_default_dtype", "torch.set_default_device",
                              "torch.autograd.set_grad_enabled", "torch.set_default_tensor_type"})


def _is_a_torch_function(path: str) -> bool:
    """Whether a dotted path names a function of torch (`torch.cuda.is_available`), looked up in torch itself."""
    if not path.startswith("torch."):
        return False
    found: Any = torch
    for part in path.split(".")[1:]:
        found = getattr(found, part, None)
        if found is None:
            return False
    return callable(found) and not isinstance(found, type)


# Calls whose answer is an iterator, which one pass uses up; methods of a module that give one (`.parameters()`).
_ITERATOR_CALLS = frozenset({"map", "zip", "filter", "iter", "reversed", "enumerate"})
_ITERATOR_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "children", "modules",
                               "named_children", "named_modules"})
# Methods that change a list, dict, set or tensor in place.
_IN_PLACE = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "pop", "clear", "remove",
                       "add_", "sub_", "mul_", "div_", "zero_", "copy_", "fill_", "index_add_", "scatter_"})
_CONTAINERS = ("list", "dict", "set", "torch.zeros", "torch.ones", "torch.empty", "torch.tensor", "torch.full")


def _makes_a_container(evidence: SourceEvidence, node: ast.AST) -> bool:
    if isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    return isinstance(node, ast.Call) and evidence.dotted(node.func) in _CONTAINERS


def _aliases(body: list[ast.AST], names: set[str]) -> set[str]:
    """The names a function binds to `names`' objects or to their items: `a, b, c = params`, `model = _MODEL`,
    `for p in params:` and `for p in (a, b, c):` when those are among them, and aliases of those in turn. Changed in
    place, an alias changes the object it names."""
    bindings = []
    for node in body:
        value, targets = ((node.value, node.targets) if isinstance(node, ast.Assign) else
                          (node.iter, [node.target]) if isinstance(node, (ast.For, ast.AsyncFor)) else (None, []))
        items = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
        if value is not None and items and all(isinstance(item, ast.Name) for item in items):
            bound = {name.id for target in targets for name in ast.walk(target)
                     if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)}
            bindings.append(({item.id for item in items}, bound))
    found: set[str] = set()
    while True:  # the body comes in no set order, so go round until nothing new is bound
        more = {name for read, bound in bindings if read <= names | found for name in bound} - found
        if not more:
            return found
        found |= more


def _unpacked(target: ast.AST) -> Iterator[ast.AST]:
    """The targets an assignment's target stands for: itself, or each item of a tuple or list it unpacks into."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for item in target.elts:
            yield from _unpacked(item.value if isinstance(item, ast.Starred) else item)
    else:
        yield target


def _made_once(evidence: SourceEvidence, body: list[ast.AST]) -> list[tuple[str, ast.Assign]]:
    """The names a function makes only when a call finds them unmade, each with the assignment that makes it: bound to
    a new object under an `if` whose test reads the name (`if _model is None: _model = Model()`). Built once that way,
    the object is kept for every later call, as if the module had made it at import."""
    found = []
    for node in body:
        if not isinstance(node, ast.If):
            continue
        tested = {name.id for name in ast.walk(node.test) if isinstance(name, ast.Name)}
        for statement in _outside_functions(node.body):
            if isinstance(statement, ast.Assign) and (isinstance(statement.value, ast.Call)
                                                      or _makes_state(evidence, statement.value)):
                found += [(name, statement) for name in _assigned(statement) & tested]
    return found


def _changes_in_place(node: ast.AST, names: set[str]) -> bool:
    """Whether `node` changes one of `names` in place: a mutating method, `+=` and its kind, or an item written."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _IN_PLACE:
        return isinstance(node.func.value, ast.Name) and node.func.value.id in names
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return node.target.id in names
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        written = [t for target in targets for t in _unpacked(target)]  # `_, cache[f] = ...` writes an item too
        return any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in names
                   for t in written)
    return False


# Calls that start a module-level value afresh: a function that makes one of them keeps nothing from the last call.
_RESETS = frozenset({"clear", "zero_", "fill_", "copy_", "normal_", "uniform_", "reset_parameters",
                     "load_state_dict"})
# What a module makes at import that a call may change: containers and tensors, and torch's modules and optimisers.
_STATEFUL = ("torch.nn.", "torch.optim.", "collections.")
_DRAWN_TENSORS = ("torch.rand", "torch.randn", "torch.randint", "torch.arange", "torch.linspace")


def _makes_state(evidence: SourceEvidence, node: ast.AST) -> bool:
    if _makes_a_container(evidence, node):
        return True
    path = evidence.dotted(node.func) if isinstance(node, ast.Call) else ""
    return path.startswith(_STATEFUL) or path in _DRAWN_TENSORS


def _stepped_or_trained(evidence: SourceEvidence, node: ast.AST, names: set[str]) -> bool:
    """Whether `node` steps a module-level optimiser (`opt.step()`) or builds an optimiser over module-level values
    (`torch.optim.SGD(model.parameters())`): either trains what the module made, from where the last call left it."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr == "step" and isinstance(node.func.value, ast.Name):
        return node.func.value.id in names
    return evidence.dotted(node.func).startswith("torch.optim.") and any(
        isinstance(inner, ast.Name) and inner.id in names for argument in node.args for inner in ast.walk(argument))


def _makes_a_set(evidence: SourceEvidence, node: ast.AST) -> bool:
    if isinstance(node, (ast.Set, ast.SetComp)):
        return True
    return isinstance(node, ast.Call) and evidence.dotted(node.func) in ("set", "frozenset")


def _target_names(statement: ast.AST) -> set[str]:
    """The last name of each target an assignment binds: `seen` of `seen = ...`, `_prev` of `self._prev = ...`."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    return {_last_name(target) for target in targets} - {""}


def _last_name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _assigned(statement: ast.AST) -> set[str]:
    """The names an assignment binds outright (`a = ...`, `a, b = ...`, `a: T = ...`), not those it writes into."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    return {node.id for target in targets for node in ast.walk(target)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _parameters(definition: ast.AST) -> set[str]:
    arguments = definition.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    return {argument.arg for argument in every if argument is not None}


def _makes_an_iterator(evidence: SourceEvidence, node: ast.AST) -> bool:
    if isinstance(node, ast.GeneratorExp):
        return True
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute):
        return node.func.attr in _ITERATOR_METHODS
    return evidence.dotted(node.func) in _ITERATOR_CALLS


def _with_loops(definition: ast.AST) -> Iterator[tuple[ast.AST, tuple[ast.AST, ...]]]:
    """Every node of a function's body (not of the functions made in it), with the loops around it."""
    def visit(node: ast.AST, loops: tuple[ast.AST, ...]) -> Iterator[tuple[ast.AST, tuple[ast.AST, ...]]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCTIONS):
                continue
            yield child, loops
            yield from visit(child, loops + (child,) if isinstance(child, _LOOPS) else loops)
    yield from visit(definition, ())


def _goes_through(node: ast.AST, name: str) -> bool:
    """Whether `node` goes through the iterator `name` holds: a for loop or comprehension over it, or a call handed
    it whole (list(params), torch.optim.SGD(params, ...), f(*params))."""
    def is_name(value: ast.AST) -> bool:
        value = value.value if isinstance(value, ast.Starred) else value
        return isinstance(value, ast.Name) and value.id == name
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return is_name(node.iter)
    if isinstance(node, _COMPREHENSIONS):  # a comprehension has a line, its `for ... in` parts do not
        return any(is_name(generator.iter) for generator in node.generators)
    return isinstance(node, ast.Call) and any(is_name(a) for a in node.args)


def _walk(definitions: list[ast.AST]) -> Iterator[ast.AST]:
    for definition in definitions:
        yield from ast.walk(definition)


def _names(evidence: SourceEvidence, node: ast.AST, paths: tuple[str, ...]) -> bool:
    """Whether `node` is a name or attribute chain that is, or lies within, one of the dotted `paths`."""
    path = evidence.dotted(node)
    return bool(path) and any(path == p or path.startswith(p + ".") for p in paths)


def _is_dtype(evidence: SourceEvidence, node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in _DTYPES
    path = evidence.dotted(node)
    module, _, name = path.rpartition(".")
    return module in ("torch", "numpy") and name in _DTYPES


def _stored(target: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def _bound_in_loop(loop: ast.AST) -> set[str]:
    """The names a loop binds anew each iteration: its target and what its body assigns (outside functions made
    in it, whose names are their own)."""
    bound = _stored(loop.target) if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    for node in _outside_functions(loop.body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return bound


def _outside_functions(body: list[ast.stmt]) -> Iterator[ast.AST]:
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _FUNCTIONS):
            stack.extend(ast.iter_child_nodes(node))


def _kept_in_comprehension(node: ast.AST) -> Iterator[ast.AST]:
    """The functions a comprehension makes as its elements (bare, or in a tuple, list or dict literal), not the
    ones it calls or hands to a call on the spot."""
    elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]  # type: ignore[attr-defined]
    yield from (f for element in elements for f in _held(element, ast.Lambda))


def _kept_in_loop(loop: ast.AST) -> Iterator[ast.AST]:
    """The functions a loop's body makes and keeps: handed to a keeping call (`fs.append(lambda: ...)`), stored
    into a subscript (`fs[i] = ...`), yielded, or defined by `def` and then kept by its name."""
    defined = {node.name: node for node in _outside_functions(loop.body)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in _outside_functions(loop.body):
        held: list[ast.AST] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _KEEPING:
            held = [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets):
            held = [node.value]
        elif isinstance(node, (ast.Yield, ast.YieldFrom)) and node.value is not None:
            held = [node.value]
        for value in held:
            yield from _held(value, ast.Lambda)
            yield from (defined[n.id] for n in _held(value, ast.Name) if n.id in defined)


def _held(node: ast.AST, kind: type) -> Iterator[Any]:
    """The nodes of `kind` that `node` is, or holds as an element of a tuple, list, set or dict literal."""
    if isinstance(node, kind):
        yield node
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        for element in node.values if isinstance(node, ast.Dict) else node.elts:
            yield from _held(element, kind)


def _free_names(function: ast.AST) -> set[str]:
    """The names a lambda or def reads that it does not bind itself (its parameters, defaults included, and what its
    body assigns): those it looks up when it runs."""
    arguments = function.args  # type: ignore[attr-defined]
    own = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                           *([arguments.vararg] if arguments.vararg else []),
                           *([arguments.kwarg] if arguments.kwarg else [])]}
    body = [function.body] if isinstance(function, ast.Lambda) else function.body  # type: ignore[attr-defined]
    read: set[str] = set()
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    own.add(node.id)
                else:
                    read.add(node.id)
    return read - own
