"""One budget path: course_config.LIMITS -> one `Budget` -> the worker, sent whole. Every limit arrives, under its
own name, and a new limit needs only its field in LIMITS, its field in Budget and the code that applies it."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

import course_config
from course_config import Limits, Setting
from graders.engine.run_settings import course_budget
from graders.sandbox import Budget, Settings
from graders.sandbox.process import spawn_request
from graders.sandbox.worker import budget_of

LIMIT_NAMES = [field.name for field in dataclasses.fields(course_config.LIMITS)]


def _as_the_worker_reads_it(budget: Budget) -> Budget:
    """The budget as the worker reads it from its spawn request, once through JSON as the zygote passes it on."""
    request = spawn_request(Path("code"), Path("folder"), budget, Settings(), ())
    return budget_of(json.loads(json.dumps(request)))


def test_every_field_of_limits_is_a_field_of_the_budget_and_nothing_else_is() -> None:
    assert sorted(field.name for field in dataclasses.fields(Budget)) == sorted(LIMIT_NAMES)


@pytest.mark.parametrize("name", LIMIT_NAMES)
def test_every_limit_reaches_the_workers_budget_with_the_courses_value(name: str) -> None:
    arrived = _as_the_worker_reads_it(course_budget())
    value = getattr(course_config.LIMITS, name).value
    assert getattr(arrived, name) == value and type(getattr(arrived, name)) is type(
        getattr(course_budget(), name)), f"LIMITS.{name} = {value!r} arrived as {getattr(arrived, name)!r}"


def test_a_changed_limit_arrives_changed() -> None:
    changed = dataclasses.replace(course_budget(), memory_mb=123, worker_user="someone", cpus=0.5)
    assert _as_the_worker_reads_it(changed) == changed


@dataclass(frozen=True)
class _LimitsWithOneMore(Limits):
    made_up_mb: Setting = Setting(7, "a limit that does not exist, for this test")


@dataclass(frozen=True)
class _BudgetWithOneMore(Budget):
    made_up_mb: int = 0


def test_a_made_up_limit_needs_only_its_field_in_limits_and_in_the_budget() -> None:
    limits = _LimitsWithOneMore(**{name: getattr(course_config.LIMITS, name) for name in LIMIT_NAMES})
    budget = course_budget(limits, _BudgetWithOneMore)
    assert isinstance(budget, _BudgetWithOneMore) and budget.made_up_mb == 7
    request = spawn_request(Path("code"), Path("folder"), budget, Settings(), ())
    assert _BudgetWithOneMore.from_wire(json.loads(json.dumps(request))["budget"]) == budget


def test_a_limit_the_budget_has_no_field_for_is_refused_by_name() -> None:
    limits = _LimitsWithOneMore(**{name: getattr(course_config.LIMITS, name) for name in LIMIT_NAMES})
    with pytest.raises(ValueError, match=r"no field for the limit\(s\) made_up_mb: add one to graders/sandbox/budget"):
        course_budget(limits)


def test_a_limit_of_the_wrong_kind_is_refused() -> None:
    with pytest.raises(ValueError):
        Budget.from_values({**course_budget().to_wire(), "memory_mb": "a lot"})
