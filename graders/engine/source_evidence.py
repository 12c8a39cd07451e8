"""What a submitted module's source shows, read in the grading process: the evidence behind checks of *how*.

Everything a worker reports is the student's word: the student's code runs there and controls
that process, so a trace of torch calls or a count kept by a driver can be forged or switched
off (`torch._C.DisableTorchFunction()` hides every call from the trace). A value is judged by
the grader; how it was made can only be evidenced. So the grader also reads the source it was
handed, and a check of how asks both: the trace of the run and the code of the function (with
the module's functions it calls). And a module that reaches for the grader's internals (frames,
the garbage collector, sys.modules, torch's C switches, ctypes, our modules, code built at run
time) is flagged: its checks of how score 0 and the instructor sees the lines (`reaches`).

Names are matched as dotted paths with the module's imports resolved: `torch.autograd.grad`,
`ag.grad` after `import torch.autograd as ag` and `grad` after `from torch.autograd import grad`
all read `torch.autograd.grad`; an attribute of anything else reads `?.name` (`x.data` is
`?.data`). A pattern matches a path equal to it or ending in "." + it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Iterable

# Attributes that lead from a value to the interpreter's insides: frames, globals, code objects.
_REACHING_ATTRIBUTES = {
    "_getframe": "reaches the frames of the process it runs in", "f_back": "walks up the frames of the process",
    "f_globals": "reads another frame's globals", "f_locals": "reads another frame's locals",
    "f_builtins": "reads another frame's builtins", "tb_frame": "reaches frames through a traceback",
    "gi_frame": "reaches a generator's frame", "cr_frame": "reaches a coroutine's frame",
    "currentframe": "reaches the frames of the process it runs in", "getouterframes": "walks up the frames",
    "_current_frames": "reaches every thread's frames", "__subclasses__": "walks every class of the process",
    "__globals__": "reads a function's module globals", "__code__": "reads or replaces a function's code",
    "__closure__": "reads a function's closure", "__builtins__": "reaches the builtins of every module",
    "settrace": "installs a hook that sees every frame", "setprofile": "installs a hook that sees every call",
    "_C": "switches torch's C core directly (DisableTorchFunction hides calls from the trace)",
    "DisableTorchFunction": "hides torch calls from the grader's trace",
    "DisableTorchFunctionSubclass": "hides torch calls from the grader's trace",
    "_disabled_torch_function_impl": "hides torch calls from the grader's trace",
    "TorchFunctionMode": "intercepts every torch call", "_push_mode": "intercepts every torch call",
    "__torch_function__": "intercepts torch calls",
}
_REACHING_PATHS = {"sys.modules": "reaches every module of the process, the grader's included",
                   "gc.get_objects": "walks every object of the process", "gc.get_referrers": "walks the process's objects",
                   "gc.get_referents": "walks the process's objects", "gc.unfreeze": "walks the process's objects",
                   "inspect.stack": "walks up the frames of the process", "inspect.trace": "walks the frames",
                   "torch.overrides": "intercepts torch calls"}
_REACHING_MODULES = {"gc": "the garbage collector sees every object of the process", "ctypes": "reads and writes "
                     "memory directly", "cffi": "reads and writes memory directly", "graders": "uses the grader's code",
                     "nbchecks": "uses the grader's code", "course_config": "reads the course's checks and seeds",
                     "importlib": "imports modules by computed names", "builtins": "changes what every module sees"}
_DYNAMIC_CALLS = {"exec": "runs code the grader cannot read", "eval": "runs code the grader cannot read",
                  "compile": "builds code the grader cannot read", "__import__": "imports modules by computed names"}
_BY_NAME = ("getattr", "setattr", "delattr")  # on a module, by a name not written out: reaches what the code does not say
_OUR_NAMES = ("graders", "nbchecks", "course_config")
# Every name the reaches above are made of: a source with none of them reaches for nothing.
_MAY_REACH = re.compile(r"\b(" + "|".join(re.escape(name) for name in sorted({
    *_REACHING_ATTRIBUTES, *_REACHING_MODULES, *(path.rsplit(".", 1)[1] for path in _REACHING_PATHS),
    *_DYNAMIC_CALLS, *_BY_NAME, *_OUR_NAMES})) + r")\b")


@dataclass(frozen=True)
class Reach:
    """One line of a submission that reaches for the grader's internals, and why that counts."""

    line: int
    code: str  # the line, as written (cut)
    why: str

    def text(self, file: str) -> str:
        return f"{file} line {self.line}: {self.code} ({self.why})"


