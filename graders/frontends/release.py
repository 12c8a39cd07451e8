"""`python -m graders release OUT_DIR`: the repository students get for the `pytest exercises/` way.

    OUT_DIR/exercises/<lesson>/<slug>.py      the stubs students edit
    OUT_DIR/nbchecks/                         the student bundle: the engine, public checks only, and
                                              the expected values recorded from the reference (data)
    OUT_DIR/conftest.py, pyproject.toml       `pip install . -c constraints.txt`, then `pytest exercises/`
    OUT_DIR/constraints.txt                   the course's pins: students install what the course's tests ran on
    OUT_DIR/README.md, .gitignore             for students
    OUT_DIR/.github/workflows/classroom.yml   with --classroom: GitHub Classroom grades on every push

No reference code and no hidden check goes in (tests/frontends/test_handout.py scans for both); the
instructor grades with the batch grader, where the hidden checks and the fresh twins run.
The stubs are the committed ones, not the instructor's working copies (graders/engine/stubs.py).
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import course_config
from graders.frontends.nbgrader.bundle import PACKAGE, rename_recording, write_bundle
from graders.frontends.nbgrader.record import record_expected
from graders.frontends.platforms import runner_id
from graders.engine.stubs import released_stubs

CONFTEST = '''"""Loads this repository's checks (nbchecks/) for `pytest exercises/`: do not edit."""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "nbchecks")]
TWICE = ("pytest loaded the course package installed in this environment (its plugin {installed!r}) besides this "
         "repository's checks, and the two cannot run together: run `python -m pytest exercises/` in this folder, "
         "whose pyproject.toml turns that plugin off, or add `-p no:{installed}`")


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # Called before the plugin below is loaded: where pyproject.toml's addopts were bypassed (-c, -o addopts=),
    # a clear word instead of pytest's clash of options.
    if pluginmanager.has_plugin({installed!r}):
        raise pytest.UsageError(TWICE)


