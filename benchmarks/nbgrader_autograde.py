"""How long `nbgrader autograde` takes per submission: our notebook against the floor.

    python benchmarks/nbgrader_autograde.py [--students 10] [--exercise SLUG ...] [--keep]

Builds a scratch course with `python -m graders nbgrader build`, and beside it a plain nbgrader
course (nbgrader's own settings and python3 kernel) whose notebook only imports torch (the floor:
nbgrader start-up, a kernel, torch). The floor has a course of its own because ours empties every
cell but its setup and test cells before the kernel runs: there the floor's `import torch` would
not run at all. Gives both to the same number of students (ours fully solved, the reference pasted
into the answer cells), checks that the floor's cell ran, and times one `nbgrader autograde` of each. Prints seconds per submission and
their ratio against the goal (GOAL: our notebook at most twice the floor). One autograde run
grades the reference once, for its first notebook (graders/frontends/nbgrader/shared_server.py):
that cost is shared out among the students, so fewer students give a higher ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

import course_config
from graders.frontends.nbgrader import build

FLOOR = "floor"
GOAL = 2.0  # our notebook's time per submission, at most this many times the floor's


def _floor_notebook() -> nbformat.NotebookNode:
    meta = {"nbgrader": {"grade": True, "solution": False, "locked": True, "grade_id": "import-torch",
                         "points": 1, "schema_version": 3}}
    cell = nbformat.v4.new_code_cell("import torch\ntorch.__version__ is not None", metadata=meta)
    notebook = nbformat.v4.new_notebook(cells=[cell])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def _solved(release: Path, notebook_name: str, lesson: course_config.Lesson) -> nbformat.NotebookNode:
    notebook = nbformat.read(release / notebook_name, as_version=4)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if grade_id.startswith("answer-"):
            slug = grade_id.removeprefix("answer-")
            reference = course_config.ROOT / "reference" / lesson.folder / f"{slug}.py"
            cell.source = f"%%answer {slug}\n{reference.read_text()}"
    return notebook


def _floor_cell_ran(course: Path) -> None:
    """Stop unless the floor's `import torch` cell ran under autograde (it has the output True): else the floor
    measured nbgrader and a kernel without torch, and every ratio against it would be too high."""
    autograded = course / "autograded" / "student0" / FLOOR / f"{FLOOR}.ipynb"
    cell, = nbformat.read(autograded, as_version=4).cells
    if not any(output.get("data", {}).get("text/plain") == "True" for output in cell.get("outputs", [])):
        sys.exit(f"the floor's cell did not run under autograde ({autograded}): its time would not include torch")


def _autograde(course: Path, assignment: str) -> float:
    start = time.perf_counter()
    run = subprocess.run(["nbgrader", "autograde", assignment], cwd=course, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"nbgrader autograde {assignment} failed:\n{run.stderr[-3000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=10, help="submissions per assignment (default: 10)")
    parser.add_argument("--exercise", action="append", dest="exercises", metavar="SLUG",
                        help="only these exercises (default: all of lesson 1)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch course and print where it is")
    args = parser.parse_args()
    lesson = course_config.LESSON_01
    scratch = Path(tempfile.mkdtemp(prefix="nbgrader-bench-"))
    course, floor_course = scratch / "course", scratch / FLOOR
    try:
        build.main(course, exercises=args.exercises, prove=False)
        (floor_course / "source" / FLOOR).mkdir(parents=True)
        (floor_course / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.course_id = {FLOOR!r}\n")
        nbformat.write(_floor_notebook(), floor_course / "source" / FLOOR / f"{FLOOR}.ipynb")
        for where, assignment in ((course, lesson.folder), (floor_course, FLOOR)):
            subprocess.run(["nbgrader", "generate_assignment", assignment], cwd=where, check=True,
                           capture_output=True)
        notebook_name = f"{lesson.folder}.ipynb"
        solved = _solved(course / "release" / lesson.folder, notebook_name, lesson)
        for index in range(args.students):
            for where, assignment, name, notebook in ((course, lesson.folder, notebook_name, solved),
                                                      (floor_course, FLOOR, f"{FLOOR}.ipynb", None)):
                target = where / "submitted" / f"student{index}" / assignment
                shutil.copytree(where / "release" / assignment, target)
                if notebook is not None:
                    nbformat.write(notebook, target / name)
        floor = _autograde(floor_course, FLOOR)
        _floor_cell_ran(floor_course)
        ours = _autograde(course, lesson.folder)
        count = len(args.exercises or lesson.exercises)
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")
        print(f"{args.students} submissions per assignment, one `nbgrader autograde` each")
        print(f"floor (a notebook that only imports torch): {floor:6.1f} s in all, {floor / args.students:5.1f} s per submission")
        print(f"our notebook ({count} exercises, all checks):    {ours:6.1f} s in all, {ours / args.students:5.1f} s per submission")
        print(f"cost of grading, above the floor:           {(ours - floor) / args.students:5.1f} s per submission")
        ratio = ours / floor
        print(f"our notebook / the floor: {ratio:.2f}x (goal: at most {GOAL:.1f}x) "
              f"{'MET' if ratio <= GOAL else 'NOT MET'}")
        if args.keep:
            print(f"courses kept in {scratch}")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
