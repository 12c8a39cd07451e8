"""The worker: the only process that imports a submission and runs its functions.

It is forked from the zygote (torch is already imported, so a worker starts in
milliseconds), confines itself for good (confinement.py) and says how, imports the
student's module, then answers requests until the grader closes the socket. Every answer is plain data (`wire`).
Nothing here decides a score: a worker that lies, crashes or hangs costs only the
checks whose answers it was asked for.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import os
import re
import socket
import struct
import sys
import time
import traceback
import types
from pathlib import Path
from typing import Any, NoReturn

import torch

from graders.sandbox import confinement, wire
from graders.sandbox.baseline import Baseline
from graders.sandbox.budget import Budget
from graders.sandbox.cgroups import NoCgroups, NoCgroupsReason
from graders.sandbox.outcome import Fact, Kind, Status
from graders.sandbox.tracing import Recorder

PRINTING_STEP = 2**20  # a call says how much it has printed each time it prints this many more characters
_EXIT_INTERNAL_ERROR = 70
EXIT_UNCONFINED = 71  # required to be confined, and it could not be
# A driver module: graders.<lesson>.<slug>.drivers (nbchecks.<lesson>.<slug>.drivers in a student bundle).
_DRIVERS = re.compile(rf"{__name__.split('.')[0]}\.lesson\d+\.\w+\.drivers")


def run(sock: socket.socket, request: dict[str, Any],
        groups: object = NoCgroups(NoCgroupsReason.NOT_LOOKED_FOR)) -> NoReturn:
    """The whole life of a forked worker; it never returns into the zygote's code.

    `request` says how to confine (process.Worker writes it); `groups` is where the zygote may
    make this worker's cgroup (cgroups.Groups), or why it may not (cgroups.NoCgroups). The worker then loads one of
    the submission's exercise modules after another, as the grader asks (shared.py)."""
    try:
        code = Path(request["code_folder"])
        # A child forked after a parallel torch op deadlocks in its next one (the OpenMP
        # pool is gone); one thread avoids the pool altogether, whatever the student asks.
        torch.set_num_threads(1)
        torch.set_num_threads = _keep_one_thread
        torch.set_num_interop_threads = _keep_one_thread
        budget = budget_of(request)
        held = confinement.enter(sock, confinement.WorkerFolder(Path(request["folder"])), code, budget,
                                 without=frozenset(request.get("without", [])), groups=groups,
                                 number=int(request["number"]))
        _send(sock, {"status": str(Status.CONFINED), "confinement": held.to_wire()})
        if request.get("require_confinement") and not held.confined:
            os._exit(EXIT_UNCONFINED)  # before any student code runs
        output = _CappedOutput(budget.output_kb * 1024)
        sys.stdout = sys.stderr = output
        loaded = _Loaded(str(code), Baseline.take(), output)
        _send(sock, {"ready": True, "public": []})
        _serve(sock, loaded)
    except BaseException:  # noqa: BLE001 - the worker must end here, whatever happened
        os._exit(_EXIT_INTERNAL_ERROR)
    os._exit(0)


def budget_of(request: dict[str, Any]) -> Budget:
    """The budget the grader sent whole in the spawn request (process.spawn_request)."""
    return Budget.from_wire(request["budget"])


class _Loaded:
    """The student modules this worker holds: the one loaded last, and what it was loaded over."""

    def __init__(self, code: str, baseline: Baseline, output: "_CappedOutput") -> None:
        self.code = code
        self.baseline = baseline
        self.output = output
        self.modules: dict[str, tuple[types.ModuleType, str]] = {}  # name -> (module, its file)

    def load(self, path: Path, name: str) -> dict:
        """Import one more module, on the baseline: whatever the earlier ones changed is undone."""
        self.modules.clear()
        lost = self.baseline.lost()
        if lost is not None:  # the grader loads this module in a fresh worker instead
            return {"status": str(Status.BROKEN), "fact": Fact(lost).to_wire()}
        self.baseline.restore(self.code)
        module, reply = import_student(path, name, self.output)
        if module is not None:
            self.modules[name] = (module, str(path))
        return reply

    def find(self, name: str | None) -> tuple[types.ModuleType, str] | None:
        if name is None and len(self.modules) == 1:
            return next(iter(self.modules.values()))
        return self.modules.get(name or "")


