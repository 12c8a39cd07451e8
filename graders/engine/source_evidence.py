"""What a submitted module's source shows, read in the grading process: the evidence behind checks of *how*.

Everything a worker reports is the student's word: the student's code runs there and controls
that process, so a trace of torch calls or a count kept by a driver can be forged or switched
off (`torch._C.DisableTorchFunction()` hides every call from the trace). A value is judged by
the grader; how it was made can only be evidenced. So the grader also reads the source it was
handed, and a check of how asks both: the trace of the run and the code of the function (with
the module's functions, aliases and module-level values it names).

**Credit only what the grader can follow.** The reader follows what it can read statically: the
modules it knows (`FOLLOWED_MODULES`: torch's public parts, NumPy, math, functools, ...), attributes
written out (or given to `getattr` as a literal), names bound by `def`, `class`, imports and
module-level assignments, aliases, decorators, default arguments, lambdas, `functools.partial`.
Anything else is a line it cannot follow (`reaches`): an import of another module (threads,
processes, pickle, runpy, ...), a private part of a module (`torch._C`), Python's insides
(`__dict__`, frames, code objects), code run from a string, names computed at run time
(`getattr` with a computed name, `vars`, `globals`), or a name of torch's rebound. Then the
module's checks of how are not credited: they are left for the instructor's review, with the
lines, and nothing its worker says of how is trusted. It is an allowlist, so a way of reaching
that nobody has thought of is not followed either.

Names are matched as dotted paths with the module's imports resolved: `torch.autograd.grad`,
`ag.grad` after `import torch.autograd as ag` and `grad` after `from torch.autograd import grad`
all read `torch.autograd.grad`; an attribute of anything else reads `?.name` (`x.data` is
`?.data`); `getattr(torch.optim, "SGD")` reads `torch.optim.SGD`. A pattern matches a path equal
to it or ending in "." + it. A name the code assigns to (a local variable called `backward`) is
a variable, not the API of that name, and matches nothing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable

# The modules whose code the grader can follow: an import of any other is a line for review. What a student of
# this lesson may need, and nothing that starts threads or processes, loads code or reaches into the interpreter.
FOLLOWED_MODULES = frozenset({
    "torch", "numpy", "math", "cmath", "functools", "itertools", "operator", "typing", "typing_extensions",
    "dataclasses", "collections", "numbers", "random", "statistics", "fractions", "decimal", "abc", "enum",
    "__future__", "warnings", "copy", "contextlib", "matplotlib", "string", "re", "time", "textwrap",
    # Plain computations on plain data, with no way to run code but the functions they are handed.
    "bisect", "heapq", "graphlib", "array", "json", "datetime", "pprint"})
# Why some modules the reader does not follow are there: said to the instructor beside the line.
_NOT_FOLLOWED_WHY = {
    "gc": "the garbage collector sees every object of the process", "ctypes": "reads and writes memory directly",
    "cffi": "reads and writes memory directly", "graders": "uses the grader's code",
    "nbchecks": "uses the grader's code", "course_config": "reads the course's checks and seeds",
    "importlib": "imports modules by computed names", "builtins": "changes what every module sees",
    "sys": "reaches the interpreter (its modules, its hooks, its frames)",
    "inspect": "walks the frames of the process", "threading": "runs code in threads the trace does not follow",
    "_thread": "runs code in threads the trace does not follow",
    "concurrent": "runs code in threads or processes the trace does not follow",
    "multiprocessing": "runs code in processes the trace does not follow",
    "subprocess": "runs other programs", "os": "reaches the operating system (processes, files, exits)",
    "asyncio": "runs code the trace does not follow", "signal": "changes how the process handles signals",
    "pickle": "loads code from bytes", "marshal": "loads code from bytes", "dill": "loads code from bytes",
    "types": "builds functions and code objects", "code": "runs code from strings",
    "codeop": "compiles code from strings", "runpy": "runs other modules' code", "timeit": "runs code from strings",
    "pdb": "steps through the process's frames", "trace": "traces every frame", "dis": "reads code objects",
}
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
    "__torch_function__": "intercepts torch calls", "__torch_dispatch__": "intercepts torch's operators",
}
_REACHING_PATHS = {"sys.modules": "reaches every module of the process, the grader's included",
                   "gc.get_objects": "walks every object of the process", "gc.get_referrers": "walks the process's objects",
                   "gc.get_referents": "walks the process's objects", "gc.unfreeze": "walks the process's objects",
                   "inspect.stack": "walks up the frames of the process", "inspect.trace": "walks the frames",
                   "torch.overrides": "intercepts torch calls",
                   "torch.multiprocessing": "runs code in processes the trace does not follow",
                   "torch.jit.fork": "runs code in threads the trace does not follow",
                   "torch.distributed": "runs code in other processes the trace does not follow",
                   "torch.utils.cpp_extension": "builds and loads compiled code", "torch.library": "defines operators",
                   "operator.attrgetter": "reads attributes by names the code may compute",
                   "operator.methodcaller": "calls methods by names the code may compute"}
# Builtins that run code from strings or reach names computed at run time: any mention of one (an alias of `exec`
# runs code as well as `exec` does) is a line the grader cannot follow, unless the module binds that name itself.
_UNFOLLOWED_BUILTINS = {
    "exec": "runs code the grader cannot read", "eval": "runs code the grader cannot read",
    "compile": "builds code the grader cannot read", "__import__": "imports modules by computed names",
    "vars": "reads a namespace by names the code may compute", "globals": "reads the module's namespace by names "
    "the code may compute", "locals": "reads a namespace by names the code may compute",
    "setattr": "changes attributes by names the code may compute", "delattr": "removes attributes",
    "breakpoint": "stops in a debugger", "open": "reads or writes files", "input": "waits for input",
    "memoryview": "reads memory as bytes", "__builtins__": "reaches the builtins of every module",
    "__loader__": "reaches the module's loader", "__spec__": "reaches the module's loader",
}
# Double-underscore attributes that are plain Python (operators, construction, names): any other (`__dict__`,
# `__getattribute__`, `__mro__`, ...) reaches Python's insides, where names are looked up by computed strings.
_FOLLOWED_DUNDERS = frozenset({
    "__init__", "__name__", "__qualname__", "__doc__", "__class__", "__len__", "__iter__", "__next__",
    "__getitem__", "__setitem__", "__contains__", "__call__", "__repr__", "__str__", "__hash__", "__bool__",
    "__float__", "__int__", "__index__", "__enter__", "__exit__", "__eq__", "__ne__", "__lt__", "__le__",
    "__gt__", "__ge__", "__neg__", "__pos__", "__abs__", "__add__", "__radd__", "__iadd__", "__sub__",
    "__rsub__", "__isub__", "__mul__", "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__",
    "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
    "__rmatmul__", "__and__", "__or__", "__xor__", "__invert__", "__round__", "__file__", "__version__"})
_OUR_NAMES = ("graders", "nbchecks", "course_config")
# Methods that change a tensor's values in place by arithmetic (SourceEvidence.updates_in_place).
_IN_PLACE_ARITHMETIC = frozenset({"sub_", "add_", "mul_", "div_", "copy_", "addcmul_", "addcdiv_", "lerp_"})


def _updated_in_place(node: ast.AST) -> ast.AST | None:
    """What an augmented assignment or an in-place arithmetic method changes, unless it is a `.grad`."""
    target = (node.target if isinstance(node, ast.AugAssign) else node.func.value
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _IN_PLACE_ARITHMETIC else None)
    return None if target is None or (isinstance(target, ast.Attribute) and target.attr == "grad") else target


def _whose_gradient(node: ast.AST) -> ast.AST | None:
    """`p` in `p.grad` or in an attribute of it (`p.grad.data`); None for anything else."""
    while isinstance(node, ast.Attribute):
        if node.attr == "grad":
            return node.value
        node = node.value
    return None


def _cleared_gradient(node: ast.AST) -> ast.AST | bool | None:
    """Whose gradient a statement clears: `p` for `p.grad.zero_()`, `p.grad.data.zero_()`, `p.grad = None` or
    `p.grad *= 0`; True for `optimiser.zero_grad()` (every parameter's); None when it clears none."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "zero_grad":
            return True
        return _whose_gradient(node.func.value) if node.func.attr in ("zero_", "fill_") else None
    if isinstance(node, ast.Assign):
        return next((t.value for t in node.targets if isinstance(t, ast.Attribute) and t.attr == "grad"), None)
    return _whose_gradient(node.target) if isinstance(node, ast.AugAssign) else None


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
    _bound: set[str] = field(default_factory=set)  # every name the module binds itself, anywhere
    _assignments: dict[str, list[ast.stmt]] = field(default_factory=dict)  # module-level ones, by the name bound
    _tree: ast.Module = field(default_factory=lambda: ast.Module(body=[], type_ignores=[]))

    own_modules: frozenset[str] = frozenset()  # the student's own modules beside this one, read on their own

    @classmethod
    def read(cls, source: str, own_modules: Iterable[str] = ()) -> "SourceEvidence":
        """`own_modules`: the names of the student's modules beside this one (`import helpers`), which the grader
        reads too (each with its own evidence), so importing them is followed."""
        evidence = cls(source, own_modules=frozenset(own_modules))
        # An allowlist reads everything: what the module imports, names and builds (a few milliseconds a module).
        evidence.reaches = evidence._find_reaches(evidence._index())
        return evidence

    @property
    def tree(self) -> ast.Module:
        """The whole module, parsed once (an empty module where the source does not parse): for a reading that spans
        every function, such as a setting switched anywhere. Read it, never change it: the index points into it."""
        self._index()
        return self._tree

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
        self._tree = tree
        self._lines = self.source.splitlines()
        nodes = list(ast.walk(tree))
        self._imports = _imports(nodes)
        self._functions = {node.name: node for node in nodes
                           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        # A module-level assignment is followed like a definition: `_h = _helper`, `step = functools.partial(...)`,
        # `f = lambda x: ...`. Only module-level ones: a local variable of one function is not another's.
        for statement in _module_level(tree.body):
            for name in _assigned_names(statement):
                self._assignments.setdefault(name, []).append(statement)
        self._bound = {node.id for node in nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        self._bound |= {node.name for node in nodes if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                         ast.ClassDef))}
        self._bound |= {a.arg for node in nodes if isinstance(node, ast.arguments)
                        for a in [*node.posonlyargs, *node.args, *node.kwonlyargs,
                                  *([node.vararg] if node.vararg else []), *([node.kwarg] if node.kwarg else [])]}
        self._bound |= set(self._imports)
        return nodes

    def lines(self, function: str, patterns: Iterable[str]) -> list[int]:
        """The lines of `function`, and of the module's functions it calls, that name any of `patterns`."""
        self._index()
        wanted = tuple(patterns)
        found = set()
        closure = self._closure(function)
        # A name the code assigns to is its own variable (`backward = ...`), not the API that name would be.
        variables = {inner.id for node in closure for inner in ast.walk(node)
                     if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store)} - set(self._imports)
        for node in closure:
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and inner.id in variables:
                    continue
                path = self._path(inner)
                if path and any(path == p or path.endswith("." + p) for p in wanted):
                    found.add(inner.lineno)  # type: ignore[attr-defined]
        return sorted(found)

    def shows(self, function: str, patterns: Iterable[str]) -> bool:
        return bool(self.lines(function, patterns))

    def passes(self, function: str, patterns: Iterable[str], name: str) -> bool:
        """Whether `function` itself calls one of `patterns` with the plain name `name` as an argument (as
        `torch.manual_seed(seed)` does): evidence that the code uses that argument there, read without running it."""
        self._index()
        node = self._functions.get(function)
        wanted = tuple(patterns)
        for inner in ast.walk(node) if node is not None else ():
            if not isinstance(inner, ast.Call):
                continue
            path = self._path(inner.func)
            if path and any(path == p or path.endswith("." + p) for p in wanted) and any(
                    isinstance(argument, ast.Name) and argument.id == name
                    for argument in [*inner.args, *(keyword.value for keyword in inner.keywords)]):
                return True
        return False

    def sets_keyword(self, function: str, keyword: str) -> bool:
        """Whether `function`, or a function of the module it calls, passes `keyword=` to some call with a value that
        is not the literal False or None (`create_graph=True`, `create_graph=flag`)."""
        self._index()
        for node in self._closure(function):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and any(
                        given.arg == keyword and not (isinstance(given.value, ast.Constant)
                                                      and given.value.value in (False, None))
                        for given in inner.keywords):
                    return True
        return False

    def updates_in_place(self, function: str) -> bool:
        """Whether `function`, or a function of the module it calls, changes a tensor's values in place: an
        augmented assignment (`p -= lr * p.grad`) or an in-place arithmetic method (`p.sub_(...)`, `p.copy_(...)`),
        on anything but a `.grad` (clearing a gradient, `p.grad.zero_()`, updates no parameter)."""
        self._index()
        return any(_updated_in_place(inner) is not None for node in self._closure(function) for inner in ast.walk(node))

    def clears_or_remakes_gradients(self) -> bool:
        """Whether the module clears a gradient anywhere (zero_(), zero_grad(), an assignment to .grad) or makes a
        leaf that requires grad inside a loop: what every pass of a loop throwing away the passes before it needs.
        A source that does not parse rules nothing out (True)."""
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return True
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "zero_", "zero_grad"):
                return True
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            if any(isinstance(target, ast.Attribute) and target.attr == "grad" for target in targets):
                return True
            if isinstance(node, (ast.For, ast.While)) and any(
                    (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                     and inner.func.attr == "requires_grad_")
                    or (isinstance(inner, ast.keyword) and inner.arg == "requires_grad")
                    for inner in ast.walk(node)):
                return True
        return False

    def clears_gradients_before_update(self, function: str) -> bool:
        """Whether `function`'s own body clears a parameter's gradient (`p.grad.zero_()`, `p.grad = None`, or every
        one with `zero_grad()`) on a line after a backward() call and before an in-place update of that parameter
        (or an optimiser's `.step()`, which updates every one):
        read in the order the lines are written, which is the order a loop body runs them. Lines in other functions
        are not ordered with these."""
        self._index()
        node = self._functions.get(function)
        backward: list[int] = []
        clears: list[tuple[int, str | None]] = []  # (line, whose gradient; None for all of them)
        updates: list[tuple[int, str | None]] = []
        for inner in ast.walk(node) if node is not None else ():
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "backward":
                backward.append(inner.lineno)
            elif (cleared := _cleared_gradient(inner)) is not None:
                clears.append((inner.lineno, self._path(cleared) if isinstance(cleared, ast.AST) else None))  # type: ignore[attr-defined]
            elif (updated := _updated_in_place(inner)) is not None:
                updates.append((inner.lineno, self._path(updated)))  # type: ignore[attr-defined]
            elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "step":
                updates.append((inner.lineno, None))  # an optimiser's step: an update of every parameter
        return any(b < c < u and (whose is None or target is None or whose == target) for b in backward
                   for c, whose in clears for u, target in updates)

    def bound_together(self, function: str) -> list[set[str]]:
        """The names `function`'s own body binds in one chained assignment (`w = b = torch.zeros(1)`): one object
        under each of them."""
        self._index()
        node = self._functions.get(function)
        return [{t.id for t in inner.targets} for inner in (ast.walk(node) if node is not None else ())
                if isinstance(inner, ast.Assign) and len(inner.targets) > 1
                and all(isinstance(t, ast.Name) for t in inner.targets)]

    def defaults(self, function: str) -> dict[str, str]:
        """The parameters of `function` whose default is a name or an attribute, with the dotted path it reads
        (`fn=f` gives {"fn": "f"}): a default is evaluated once, when the `def` runs."""
        self._index()
        node = self._functions.get(function)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return {}
        positional = node.args.posonlyargs + node.args.args
        pairs = list(zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults))
        pairs += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
        return {a.arg: self._path(d) for a, d in pairs if isinstance(d, (ast.Name, ast.Attribute)) and self._path(d)}

    def held_from_import(self, function: str, name: str) -> int:
        """The line where a module-level value or a default that `function` (or a function it calls) uses holds the
        module's `name` itself, taken when the module ran (`_d = functools.partial(derive, f)`, `g = f`, `{"f": f}`,
        `def derive(x, fn=f)`), or 0.
        Such a value keeps what `name` was then: replacing `name` in the module later does not reach it. A call of
        `name` there, or a lambda that names it, looks it up when it runs and is not such a value."""
        self._index()
        for node in self._closure(function):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                values = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                values = [node.value]
            else:
                continue
            stack: list[ast.AST] = list(values)
            while stack:
                inner = stack.pop()
                if isinstance(inner, ast.Name) and inner.id == name and isinstance(inner.ctx, ast.Load):
                    return inner.lineno
                if isinstance(inner, ast.Lambda):
                    continue
                if isinstance(inner, ast.Call):
                    stack += [*inner.args, *(k.value for k in inner.keywords)]
                    if not isinstance(inner.func, ast.Name):
                        stack.append(inner.func)
                else:
                    stack += list(ast.iter_child_nodes(inner))
        return 0

    def parameter(self, function: str, index: int) -> str | None:
        """The name of a function's parameter, by position (None when there is no such function or parameter)."""
        self._index()
        node = self._functions.get(function)
        arguments = node.args.posonlyargs + node.args.args if isinstance(node, (ast.FunctionDef,
                                                                                ast.AsyncFunctionDef)) else []
        return arguments[index].arg if index < len(arguments) else None

    # ------------------------------------------------------------ internals

    def definitions(self, function: str) -> list[ast.AST]:
        """The parsed code `function` runs: its definition and those of the module's functions, classes and
        module-level values it names, transitively (empty when the source does not parse or has no such name)."""
        self._index()
        return self._closure(function)

    def dotted(self, node: ast.AST) -> str:
        """A name or attribute chain of this module's code as a dotted path, imports resolved ("" for anything
        else): `np.random.default_rng` reads `numpy.random.default_rng` after `import numpy as np`."""
        self._index()
        return self._path(node)

    def _closure(self, function: str) -> list[ast.AST]:
        """The definition of `function` and of every function, class and module-level assignment of the module it
        names, transitively."""
        if function in self._closures:
            return self._closures[function]
        seen: dict[str, list[ast.AST]] = {}
        queue = [function]
        while queue:
            name = queue.pop()
            nodes = ([self._functions[name]] if name in self._functions else []) + self._assignments.get(name, [])
            if not nodes or name in seen:
                continue
            seen[name] = nodes
            queue += [inner.id for node in nodes for inner in ast.walk(node) if isinstance(inner, ast.Name)
                      and (inner.id in self._functions or inner.id in self._assignments)]
        self._closures[function] = [node for nodes in seen.values() for node in nodes]
        return self._closures[function]

    def _path(self, node: ast.AST) -> str:
        """A name or attribute chain as a dotted path, imports resolved ("" for anything else)."""
        if isinstance(node, ast.Name):
            return self._imports.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self._path(node.value) if isinstance(node.value, (ast.Name, ast.Attribute, ast.Call)) else "?"
            return f"{base or '?'}.{node.attr}"
        if _literal_getattr(node):  # getattr(torch.optim, "SGD") reads torch.optim.SGD
            base = self._path(node.args[0]) if isinstance(node.args[0], (ast.Name, ast.Attribute, ast.Call)) else "?"
            return f"{base or '?'}.{node.args[1].value}"
        return ""

    def _find_reaches(self, nodes: list[ast.AST]) -> list[Reach]:
        found: dict[int, Reach] = {}  # one reason per line is enough to show it
        modules = {path.split(".")[0] for path in self._imports.values()}
        calls = {id(node.func): node for node in nodes if isinstance(node, ast.Call)}

        def flag(node: ast.AST, why: str) -> None:
            line = getattr(node, "lineno", 0)
            code = self._lines[line - 1].strip() if 0 < line <= len(self._lines) else ""
            found.setdefault(line, Reach(line, code[:120], why))

        def flag_path(node: ast.AST, path: str) -> None:
            for reaching, why in _REACHING_PATHS.items():
                if path == reaching or path.startswith(reaching + "."):
                    flag(node, why)
            parts = path.split(".")
            if parts[0] in modules and any(part.startswith("_") and not _dunder(part) for part in parts[1:]):
                flag(node, f"reaches a private part of {parts[0]} ({path}), which the grader does not follow")

        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if isinstance(node, ast.ImportFrom) and node.level:
                    continue  # the student's own modules beside this one: read on their own
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                if isinstance(node, ast.ImportFrom):
                    names += [f"{node.module}.{a.name}" for a in node.names]
                for name in names:  # the most telling reason first: a line shows one
                    top = name.split(".")[0]
                    if name.split(".")[-1] in _REACHING_ATTRIBUTES:
                        flag(node, _REACHING_ATTRIBUTES[name.split(".")[-1]])
                    if top not in FOLLOWED_MODULES and top not in self.own_modules:
                        flag(node, _NOT_FOLLOWED_WHY.get(top, f"imports {top}, whose code the grader does not follow"))
                    flag_path(node, name)
            elif isinstance(node, ast.Attribute):
                if node.attr in _REACHING_ATTRIBUTES:
                    flag(node, _REACHING_ATTRIBUTES[node.attr])
                elif _dunder(node.attr) and node.attr not in _FOLLOWED_DUNDERS:
                    flag(node, f"uses {node.attr}, Python's insides, where names are looked up by computed strings")
                path = self._path(node)
                flag_path(node, path)
                if isinstance(node.ctx, (ast.Store, ast.Del)) and path.split(".")[0] in modules:
                    flag(node, f"rebinds {path}, a name of a module the grader's checks rely on")
            elif isinstance(node, ast.Name):
                if node.id in _REACHING_ATTRIBUTES:
                    flag(node, _REACHING_ATTRIBUTES[node.id])
                elif node.id in _UNFOLLOWED_BUILTINS and node.id not in self._bound:
                    flag(node, _UNFOLLOWED_BUILTINS[node.id])
                elif node.id in ("getattr", "type") and node.id not in self._bound and not self._called_plainly(node, calls):
                    flag(node, f"uses {node.id} with a name the code does not write out, or as an alias: the "
                              "grader cannot follow it")
            elif isinstance(node, ast.Call) and _literal_getattr(node):
                name = node.args[1].value
                if name in _REACHING_ATTRIBUTES:
                    flag(node, _REACHING_ATTRIBUTES[name])
                elif _dunder(name) and name not in _FOLLOWED_DUNDERS:
                    flag(node, f"uses {name}, Python's insides, where names are looked up by computed strings")
                flag_path(node, self._path(node))
            elif isinstance(node, ast.keyword) and node.arg == "num_workers" and not (
                    isinstance(node.value, ast.Constant) and node.value.value in (0, None)):
                flag(node, "loads data in worker processes the trace does not follow")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if text in _REACHING_ATTRIBUTES or any(text == n or text.startswith(n + ".") for n in _OUR_NAMES):
                    flag(node, f"names {text!r}, which the code may use to reach the grader's internals")
        return sorted(found.values(), key=lambda r: (r.line, r.why))

    @staticmethod
    def _called_plainly(node: ast.Name, calls: dict[int, ast.Call]) -> bool:
        """Whether this mention of `getattr` or `type` is a call the reader follows: `getattr(x, "name")` with the
        name written out, `type(x)` of one value (three arguments build a class from computed parts)."""
        call = calls.get(id(node))
        if call is None:
            return False  # an alias, or the function handed on: whatever calls it, the reader cannot say
        return _literal_getattr(call) if node.id == "getattr" else len(call.args) == 1 and not call.keywords


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


