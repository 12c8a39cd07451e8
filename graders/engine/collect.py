"""A room's catalogue of named mistakes, collected from its mistakes module rather than listed by hand."""

from __future__ import annotations

from types import ModuleType

from graders.engine.mistakes import Mistake


def collect_mistakes(module: ModuleType) -> list[Mistake]:
    """The named mistakes a room's mistakes module defines, in the order written (alone, or in a dict, list or
    tuple of them), each once: the exercise's catalogue. Order matters: the first that matches an error names it."""
    found: list[Mistake] = []
    for value in vars(module).values():
        members = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
        found += [m for m in members if isinstance(m, Mistake) and m not in found]
    return found
