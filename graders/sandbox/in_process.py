"""`--in-process`: run the submission inside pytest, for debugging with breakpoints.

It answers exactly as a worker does (values still go through `wire`, so the checks see
the same plain data), but with no sandbox: no time limit, no memory limit, and student
code shares the grader's process. For finding a bug, never for grading.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from graders.sandbox import wire, worker
from graders.sandbox.confinement import Confinement
from graders.sandbox.outcome import Fact, Kind, Outcome, Status, outcome_from_reply


class _PrintThrough:
    """Leaves print() alone, so a student sees their output while debugging."""

    def reset(self) -> None:
        pass

    def take(self) -> dict[str, Any]:
        return {"output": "", "output_dropped": 0}


class InProcess:
    """The student's module imported into the grader's own process: a backend as a worker's lease is
    (engine/student.py's Backend), with no process of its own to start ahead, to replay or to confine."""

    shares_the_graders_process = True  # so nothing of the grader's runs on a thread beside it (engine/student.py)
    replay_seconds = 0.0  # nothing is ever asked again
    confinement: Confinement | None = None  # no worker, so no report of one

    def __init__(self, module_path: Path) -> None:
        self.module_path = module_path
        self.module: Any = None
        self.alive = False

    def spawn(self) -> None:
        """Nothing to start ahead: the import happens at `start`, in this process."""

    def start(self) -> Outcome:
        name = f"student_{self.module_path.stem}"
        self.module, reply = worker.import_student(self.module_path, name, _PrintThrough())  # type: ignore[arg-type]
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, worker.OwnModules)]  # the grader's imports
        self.alive = self.module is not None
        return outcome_from_reply(wire.unpack(wire.pack(reply)))

    def request(self, message: dict, seconds: float | None = None) -> Outcome:
        request = wire.unpack(wire.pack(message))  # fresh copies, as a worker would get
        reply = worker.answer(request, self.module, str(self.module_path), _PrintThrough())  # type: ignore[arg-type]
        try:
            packed = wire.pack(reply)
        except Exception as error:  # noqa: BLE001 - the same fallback the worker uses
            packed = wire.pack({"status": str(Status.UNREADABLE),
                                "fact": Fact(Kind.UNSENDABLE, text=f"{type(error).__name__}: {error}").to_wire()})
        return outcome_from_reply(wire.unpack(packed))

    def probe(self, messages: list[dict], seconds: float) -> None:
        """No request for an explanation alone: in the grader's own process it could not be kept from the checks."""
        return None

    def stop(self) -> None:
        sys.modules.pop(f"student_{self.module_path.stem}", None)
        self.alive = False