@dataclass
class SourceEvidence:
    """One module's source, parsed once, when first needed; empty (nothing shown, nothing reached) when it
    does not parse."""

    source: str
    reaches: list[Reach] = field(default_factory=list)
    _indexed: bool = False
    _parsed: bool = False
    _functions: dict[str, ast.AST] = field(default_factory=dict)
    _imports: dict[str, str] = field(default_factory=dict)  # local name -> the dotted path it stands for
    _lines: list[str] = field(default_factory=list)
    _closures: dict[str, list[ast.AST]] = field(default_factory=dict)

    @classmethod
    def read(cls, source: str) -> "SourceEvidence":
        evidence = cls(source)
        # Most answers name none of what reaching takes: then nothing is parsed until a check of how asks.
        if _MAY_REACH.search(source):
            evidence.reaches = evidence._find_reaches(evidence._index())
        return evidence

    @property
    def parsed(self) -> bool:
        self._index()
        return self._parsed

    def _index(self) -> list[ast.AST]:
        """Parse and walk the source once (a batch reads every module of every student): its nodes."""
        if self._indexed:
            return []
        self._indexed = True
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError):
            return []  # the import fails in the worker, and says why
        self._parsed = True
        self._lines = self.source.splitlines()
        nodes = list(ast.walk(tree))
        self._imports = _imports(nodes)
        self._functions = {node.name: node for node in nodes
                           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        return nodes

    def lines(self, function: str, patterns: Iterable[str]) -> list[int]:
        """The lines of `function`, and of the module's functions it calls, that name any of `patterns`."""
        self._index()
        wanted = tuple(patterns)
        found = set()
        for node in self._closure(function):
            for inner in ast.walk(node):
                path = self._path(inner)
                if path and any(path == p or path.endswith("." + p) for p in wanted):
                    found.add(inner.lineno)  # type: ignore[attr-defined]
        return sorted(found)

    def shows(self, function: str, patterns: Iterable[str]) -> bool:
        return bool(self.lines(function, patterns))

    def parameter(self, function: str, index: int) -> str | None:
        """The name of a function's parameter, by position (None when there is no such function or parameter)."""
        self._index()
        node = self._functions.get(function)
        arguments = node.args.posonlyargs + node.args.args if isinstance(node, (ast.FunctionDef,
                                                                                ast.AsyncFunctionDef)) else []
        return arguments[index].arg if index < len(arguments) else None

    # ------------------------------------------------------------ internals

    def _closure(self, function: str) -> list[ast.AST]:
        """The definition of `function` and of every function or class of the module it names, transitively."""
        if function in self._closures:
            return self._closures[function]
        seen: dict[str, ast.AST] = {}
        queue = [function]
        while queue:
            name = queue.pop()
            node = self._functions.get(name)
            if node is None or name in seen:
                continue
            seen[name] = node
            queue += [inner.id for inner in ast.walk(node) if isinstance(inner, ast.Name) and inner.id in self._functions]
        self._closures[function] = list(seen.values())
        return self._closures[function]

    def _path(self, node: ast.AST) -> str:
        """A name or attribute chain as a dotted path, imports resolved ("" for anything else)."""
        if isinstance(node, ast.Name):
            return self._imports.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self._path(node.value) if isinstance(node.value, (ast.Name, ast.Attribute)) else "?"
            return f"{base or '?'}.{node.attr}"
        return ""

    def _find_reaches(self, nodes: list[ast.AST]) -> list[Reach]:
        found: dict[int, Reach] = {}  # one reason per line is enough to show it

        def flag(node: ast.AST, why: str) -> None:
            line = getattr(node, "lineno", 0)
            code = self._lines[line - 1].strip() if 0 < line <= len(self._lines) else ""
            found.setdefault(line, Reach(line, code[:120], why))

        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                if isinstance(node, ast.ImportFrom):
                    names += [f"{node.module}.{a.name}" for a in node.names]
                for name in names:
                    top = name.split(".")[0]
                    if top in _REACHING_MODULES:
                        flag(node, _REACHING_MODULES[top])
                    for path, why in _REACHING_PATHS.items():
                        if name == path or name.startswith(path + "."):
                            flag(node, why)
                    if name.split(".")[-1] in _REACHING_ATTRIBUTES:
                        flag(node, _REACHING_ATTRIBUTES[name.split(".")[-1]])
            elif isinstance(node, ast.Attribute):
                if node.attr in _REACHING_ATTRIBUTES:
                    flag(node, _REACHING_ATTRIBUTES[node.attr])
                path = self._path(node)
                for reaching, why in _REACHING_PATHS.items():
                    if path == reaching or path.startswith(reaching + "."):
                        flag(node, why)
            elif isinstance(node, ast.Name) and node.id in _REACHING_ATTRIBUTES:
                flag(node, _REACHING_ATTRIBUTES[node.id])
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in _DYNAMIC_CALLS and node.func.id not in self._functions:
                    flag(node, _DYNAMIC_CALLS[node.func.id])
                elif (node.func.id in _BY_NAME and len(node.args) >= 2 and self._is_module(node.args[0])
                      and not _literal_name(node.args[1])):
                    flag(node, "reaches a module's attribute by a name the code does not write out")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if text in _REACHING_ATTRIBUTES or any(text == n or text.startswith(n + ".") for n in _OUR_NAMES):
                    flag(node, f"names {text!r}, which the code may use to reach the grader's internals")
        return sorted(found.values(), key=lambda r: (r.line, r.why))

    def _is_module(self, node: ast.AST) -> bool:
        """Whether an expression names an imported module (torch, torch.nn, np, sys, ...) or one of its
        lower-case attributes, rather than a value of the student's."""
        path = self._path(node)
        imported = {p.split(".")[0] for p in self._imports.values()}
        return bool(path) and path.split(".")[0] in imported and path.split(".")[-1][:1].islower()


def _imports(nodes: list[ast.AST]) -> dict[str, str]:
    found = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _literal_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


# What the source must (or must not) show for the checks of how, as patterns of `SourceEvidence.lines`.
AUTOGRAD_IN_CODE = ("backward", "autograd.grad", "func.grad", "func.vjp", "func.jvp", "func.jacrev", "func.jacfwd",
            "func.hessian", "functional.jacobian", "functional.hessian", "functional.vjp", "functional.jvp",
            "functional.vhp", "functional.hvp", "forward_ad")
BACKWARD_IN_CODE = ("backward", "autograd.grad")
