"""What this run was asked for: the options of graders/engine/options.py and course_config.py, read once.

The budget is built here from course_config.LIMITS, field by field and by name, so a new limit
needs no line here: it is a field of LIMITS and of `sandbox.Budget`, and the code that applies it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import course_config
from graders.engine.results import SHOW_CHOICES
from graders.sandbox import STEPS, Budget, Confinement, Settings, plan

MISSING_FOLDER = "--submission {value}: no folder {path}; give the folder that holds {lesson}/<exercise>.py"


def setting(config: pytest.Config, name: str) -> Any:
    """Command line first, then the ini file."""
    value = config.getoption(name)
    return value if value is not None else config.getini(name) or None


def course_budget(limits: Any = None, budget: type[Budget] = Budget) -> Budget:
    """The budget of `limits` (course_config.LIMITS): each of its fields under its own name, whatever they are."""
    limits = course_config.LIMITS if limits is None else limits
    return budget.from_values({field.name: getattr(limits, field.name).value for field in dataclasses.fields(limits)})


def names_exercises(config: pytest.Config) -> bool:
    """Whether this run's paths hold exercises (else it runs the project's own tests)."""
    start = Path(config.invocation_params.dir)
    for arg in config.args:
        path = (start / arg.split("::")[0]).resolve()
        if "exercises" in path.parts or (path / "exercises").is_dir() or path.parent.name == "exercises":
            return True
    return False


@dataclass(frozen=True)
class RunSettings:
    """The settings of one grading run, as the command line, the ini file and course_config.py give them."""

    in_process: bool  # the submission runs inside pytest (--in-process): for debugging, never a grade
    answer_cells: bool  # graded from a notebook's answer cells
    budget: Budget  # course_config.LIMITS, with --call-timeout, --exercise-seconds, --submission-seconds over it
    sandbox: Settings
    plan: Confinement  # what the sandbox expects to hold, before any worker says
    submission: Path | None  # --submission DIR, else the exercises/ folders
    hidden_show: str  # course_config.HIDDEN_CHECKS_SHOW
    plots: Path  # where failing checks draw their plots
    json: Path | None  # --json PATH
    grades: bool  # this run's paths hold exercises

    @classmethod
    def read(cls, config: pytest.Config) -> "RunSettings":
        here = Path(config.invocation_params.dir)
        without = _steps_left_out(config)
        hidden_show = str(course_config.HIDDEN_CHECKS_SHOW.value)
        if hidden_show not in SHOW_CHOICES:
            raise pytest.UsageError(f"course_config.HIDDEN_CHECKS_SHOW is {hidden_show!r}; it must be one of "
                                    f"{', '.join(SHOW_CHOICES)}")
        json_path = setting(config, "graders_json")
        return cls(in_process=bool(setting(config, "graders_in_process")),
                   answer_cells=bool(config.getoption("graders_answer_cells", False)),
                   budget=_budget(config), sandbox=Settings(without=without, require_confinement=bool(
                       setting(config, "graders_require_confinement"))),
                   plan=plan(without), submission=_submission_folder(config), hidden_show=hidden_show,
                   plots=here / Path(setting(config, "graders_plots") or "plots").expanduser(),
                   json=_beside(here, json_path) if json_path else None, grades=names_exercises(config))


def _beside(here: Path, value: str) -> Path:
    target = Path(value).expanduser()
    return target if target.is_absolute() else here / target


def _budget(config: pytest.Config) -> Budget:
    """The course's budget with this run's overrides of its time limits."""
    budget = course_budget()
    seconds = setting(config, "graders_call_seconds")
    if seconds:
        call = _positive_seconds(str(seconds), "--call-timeout")
        budget = dataclasses.replace(budget, call_seconds=call, import_seconds=call)
    per_exercise = config.getoption("graders_exercise_seconds")
    if per_exercise:
        budget = dataclasses.replace(budget, exercise_seconds=_positive_seconds(str(per_exercise),
                                                                                "--exercise-seconds"))
    total = config.getoption("graders_submission_seconds")
    if total:
        budget = dataclasses.replace(budget, submission_seconds=_positive_seconds(str(total), "--submission-seconds"))
    return budget


def _submission_folder(config: pytest.Config) -> Path | None:
    value = setting(config, "graders_submission")
    if value is None:
        return None
    path = _beside(Path(config.invocation_params.dir), value)
    if not path.is_dir():
        lesson = course_config.LESSONS[0].folder
        raise pytest.UsageError(MISSING_FOLDER.format(value=value, path=path, lesson=lesson))
    return path


def _steps_left_out(config: pytest.Config) -> frozenset[str]:
    value = config.getoption("graders_sandbox_without") or ""
    steps = frozenset(s.strip() for s in value.split(",") if s.strip())
    unknown = steps - set(STEPS)
    if unknown:
        raise pytest.UsageError(f"--sandbox-without {value!r}: unknown step {', '.join(sorted(unknown))}; "
                                f"the steps are {', '.join(STEPS)}")
    return steps


def _positive_seconds(value: str, where: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise pytest.UsageError(f"{where} {value!r}: give a number of seconds, e.g. 5") from None
    if not seconds > 0:
        raise pytest.UsageError(f"{where} {value!r}: the number of seconds must be above 0")
    return seconds


RUN_SETTINGS = pytest.StashKey[RunSettings]()  # this run's, in config.stash, for the fixtures
