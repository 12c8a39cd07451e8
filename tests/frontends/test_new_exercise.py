"""`python -m graders new`: in a scratch copy of the project, a scaffolded exercise grades at once (the
reference full marks, the stub 0, a wrong answer named), the house's own tests pass straight after it (the
lesson's 100 points kept by the exercise named to give up the new one's), and bad requests are refused with a
message that says why."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import ROOT, STUBS

SLUG = "scale_rows"
COPIED = ("exercises", "reference", "graders", "tests", "docs", "course_config.py", "pyproject.toml")


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of the project, and what `graders new` said when it scaffolded SLUG (4 points, from shape_bugs) into it."""
    copy = tmp_path_factory.mktemp("project")
    for name in COPIED:
        source = STUBS if name == "exercises" else ROOT / name  # the stubs as committed, not the ones tried here
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif source.exists():
            shutil.copyfile(source, copy / name)
    made = _run(copy, "-m", "graders", "new", "lesson01", SLUG, "--title", "Scale the rows of a batch",
                "--section", '"Tensors"', "--points", "4", "--points-from", "shape_bugs")
    assert made.returncode == 0, made.stderr
    return copy, made


@pytest.fixture(scope="module")
def project(scaffolded: tuple[Path, subprocess.CompletedProcess]) -> Path:
    return scaffolded[0]


def _run(project: Path, *args: str) -> subprocess.CompletedProcess:
    # The copy's own package, not the installed one: PYTHONPATH puts it first.
    env = {**os.environ, "PYTHONPATH": str(project), "GRADERS_CACHE_DIR": "off"}
    return subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True, text=True, timeout=600)


def _graded(project: Path, folder: Path | None) -> dict:
    out = project / "result.json"
    args = ["-m", "pytest", f"exercises/lesson01/{SLUG}.py", "-p", "no:cacheprovider", "--json", str(out)]
    _run(project, *args, *(["--submission", str(folder)] if folder else []))
    return json.loads(out.read_text())["exercises"][0]


def test_the_scaffold_writes_a_room_and_joins_the_lesson(project: Path) -> None:
    room = project / "graders" / "lesson01" / SLUG
    assert sorted(p.name for p in room.iterdir() if p.name != "__pycache__") == [
        "__init__.py", "checks.py", "exercise.toml", "mistakes.py"]
    proofs = project / "tests" / "lesson01" / SLUG / "mistakes"
    assert [p.name for p in proofs.iterdir()] == ["factor_ignored.change"]  # the proof of mistakes.py's one mistake
    assert f'("{SLUG}", 4),' in (project / "course_config.py").read_text()
    shown = _run(project, "-m", "graders", "config", "--exercise", SLUG)
    assert shown.returncode == 0 and "Scale the rows of a batch" in shown.stdout and "4 points" in shown.stdout


def test_the_reference_earns_full_marks_and_the_stub_nothing(project: Path) -> None:
    solved = _graded(project, project / "reference")
    assert solved["score"] == solved["max_score"] == 4
    untouched = _graded(project, None)
    assert untouched["score"] == 0 and all(c["not_implemented"] for c in untouched["checks"])


def test_a_wrong_answer_is_named_by_the_scaffolds_mistake(project: Path, tmp_path: Path) -> None:
    wrong = (project / "reference" / "lesson01" / f"{SLUG}.py").read_text().replace("return x * factor", "return x")
    (tmp_path / "lesson01").mkdir()
    (tmp_path / "lesson01" / f"{SLUG}.py").write_text(wrong)
    graded = _graded(project, tmp_path)
    assert graded["score"] == 0
    public = next(c for c in graded["checks"] if not c["hidden"])
    assert public["mistake"] == "factor ignored", public


# The house's tests, run whole in the copy, and test_mistakes.py for the new exercise: its mistake's proof
# (tests/lesson01/<slug>/mistakes/) graded in a student's run and from recorded values, and every mistake proved.
HOUSE = ("tests/test_catalogue.py", "tests/test_house.py", "tests/test_layout.py", "tests/test_manifests.py",
         "tests/sandbox/test_drivers.py", "tests/test_mistakes.py::test_every_catalogued_mistake_has_a_submission",
         f"tests/test_mistakes.py::test_each_mistake_is_diagnosed_by_name_and_costs_only_its_checks[{SLUG}/factor_ignored]",
         f"tests/test_mistakes.py::test_each_mistake_is_still_named_from_recorded_expected_values[{SLUG}/factor_ignored]")
def test_the_house_tests_pass_straight_after_scaffolding(
        scaffolded: tuple[Path, subprocess.CompletedProcess]) -> None:
    project, made = scaffolded
    report = project / "house.xml"
    ran = _run(project, "-m", "pytest", *HOUSE, "-q", "-p", "no:cacheprovider", "--junitxml", str(report))
    assert report.exists(), ran.stdout[-3000:] + ran.stderr[-3000:]  # a node id that does not exist: no run at all
    cases = ElementTree.parse(report).getroot().iter("testcase")
    outcomes = {f"{case.get('classname')}::{case.get('name')}": [child.tag for child in case] for case in cases}
    red = {name: tags for name, tags in outcomes.items() if {"failure", "error", "skipped"} & set(tags)}
    assert not red, ran.stdout[-5000:]
    assert len(outcomes) > 500 and sum(SLUG in name for name in outcomes) >= 10, sorted(outcomes)[:20]
    assert "shape_bugs gave up 4 points" in made.stdout


def test_the_exercise_that_gives_up_the_points_keeps_its_checks_adding_up(project: Path) -> None:
    assert '("shape_bugs", 4),' in (project / "course_config.py").read_text()
    manifest = tomllib.loads((project / "graders" / "lesson01" / "shape_bugs" / "exercise.toml").read_text())
    points = [check["points"] for check in manifest["checks"]]
    assert sum(points) == 4 and all(p > 0 and (p * 4).is_integer() for p in points), points
    out = project / "shape_bugs.json"  # its reference still earns the whole of its (new) points
    _run(project, "-m", "pytest", "exercises/lesson01/shape_bugs.py", "-p", "no:cacheprovider", "--json", str(out),
         "--submission", str(project / "reference"))
    shape_bugs = json.loads(out.read_text())["exercises"][0]
    assert shape_bugs["score"] == shape_bugs["max_score"] == 4, shape_bugs


@pytest.mark.parametrize("args, says", [
    (["lesson01", SLUG], "exists already"),
    (["lesson01", "Scale-Rows"], "cannot name an exercise"),
    (["lesson09", "other"], "no lesson 'lesson09'"),
    (["lesson01", "other"], "say which exercise gives up the new one's 5 with --points-from SLUG"),
    (["lesson01", "other", "--points-from", "nope"], "--points-from nope: lesson01 has no such exercise"),
    (["lesson01", "other", "--points", "5", "--points-from", "dtypes_and_devices"], "too few to give up 5"),
])
def test_a_bad_request_is_refused_and_says_why(project: Path, args: list[str], says: str) -> None:
    before = (project / "course_config.py").read_text()
    refused = _run(project, "-m", "graders", "new", *args, "--title", "Another")
    assert refused.returncode != 0 and says in refused.stderr, refused.stderr
    assert (project / "course_config.py").read_text() == before
