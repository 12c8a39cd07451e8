"""The zygote's own program (graders/sandbox/fork_server.py): a zygote forked from a student's own run, before
anything of the grading is loaded, sheds the grader's environment before it forks a worker, so the worker that
walks its whole process finds nothing of the grading (the looting submission of tests/looting.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import course_config

from conftest import STUBS
from looting import assert_found_only_the_planted, canary, digest, expected_needles, hidden_needles, looting_module, \
    zygote_kind

ROOT = course_config.ROOT
SLUG = "sin_exp_derivative"
WALK_SECONDS = ("--call-timeout", "60", "--exercise-seconds", "120")


def test_a_students_own_run_forks_a_zygote_with_nothing_of_the_grading_nor_of_the_environment(tmp_path: Path) -> None:
    # A student's own `pytest exercises/` forks its zygote from the grader, right after torch is imported
    # and before course_config.py, the checks or the reference are loaded (graders/sandbox/zygote.py).
    recording = tmp_path / "expected.json"
    target = str(STUBS / "lesson01" / f"{SLUG}.py")
    recorded = subprocess.run([sys.executable, "-m", "pytest", target, "--submission", str(ROOT / "reference"),
                               "--record-expected", str(recording), "-q", "-p", "no:cacheprovider"],
                              capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert recording.is_file(), recorded.stdout[-2000:]
    secret = canary()  # what the student's environment holds: the zygote sheds it before any fork
    source, needles = looting_module({**hidden_needles(), **expected_needles(recording),
                                      digest(secret): "the grader's environment"})
    folder = tmp_path / "mine" / "lesson01"
    folder.mkdir(parents=True)
    (folder / f"{SLUG}.py").write_text(source)
    result = tmp_path / "result.json"
    run = subprocess.run([sys.executable, "-m", "pytest", target, "--submission", str(folder.parent), "--json",
                          str(result), "-q", "-p", "no:cacheprovider", "-k", "f_on_lesson_grid", *WALK_SECONDS],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path,
                         env={**os.environ, "GRADERS_TEST_SECRET": secret})
    checks = {c["id"]: c for e in json.loads(result.read_text())["exercises"] for c in e["checks"]}
    message = checks["f_on_lesson_grid"]["message"]
    assert zygote_kind(message) == "forked", run.stdout[-2000:]
    assert_found_only_the_planted(message, needles)