def _keep_one_thread(count: int) -> None:
    """Stands in for torch.set_num_threads in a worker: threads change speed, not results."""


class _CappedOutput(io.TextIOBase):
    """sys.stdout and sys.stderr of the worker: keeps the first bytes of each call's output."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.on_printed: Any = None  # called with the characters written so far, every PRINTING_STEP of them
        self.reset()

    def reset(self) -> None:
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0
        self.told = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        written = self.kept + self.dropped
        if self.on_printed is not None and written - self.told >= PRINTING_STEP:
            # The grader hears it even if the call then runs out of time: a timeout's message names the cost.
            self.told = written
            self.on_printed(written)
        return len(text)

    def take(self) -> dict[str, Any]:
        taken = {"output": "".join(self.parts), "output_dropped": self.dropped}
        self.reset()
        return taken


class OwnModules(importlib.abc.MetaPathFinder):
    """Finds a student's own modules: `<name>.py` directly in the folder of their exercise files, nothing else.

    That is what every grading path hands in (docs/students.md, "Your own modules"): the batch and Gradescope read
    the .py files of a student's lesson folder, never a subfolder or any other file. Putting the folder on
    sys.path instead would let a local run import a package in a subfolder that the batch never reads."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if path is not None or "." in name:
            return None
        candidate = self.folder / f"{name}.py"
        return importlib.util.spec_from_file_location(name, candidate) if candidate.is_file() else None

    def __repr__(self) -> str:
        return f"OwnModules({str(self.folder)!r})"


def own_modules(folder: Path) -> OwnModules:
    """The finder of the student's own modules in `folder`, first on sys.meta_path (as a folder first on sys.path
    would be); the one of an earlier exercise's folder is replaced."""
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, OwnModules)]
    finder = OwnModules(folder)
    sys.meta_path.insert(0, finder)
    return finder


def import_student(path: Path, name: str, output: _CappedOutput) -> tuple[types.ModuleType | None, dict]:
    own_modules(path.parent)  # so that a submission may import its own modules beside it
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        code = compile(path.read_bytes(), str(path), "exec")
        exec(code, module.__dict__)
    except BaseException as error:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
        return None, {"ready": False, "error": _describe(error, str(path)), **output.take()}
    return module, {"ready": True, "public": _public_names(module), **output.take()}


def _public_names(module: types.ModuleType) -> list[str]:
    return sorted(n for n, v in vars(module).items() if not n.startswith("_") and callable(v))


def _serve(sock: socket.socket, loaded: _Loaded) -> None:
    while True:
        received = _receive(sock)
        if received is None:
            return
        request_id, message = received
        request = wire.unpack(message)
        request["id"] = request_id  # the grader's number for it, in the frame (process.Worker.send)
        if request.get("op") == "load":
            started = time.perf_counter()
            reply = loaded.load(Path(request["module_path"]), str(request["module_name"]))
            reply["seconds"] = time.perf_counter() - started  # a load sent ahead is judged by it (shared.Lease)
        else:
            found = loaded.find(request.get("module"))
            loaded.output.on_printed = lambda written: _send(sock, {"status": str(Status.PRINTING), "written": written,
                                                              "id": request.get("id")})
            try:
                reply = (answer(request, found[0], found[1], loaded.output) if found is not None
                         else {"status": str(Status.BROKEN),
                               "fact": Fact(Kind.MODULE_NOT_LOADED, names=(str(request.get("module"))[:60],)).to_wire()})
            finally:
                loaded.output.on_printed = None
        reply["id"] = request.get("id")  # echoed, so a stale or forged reply is recognised
        _send(sock, reply)


