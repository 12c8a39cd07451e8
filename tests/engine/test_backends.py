"""Every backend a `Student` may hold implements the whole `Backend` protocol: nothing asks a backend what it is."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from graders.engine import student
from graders.engine.student import Backend
from graders.sandbox import Budget, InProcess, Settings, SubmissionWorker

MEMBERS = sorted({*Backend.__annotations__, *(name for name, _ in inspect.getmembers(Backend)
                                               if not name.startswith("_"))})


def _backends(folder: Path) -> dict[str, object]:
    module = folder / "views.py"
    module.write_text("")
    shared = SubmissionWorker(folder, Budget(call_seconds=1, import_seconds=1, memory_mb=64, output_kb=1,
                                             message_mb=1), Settings())
    return {"lease": shared.lease(module), "in-process": InProcess(module)}  # neither starts anything yet


def test_the_protocol_names_what_a_student_uses() -> None:
    assert MEMBERS == ["alive", "confinement", "probe", "replay_seconds", "request", "shares_the_graders_process", "spawn",
                       "start", "stop"]


@pytest.mark.parametrize("kind", ["lease", "in-process"])
def test_every_backend_has_every_member_of_the_protocol(tmp_path: Path, kind: str) -> None:
    backend = _backends(tmp_path)[kind]
    missing = [name for name in MEMBERS if not hasattr(backend, name)]
    assert not missing, f"the {kind} backend lacks {missing}"
    for name in MEMBERS:
        if callable(getattr(Backend, name, None)) and not isinstance(getattr(type(backend), name, None), property):
            expected = list(inspect.signature(getattr(Backend, name)).parameters)[1:]
            got = list(inspect.signature(getattr(backend, name)).parameters)
            assert got[:len(expected)] == expected, f"{kind}.{name}{got} is not Backend.{name}{expected}"


def test_the_student_probes_no_backend() -> None:
    tree = ast.parse(Path(student.__file__).read_text())
    probes = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")]
    assert not probes, f"engine/student.py asks with getattr/hasattr on lines {probes}"
