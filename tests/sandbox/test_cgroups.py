"""Every resource has a wall (graders/sandbox/cgroups.py, and the rlimits a worker falls back to without one): what
a worker can take of memory, tasks, CPU and disk, tried as a student would.

Each attack is f of sin_exp_derivative (the rest of the module the reference's): it takes as much as
it can and reports, through the error it raises, how much it got. The walls: memfd_create refused
everywhere; as root, a cgroup per worker (memory that counts everything, pids.max, a CPU quota), a
tmpfs scratch folder of its own, and the OOM killer's first choice. Then a class graded by the batch
with those attackers among honest students: every honest one keeps full marks, the batch ends, and
nothing is left behind.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import course_config
from conftest import ROOT, STUBS, batch_environment
from process_tree import confined, family_once_a_worker_runs
from graders.sandbox import cgroups

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
F_BODY = "    return torch.sin(x) * torch.exp(-x)\n"
LIMITS = course_config.LIMITS
EXERCISE = course_config.LESSON_01.exercise(SLUG)
# An attacking f costs its own check and, since autograd_derivative keeps its own formula here, the check
# that autograd_derivative differentiates f: the rest of the module earns the rest.
HONEST_PART = EXERCISE.points - sum(EXERCISE.check(c).points for c in ("f_on_lesson_grid",
                                                                      "autograd_derivative_uses_autograd"))
# Every hoarder below opens files or imports os or threading: code the grader does not follow, so its remaining
# check of how is not credited either (graders/engine/source_evidence.py).
HONEST_UNFOLLOWED_PART = HONEST_PART - EXERCISE.check("analytic_derivative_without_autograd").points
ROOT_WITH_CGROUPS = pytest.mark.skipif(os.geteuid() != 0
                                       or isinstance(cgroups.Groups.locate(os.getpid()), cgroups.NoCgroups),
                                       reason="cgroups and the tmpfs scratch need root and the memory, pids and "
                                              "cpu controllers (CI runs as root)")


def attacking_f(body: str) -> str:
    """The reference with f's body replaced; autograd_derivative keeps its own copy of f."""
    assert F_BODY in REFERENCE
    source = REFERENCE.replace(F_BODY, "".join(f"    {line}\n" for line in body.strip("\n").splitlines()), 1)
    return source.replace("    f(leaf).sum().backward()\n",
                          "    (torch.sin(leaf) * torch.exp(-leaf)).sum().backward()\n")


MEMFD = """
import os
try:
    os.memfd_create("hoard")
except OSError as error:
    raise RuntimeError(f"REFUSED {error.errno}")
raise RuntimeError("MEMFD MADE")
"""
FILL_SCRATCH = """
written = 0
try:
    while written < 4096:  # files of 8 MiB each: no single file reaches the 16 MiB a file may have
        with open(f"fill{written // 8}.bin", "ab") as handle:
            handle.write(b"x" * 2**20)
        written += 1
except OSError as error:
    raise RuntimeError(f"WROTE {written} MiB then errno {error.errno}")
raise RuntimeError(f"WROTE {written} MiB")
"""
THREAD_BOMB = """
import threading, time
started = 0
try:
    while started < 5000:
        threading.Thread(target=time.sleep, args=(3,), daemon=True).start()
        started += 1
except RuntimeError:
    pass
raise RuntimeError(f"THREADS {started}")
"""
CPU_HOG = """
import threading, time
def spin(until):
    while time.monotonic() < until:
        pass
until = time.monotonic() + 2.0
cpu, wall = time.process_time(), time.monotonic()
threads = [threading.Thread(target=spin, args=(until,)) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
raise RuntimeError(f"CPU {(time.process_time() - cpu) / (time.monotonic() - wall):.2f}")
"""


def _report(graded, word: str) -> str:
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    match = re.search(rf"{word} [^\n]*", message)
    assert match is not None, message
    return match.group(0)


def test_memfd_create_is_refused(grade) -> None:
    graded = grade({SLUG: attacking_f(MEMFD)}, "-k", "f_on_lesson_grid")
    assert _report(graded, "REFUSED")  # the pages of a memfd would count against no rlimit
    assert graded.failed(SLUG) == {"f_on_lesson_grid"}


@ROOT_WITH_CGROUPS
def test_the_scratch_folder_is_a_tmpfs_of_its_own_size(grade) -> None:
    graded = grade({SLUG: attacking_f(FILL_SCRATCH)}, "-k", "f_on_lesson_grid")
    written, errno = map(int, re.findall(r"\d+", _report(graded, "WROTE")))
    assert written <= int(LIMITS.scratch_mb.value) and errno == 28  # ENOSPC, on its own tmpfs only


@ROOT_WITH_CGROUPS
def test_threads_stop_at_the_workers_task_limit(grade) -> None:
    graded = grade({SLUG: attacking_f(THREAD_BOMB)}, "-k", "f_on_lesson_grid")
    started = int(re.findall(r"\d+", _report(graded, "THREADS"))[0])
    assert 0 < started < int(LIMITS.tasks.value)


