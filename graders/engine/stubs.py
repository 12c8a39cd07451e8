"""What a stub is, and the stubs of a lesson that may be handed out.

A stub is `exercises/<lesson>/<slug>.py` as students start from it: every function and method
body is an optional docstring and `raise NotImplementedError`. Around them a stub may hold
anything that is not an answer: the module docstring, imports, constants and type aliases,
classes, `# TODO` comments (comments are not code, so they are free). A stub with a working
helper for students would need this rule widened; no stub has one today.

The instructor's working copy of `exercises/` is also where they try the exercises, so whatever
hands stubs out (`python -m graders release`, the nbgrader build's answer cells) takes them from
`released_stubs` below, never straight from the folder:

- in a git checkout, the committed version (HEAD) is released, always: a working copy that
  differs is the instructor's, not the course's. One line says so, naming the file.
- where git has no committed version (an unpacked release, a copy without .git, a new file),
  the working copy is released.
- either way, what would be released must have a stub's shape, else nothing is released and
  the message names the file, the functions that hold code and how to put the stub back.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import course_config


def stub_problem(source: str) -> str | None:
    """Why `source` is not a stub, worded to follow its file's name ("implements as_grid,
    flatten"), or None when it is one."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return f"does not parse (line {error.lineno}: {error.msg})"
    finder = _CodeFinder()
    finder.visit(tree)
    return f"implements {', '.join(finder.implemented)}" if finder.implemented else None


class _CodeFinder(ast.NodeVisitor):
    """Collects the functions and methods (named with their class, `Value.__add__`) whose body is
    more than a stub's, and any lambda, which can only be an answer written as an expression."""

    def __init__(self) -> None:
        self.implemented: list[str] = []
        self._classes: list[str] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._classes.append(node.name)
        self.generic_visit(node)
        self._classes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # Not visited further: a function with code is named once, whatever it holds inside.
        if not _is_stub_body(node.body):
            self.implemented.append(".".join([*self._classes, node.name]))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.implemented.append(f"a lambda (line {node.lineno})")


def _is_stub_body(body: list[ast.stmt]) -> bool:
    """An optional docstring, then `raise NotImplementedError` (or `NotImplementedError(...)`), nothing else."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].cause is not None:
        return False
    raised = body[0].exc
    if isinstance(raised, ast.Call):
        raised = raised.func
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def committed_text(path: Path) -> str | None:
    """`path` as the last commit (HEAD) holds it; None where git cannot say: git missing, not a
    checkout (an unpacked release, a copy without .git), or a file never committed."""
    try:
        # HEAD:./name is resolved from the folder git runs in, so any depth of checkout works.
        shown = subprocess.run(["git", "show", f"HEAD:./{path.name}"], cwd=path.parent, capture_output=True,
                               check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return shown.stdout.decode("utf-8") if shown.returncode == 0 else None


class NotAStubError(Exception):
    """A stub that cannot be released; the message says which file, why, and what to do."""


def stub_to_release(root: Path, relative: Path) -> tuple[str, str | None]:
    """The text to hand out for the stub at `root / relative`, and one line for the instructor
    when that text is not their working copy (None when it is)."""
    path = root / relative
    name = relative.as_posix()
    # Bytes, not read_text: its newline translation would make an untouched file differ.
    working = path.read_bytes().decode("utf-8") if path.is_file() else None
    committed = committed_text(path)
    if committed is None:
        if working is None:
            raise NotAStubError(f"{name} is missing: every exercise in course_config.py needs its stub")
        problem = stub_problem(working)
        if problem:
            raise NotAStubError(
                f"{name} {problem}: a stub's functions only raise NotImplementedError, so it cannot be "
                f"handed out. Put the stub back (in a git checkout: `git checkout -- {name}`; otherwise "
                f"from the course's original files) and release again.")
        return working, None
    problem = stub_problem(committed)
    if problem:
        raise NotAStubError(
            f"{name} as committed (HEAD) {problem}: a solution was committed in place of the stub. "
            f"Commit the stub again (`git log -p -- {name}` shows when it changed) and release again.")
    if working == committed:
        return committed, None
    if working is None:
        return committed, f"{name} is missing from your working copy; releasing the committed stub"
    problem = stub_problem(working)
    if problem:
        return committed, f"{name}: your working copy {problem}; releasing the committed stub instead"
    return committed, (f"{name}: your working copy has uncommitted changes; releasing the committed stub "
                       f"(commit the changes to release them)")


def released_stubs(lesson_folder: str, slugs: list[str], root: Path = course_config.ROOT) -> dict[str, str]:
    """The stub text to hand out for each of these exercises, by slug. Prints a line for each stub
    taken from the last commit instead of the working copy; refuses (SystemExit) when any stub
    cannot be released, naming every such file at once so that one fix-up covers them all."""
    texts: dict[str, str] = {}
    refusals: list[str] = []
    for slug in slugs:
        try:
            texts[slug], note = stub_to_release(root, Path("exercises") / lesson_folder / f"{slug}.py")
        except NotAStubError as error:
            refusals.append(str(error))
            continue
        if note:
            print(note)
    if refusals:
        raise SystemExit("nothing was written: students would get code, not stubs\n  " + "\n  ".join(refusals))
    return texts
