"""How long a batch's outputs wait past the last grade when one hand-in is built to make similarity slow.

    python benchmarks/similarity_budget.py [--students 100] [--jobs 2] [--seed 0] [--keep DIR]

Builds a class of `--students`: all but one as benchmarks/similarity_speed.py builds them (the reference or
hand-written variants, renamed, one exercise in ten the untouched stub, five planted copies), and one student
whose 14 files are each 2 MiB, the per-file cap of a hand-in (the reference, then statements of its own until
the file is full). Grades it with `python -m graders grade -j JOBS` and prints, from the output folder, when the
last student's result was stored and how long after it grades.csv, similarity.html and report.html were
written; then times the comparison alone, in this process, on the same answers. Not a test: run it by hand,
on a quiet machine, and put what it prints in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import course_config
from graders.frontends.grade.outputs import similarity

ROOT = course_config.ROOT
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]
from similarity_speed import build_class, stub_sources  # noqa: E402

FILE_BYTES = 2 * 2**20  # graders/frontends/grade/intake/handed_in.py's ANSWER_BYTES: the largest .py a hand-in may hold
ATTACKER = "zz_large"


def padded(source: str, size: int) -> str:
    """`source`, then different statements that run (so the file still imports) until it is `size` bytes."""
    lines, total, number = [source], len(source.encode()), 0  # bytes: the references hold non-ASCII text
    while True:
        line = f"padding_{number} = {number} * 7 + len('{number}')\n"
        if total + len(line) > size:
            return "".join(lines)
        lines.append(line)
        total += len(line)
        number += 1


def write_class(root: Path, answers: dict[str, dict[str, str]]) -> None:
    for student, files in answers.items():
        folder = root / student / "lesson01"
        folder.mkdir(parents=True, exist_ok=True)
        for slug, source in files.items():
            (folder / f"{slug}.py").write_text(source)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="build the class and outputs here (default: a temporary folder)")
    options = parser.parse_args()
    answers, _ = build_class(options.students - 1, options.seed)
    answers[ATTACKER] = {slug: padded((ROOT / "reference" / "lesson01" / f"{slug}.py").read_text(), FILE_BYTES)
                         for slug in stub_sources()}
    with tempfile.TemporaryDirectory(prefix="similarity-budget-") as scratch:
        base = options.keep or Path(scratch)
        write_class(base / "class", answers)
        out = base / "out"
        environment = {**os.environ, "GRADERS_CACHE_DIR": str(base / "kept")}
        started = time.time()
        run = subprocess.run([sys.executable, "-m", "graders", "grade", str(base / "class"), "--out", str(out),
                              "-j", str(options.jobs)], cwd=ROOT, capture_output=True, text=True, env=environment)
        if run.returncode != 0:
            sys.exit(f"the batch failed ({run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
        last = max(path.stat().st_mtime for path in (out / "students").glob("*.json"))
        print(f"{len(answers)} students, one with {len(answers[ATTACKER])} files of {FILE_BYTES / 2**20:g} MiB, "
              f"-j {options.jobs}: the batch took {time.time() - started:.1f} s, its last grade stored at "
              f"{last - started:.1f} s")
        for name in ("grades.csv", "similarity.html", "report.html"):
            print(f"  {name} written {(out / name).stat().st_mtime - last:.1f} s after the last grade")
        print("  the batch said: " + "; ".join(line for line in run.stdout.splitlines() if "similarity" in line))
    stubs = stub_sources()
    started, cpu = time.perf_counter(), time.process_time()
    found = similarity.compare(answers, stubs)
    print(f"the comparison alone, in this process: {time.perf_counter() - started:.1f} s "
          f"({time.process_time() - cpu:.1f} CPU-s), {len(found.pairs)} pairs, "
          f"{len(found.not_compared)} lines of what was not compared")


if __name__ == "__main__":
    main()
