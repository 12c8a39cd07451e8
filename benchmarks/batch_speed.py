"""The batch grader against `nbgrader autograde`: the same class, equal scores, seconds per submission.

    python benchmarks/batch_speed.py [--small 20] [--large 100] [--largest 200] [--keep]

Builds a scratch nbgrader course (every exercise) and hands in a mixed class of notebooks:
solved, partly solved and catalogued mistakes in turn, one infinite loop and one syntax error. Grades the
`--small` class with `nbgrader autograde` and with `python -m graders grade`, asserts that
both give every student the same points on every exercise. Then grades `--large` students
with the batch grader alone, and prints the seconds per submission of each, their ratio at
both sizes (goal: at least 20; issue 11 is done at 10), and the peak memory (the sum of the
proportional set sizes of the grading processes, their zygotes and workers) at both sizes, from two
more runs watched for it (watching slows a run, so the timed ones are not watched): it should not
grow with the class beyond the grading processes' bounded store of wrong runs.
For the small class it also prints the floor its one infinite loop sets: that student's call
runs for the whole call limit, and it cannot start before the reference's values are stored.
`--largest N` grades a third class, by the batch alone, to show where the memory stops growing.

On Dask (the batch's engine, graders/frontends/grade/run/cluster.py) it also grades the large class with one
worker and with two, and prints the scaling ratio (goal: at least 1.8x on 2 cores), the time from
the command to the first stored result, the peak memory of one grading service with its zygote and
sandboxed workers, the CPU-seconds a submission costs, and from that an estimate of the
wall time of 50,000 submissions on N workers.
"""

from __future__ import annotations

import argparse
import os
import resource
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

import course_config
from graders.frontends.nbgrader import build

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
sys.path.insert(0, str(ROOT / "tests"))
import mistake_catalogue as catalogue  # noqa: E402  (tests/mistake_catalogue.py: the catalogued mistakes, as changes to the reference)
GOAL, DONE_AT = 20.0, 10.0
SCALING_GOAL = 1.8



def _answers(index: int) -> dict[str, str]:
    """The index-th student's answers: a repeating mix of the kinds a class hands in."""
    reference = {e.slug: (ROOT / "reference" / "lesson01" / f"{e.slug}.py").read_text() for e in LESSON.exercises}
    stub = {e.slug: (ROOT / "exercises" / "lesson01" / f"{e.slug}.py").read_text() for e in LESSON.exercises}
    # One infinite loop and one syntax error in the class (the 4th and 5th students), as in a real one;
    # the others are solved, partly solved or mistaken in turn.
    kind = index if index in (3, 4) else index % 3
    if kind == 0:
        return reference
    if kind == 1:  # partly solved
        return {slug: reference[slug] if i % 2 else stub[slug] for i, slug in enumerate(reference)}
    if kind == 2:  # a catalogued mistake in every exercise that has one
        mistaken = dict(reference)
        for slug in reference:
            named = [c for c in catalogue.changes(slug) if re.search(r"^# mistake:", c.header, re.MULTILINE)]
            if named:
                mistaken[slug] = named[index % len(named)].text()
        return mistaken
    if kind == 3:  # an infinite loop in one exercise
        looped = dict(reference)
        looped["views"] = reference["views"] + "\n\ndef as_grid(x, rows):\n    while True:\n        pass\n"
        return looped
    broken = dict(reference)  # a syntax error in one exercise
    broken["micrograd"] = reference["micrograd"].replace("def backward(self", "def backward(self,,", 1)
    return broken


def _submit(course: Path, students: int) -> None:
    release = course / "release" / "lesson01"
    for index in range(students):
        target = course / "submitted" / f"student{index:03d}" / "lesson01"
        shutil.copytree(release, target)
        notebook = nbformat.read(target / "lesson01.ipynb", as_version=4)
        answers = _answers(index)
        for cell in notebook.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if grade_id.startswith("answer-"):
                slug = grade_id.removeprefix("answer-")
                cell.source = f"%%answer {slug}\n{answers[slug]}"
        nbformat.write(notebook, target / "lesson01.ipynb")


@dataclass
class Run:
    seconds: float
    peak: int  # bytes, summed PSS of the whole process tree (0 where memory was not watched)
    worker_peak: int  # bytes, the largest summed PSS of one Dask worker's tree (its service, zygote, workers)
    stored: float | None  # second at which the reference's values were stored
    first: float | None  # second at which the first student's result was stored
    cpu: float  # CPU-seconds of the whole tree (user and system)


