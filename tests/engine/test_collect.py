"""A room's catalogue of named mistakes (graders/engine/collect.py): every Mistake its mistakes module defines,
alone or inside a dict, list or tuple, in the order written, each once, and nothing else."""

from __future__ import annotations

import types

from graders.engine.collect import collect_mistakes
from graders.engine.mistakes import Mistake


def _mistake(name: str) -> Mistake:
    return Mistake(name, f"what {name} does", f"the hint of {name}", "section 1")


def test_mistakes_are_collected_in_the_order_written_each_once_from_any_container() -> None:
    first, second, third, fourth = (_mistake(n) for n in ("first", "second", "third", "fourth"))
    module = types.ModuleType("mistakes")
    module.FIRST = first
    module.BY_NAME = {"second": second, "again": first}
    module.LISTED = [third, "not a mistake", 3]
    module.PAIR = (fourth, second)
    module.HELPER = len
    assert collect_mistakes(module) == [first, second, third, fourth]


def test_a_module_without_mistakes_has_an_empty_catalogue() -> None:
    module = types.ModuleType("mistakes")
    module.NOTHING = {"a": 1}
    assert collect_mistakes(module) == []
