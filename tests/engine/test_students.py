"""Every exercise's student in a run (graders/engine/students.py): where an exercise's file is in the submission
(its lesson folder, or the lesson folder given itself), how messages name it (never a path of the grading machine),
and what the run's JSON says confined its workers: the plan, a worker's weaker report, or no sandbox in process."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import course_config
from conftest import STUBS
from graders.engine.run_settings import RunSettings, course_budget
from graders.engine.students import Students
from graders.sandbox import Confinement, Gap, Settings, WallsHeld, WorkerUser

LESSON = course_config.LESSON_01
STUB = STUBS / "lesson01" / "views.py"
PLAN = Confinement(True, 7, True, WorkerUser.UNPRIVILEGED)


def _students(submission: Path | None, root: Path, *, in_process: bool = False) -> Students:
    settings = RunSettings(in_process=in_process, answer_cells=False, budget=course_budget(), sandbox=Settings(),
                           plan=PLAN, submission=submission, hidden_show="outcome", plots=root / "plots", json=None,
                           grades=True)
    return Students(settings, root, None)


def test_an_exercises_file_is_in_its_lesson_folder_or_in_the_lesson_folder_given(tmp_path: Path) -> None:
    (tmp_path / "whole" / "lesson01").mkdir(parents=True)
    (tmp_path / "lesson01").mkdir()
    assert _students(None, tmp_path).module_path(STUB, LESSON) == STUB
    assert _students(tmp_path / "whole", tmp_path).module_path(STUB, LESSON) == tmp_path / "whole" / "lesson01" / \
        "views.py"
    assert _students(tmp_path / "lesson01", tmp_path).module_path(STUB, LESSON) == tmp_path / "lesson01" / "views.py"


def test_messages_name_a_file_from_the_submission_or_the_exercises_folder_never_by_its_absolute_path(
        tmp_path: Path) -> None:
    submission = tmp_path / "handed-in"
    (submission / "lesson01").mkdir(parents=True)
    assert _students(submission, tmp_path).display(submission / "lesson01" / "views.py") == "lesson01/views.py"
    mine = tmp_path / "somewhere" / "exercises" / "lesson01" / "views.py"
    assert _students(None, tmp_path / "elsewhere").display(mine) == "exercises/lesson01/views.py"
    assert _students(None, tmp_path).display(tmp_path / "work" / "views.py") == "work/views.py"
    assert _students(None, tmp_path / "a").display(Path("/opt/x/lesson01/views.py")) == "lesson01/views.py"


def test_the_runs_confinement_is_the_plan_with_the_walls_a_worker_reported(tmp_path: Path) -> None:
    students = _students(tmp_path, tmp_path)
    assert students.confinement() == PLAN  # no worker said anything yet
    walls = WallsHeld(cgroup_version=2, memory_mb=2048, tasks=64, cpus=1.0, scratch_tmpfs=True, scratch_mb=64)
    students.reports.append(dataclasses.replace(PLAN, walls=walls))
    assert students.confinement() == dataclasses.replace(PLAN, walls=walls)


def test_a_worker_weaker_than_the_plan_is_what_the_run_reports(tmp_path: Path) -> None:
    students = _students(tmp_path, tmp_path)
    weaker = Confinement(False, 0, True, WorkerUser.GRADER, gaps=(Gap.NO_LANDLOCK,))
    students.reports += [dataclasses.replace(PLAN), weaker]
    assert students.confinement() == weaker and not students.confinement().confined


@pytest.mark.parametrize("reports", [[], [PLAN]])
def test_in_process_is_no_sandbox_whatever_was_reported(tmp_path: Path, reports: list[Confinement]) -> None:
    students = _students(tmp_path, tmp_path, in_process=True)
    students.reports += reports
    assert students.confinement() == Confinement(user=WorkerUser.GRADER_PROCESS, gaps=(Gap.IN_PROCESS,))
