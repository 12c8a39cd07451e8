"""The handout repository's parts that need no recording (graders/frontends/release.py): its dependencies with
the course's own ranges, the GitHub Classroom workflow naming a runner per exercise, and a release refused before
the slow recording when its folder or lesson cannot work. The whole handout, installed and graded in a fresh
venv, is test_handout.py's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

import course_config
from graders.frontends import release


def test_the_handout_depends_on_what_its_checks_need_in_the_courses_ranges() -> None:
    course = tomllib.loads((course_config.ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    handout = tomllib.loads(f"dependencies = [\n{release.handout_dependencies()}\n]")["dependencies"]
    assert [re.match(r"[A-Za-z0-9._-]+", line)[0].lower() for line in handout] == list(release.HANDOUT_NEEDS)
    assert set(handout) <= set(course), "each line is the course's own, range included"


def test_the_workflow_reports_each_exercise_as_a_runner_of_its_own() -> None:
    workflow = yaml.safe_load(release.classroom_workflow(["grad_accumulation", "views"]))
    report = workflow["jobs"]["grade"]["steps"][-1]
    assert report["with"]["runners"] == "gradaccumulation,views"
    assert report["env"] == {"GRADACCUMULATION_RESULTS": "${{ steps.grade.outputs.gradaccumulation }}",
                             "VIEWS_RESULTS": "${{ steps.grade.outputs.views }}"}
    grade = next(step for step in workflow["jobs"]["grade"]["steps"] if step.get("id") == "grade")
    assert grade["run"] == "python -m nbchecks.frontends.classroom exercises"


def test_a_folder_with_files_or_an_unknown_lesson_is_refused_before_recording(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("mine")
    with pytest.raises(SystemExit, match=f"release: {tmp_path} is not empty; give a new folder"):
        release.main(tmp_path)
    with pytest.raises(SystemExit, match="--lesson lesson99: course_config.py has no such lesson"):
        release.main(tmp_path / "new", lesson="lesson99")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]
