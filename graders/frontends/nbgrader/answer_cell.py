"""An answer cell from one stub and its reference: the stub's imports, signatures and
docstrings, with each function's reference body between `### BEGIN SOLUTION` and
`### END SOLUTION`. nbgrader replaces those regions on release, so students get the
stub back (signatures and docstrings intact) and nothing of the reference.

Anything the reference has that the stub lacks (an extra import, a helper, a constant)
goes into one more solution region after the stub's imports, so solutions still run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from graders.frontends.nbgrader.runtime import MAGIC

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


class AnswerError(ValueError):
    """The stub and the reference do not line up (a function missing from one of them)."""


@dataclass(frozen=True)
class _Edit:
    first: int  # 0-based line index of the first line replaced
    last: int  # 0-based index one past the last line replaced
    lines: list[str]


def answer_source(slug: str, stub: str, reference: str) -> str:
    """The answer cell for exercise `slug`: magic line, then the stub with solution regions."""
    return f"%%{MAGIC} {slug}\n" + solution_module(stub, reference)


def solution_module(stub: str, reference: str) -> str:
    """The stub's text with every function body replaced by a solution region."""
    stub_tree, reference_tree = ast.parse(stub), ast.parse(reference)
    lines = stub.splitlines()
    edits = _body_edits(stub_tree.body, _named(reference_tree.body), reference, scope="the module")
    extra = _extra_statements(stub_tree, reference_tree, reference)
    if extra:
        at = _after_imports(stub_tree)
        edits.append(_Edit(at, at, ["", BEGIN, *extra, END]))
    for edit in sorted(edits, key=lambda e: e.first, reverse=True):
        lines[edit.first:edit.last] = edit.lines
    start = _after_docstring(ast.parse("\n".join(lines)))
    return "\n".join(lines[start:]).strip("\n") + "\n"


def _named(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    return {node.name: node for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _body_edits(stub_body: list[ast.stmt], reference: dict[str, ast.stmt], text: str, scope: str) -> list[_Edit]:
    edits: list[_Edit] = []
    for node in stub_body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            match = reference.get(node.name)
            if not isinstance(match, (ast.FunctionDef, ast.AsyncFunctionDef)):
                raise AnswerError(f"the reference has no function {node.name} in {scope}")
            edits.append(_function_edit(node, match, text))
        elif isinstance(node, ast.ClassDef):
            match = reference.get(node.name)
            if not isinstance(match, ast.ClassDef):
                raise AnswerError(f"the reference has no class {node.name}")
            edits.extend(_body_edits(node.body, _named(match.body), text, scope=f"class {node.name}"))
            missing = [n for n in match.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and n.name not in _named(node.body)]
            if missing:
                indent = " " * node.body[0].col_offset
                code = [_dedented(text, m, decorated=True) for m in missing]
                block = [indent + BEGIN, *[indent + l if l else l for c in code for l in c], indent + END]
                edits.append(_Edit(node.end_lineno, node.end_lineno, block))  # type: ignore[arg-type]
    return edits


def _function_edit(stub: ast.FunctionDef | ast.AsyncFunctionDef, reference: ast.FunctionDef | ast.AsyncFunctionDef,
                   reference_text: str) -> _Edit:
    # Everything after the docstring goes, the stub's "# TODO" comment included.
    start = stub.body[0].end_lineno if _has_docstring(stub) else stub.body[0].lineno - 1
    end = stub.end_lineno
    indent = " " * stub.body[0].col_offset
    body = reference.body[1:] if _has_docstring(reference) else reference.body
    if not body:
        raise AnswerError(f"the reference's {reference.name} has no body")
    text = reference_text.splitlines()
    first_line = body[0].lineno - 1
    # Comments just above the first statement belong to the solution too.
    while first_line > 0 and text[first_line - 1].strip().startswith("#"):
        first_line -= 1
    chunk = text[first_line:body[-1].end_lineno]
    reference_indent = body[0].col_offset
    code = [indent + line[reference_indent:] if line.strip() else "" for line in chunk]
    return _Edit(start, end, [indent + BEGIN, *code, indent + END])  # type: ignore[arg-type]


def _dedented(text: str, node: ast.stmt, decorated: bool = False) -> list[str]:
    lines = text.splitlines()
    first = (node.decorator_list[0].lineno if decorated and getattr(node, "decorator_list", None) else node.lineno) - 1
    chunk = lines[first:node.end_lineno]
    width = node.col_offset
    return [line[width:] if line.strip() else "" for line in chunk]


def _extra_statements(stub: ast.Module, reference: ast.Module, text: str) -> list[str]:
    """Top-level statements of the reference that the stub does not have, in order."""
    have_names = set(_named(stub.body))
    have_code = {ast.dump(n) for n in stub.body}
    extra: list[str] = []
    for index, node in enumerate(reference.body):
        if index == 0 and _is_docstring(node):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in have_names:
            continue
        if ast.dump(node) in have_code:
            continue
        extra.extend(_dedented(text, node, decorated=True))
    return extra


def _after_imports(tree: ast.Module) -> int:
    """The line index just after the stub's docstring and imports."""
    at = 0
    for node in tree.body:
        if _is_docstring(node) or isinstance(node, (ast.Import, ast.ImportFrom)):
            at = node.end_lineno  # type: ignore[assignment]
        else:
            break
    return at


def _after_docstring(tree: ast.Module) -> int:
    # The module docstring tells a .py reader to run pytest; the notebook says it in markdown.
    return tree.body[0].end_lineno if tree.body and _is_docstring(tree.body[0]) else 0  # type: ignore[return-value]


def _has_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return bool(node.body) and _is_docstring(node.body[0])


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def module_docstring(source: str) -> str:
    """The stub's module docstring (the task as written for the .py file)."""
    return ast.get_docstring(ast.parse(source)) or ""
