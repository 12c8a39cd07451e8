"""The batch's parent survives a machine that runs out of processes or disk: it waits, stores every result it
has, says plainly what it could not do, and a rerun continues. Both run as root, as CI does: a pids
cgroup around the batch takes every spare PID away for a while, and a small tmpfs holds its results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import course_config
from conftest import ROOT, batch_environment

SLUG = "neuron_chain_rule"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
POINTS = course_config.LESSON_01.exercise(SLUG).points
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (CI runs as root): a pids cgroup, a tmpfs")


def _class(root: Path, names: list[str]) -> None:
    for name in names:
        (root / name / "lesson01").mkdir(parents=True, exist_ok=True)
        (root / name / "lesson01" / f"{SLUG}.py").write_text(REFERENCE)


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (out / "students").glob("*.json")}


def _pids_group() -> Path | None:
    for line in Path("/proc/self/mounts").read_text().splitlines():
        device, mount, kind, options = line.split()[:4]
        if kind == "cgroup" and "pids" in options.split(","):
            own = next(l.split(":", 2)[2] for l in Path("/proc/self/cgroup").read_text().splitlines()
                       if "pids" in l.split(":")[1].split(","))
            return Path(mount) / own.lstrip("/") / f"graders-test-{os.getpid()}"
    return None


@AS_ROOT
@pytest.mark.skipif(_pids_group() is None, reason="no cgroup v1 pids hierarchy here")
def test_a_batch_waits_out_a_machine_with_no_process_to_spare(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    _class(root, ["ann", "ben", "cat", "dan"])
    group = _pids_group()
    assert group is not None
    group.mkdir()
    try:
        command = [sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "2"]
        # The batch starts inside the group: everything it forks (its zygotes' workers too) counts there.
        run = subprocess.Popen(["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh", *command],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                               env={**os.environ, "GRADERS_CACHE_DIR": "off"})  # the reference is graded first
        assert run.stdout is not None
        lines = []
        for line in run.stdout:  # the reference is graded; now the grading processes are about to start
            lines.append(line)
            if "stored in" in line:
                break
        # No PID to spare for a while, as when a runaway process takes every free one.
        (group / "pids.max").write_text((group / "pids.current").read_text())
        threading.Timer(8.0, lambda: (group / "pids.max").write_text("max")).start()
        rest, _ = run.communicate(timeout=1200)
        output = "".join(lines) + rest
        refused = int((group / "pids.events").read_text().split()[1])
    finally:
        (group / "pids.max").write_text("max")
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.2)
    left = [p.name for p in group.glob("graders-*")] if group.exists() else []
    assert not left, left  # every zygote of the batch removed the groups it made for its workers
    # The machine did refuse new processes while the batch ran (the zygotes' forks of workers, Dask's own
    # threads): each waited, and no student paid for it.
    assert refused > 0, output[-3000:]
    assert run.returncode == 0 and "Traceback" not in output, output[-3000:]
    assert {student: record["score"] for student, record in _records(out).items()} == {
        student: pytest.approx(POINTS) for student in ("ann", "ben", "cat", "dan")}


@AS_ROOT
def test_a_full_disk_keeps_every_stored_result_says_who_is_missing_and_a_rerun_grades_them(tmp_path: Path) -> None:
    root, out = tmp_path / "class", tmp_path / "out"
    out.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "graders-test-out", str(out)], check=True)
    try:
        _class(root, ["ann", "ben"])
        first = _grade(root, out)
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
        _class(root, ["cat", "dan", "eve"])
        ballast = out / "ballast"
        free = os.statvfs(out).f_bavail * os.statvfs(out).f_frsize
        ballast.write_bytes(b"\0" * (free - 8 * 1024))  # the disk fills up, as when a scratch folder ran over
        second = _grade(root, out)
        output = second.stdout + second.stderr
        assert second.returncode == 1, output[-3000:]
        assert "Traceback" not in output, output[-3000:]
        assert "run the same command again" in output, output[-3000:]
        stored = _records(out)
        assert {"ann", "ben"} <= set(stored) and stored["ann"]["score"] == pytest.approx(POINTS)
        missing = {"cat", "dan", "eve"} - set(stored)
        assert missing and all(f"{student} was not graded by this run" in output for student in missing), output
        ballast.unlink()
        third = _grade(root, out)
        assert third.returncode == 0, third.stdout[-3000:] + third.stderr[-3000:]
        assert f"{5 - len(missing)} unchanged since the last run, {len(missing)} to grade" in third.stdout
        assert {s: r["score"] for s, r in _records(out).items()} == {s: pytest.approx(POINTS)
                                                                   for s in ("ann", "ben", "cat", "dan", "eve")}
    finally:
        subprocess.run(["umount", "-l", str(out)], check=False)


def _grade(root: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "2"],
                          capture_output=True, text=True, timeout=1200, cwd=ROOT, env=batch_environment())
