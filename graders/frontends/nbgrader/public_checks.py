"""The student's copy of a checks module and of course_config.py: what may be released.

From `graders/<lesson>/<slug>.py`: the hidden checks go; the body of every `@expected`
function becomes a `raise` (it computes expected values from the reference or from a
mistake's formula, and the bundle replays those values instead); a public check whose
code (or a helper's) repeats the body of a reference function is withheld too, since
releasing it would release the solution (it still runs at autograde); then every
top-level function nothing uses any more goes (helpers of the hidden checks). From
course_config.py: the hidden checks' entries go. Both are edited as text, by the line
ranges `ast` gives, so what remains keeps its comments and layout.
"""

from __future__ import annotations

import ast
import re

import course_config

REPLAYED = 'raise LookupError("expected values are replayed from expected.json in this copy")'
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_READ_BY_THE_ENGINE = ("worker_warm_up", "pytestmark")  # names the plugin looks up in a checks module


def public_checks(source: str, exercise: course_config.Exercise, reference: str = "") -> tuple[str, list[str]]:
    """The checks module without hidden checks and `@expected` bodies, and the ids of the
    public checks withheld because their code repeats the reference."""
    tree = ast.parse(source)
    hidden = {f"test_{c.id}" for c in exercise.checks if c.hidden}
    dropped = [n for n in tree.body if isinstance(n, _FUNCTIONS) and n.name in hidden]
    leaky = _repeating_reference(tree, reference) if reference else set()
    withheld = [n for n in tree.body if isinstance(n, _FUNCTIONS) and n.name.startswith("test_")
                and n not in dropped and _uses(n, leaky, tree)]
    dropped += withheld
    kept = [n for n in tree.body if n not in dropped]
    dropped += _unused_definitions(kept)
    lines = source.splitlines()
    edits: list[tuple[int, int, list[str]]] = [(_with_comments_above(_first_line(n), lines), n.end_lineno, [])
                                               for n in dropped]  # type: ignore[misc]
    for node in tree.body:
        if isinstance(node, _FUNCTIONS) and node not in dropped and _is_expected(node):
            first = node.body[1] if _docstring(node) and len(node.body) > 1 else node.body[0]
            if _docstring(node) and len(node.body) == 1:
                continue
            indent = " " * first.col_offset
            edits.append((first.lineno - 1, node.end_lineno, [indent + REPLAYED]))  # type: ignore[arg-type]
    for start, end, replacement in sorted(edits, reverse=True):
        lines[start:end] = replacement
    text = re.sub(r"\n{4,}", "\n\n\n", "\n".join(lines)) + "\n"
    ast.parse(text)  # fails the build here rather than in a student's notebook
    return text, [n.name.removeprefix("test_") for n in withheld]


def reference_bodies(reference: str) -> list[set[str]]:
    """Each reference function's body as its set of code lines (strings emptied)."""
    bodies = []
    for node in ast.walk(ast.parse(reference)):
        if isinstance(node, _FUNCTIONS):
            lines = _code_lines(node.body[1:] if _docstring(node) else node.body)
            if lines:
                bodies.append(lines)
    return bodies


def _repeating_reference(tree: ast.Module, reference: str) -> set[str]:
    """Top-level functions (not @expected: their bodies go anyway) in which half or more of
    some reference function's body appears."""
    bodies = reference_bodies(reference)
    found = set()
    for node in tree.body:
        if isinstance(node, _FUNCTIONS) and not _is_expected(node):
            lines = _code_lines(node.body)
            if any(len(body & lines) * 2 >= len(body) for body in bodies):
                found.add(node.name)
    return found


def _uses(check: ast.stmt, names: set[str], tree: ast.Module) -> bool:
    """Whether a check is, or reaches through the module's functions, one of `names`."""
    functions = {n.name: n for n in tree.body if isinstance(n, _FUNCTIONS)}
    seen, queue = set(), [check.name]  # type: ignore[attr-defined]
    while queue:
        name = queue.pop()
        if name in names:
            return True
        if name in seen or name not in functions:
            continue
        seen.add(name)
        node = functions[name]
        parts = [*node.decorator_list, node.args] if _is_expected(node) else [node]
        queue += [n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)]
        queue += [n.arg for part in parts for n in ast.walk(part) if isinstance(n, ast.arg)]
    return False


