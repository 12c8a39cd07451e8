"""The student's copy of a checks module and of an exercise's manifest: what may be released.

From `graders/<lesson>/<slug>/checks.py`: the hidden checks go; the body of every `@expected`
function becomes a `raise` (it computes expected values from the reference or from a
mistake's formula, and the bundle replays those values instead); a public check whose
code (or a helper's) repeats the body of a reference function is withheld too, since
releasing it would release the solution (it still runs at autograde); then every
top-level function nothing uses any more goes (helpers of the hidden checks), and so does every
name imported from this package that nothing uses (the quiz's misconceptions). It is edited
as text, by the line ranges `ast` gives, so what remains keeps its comments and layout.

From an exercise's manifest (graders/<lesson>/<slug>/exercise.toml): the hidden checks go, and
so do the seeds and tolerances the released checks do not name (those of the hidden checks, and
the twins seed). It is data, so it is loaded and written again (course_config.py itself is copied
as it is).
"""

from __future__ import annotations

import ast
import re
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import course_config

RELEASED_MANIFEST = ("# The released copy of this exercise's manifest: its public checks only. Written by the\n"
                     "# course's build (graders/frontends/nbgrader/public_checks.py); do not edit.\n\n")
REPLAYED = 'raise LookupError("expected values are replayed from expected.json in this copy")'
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_READ_BY_THE_ENGINE = ("worker_warm_up", "pytestmark")  # names the plugin looks up in a checks module
# Settings every manifest has that only the instructor's side reads: the seed of the public checks' twin runs.
INSTRUCTOR_SETTINGS = ("twins",)


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
    unused = _unused_definitions(kept)
    dropped += unused
    kept = [n for n in kept if n not in unused]
    lines = source.splitlines()
    edits: list[tuple[int, int, list[str]]] = [(_with_comments_above(_first_line(n), lines), n.end_lineno, [])
                                               for n in dropped]  # type: ignore[misc]
    edits += _trimmed_imports(kept)
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


def public_manifest(path: Path, released_checks: str) -> str:
    """An exercise's manifest (exercise.toml) as the student bundle gets it: its public checks, and
    the seeds and tolerances that `released_checks` (its public checks module) names.

    Loaded as data and written again, never cut as text: a hidden check's id or description
    cannot survive in a comment or a stray line. The hidden checks' points are kept as one sum,
    `withheld_points`, so that course_config.py finds the exercise's points complete (students see
    every exercise's points in the notebook anyway). A seed or tolerance that only hidden checks
    use (their seeds, the sizes of their inputs) names a hidden input, so it goes with them; so does
    the twins seed, read only where the reference is live (graders/engine/registration.py)."""
    with path.open("rb") as file:
        data = tomllib.load(file)
    hidden = [check for check in data["checks"] if check.get("hidden", False)]
    data["checks"] = [check for check in data["checks"] if not check.get("hidden", False)]
    if hidden:
        data["withheld_points"] = sum(check["points"] for check in hidden)
    # Checks read a setting by its name, written as a string (EXERCISE.seed("lesson_data")).
    named = {node.value for node in ast.walk(ast.parse(released_checks))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)} - set(INSTRUCTOR_SETTINGS)
    for table in ("seeds", "tolerances"):
        kept = {name: value for name, value in data.pop(table, {}).items() if name in named}
        if kept:
            data[table] = kept
    return RELEASED_MANIFEST + toml_text(data)


def toml_text(data: dict[str, Any]) -> str:
    """TOML for the manifests' shape: keys with scalar values, tables (nested), and arrays of tables
    of scalars at the top level. Values keep their types (1 stays an integer, 1.0 a float)."""
    lines = [f"{key} = {_toml_value(value)}" for key, value in data.items() if not isinstance(value, (dict, list))]
    for key, entries in data.items():
        if isinstance(entries, list):
            for entry in entries:
                lines += ["", f"[[{key}]]", *(f"{k} = {_toml_value(v)}" for k, v in entry.items())]
    for key, table in data.items():
        if isinstance(table, dict):
            lines += _toml_table(key, table)
    return "\n".join(lines).lstrip("\n") + "\n"


def _toml_table(name: str, table: dict[str, Any]) -> list[str]:
    scalars = [f"{key} = {_toml_value(value)}" for key, value in table.items() if not isinstance(value, dict)]
    inner = [key for key, value in table.items() if isinstance(value, dict)]
    lines = ["", f"[{name}]", *scalars] if scalars or not inner else []
    for key in inner:
        lines += _toml_table(f"{name}.{_toml_key(key)}", table[key])
    return lines


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_value(key)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return re.sub(r"e([+-])0+(?=\d)", r"e\1", repr(value))  # 1e-5 (not 1e-05), 1000.0, 3, inf, nan
    if isinstance(value, str):
        plain = all(c >= " " and c != "\x7f" for c in value)
        if plain and '"' in value and "'" not in value:
            return f"'{value}'"  # a literal string: quotes need no escape
        escaped = "".join("\\" + c if c in '"\\' else f"\\u{ord(c):04x}" if c < " " or c == "\x7f" else c
                          for c in value)
        return f'"{escaped}"'
    raise TypeError(f"no TOML written here for {type(value).__name__} {value!r} (the manifests hold none)")


def _unused_definitions(kept: list[ast.stmt]) -> list[ast.stmt]:
    """Top-level functions and constants no remaining code names (fixtures count as named by their
    users' parameters; checks, named test_*, are always kept), until nothing more goes. A constant
    only a hidden check used (form B's order, say) must not be released with the public ones."""
    removed: list[ast.stmt] = []
    while True:
        used = _used_names(kept)
        unused = [n for n in kept if _defined_name(n) is not None and not _defined_name(n).startswith("test_")
                  and _defined_name(n) not in used]
        if not unused:
            return removed
        removed += unused
        kept = [n for n in kept if n not in unused]


def _used_names(kept: list[ast.stmt]) -> set[str]:
    """Every name the remaining code uses (or may look up by a string), and the names the engine reads."""
    used: set[str] = set(_READ_BY_THE_ENGINE)
    docstrings = {id(n.value) for n in ast.walk(ast.Module(body=kept, type_ignores=[]))
                  if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
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
    return used


def _trimmed_imports(kept: list[ast.stmt]) -> list[tuple[int, int, list[str]]]:
    """Edits that leave, in each import from this package, only the names the remaining code uses. A name
    alone can tell what only hidden checks know: the quiz's misconceptions, imported for its graded checks,
    name the wrong options of each question. And a module no released code imports is not bundled."""
    used = _used_names(kept)
    edits = []
    for node in kept:
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "graders"):
            continue
        names = [alias for alias in node.names if (alias.asname or alias.name) in used]
        if len(names) == len(node.names):
            continue
        kept_text = ", ".join(alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in names)
        line = f"from {node.module} import {kept_text}"
        if len(line) > 120:
            line = f"from {node.module} import ({kept_text})"
        edits.append((node.lineno - 1, node.end_lineno, [] if not names else textwrap.wrap(
            line, 120, subsequent_indent=" " * (len(node.module) + 14))))
    return edits  # type: ignore[return-value]


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