def _run(command: list[str], cwd: Path, watch_memory: bool = False) -> Run:
    """Run a command, watching what it prints and, if asked, its process tree's memory; its CPU time is
    counted by a cpuacct cgroup of its own where one can be made (every process, whoever reaps it), else by
    rusage. The timed runs are not watched: reading the PSS of processes that map hundreds of MB makes the
    kernel walk their page tables, and doing that four times a second slowed a two-worker run by a tenth
    (56.3 s against 50.5 s for 100 students), which the one-worker run, with a core to spare, hardly felt."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    group = _cpu_group()
    if group is not None:
        command = ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh", *command]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, worker_peak, stored, first, errors = [0], [0], [], [], []
    threads = [threading.Thread(target=_read, args=(process.stdout, started, stored, first, []), daemon=True),
               threading.Thread(target=_read, args=(process.stderr, started, stored, first, errors), daemon=True)]
    if watch_memory:
        threads.append(threading.Thread(target=_watch, args=(process, peak, worker_peak), daemon=True))
    for thread in threads:
        thread.start()
    process.wait()
    seconds = time.perf_counter() - started
    for thread in threads:
        thread.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if group is not None:
        time.sleep(1.0)  # what outlives the command by a moment (the template, its services) is counted too
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        _remove_group(group)
    if process.returncode not in (0, 1):  # 1: the batch grader says some submission was not graded
        sys.exit(f"{' '.join(command[:4])} failed:\n{''.join(errors)[-3000:]}")
    return Run(seconds, peak[0], worker_peak[0], stored[0] if stored else None, first[0] if first else None, cpu)


def _cpu_group() -> Path | None:
    """A new cgroup v1 cpuacct group (root only), or None."""
    base = Path("/sys/fs/cgroup/cpuacct")
    if not (base / "cpuacct.usage").is_file():
        return None
    group = base / f"batch-speed-{time.monotonic_ns()}"
    try:
        group.mkdir()
    except OSError:
        return None
    return group


def _remove_group(group: Path) -> None:
    for _ in range(50):
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.2)


def _read(stream: Any, started: float, stored: list[float], first: list[float], kept: list[str]) -> None:
    for line in stream:
        kept.append(line)
        now = time.perf_counter() - started
        if (line.startswith("graders grade: stored in") or "kept from an earlier run" in line) and not stored:
            stored.append(now)
        if PROGRESS.match(line) and not first:
            first.append(now)


PROGRESS = re.compile(r"^\[\s*1/\d+\] ")  # the batch's first line of progress (output not a terminal)


def _watch(process: subprocess.Popen, peak: list[int], worker_peak: list[int]) -> None:
    while process.poll() is None:
        children = _children()
        sizes = _tree_pss(process.pid, children)
        peak[0] = max(peak[0], sum(sizes.values()))
        for service in _services(process.pid, children):
            worker_peak[0] = max(worker_peak[0], sum(sizes.get(pid, 0) for pid in _tree(service, children)))
        time.sleep(0.25)


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                children.setdefault(int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]), []).append(
                    int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return children


def _services(root: int, children: dict[int, list[int]]) -> list[int]:
    """The grading services below `root`: the children of the batch's template (template.py), the one child
    of the batch that leads a process group of its own; or, where services were started afresh, the
    processes running graders.frontends.grade.run.service."""
    found = []
    for child in children.get(root, []):
        try:
            leader = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[2] == str(child)
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if b"graders.frontends.grade.run.service" in command:
            found.append(child)
        elif leader:
            found += children.get(child, [])
        else:
            found += _services(child, children)
    return found


def _tree(root: int, children: dict[int, list[int]]) -> list[int]:
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue += children.get(pid, [])
    return found


def _tree_pss(root: int, children: dict[int, list[int]]) -> dict[int, int]:
    """The proportional set size, in bytes, of each process of root's tree."""
    sizes = {}
    for pid in _tree(root, children):
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    sizes[pid] = int(line.split()[1]) * 1024
        except OSError:
            continue
    return sizes


def _gradebook_scores(course: Path, students: int) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="bench") as gradebook:
        for index in range(students):
            student = f"student{index:03d}"
            grades = gradebook.find_submission("lesson01", student).notebooks[0].grades
            scores[student] = {g.name.removeprefix("test-"): g.auto_score for g in grades}
    return scores


