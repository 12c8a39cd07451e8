"""Python's own pitfalls, read from the code of the function a failed check called, told where the check could name
no mistake of its own.

A check names a mistake by its values: a catalogued variant or a single edit that gives the student's answer. Some
wrong answers come from no edit of the reference at all but from a rule of Python that holds whatever the exercise:
a lambda made in a loop reads the loop's variable when it is called; a cached function answers from its first call;
`.view(dtype)` reinterprets bytes; NumPy's generator is not torch's; a return inside a loop ends it in its first
pass; a default list lives across calls; an iterator runs out after one pass; an inner loop that rebinds the outer
one's variable leaves it pointing elsewhere. Each of these is a pattern the code shows
outright and whose effect is known wherever it is written, so a failure of a function whose code has one is told
that pattern, with its line. Read from the source the grader holds (graders/engine/source_evidence.py), never from
the worker's word. A check's own name always comes first: a pitfall fills in only a failure that names nothing, or
only a fact about the result the pitfall explains (a shape or dtype that bytes read as another type change).
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any, Callable, Iterator

from graders.engine.feedback import Feedback
from graders.engine.mistakes import (BYTES_REINTERPRETED, CACHED_FIRST_ANSWER, DTYPE_DIFFERS, ITERATOR_USED_TWICE,
                                     LATE_BOUND_LOOP_VARIABLE, LOOP_VARIABLE_REUSED, MUTABLE_DEFAULT, OTHER_GENERATOR,
                                     RETURN_IN_LOOP, SHAPE_DIFFERS, Mistake)
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
    the check already named a mistake of its own, no function was called, or the code shows none."""
    evidence = getattr(student, "evidence", None)
    function = called_function(feedback.call).removesuffix("(...)").rpartition(".")[2]
    if evidence is None or not function:
        return None
    for mistake, explains, find in _PITFALLS:
        if feedback.mistake and feedback.mistake not in explains:
            continue
        line = find(evidence, function)
        if line:
            code = evidence.source.splitlines()[line - 1].strip()
            meaning = f"{mistake.explanation} In your code, line {line}: `{code[:120]}`."
            return dataclasses.replace(feedback, mistake=mistake.name, meaning=meaning, hint=mistake.hint,
                                       section=mistake.section or feedback.section, concept=mistake.concept,
                                       meaning_without_values=meaning)
    return None


def late_bound_loop_variable(evidence: SourceEvidence, function: str) -> int:
    """The line of a function made in a loop or comprehension, kept past its iteration, that reads a name the loop
    binds (0 where there is none). A function called within its own iteration, or handed to a call there, sees the
    value it was meant to; only one kept for later sees the last."""
    for node in _walk(evidence.definitions(function)):
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
    for node in _walk(evidence.definitions(function)):
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
    for node in _walk(evidence.definitions(function)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "view"):
            continue
        given = [*node.args, *(k.value for k in node.keywords if k.arg == "dtype")]
        if len(given) == 1 and _is_dtype(evidence, given[0]):
            return node.lineno
    return 0


def other_generator(evidence: SourceEvidence, function: str) -> int:
    """The line of a draw from NumPy's or Python's generator in a function that is handed a seed or seeds torch (0
    where there is none): its numbers are the lesson's only when torch draws them."""
    definitions = evidence.definitions(function)
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
    for node in _walk(evidence.definitions(function)):
        if not isinstance(node, _LOOPS):
            continue
        ending = next((s for s in node.body if isinstance(s, (ast.Return, ast.Break))), None)
        comes_round = any(isinstance(inner, ast.Continue) for inner in _outside_functions(node.body))
        if ending is not None and len(node.body) > 1 and not comes_round:
            return ending.lineno
    return 0


def mutable_default(evidence: SourceEvidence, function: str) -> int:
    """The line of a def whose default list, dict, set or tensor its body changes in place (0 where there is none)."""
    for node in _walk(evidence.definitions(function)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        positional = [*node.args.posonlyargs, *node.args.args]
        pairs = [*zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults),
                 *((a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None)]
        shared = {a.arg for a, default in pairs if _makes_a_container(evidence, default)}
        if shared and any(_changes_in_place(inner, shared) for inner in _outside_functions(node.body)):
            return node.lineno
    return 0


def iterator_used_twice(evidence: SourceEvidence, function: str) -> int:
    """The line where a name holding an iterator (`.parameters()`, a generator expression, zip, map, ...) is gone
    through a second time, or the line of its one pass where a loop that did not make it repeats that pass (0 where
    there is none)."""
    for definition in evidence.definitions(function):
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
    for node in _walk(evidence.definitions(function)):
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


# Each pitfall, the facts about a result it explains (a failure naming one of them may be told the pitfall), and how
# it is found. In this order: the first the code shows is told.
_PITFALLS: tuple[tuple[Mistake, frozenset[str], Callable[[SourceEvidence, str], int]], ...] = (
    (BYTES_REINTERPRETED, frozenset({SHAPE_DIFFERS.name, DTYPE_DIFFERS.name}), bytes_reinterpreted),
    (LATE_BOUND_LOOP_VARIABLE, frozenset(), late_bound_loop_variable),
    (CACHED_FIRST_ANSWER, frozenset(), cached_first_answer),
    (OTHER_GENERATOR, frozenset(), other_generator),
    (RETURN_IN_LOOP, frozenset(), return_in_loop),
    (MUTABLE_DEFAULT, frozenset(), mutable_default),
    (ITERATOR_USED_TWICE, frozenset(), iterator_used_twice),
    (LOOP_VARIABLE_REUSED, frozenset(), loop_variable_reused),
)


# Calls whose answer is an iterator, which one pass uses up; methods of a module that give one (`.parameters()`).
_ITERATOR_CALLS = frozenset({"map", "zip", "filter", "iter", "reversed", "enumerate"})
_ITERATOR_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "children", "modules",
                               "named_children", "named_modules"})
# Methods that change a list, dict, set or tensor in place.
_IN_PLACE = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "pop", "clear", "remove",
                       "add_", "sub_", "mul_", "div_", "zero_", "copy_", "fill_", "index_add_", "scatter_"})
_CONTAINERS = ("list", "dict", "set", "torch.zeros", "torch.ones", "torch.empty", "torch.tensor", "torch.full")


def _makes_a_container(evidence: SourceEvidence, node: ast.AST) -> bool:
    if isinstance(node, (ast.List, ast.Dict, ast.Set)):
        return True
    return isinstance(node, ast.Call) and evidence.dotted(node.func) in _CONTAINERS


def _changes_in_place(node: ast.AST, names: set[str]) -> bool:
    """Whether `node` changes one of `names` in place: a mutating method, `+=` and its kind, or an item written."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _IN_PLACE:
        return isinstance(node.func.value, ast.Name) and node.func.value.id in names
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return node.target.id in names
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in names
                   for t in targets)
    return False


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