def _literal_getattr(node: ast.AST) -> bool:
    """`getattr(value, "name")` or `getattr(value, "name", default)`, the name written out."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and 2 <= len(node.args) <= 3 and not node.keywords and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str))


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's statements outside any function or class, with those inside its if, try, with and for blocks."""
    found = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
            for block in ("body", "orelse", "finalbody"):
                found += _module_level(getattr(statement, block, []))
            for handler in getattr(statement, "handlers", []):
                found += _module_level(handler.body)
    return found


def _assigned_names(statement: ast.stmt) -> list[str]:
    """The names an assignment statement binds (`a = b = ...`, `a, b = ...`, `a: T = ...`, `a += ...`)."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)) and statement.value is not None:
        targets = [statement.target]
    else:
        return []
    return [node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)]


# What the source must (or must not) show for the checks of how, as patterns of `SourceEvidence.lines`.
AUTOGRAD_IN_CODE = ("backward", "autograd.grad", "func.grad", "func.grad_and_value", "func.vjp", "func.jvp",
                    "func.jacrev", "func.jacfwd", "func.hessian", "func.linearize", "functional.jacobian",
                    "functional.hessian", "functional.vjp", "functional.jvp", "functional.vhp", "functional.hvp",
                    "forward_ad", "autograd.Function")
BACKWARD_IN_CODE = ("backward", "autograd.grad")
# torch's own stream seeded: not a generator of the student's own (`torch.Generator().manual_seed(seed)`), which
# seeds only what is drawn with that generator.
GLOBAL_SEED = ("torch.manual_seed", "torch.random.manual_seed")