def _batch_scores(out: Path) -> dict[str, dict[str, float]]:
    import json

    scores = {}
    for path in (out / "students").glob("*.json"):
        record = json.loads(path.read_text())
        found = {e["slug"]: round(min(e["score"], e["max_score"]), 6) for e in record["exercises"]}
        scores[record["student"]] = {e.slug: found.get(e.slug, 0.0) for e in LESSON.exercises}
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=20, help="the class graded both ways (default 20)")
    parser.add_argument("--large", type=int, default=100, help="the class graded by the batch alone (default 100)")
    parser.add_argument("--largest", type=int, default=0,
                        help="a third class graded by the batch alone, for its peak memory (default: none)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and print where it is")
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="batch-speed-"))
    # The reference's values, kept between runs of a version of the course (graders/frontends/grade/run/main.py), start
    # empty: the first class graded pays for the reference, the later ones start from its values, as an
    # instructor's later runs do.
    os.environ["GRADERS_CACHE_DIR"] = str(scratch / "kept")
    try:
        small, large = scratch / "small", scratch / "large"
        print("building the course...", flush=True)
        build.main(small, course_id="bench", prove=False)
        subprocess.run(["nbgrader", "generate_assignment", "lesson01"], cwd=small, check=True, capture_output=True)
        shutil.copytree(small, large)
        largest = scratch / "largest"
        if options.largest:
            shutil.copytree(small, largest)
            _submit(largest, options.largest)
        _submit(small, options.small)
        _submit(large, options.large)

        autograde = _run(["nbgrader", "autograde", "lesson01"], small).seconds
        grade = [sys.executable, "-m", "graders", "grade"]
        batch_small = _run([*grade, str(small), "--out", str(scratch / "out-small")], ROOT)
        want, got = _gradebook_scores(small, options.small), _batch_scores(scratch / "out-small")
        differ = {s: (want[s], got.get(s)) for s in want if got.get(s) != want[s]}
        assert not differ, f"the batch grader and nbgrader autograde disagree: {differ}"
        print(f"scores: equal for all {options.small} students on every exercise")
        batch_large = _run([*grade, str(large), "--out", str(scratch / "out-large"), "-j", "2"], ROOT)
        one_worker = _run([*grade, str(large), "--out", str(scratch / "out-large-1"), "-j", "1"], ROOT)
        # Memory, from runs of their own (the timed runs above are not watched: see _run).
        memory_small = _run([*grade, str(small), "--out", str(scratch / "memory-small")], ROOT, watch_memory=True)
        memory_large = _run([*grade, str(large), "--out", str(scratch / "memory-large"), "-j", "2"], ROOT,
                            watch_memory=True)
        per_autograde = autograde / options.small
        print(f"nbgrader autograde:   {per_autograde:.2f} s per submission ({autograde:.0f} s for {options.small})")
        print(f"python -m graders grade: {batch_small.seconds / options.small:.2f} s per submission "
              f"({batch_small.seconds:.0f} s for {options.small}), {batch_large.seconds / options.large:.2f} s per "
              f"submission ({batch_large.seconds:.0f} s for {options.large})")
        # nbgrader grades one notebook after another, so its cost per submission does not fall with the
        # class (the larger class uses the smaller one's figure); the batch's start-up (torch, the
        # reference's expected values, the report) spreads over more students, while the one infinite
        # loop holds a grading process for its whole call limit whatever the size of the class.
        for size, run in ((options.small, batch_small), (options.large, batch_large)):
            ratio = per_autograde / (run.seconds / size)
            verdict = "GOAL" if ratio >= GOAL else "DONE" if ratio >= DONE_AT else "UNDER"
            print(f"ratio for a class of {size}: {ratio:.1f}x faster per submission "
                  f"(goal {GOAL:g}x, done at {DONE_AT:g}x) -> {verdict}")
        if batch_small.stored is not None:
            # The infinite loop's student cannot be graded before the reference's values are stored, and its
            # call takes the whole limit: no schedule ends sooner, however fast the other students go.
            floor = batch_small.stored + float(course_config.LIMITS.call_seconds.value)
            print(f"floor for a class of {options.small}: the reference's values stored at {batch_small.stored:.1f} s, "
                  f"then the infinite loop's {course_config.LIMITS.call_seconds.value:g} s call limit: no batch of "
                  f"{options.small} can end before {floor:.1f} s, at most {per_autograde / (floor / options.small):.1f}x")
        scaling = one_worker.seconds / batch_large.seconds
        print(f"Dask workers on {options.large} students: 1 worker {one_worker.seconds / options.large:.2f} s per "
              f"submission, 2 workers {batch_large.seconds / options.large:.2f}: scaling {scaling:.2f}x "
              f"(goal {SCALING_GOAL:g}x) -> {'GOAL' if scaling >= SCALING_GOAL else 'UNDER'}")
        for label, run in (("1 worker", one_worker), ("2 workers", batch_large)):
            if run.first is not None:
                print(f"first result stored after {run.first:.1f} s ({label}; the reference's values after "
                      f"{run.stored or 0:.1f} s)")
        print(f"peak memory of the batch grader: {memory_small.peak / 2**20:.0f} MiB at N = {options.small}, "
              f"{memory_large.peak / 2**20:.0f} MiB at N = {options.large}; of one grading service (a Dask "
              f"worker's) with its zygote and workers: {memory_large.worker_peak / 2**20:.0f} MiB")
        # CPU per submission, from the one-worker run (every process of the batch, start-up included): what a
        # cluster pays, on top of its workers' own start-up.
        cpu = one_worker.cpu / options.large
        print(f"CPU per submission: {cpu:.2f} s (one worker, start-up included); 50,000 submissions would take "
              + ", ".join(f"{50_000 * cpu / n / 3600:.1f} h on {n} workers" for n in (2, 16, 64, 256))
              + " (one core each, plus about a minute of start-up)")
        if options.largest:
            run = _run([*grade, str(largest), "--out", str(scratch / "out-largest")], ROOT, watch_memory=True)
            print(f"N = {options.largest}: {run.seconds / options.largest:.2f} s per submission ({run.seconds:.0f} s), "
                  f"peak memory {run.peak / 2**20:.0f} MiB")
    finally:
        if options.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