@pytest.mark.skipif(os.geteuid() != 0, reason="a user of its own for each worker needs root (CI runs as root)")
def test_without_cgroups_threads_stop_at_the_task_limit_of_a_user_of_its_own(grade) -> None:
    # Where no cgroup can be made (a container whose cgroup file system is read-only), each worker runs as
    # a user of its own, whose RLIMIT_NPROC the kernel counts for that worker alone.
    graded = grade({SLUG: attacking_f(THREAD_BOMB)}, "-k", "f_on_lesson_grid", "--sandbox-without", "cgroups")
    started = int(re.findall(r"\d+", _report(graded, "THREADS"))[0])
    assert 0 < started < int(LIMITS.tasks.value)
    assert "RLIMIT_NPROC 64 for a user of its own" in graded.result["confinement"]


@ROOT_WITH_CGROUPS
def test_busy_threads_get_one_core_at_most(grade) -> None:
    graded = grade({SLUG: attacking_f(CPU_HOG)}, "-k", "f_on_lesson_grid")
    cores = float(re.findall(r"[\d.]+", _report(graded, "CPU"))[0])
    assert cores <= float(LIMITS.cpus.value) * 1.15  # eight spinning threads, one core's worth of time


@ROOT_WITH_CGROUPS
def test_a_workers_cgroup_and_scratch_are_its_own_and_it_goes_first(tmp_path: Path) -> None:
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    (folder / f"{SLUG}.py").write_text(attacking_f("import time\ntime.sleep(60)\nreturn x"))
    grader = subprocess.Popen([sys.executable, "-m", "pytest", str(STUBS / "lesson01" / f"{SLUG}.py"),
                               "--submission", str(folder.parent), "-p", "no:cacheprovider", "-q", "-k",
                               "f_on_lesson_grid"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        worker = next(pid for pid in family_once_a_worker_runs(grader.pid) if confined(pid))
        groups = dict(line.split(":", 2)[1:] for line in Path(f"/proc/{worker}/cgroup").read_text().splitlines())
        memory = Path("/sys/fs/cgroup/memory") / groups["memory"].lstrip("/")
        assert memory.name.startswith("w") and memory.parent.name.startswith("graders-")
        assert int((memory / "memory.limit_in_bytes").read_text()) == int(LIMITS.memory_mb.value) * 2**20
        pids = Path("/sys/fs/cgroup/pids") / groups["pids"].lstrip("/")
        assert int((pids / "pids.max").read_text()) == int(LIMITS.tasks.value)
        cpu = Path("/sys/fs/cgroup/cpu") / next(v for k, v in groups.items() if "cpu" in k.split(",")).lstrip("/")
        assert int((cpu / "cpu.cfs_quota_us").read_text()) == int(float(LIMITS.cpus.value) * 100_000)
        assert Path(f"/proc/{worker}/oom_score_adj").read_text().strip() == "1000"
        mounts = Path(f"/proc/{worker}/mountinfo").read_text()
        assert re.search(rf"tmpfs graders-scratch .*size={int(LIMITS.scratch_mb.value) * 1024}k", mounts), mounts
    finally:
        grader.send_signal(signal.SIGINT)  # as a student's Ctrl-C: the run ends, and its zygote cleans up
        grader.wait(timeout=60)
    deadline = time.monotonic() + 10
    while memory.parent.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not memory.parent.exists()  # the zygote removed its workers' groups, and its own


def test_a_class_with_every_kind_of_hoarder_is_graded_whole(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    students = {"a-honest": REFERENCE, "b-memfd": attacking_f(MEMFD), "c-fills-scratch": attacking_f(FILL_SCRATCH),
                "d-thread-bomb": attacking_f(THREAD_BOMB), "e-cpu-hog": attacking_f(CPU_HOG), "z-honest": REFERENCE}
    for student, source in students.items():
        (root / student / "lesson01").mkdir(parents=True)
        (root / student / "lesson01" / f"{SLUG}.py").write_text(source)
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "2"],
                         capture_output=True, text=True, timeout=1800, cwd=ROOT, env=batch_environment())
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    records = {p.stem: json.loads(p.read_text()) for p in (out / "students").glob("*.json")}
    assert set(records) == set(students)
    points = course_config.LESSON_01.exercise(SLUG).points
    for student in ("a-honest", "z-honest"):
        assert records[student]["score"] == pytest.approx(points), student
    for student in students.keys() - {"a-honest", "z-honest"}:
        assert records[student]["score"] == pytest.approx(HONEST_UNFOLLOWED_PART), student
        assert records[student]["error"] == ""
    assert {"grades.csv", "report.html"} <= {p.name for p in out.iterdir()}
    zygotes = [p for p in Path("/sys/fs/cgroup/pids").glob("graders-*") if p.name.removeprefix("graders-").isdigit()]
    leftovers = [p for p in zygotes if not _running(p)]
    assert not leftovers, leftovers  # every zygote of the batch removed its groups


def _running(group: Path) -> bool:
    """Whether the zygote a cgroup folder belongs to still runs (another run's, on a shared machine)."""
    pid = int(group.name.removeprefix("graders-"))
    return Path(f"/proc/{pid}").exists()