pytest_plugins = ["nbchecks.frontends.pytest_plugin"]
'''
PYPROJECT = '''[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "1.0.0"
description = "Exercises of lesson {number} of Deep Learning with PyTorch: {title}"
requires-python = ">=3.11"
# The course's own ranges (its pyproject.toml); constraints.txt pins the exact versions its tests ran on. torch
# is pinned: this version's CPU build gives the lesson's numbers. On a machine that would pull a CUDA build,
# install with --extra-index-url https://download.pytorch.org/whl/cpu.
dependencies = [
{dependencies}
]

[tool.setuptools]
packages = []  # nothing to install but the dependencies: the exercises stay where they are

[tool.pytest.ini_options]
testpaths = ["exercises"]
graders_replay = "nbchecks/expected.json"
# `-p no:{installed}`: the checks here are the bundled copy (nbchecks/), loaded by conftest.py. Where the
# course's own package is installed too, pytest would also load its plugin (entry point `{installed}`), which
# registers the same options: pytest would stop before grading.
# `-p no:logging -p no:unraisableexception`: no check reads log records or unraisable exceptions of the grading
# process, and the two cost a run about 0.15 s.
addopts = "-p no:cacheprovider --assert=plain -p no:logging -p no:unraisableexception -p no:{installed}"
'''
README = '''# Lesson {number}: {title}

{count} exercises, {points:g} points. Each is one file in `exercises/{folder}/`: read its docstrings,
replace each `raise NotImplementedError` with your code, and check your work.

Set up once, then check your exercises (Python 3.11 or newer):

```bash
python -m pip install . -c constraints.txt && python -m pytest exercises/
```

(Where pip would fetch a CUDA build of torch, add `--extra-index-url https://download.pytorch.org/whl/cpu`.)

```bash
pytest exercises/                            # every exercise
pytest exercises/{folder}/{first}.py         # one exercise
pytest exercises/ -x                         # stop at the first failed check
```

You get, per exercise, its points and each check as PASS or FAIL, and for every failure a
message: what was called, what came back, what was expected, the mistake it most likely is,
a hint, and the section of the lesson to reread. Your code runs in a separate, sandboxed
process with a time limit on each call.

The checks here are the public ones, compared with values recorded from the reference
solution. When your work is graded, hidden checks run too (fresh inputs: other sizes, dtypes
and values), and every public check runs again on fresh inputs of the same kind, so code that
only works on the examples shown here, or that returns the recorded values, earns nothing.
The quiz (`quick_check`) is graded by hidden checks only: its one check here, worth 0 points,
says whether your answers are well formed, never whether they are right.
Do not edit `nbchecks/`, `conftest.py`, `pyproject.toml` or `constraints.txt`.
{classroom}'''
CLASSROOM_NOTE = '''
Every push runs the checks on GitHub (`.github/workflows/classroom.yml`) and reports your
points per exercise to GitHub Classroom; your instructor's grade comes from their own run,
with the hidden checks.
'''
WORKFLOW = '''# GitHub Classroom autograding: on every push, the public checks of each exercise, reported per
# exercise through GitHub Classroom's autograding reporter. Written by `python -m graders release`.
name: Autograding
on:
  - push
  - workflow_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  grade:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install
        run: python -m pip install . -c constraints.txt --extra-index-url https://download.pytorch.org/whl/cpu
      - name: Grade
        id: grade
        run: python -m nbchecks.frontends.classroom exercises
      - name: Report
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
{env}
        with:
          runners: {runners}
'''
GITIGNORE = "__pycache__/\n*.pyc\nplots/\n.venv/\n*.egg-info/\nbuild/\n"
# The name of this package's pytest plugin entry point (pyproject.toml, [project.entry-points.pytest11]): the
# handout turns it off in its own pytest configuration, so its bundled copy is the only one, wherever it runs.
# Turned off, not deferred to: an installed package (any version, an instructor's working copy) has other checks
# than the ones the handout's values were recorded with, and hidden ones; and pytest reads the ini's addopts
# before it loads any entry point, so nothing of it is even imported.
INSTALLED_PLUGIN = "graders"
# What the handout's checks need installed (its nbchecks/ bundle replays recorded values: no hypothesis, no
# nbgrader; msgspec reads the exercises' manifests), each with the course's own range.
HANDOUT_NEEDS = ("torch", "numpy", "pytest", "matplotlib", "msgspec")


def main(out_dir: Path, *, lesson: str = "lesson01", classroom: bool = False) -> Path:
    """Write the handout repository into `out_dir` (created; it must be empty or absent)."""
    chosen = next((l for l in course_config.LESSONS if l.folder == lesson), None)
    if chosen is None:
        raise SystemExit(f"--lesson {lesson}: course_config.py has no such lesson")
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"release: {out} is not empty; give a new folder (nothing in it is overwritten)")
    exercises = list(chosen.exercises)
    # Before the slow recording, so that a stub that cannot be released is said at once.
    stub_texts = released_stubs(chosen.folder, [e.slug for e in exercises])
    print(f"recording the public checks' expected values from the reference ({len(exercises)} exercises)...")
    expected = rename_recording(record_expected(chosen, exercises))
    out.mkdir(parents=True, exist_ok=True)
    withheld = write_bundle(out, chosen, exercises, expected)
    shutil.rmtree(out / PACKAGE / "exercises")  # the notebooks' placeholders: here students have the real files
    for slug, ids in withheld.items():
        for check_id in ids:
            print(f"warning: {slug}: public check {check_id} repeats the reference's code, so it is left out")
    stubs = out / "exercises" / chosen.folder
    stubs.mkdir(parents=True)
    for slug, text in stub_texts.items():
        (stubs / f"{slug}.py").write_bytes(text.encode("utf-8"))
    (out / "conftest.py").write_text(CONFTEST.format(installed=INSTALLED_PLUGIN))
    (out / "pyproject.toml").write_text(PYPROJECT.format(name=f"{chosen.folder}-exercises", number=chosen.number,
                                                          title=chosen.title, installed=INSTALLED_PLUGIN,
                                                          dependencies=handout_dependencies()))
    shutil.copyfile(course_config.ROOT / "constraints.txt", out / "constraints.txt")
    (out / ".gitignore").write_text(GITIGNORE)
    (out / "README.md").write_text(README.format(
        number=chosen.number, title=chosen.title, count=len(exercises), points=sum(e.points for e in exercises),
        folder=chosen.folder, first=exercises[0].slug, classroom=CLASSROOM_NOTE if classroom else ""))
    if classroom:
        workflow = out / ".github" / "workflows" / "classroom.yml"
        workflow.parent.mkdir(parents=True)
        workflow.write_text(classroom_workflow([e.slug for e in exercises]))
    print(f"wrote {out}: {len(exercises)} exercises, public checks and recorded values"
          + (", and the GitHub Classroom workflow" if classroom else ""))
    return out


def handout_dependencies() -> str:
    """The handout's dependency lines: each package it needs, with the range the course's pyproject.toml gives."""
    course = tomllib.loads((course_config.ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    ranges = {re.match(r"[A-Za-z0-9._-]+", line)[0].lower(): line for line in course}
    missing = [name for name in HANDOUT_NEEDS if name not in ranges]
    if missing:
        raise SystemExit(f"release: the course's pyproject.toml lists no {', '.join(missing)}: the handout needs it")
    return "\n".join(f"    {ranges[name]!r},".replace("'", '"') for name in HANDOUT_NEEDS)


def classroom_workflow(slugs: list[str]) -> str:
    runners = [runner_id(slug) for slug in slugs]
    env = "\n".join(f'          {r.upper()}_RESULTS: "${{{{ steps.grade.outputs.{r} }}}}"' for r in runners)
    return WORKFLOW.format(env=env, runners=",".join(runners))
