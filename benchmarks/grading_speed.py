"""How much grading costs beyond importing torch, measured as a ratio in one run.

Times `pytest exercises/ --submission reference` (the whole lesson, every check, real
workers) against `python -c "import torch"`, alternating them so that a noisy machine slows
all alike, and prints the medians and their ratios against two goals: at most GOAL on a usual
run, at most FIRST_RUN_GOAL on the first (issue 45's; issue 26's were 1.5 and 2.0). A student's run keeps
the expected values, drawn inputs and its checks' requests for the next (graders/engine/kept_values.py,
request_plans.py; here in a scratch folder): the goal is judged on such runs, every run after the first;
first runs, each into a folder that keeps nothing yet, and runs that keep nothing
(`--no-expected-cache`) are timed alongside. Then times single runs of a few hostile
submissions, to show what a broken student costs.

    python benchmarks/grading_speed.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from graders.engine import kept_values

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.25  # a student's usual run: the values kept by the run before (issue 45; 1.5 before)
FIRST_RUN_GOAL = 1.5  # a student's first run, which keeps nothing yet (issue 45; 2.0 before)
SLUG = "sin_exp_derivative"
ANALYTIC_BODY = "    return torch.exp(-x) * (torch.cos(x) - torch.sin(x))\n"
HOSTILE = {
    "infinite loop (--call-timeout 2)": "    while True:\n        pass\n",
    "os._exit(0) inside a function": "    import os\n    os._exit(0)\n",
    "memory bomb": "    hoard = []\n    while True:\n        hoard.append(bytearray(10**8))\n",
}


def seconds(command: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    return time.perf_counter() - started


def grade_command(target: str, submission: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "pytest", target, "--submission", str(submission), "-q",
            "-p", "no:cacheprovider", *extra]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of each side (default 7)")
    options = parser.parse_args()

    torch_only = [sys.executable, "-c", "import torch"]
    grading = grade_command("exercises", ROOT / "reference")
    # Python's default, as on a student's machine: the grader's modules are compiled once and read compiled after.
    # (Set, PYTHONDONTWRITEBYTECODE makes every run compile them again; it does not touch torch, installed compiled.)
    base = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    if "PYTHONDONTWRITEBYTECODE" in os.environ:
        print("  PYTHONDONTWRITEBYTECODE is set here: left out of the timed runs (Python's default)", flush=True)
    with tempfile.TemporaryDirectory() as kept, tempfile.TemporaryDirectory() as firsts:
        env = {**base, kept_values.FOLDER_VARIABLE: kept}
        seconds(torch_only, base)  # warm the file cache before timing
        print(f"  the first run, into the folder the usual runs read: grading {seconds(grading, env):.2f} s", flush=True)
        torch_times, kept_times, fresh_times, first_times = [], [], [], []
        for run in range(options.repeat):
            torch_times.append(seconds(torch_only, base))
            kept_times.append(seconds(grading, env))
            fresh_times.append(seconds([*grading, "--no-expected-cache"], env))
            # A first run: into a folder of its own that keeps nothing yet.
            first_times.append(seconds(grading, {**base, kept_values.FOLDER_VARIABLE: f"{firsts}/{run}"}))
            print(f"  run {run + 1}/{options.repeat}: import torch {torch_times[-1]:.2f} s, grading {kept_times[-1]:.2f} s"
                  f" (keeping nothing: {fresh_times[-1]:.2f} s, a first run: {first_times[-1]:.2f} s)", flush=True)
    floor, cost, fresh, first = (statistics.median(t) for t in (torch_times, kept_times, fresh_times, first_times))
    ratio = cost / floor
    print(f"import torch:                 median {floor:.2f} s")
    print(f"grade the reference (lesson): median {cost:.2f} s; keeping nothing: {fresh:.2f} s "
          f"(ratio {fresh / floor:.2f}); the first run: median {first:.2f} s")
    print(f"ratio: {ratio:.2f} (goal: at most {GOAL}) -> {'OK' if ratio <= GOAL else 'OVER'}")
    first_ratio = first / floor
    print(f"first run's ratio: {first_ratio:.2f} (goal: at most {FIRST_RUN_GOAL}) -> "
          f"{'OK' if first_ratio <= FIRST_RUN_GOAL else 'OVER'}")

    reference = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
    with tempfile.TemporaryDirectory() as scratch:
        for name, body in HOSTILE.items():
            folder = Path(scratch) / name.split()[0] / "lesson01"
            folder.mkdir(parents=True)
            (folder / f"{SLUG}.py").write_text(reference.replace(ANALYTIC_BODY, body))
            took = seconds(grade_command(f"exercises/lesson01/{SLUG}.py", folder.parent, "--call-timeout", "2",
                                         "--no-expected-cache"))
            print(f"hostile run, {name}: {took:.2f} s for the whole {SLUG} exercise")


if __name__ == "__main__":
    main()
