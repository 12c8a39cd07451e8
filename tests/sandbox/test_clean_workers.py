"""A worker inherits nothing: what a submission finds by walking its whole process, on every path.

The looting submission (tests/looting.py) walks gc.get_objects(), every frame, sys.modules and
its environment for a classmate's answers, the reference, the hidden checks' ids and seeds and
the expected values. It runs where those were all in the grader's memory before its worker was
started: in process after the same process graded the reference (pytest), after the batch's
parent read every classmate's answers and its grading processes loaded the expected values
(batch), in a Gradescope run (which goes through the batch). It must find nothing but what it
planted itself, which proves that the walk sees what it looks for. A student's own run, whose
zygote is forked from the grader before anything of the grading is loaded, is tried with a secret
in its environment in tests/sandbox/test_fork_server.py. The notebooks' path is tested
with the other nbgrader attacks (tests/frontends/test_nbgrader_attacks.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import course_config

from looting import (assert_found_only_the_planted, canary, digest, expected_needles, hidden_needles, looting_module,
                     zygote_kind)

ROOT = course_config.ROOT
SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
WALK_SECONDS = ("--call-timeout", "60", "--exercise-seconds", "120")


def test_a_worker_holds_nothing_the_grading_process_held_before_it(grade, tmp_path: Path) -> None:
    # This process grades the reference first (in process, as pytester does): it then holds the
    # reference modules and every expected value of the exercise, hidden checks' included.
    recording = tmp_path / "expected.json"
    first = grade({SLUG: REFERENCE}, "--record-expected", str(recording))
    assert first.exercise(SLUG)["score"] == course_config.LESSON_01.exercise(SLUG).points
    needles = {**hidden_needles(), **expected_needles(recording)}
    assert sum("expected value" in what for what in needles.values()) >= 10
    source, needles = looting_module(needles)
    graded = grade({SLUG: source}, *WALK_SECONDS, "-k", "f_on_lesson_grid")
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert zygote_kind(message) == "exec"  # this process held the grading: its zygote is a fresh interpreter
    assert_found_only_the_planted(message, needles)


def _honest_class(root: Path, count: int) -> dict[str, str]:
    """Honest classmates whose every file carries a canary of its own; returns canary -> student."""
    canaries = {}
    for number in range(count):
        student = f"honest{number}"
        folder = root / student / "lesson01"
        folder.mkdir(parents=True)
        for exercise in course_config.LESSON_01.exercises:
            token = canary()
            canaries[token] = student
            text = (ROOT / "reference" / "lesson01" / f"{exercise.slug}.py").read_text()
            (folder / f"{exercise.slug}.py").write_text(f"{text}\n# {token}\n")
    return canaries


def test_a_batch_worker_holds_no_classmate_nor_anything_of_the_grader(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    canaries = _honest_class(root, 2)
    first = _batch(root, out)  # the class without the looter: the batch stores the reference's values
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    stored = next((out / ".cache").glob("expected-*.json"))
    needles = {**hidden_needles(), **expected_needles(stored),
               **{digest(token): f"canary of {who}" for token, who in canaries.items()}}
    # The looter hands in late: the rerun reads every classmate's answers again, loads the stored
    # values in its grading processes, and grades the looter alone.
    source, needles = looting_module(needles)
    (root / "zz-looter" / "lesson01").mkdir(parents=True)
    (root / "zz-looter" / "lesson01" / f"{SLUG}.py").write_text(source)
    second = _batch(root, out)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "2 unchanged since the last run, 1 to grade" in second.stdout, second.stdout[-2000:]
    records = {p.stem: json.loads(p.read_text()) for p in (out / "students").glob("*.json")}
    for student in ("honest0", "honest1"):
        assert records[student]["score"] == pytest.approx(course_config.LESSON_01.points), student
    checks = {c["id"]: c for e in records["zz-looter"]["exercises"] if e["slug"] == SLUG for c in e["checks"]}
    assert_found_only_the_planted(checks["f_on_lesson_grid"]["message"], needles)


def _batch(root: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "2"],
                          capture_output=True, text=True, timeout=1800, cwd=ROOT)


def test_a_gradescope_worker_holds_nothing_of_the_grader(tmp_path: Path) -> None:
    autograder = tmp_path / "autograder"
    (autograder / "submission").mkdir(parents=True)
    source, needles = looting_module(hidden_needles())
    (autograder / "submission" / f"{SLUG}.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "graders", "gradescope", "run", "--root", str(autograder)],
                         capture_output=True, text=True, timeout=1800, cwd=ROOT, env=env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    results = json.loads((autograder / "results" / "results.json").read_text())
    test = next(t for t in results["tests"] if "f_on_lesson_grid" in t["name"])
    assert_found_only_the_planted(test["output"], needles)
