"""This checkout's batch grader against another revision's, timed alternately on the same class.

    python benchmarks/batch_versions.py REVISION [--students 40] [--rounds 2] [-j 2]

Checks REVISION out into a scratch worktree, writes a class of student folders (the mix of
benchmarks/batch_speed.py: solved, partly solved, catalogued mistakes, one infinite loop, one
syntax error), and grades it with each version in turn, `--rounds` times, each run into a fresh
output folder (so nothing is reused but each version's own expected-values cache, kept from its
first round). Prints each run's seconds and the median ratio (this checkout / REVISION): a noisy
machine slows both sides alike when they alternate. Where the versions' checks differ, a student's
score may too: each such student is printed with the exercises whose scores differ, so that the
difference can be judged (a check added on purpose, or a regression).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from batch_speed import LESSON, ROOT, _answers


def _write_class(root: Path, students: int) -> None:
    for index in range(students):
        folder = root / f"student{index:03d}" / "lesson01"
        folder.mkdir(parents=True)
        for slug, source in _answers(index).items():
            (folder / f"{slug}.py").write_text(source)


def _environment(checkout: Path) -> dict[str, str]:
    """What a version's processes need to import its own package: its folder first on the path and, where its
    pytest plugin is another module than the installed entry point names, that entry left out and its own
    plugin loaded by name (a revision from before the plugin moved)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    with (checkout / "pyproject.toml").open("rb") as file:
        plugin = tomllib.load(file)["project"]["entry-points"]["pytest11"]["graders"]
    installed = {e.value for e in importlib.metadata.entry_points(group="pytest11") if e.name == "graders"}
    if installed and plugin not in installed:
        env["PYTEST_ADDOPTS"] = f"-p no:graders -p {plugin}"
    return env


def _grade(checkout: Path, source: Path, out: Path, cache: Path, jobs: int) -> float:
    """Seconds one version takes; run from its checkout, so that it imports its own package."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "graders", "grade", str(source), "--out", str(out), "-j", str(jobs)],
                          cwd=checkout, capture_output=True, text=True, env=_environment(checkout))
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"the batch of {checkout} failed:\n{done.stderr[-3000:]}")
    if not cache.exists() and (out / ".cache").exists():
        shutil.copytree(out / ".cache", cache)  # kept for this version's later rounds
    return seconds


def _scores(out: Path) -> dict[str, dict[str, float]]:
    """Each student's score per exercise, and in all under ""."""
    scores = {}
    for path in (out / "students").glob("*.json"):
        record = json.loads(path.read_text())
        scores[path.stem] = {"": record["score"], **{e["slug"]: e["score"] for e in record["exercises"]}}
    return scores


def _differences(this: dict[str, dict[str, float]], that: dict[str, dict[str, float]], name: str) -> list[str]:
    """The students whose scores differ between the versions, each printed with the exercises that differ."""
    differ = sorted(s for s in this.keys() | that.keys() if this.get(s) != that.get(s))
    for student in differ:
        mine, theirs = this.get(student, {}), that.get(student, {})
        exercises = [f"{slug} {mine.get(slug)} vs {theirs.get(slug)}" for slug in sorted(mine.keys() | theirs.keys())
                     if slug and mine.get(slug) != theirs.get(slug)]
        print(f"  {student}: this {mine.get('')}, {name} {theirs.get('')} ({'; '.join(exercises)})", flush=True)
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the git revision to compare with (e.g. a commit before a change)")
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="batch-versions-"))
    other = scratch / "other"
    # The reference's values kept between runs (graders/frontends/grade/run/main.py) start empty here, as the other
    # version's own cache does: each version grades its reference in its first round, and reuses it after.
    os.environ["GRADERS_CACHE_DIR"] = str(scratch / "kept")
    try:
        subprocess.run(["git", "worktree", "add", "--detach", str(other), options.revision], cwd=ROOT, check=True,
                       capture_output=True)
        _write_class(scratch / "class", options.students)
        sides = {"this": ROOT, options.revision: other}
        times: dict[str, list[float]] = {name: [] for name in sides}
        scores = {}
        for round_number in range(options.rounds):
            for name, checkout in (sides.items() if round_number % 2 == 0 else reversed(sides.items())):
                out = scratch / f"out-{name}-{round_number}"
                cache = scratch / f"cache-{name}"
                if cache.exists():  # the version's own expected values, as a rerun of a class would have them
                    shutil.copytree(cache, out / ".cache")
                seconds = _grade(checkout, scratch / "class", out, cache, options.jobs)
                times[name].append(seconds)
                scores[name] = _scores(out)
                print(f"round {round_number + 1}: {name}: {seconds:.1f} s for {options.students} students", flush=True)
        differ = _differences(scores["this"], scores[options.revision], options.revision)
        this, that = statistics.median(times["this"]), statistics.median(times[options.revision])
        agree = f"every score equal for {len(scores['this'])} students" if not differ else \
            f"{len(differ)} of {len(scores['this'])} students scored differently (above)"
        print(f"median: this checkout {this:.1f} s, {options.revision} {that:.1f} s: ratio {this / that:.3f} "
              f"({'slower' if this > that else 'faster'} by {abs(this / that - 1) * 100:.1f}%), {agree}, "
              f"lesson {LESSON.number}")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT, capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