def answer(request: dict, module: types.ModuleType, student_file: str, output: _CappedOutput) -> dict:
    args, kwargs = request.get("args", []), request.get("kwargs", {})
    if request["op"] == "call":
        target = getattr(module, request["function"], None)
        if not callable(target):
            return {"status": str(Status.MISSING), "function": request["function"], "public": _public_names(module)}
        call = lambda: target(*args, **kwargs)  # noqa: E731
    else:
        driver = _resolve(request["driver"])
        call = lambda: driver(module, *args, **kwargs)  # noqa: E731
    recorder = Recorder(student_file) if request.get("trace") else None
    output.reset()
    started = time.perf_counter()
    try:
        if recorder is not None:
            with recorder:
                value = call()
        else:
            value = call()
    except BaseException as error:  # noqa: BLE001 - a student's sys.exit is an answer too
        reply = {"status": str(Status.RAISED), "error": _describe(error, student_file)}
    else:
        reply = {"status": str(Status.RETURNED), "value": value}
        if request.get("return_args"):
            reply["args"] = list(args)
    reply["seconds"] = time.perf_counter() - started
    reply["trace"] = recorder.events() if recorder is not None else []
    reply.update(output.take())
    return reply


def _resolve(name: str) -> Any:
    """A driver, by "module:function": only from a room's drivers module, which the zygote loaded (a
    checks module would bring hidden data, and a confined worker could not read it anyway)."""
    module_name, _, attribute = name.partition(":")
    if not _DRIVERS.fullmatch(module_name):
        raise ImportError(f"{module_name} is not a driver module")
    return getattr(importlib.import_module(module_name), attribute)


def _describe(error: BaseException, student_file: str) -> dict:
    """An exception as data: its type, message and the student's own frames (their exercise file's, and those of
    their own modules beside it)."""
    own_folder = os.path.dirname(student_file)
    frames = [
        [Path(f.filename).name, f.lineno or 0, f.name, (f.line or "").strip()]
        for f in traceback.extract_tb(error.__traceback__)
        if f.filename == student_file or (f.filename.endswith(".py") and os.path.dirname(f.filename) == own_folder)
    ]
    if isinstance(error, SyntaxError) and error.filename == student_file:
        frames.append([Path(student_file).name, error.lineno or 0, "<module>", (error.text or "").strip()])
    last = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
    raised_in_student = bool(last) and last[0].filename == student_file
    if isinstance(error, SystemExit):
        message = f"sys.exit({error.code!r})"
    elif isinstance(error, SyntaxError):
        message = error.msg or "invalid syntax"
    else:
        message = _safe_str(error)
    return {
        "type": type(error).__name__,
        "message": message,
        "frames": frames[-6:],
        "not_implemented": isinstance(error, NotImplementedError) and raised_in_student,
        "mro": exception_lineage(error),
    }


def exception_lineage(error: BaseException) -> list[str]:
    """The qualified names of the exception's class and its bases, in method resolution order ("builtins.ValueError"):
    plain strings from which the grader judges whether an `except ValueError` would catch it. A class that hides
    them gives none, and is judged by its name alone."""
    try:
        names = [f"{cls.__module__}.{cls.__qualname__}" for cls in type(error).__mro__ if cls is not object]
    except BaseException:  # noqa: BLE001 - a student's class may make these attributes raise
        return []
    return [name[:200] for name in names[:20]]


def _safe_str(error: BaseException) -> str:
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001
        text = "<the exception's message could not be read>"
    return text if len(text) <= 2000 else text[:1997] + "..."


def _send(sock: socket.socket, reply: dict) -> None:
    try:
        data = wire.pack(reply)
    except BaseException as error:  # noqa: BLE001 - e.g. a returned object whose methods raise
        data = wire.pack({"status": str(Status.UNREADABLE),
                          "fact": Fact(Kind.UNSENDABLE, text=f"{type(error).__name__}: {_safe_str(error)}").to_wire(),
                          "output": "", "output_dropped": 0, "id": reply.get("id"), "seconds": reply.get("seconds", 0.0)})
    sock.sendall(struct.pack("!Q", len(data)) + data)


def _receive(sock: socket.socket) -> tuple[int, bytes] | None:
    """The next request: its number and its packed body."""
    header = _exactly(sock, 16)
    if header is None:
        return None
    length, request_id = struct.unpack("!QQ", header)
    body = _exactly(sock, length)
    return None if body is None else (request_id, body)


def _exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks, remaining = [], size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
