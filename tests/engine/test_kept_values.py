"""A student's own runs keep the expected values and drawn inputs in one file per version of
the course, and later runs read that file; instructors' and in-process runs keep nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

from graders.engine import kept_values

SLUG = "sin_exp_derivative"


def _grade(cache: Path, tmp_path: Path, *extra: str) -> dict:
    """One real pytest run of the reference's sin_exp_derivative, keeping values in `cache`."""
    result = tmp_path / "result.json"
    result.unlink(missing_ok=True)
    env = {**os.environ, kept_values.FOLDER_VARIABLE: str(cache)}
    subprocess.run([sys.executable, "-m", "pytest", f"exercises/lesson01/{SLUG}.py", "--submission",
                    str(ROOT / "reference"), "--json", str(result), "-q", "-p", "no:cacheprovider", *extra],
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return {c["id"]: c["passed"] for e in json.loads(result.read_text())["exercises"] for c in e["checks"]}


def _kept(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"{kept_values.PREFIX}*.json"))


def test_a_second_run_reads_what_the_first_kept(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _grade(cache, tmp_path)
    assert all(first.values()), first
    (kept,) = _kept(cache)
    assert kept.name == f"{kept_values.PREFIX}{kept_values.course_digest()[:16]}.json"
    # Forge the kept answers of f, the lesson's grid among them (each gets the next one's): a later run
    # that trusts the file fails the check they feed, which shows that it read the file instead of
    # running the reference again.
    values = json.loads(kept.read_text())
    f_keys = sorted(key for key in values if key.startswith(f"reference:{SLUG}:f:"))
    assert len(f_keys) >= 2, f_keys
    answers = [values[key] for key in f_keys]
    values.update(zip(f_keys, answers[1:] + answers[:1]))
    kept.write_text(json.dumps(values))
    forged = kept.read_text()
    assert not _grade(cache, tmp_path)["f_on_lesson_grid"]
    # --no-expected-cache neither reads nor writes it.
    assert all(_grade(cache, tmp_path, "--no-expected-cache").values())
    assert kept.read_text() == forged


def test_other_versions_files_go_and_in_process_runs_keep_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    stale = cache / f"{kept_values.PREFIX}0000000000000000.json"
    stale.write_text("{}")
    _grade(cache, tmp_path)
    assert not stale.exists() and len(_kept(cache)) == 1
    elsewhere = tmp_path / "in-process"
    assert all(_grade(elsewhere, tmp_path, "--in-process").values())
    assert not elsewhere.exists() or not _kept(elsewhere)


def test_off_keeps_nothing_and_the_default_is_the_users_cache_folder(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv(kept_values.FOLDER_VARIABLE, "off")
    assert kept_values.path() is None
    monkeypatch.delenv(kept_values.FOLDER_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert kept_values.folder() == tmp_path / "course-autograder"