class _EmptyStrings(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.Constant("") if isinstance(node.value, str) else node


def _code_lines(body: list[ast.stmt]) -> set[str]:
    """Code lines of at least 24 characters: shorter ones (`return x`) are common to any code."""
    module = _EmptyStrings().visit(ast.Module(body=list(body), type_ignores=[]))
    return {line.strip() for line in ast.unparse(module).splitlines()
            if len(line.strip()) >= 24 and not line.strip().startswith(("def ", "@", "import ", "from "))}


def public_config(source: str) -> str:
    """course_config.py without the `Check(...)` entries marked hidden=True."""
    tree = ast.parse(source)
    spans = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Check"
                and any(k.arg == "hidden" and _true(k.value) for k in node.keywords)):
            spans.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))
    offsets = _line_offsets(source)
    text = source
    for line, col, end_line, end_col in sorted(spans, reverse=True):
        start, end = offsets[line - 1] + col, offsets[end_line - 1] + end_col  # type: ignore[index]
        after = re.match(r"\s*,[ \t]*(#[^\n]*)?\n?", text[end:])
        end += after.end() if after else 0
        before = re.search(r"\n[ \t]*$", text[:start])
        start = before.start() + 1 if before else start
        text = text[:start] + text[end:]
    ast.parse(text)
    return text


def _unused_definitions(kept: list[ast.stmt]) -> list[ast.stmt]:
    """Top-level functions and constants no remaining code names (fixtures count as named by their
    users' parameters; checks, named test_*, are always kept), until nothing more goes. A constant
    only a hidden check used (form B's order, say) must not be released with the public ones."""
    removed: list[ast.stmt] = []
    docstrings = {id(n.value) for n in ast.walk(ast.Module(body=kept, type_ignores=[]))
                  if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    while True:
        used: set[str] = set(_READ_BY_THE_ENGINE)
        for node in kept:
            # An @expected body is not released, so what only it uses need not be either.
            parts = [*node.decorator_list, node.args] if isinstance(node, _FUNCTIONS) and _is_expected(node) else [node]
            for inner in (n for part in parts for n in ast.walk(part)):
                if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Store):
                    used.add(inner.id)
                elif isinstance(inner, ast.Attribute):
                    used.add(inner.attr)
                elif isinstance(inner, ast.arg):
                    used.add(inner.arg)
                elif isinstance(inner, ast.Constant) and isinstance(inner.value, str) and id(inner) not in docstrings:
                    used.update(re.findall(r"\w+", inner.value))  # e.g. __all__, getattr by name
        unused = [n for n in kept if _defined_name(n) is not None and not _defined_name(n).startswith("test_")
                  and _defined_name(n) not in used]
        if not unused:
            return removed
        removed += unused
        kept = [n for n in kept if n not in unused]


def _defined_name(node: ast.stmt) -> str | None:
    """The one name a top-level function or plain assignment defines, else None."""
    if isinstance(node, _FUNCTIONS):
        return node.name
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    return names[0] if len(names) == 1 == len(targets) else None


def _is_expected(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any((getattr(d, "id", None) or getattr(d, "attr", None)) == "expected" for d in node.decorator_list)


def _docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    first = node.body[0]
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)


def _with_comments_above(first: int, lines: list[str]) -> int:
    """The first line of a dropped node, moved up over the comment lines that describe it."""
    while first > 0 and lines[first - 1].lstrip().startswith("#"):
        first -= 1
    return first


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return (decorators[0].lineno if decorators else node.lineno) - 1


def _true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _line_offsets(text: str) -> list[int]:
    offsets, total = [], 0
    for line in text.splitlines(keepends=True):
        offsets.append(total)
        total += len(line)
    return offsets + [total]
