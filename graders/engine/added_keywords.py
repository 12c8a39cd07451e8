"""An argument the student's code adds to a library call that the reference makes too: `torch.optim.SGD(...,
momentum=0.9)` where the exercise's recipe passes `lr` alone. A difference read from the student's own code and
proved by running, never guessed: the reference, given that same keyword in that same call, must give the student's
answer on every input of the failed check (twice alike), and no other answer than the reference's or the student's
on the run's earlier inputs. Only a keyword whose value is a literal (a number, a string, a tuple of them, True,
False, None) is carried over: what the grader cannot follow is not named.

A call is matched by the last part of its name (`SGD` in `torch.optim.SGD` or `optim.SGD`); the reference module
with the keyword added is the grader's own code, run where the single edits run and by them (single_edits.py, which
tries these first), on copies of the inputs, within the same time.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import ModuleType

NAME = "an argument the recipe does not pass"
MEANING = ("Your code calls {call} with {keywords}, which the exercise's recipe does not pass: the recipe's own call "
           "given {that} gives exactly your results.")
HINT = "Call {call} with the arguments the docstring's recipe gives and no others: leave out {keywords}."
_MOST = 4  # keywords of one call said together; past them, the code does something else than add one setting
_CANDIDATES = 8  # additions tried per check at most: each runs the reference on the check's inputs


@dataclass(frozen=True)
class Addition:
    """Keywords the student's call passes that the reference's call of the same function does not."""

    call: str  # the function's name as the student wrote it ("torch.optim.SGD")
    keywords: tuple[tuple[str, str], ...]  # (keyword, its literal value's source), in the student's order
    module: ModuleType  # the reference, with them added to its call

    def said(self) -> str:
        """The keywords as the student wrote them: "momentum=0.9"."""
        return ", ".join(f"{name}={value}" for name, value in self.keywords)


def _name(node: ast.expr) -> str | None:
    """`a.b.c` or `c` as written; None for a call of anything else (a call's result, a subscript)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _name(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return False
    return True


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    return [(name, node) for node in ast.walk(tree) if isinstance(node, ast.Call)
            for name in [_name(node.func)] if name is not None]


def additions(student_source: str, reference_source: str, module_name: str) -> list[Addition]:
    """For each call of the student's whose function the reference calls too (matched by the last part of its name),
    the literal keywords it adds, each placed in each such call of the reference: one candidate each."""
    try:
        student, reference = ast.parse(student_source), ast.parse(reference_source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    # The module's own functions and classes are the student's design (micrograd's Value), not a library's.
    own = {node.name for node in reference.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    found: dict[tuple[int, tuple[tuple[str, str], ...]], Addition] = {}
    reference_calls = _calls(reference)
    for written, call in _calls(student):
        last = written.rsplit(".", 1)[-1]
        if last in own:
            continue
        for at, (theirs, target) in enumerate(reference_calls):
            if theirs.rsplit(".", 1)[-1] != last:
                continue
            present = {keyword.arg for keyword in target.keywords}
            added = [keyword for keyword in call.keywords if keyword.arg and keyword.arg not in present]
            if not added or len(added) > _MOST or not all(_literal(keyword.value) for keyword in added):
                continue
            said = tuple((k.arg, ast.unparse(k.value)) for k in added if k.arg)
            if (at, said) in found or len(found) >= _CANDIDATES:
                continue  # the same addition to the same call from another line of the student's: tried once
            module = _with_keywords(reference, at, added, module_name)
            if module is not None:
                found[(at, said)] = Addition(written, said, module)
    return list(found.values())


def _with_keywords(reference: ast.Module, at: int, added: list[ast.keyword], module_name: str) -> ModuleType | None:
    """The reference with `added` appended to its `at`-th named call (in _calls' order), as a module of its own."""
    tree = ast.parse(ast.unparse(reference))  # a copy to edit: the parsed reference stays as it was
    _, target = _calls(tree)[at]
    target.keywords.extend(ast.keyword(arg=keyword.arg, value=keyword.value) for keyword in added)
    module = ModuleType(module_name)
    try:
        exec(compile(ast.fix_missing_locations(tree), f"<{module_name}>", "exec"), module.__dict__)  # noqa: S102
    except Exception:  # noqa: BLE001 - an addition the reference cannot take (a keyword twice) explains nothing
        return None
    return module


def words(addition: Addition) -> tuple[str, str]:
    """What the student reads: the meaning and the hint."""
    keywords = addition.said()
    that = "that argument" if len(addition.keywords) == 1 else "those arguments"
    return (MEANING.format(call=addition.call, keywords=keywords, that=that),
            HINT.format(call=addition.call, keywords=keywords))
