"""The budget: every limit of course_config.LIMITS as one value, sent whole to each worker.

The engine builds it from LIMITS field by field (graders/engine/run_settings.py), the grader's side
of a worker sends it in the spawn request as it is (process.py), and the worker reads it back
(worker.py); each field is then applied in one place. A new limit is a field of LIMITS, a field
here, and the code that applies it: nothing copies it on the way.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Mapping

# The types a limit may have, by the name its annotation gives (annotations are strings here).
_KINDS: dict[str, type] = {"float": float, "int": int, "str": str}


@dataclass(frozen=True)
class Budget:
    """What student code may use: each field is the LIMITS setting of the same name."""

    call_seconds: float  # one call of a student function (process.py)
    import_seconds: float  # one import of a student module (process.py)
    memory_mb: int  # memory beyond torch's own (confinement.py, cgroups.py)
    output_kb: int  # printed output kept from one call (worker.py)
    message_mb: int  # the largest answer read back (process.py)
    tasks: int = 64  # threads and processes at once (cgroups.py)
    cpus: float = 1.0  # cores at most (cgroups.py)
    scratch_mb: int = 64  # the size of its scratch tmpfs (namespace_view.py)
    worker_user: str = "nobody"  # the account a root grader's workers become (confinement.py)
    worker_uids: int = 200_000  # the first of the user ids of workers no cgroup caps (confinement.py)
    # Applied by the engine, not the worker (an allowance of time, a message's length): sent all the same, whole.
    exercise_seconds: float = math.inf  # all the calls of one exercise (engine/allowance.py)
    submission_seconds: float = math.inf  # all the calls of one submission (engine/allowance.py)
    shown_chars: int = 300  # the longest value a feedback message shows (engine/feedback.py)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> "Budget":
        """A budget from a value per field name (each made the field's type); a name it has no field for, or a field
        with no value and no default, is an error that names it."""
        fields = {field.name: field for field in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise ValueError(f"{cls.__name__} has no field for the limit(s) {', '.join(unknown)}: add one to "
                             f"graders/sandbox/budget.py")
        return cls(**{name: _as(fields[name], value) for name, value in values.items()})

    def to_wire(self) -> dict[str, Any]:
        """Plain data for the spawn request."""
        return dataclasses.asdict(self)

    @classmethod
    def from_wire(cls, data: Any) -> "Budget":
        if not isinstance(data, dict):
            raise ValueError("a budget on the wire is a dict of its fields")
        return cls.from_values(data)


def _as(field: dataclasses.Field, value: Any) -> Any:
    kind = _KINDS.get(field.type if isinstance(field.type, str) else getattr(field.type, "__name__", ""))
    if kind is None:
        raise TypeError(f"Budget.{field.name}: a limit is a float, an int or a str, not {field.type}")
    return kind(value)
