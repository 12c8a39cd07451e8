"""The worker: the only process that imports a submission and runs its functions.

It is forked from the grader (torch is already imported, so a worker starts in
milliseconds), puts itself under limits, imports the student's module, then answers
requests until the grader closes the socket. Every answer is plain data (`wire`).
Nothing here decides a score: a worker that lies, crashes or hangs costs only the
checks whose answers it was asked for.
"""

from __future__ import annotations

import ctypes
import importlib
import io
import os
import resource
import signal
import socket
import struct
import sys
import time
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NoReturn

import torch

from graders import wire
from graders.landlock import restrict_writes
from graders.memory_guard import drop_ptrace_capability
from graders.syscall_filter import confine
from graders.tracing import Recorder

_EXIT_INTERNAL_ERROR = 70


@dataclass(frozen=True)
class WorkerLimits:
    memory_mb: int
    output_kb: int


def run(sock: socket.socket, module_path: Path, module_name: str, scratch: Path, limits: WorkerLimits,
        warm_up: Callable[[], object] | None = None) -> NoReturn:
    """The whole life of a forked worker; it never returns into the grader's code."""
    try:
        _enter_sandbox(sock, scratch, limits)
        if warm_up is not None:
            _warm(warm_up)
        output = _CappedOutput(limits.output_kb * 1024)
        sys.stdout = sys.stderr = output
        module, reply = import_student(module_path, module_name, output)
        _send(sock, reply)
        if module is not None:
            _serve(sock, module, str(module_path), output)
    except BaseException:  # noqa: BLE001 - the worker must end here, whatever happened
        os._exit(_EXIT_INTERNAL_ERROR)
    os._exit(0)


def _enter_sandbox(sock: socket.socket, scratch: Path, limits: WorkerLimits) -> None:
    os.setsid()  # own process group: the grader kills the worker and anything it started at once
    _die_with_parent()
    # A child forked after a parallel torch op deadlocks in its next one (the OpenMP
    # pool is gone); one thread avoids the pool altogether.
    torch.set_num_threads(1)
    # A student's torch.set_num_threads(2) would bring that deadlock back: keep one thread.
    torch.set_num_threads = _keep_one_thread
    torch.set_num_interop_threads = _keep_one_thread
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write fails instead of killing
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    log = os.open(scratch / "output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    keep = sorted({0, 1, 2, sock.fileno()})
    for low, high in zip(keep, keep[1:] + [_max_fd()]):
        os.closerange(low + 1, high)
    os.chdir(scratch)
    _set_limit(resource.RLIMIT_CORE, 0)
    _set_limit(resource.RLIMIT_FSIZE, max(16 * 2**20, 16 * limits.output_kb * 1024))
    mapped = _mapped_bytes()
    if mapped:
        _set_limit(resource.RLIMIT_AS, mapped + limits.memory_mb * 2**20)
    restrict_writes([scratch], [Path(os.devnull)])  # the repo, the reference, other students: read-only
    drop_ptrace_capability()  # with the grader not dumpable, its /proc/<pid>/mem is out of reach
    confine(os.getpid())  # last: no new processes, no signals to the grader


def _warm(warm_up: Callable[[], object]) -> None:
    """A checks module's one-time loading (e.g. torch.func's decompositions), done before the
    student's module is imported, so it counts against no call's time limit."""
    try:
        warm_up()
    except Exception:  # noqa: BLE001 - a failed warm-up only means the first call pays
        pass


def _keep_one_thread(count: int) -> None:
    """Stands in for torch.set_num_threads in a worker: threads change speed, not results."""


def _set_limit(kind: int, value: int) -> None:
    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def _mapped_bytes() -> int:
    """Address space torch and Python already map; the memory limit comes on top of it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 4096


def _die_with_parent() -> None:
    # Linux only: if the grader is killed, a worker stuck in a student's loop goes too.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class _CappedOutput(io.TextIOBase):
    """sys.stdout and sys.stderr of the worker: keeps the first bytes of each call's output."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.reset()

    def reset(self) -> None:
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def take(self) -> dict[str, Any]:
        taken = {"output": "".join(self.parts), "output_dropped": self.dropped}
        self.reset()
        return taken


def import_student(path: Path, name: str, output: _CappedOutput) -> tuple[types.ModuleType | None, dict]:
    sys.path.insert(0, str(path.parent))  # so that a submission may import its own helper files
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


def _serve(sock: socket.socket, module: types.ModuleType, student_file: str, output: _CappedOutput) -> None:
    while True:
        message = _receive(sock)
        if message is None:
            return
        request = wire.unpack(message)
        reply = answer(request, module, student_file, output)
        reply["id"] = request.get("id")  # echoed, so a stale or forged reply is recognised
        _send(sock, reply)


def answer(request: dict, module: types.ModuleType, student_file: str, output: _CappedOutput) -> dict:
    args, kwargs = request.get("args", []), request.get("kwargs", {})
    if request["op"] == "call":
        target = getattr(module, request["function"], None)
        if not callable(target):
            return {"status": "missing", "function": request["function"], "public": _public_names(module)}
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
        reply = {"status": "raised", "error": _describe(error, student_file)}
    else:
        reply = {"status": "returned", "value": value}
        if request.get("return_args"):
            reply["args"] = list(args)
    reply["seconds"] = time.perf_counter() - started
    reply["trace"] = recorder.events() if recorder is not None else []
    reply.update(output.take())
    return reply


def _resolve(name: str) -> Any:
    module_name, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def _describe(error: BaseException, student_file: str) -> dict:
    """An exception as data: its type, message and the student's own frames."""
    frames = [
        [Path(f.filename).name, f.lineno or 0, f.name, (f.line or "").strip()]
        for f in traceback.extract_tb(error.__traceback__)
        if f.filename == student_file
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
    }


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
        data = wire.pack({"status": "unreadable", "detail": f"{type(error).__name__}: {_safe_str(error)}",
                          "output": "", "output_dropped": 0, "id": reply.get("id")})
    sock.sendall(struct.pack("!Q", len(data)) + data)


def _receive(sock: socket.socket) -> bytes | None:
    header = _exactly(sock, 8)
    if header is None:
        return None
    (length,) = struct.unpack("!Q", header)
    return _exactly(sock, length)


def _exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks, remaining = [], size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
