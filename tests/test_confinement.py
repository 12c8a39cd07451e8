"""What a worker may not touch: the files outside its scratch folder, other processes (the
grader above all), new processes through any door, and the thread count that would
deadlock it. Each attack is a submission graded for real."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from graders import landlock, worker

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
F_BODY = "    return torch.sin(x) * torch.exp(-x)\n"


def with_f(body: str, prelude: str = "") -> str:
    assert F_BODY in REFERENCE
    return prelude + REFERENCE.replace(F_BODY, body + F_BODY)


@pytest.mark.skipif(landlock.abi_version() < 1, reason="this kernel has no Landlock")
def test_a_submission_cannot_rewrite_files_outside_its_scratch_folder(grade, tmp_path: Path) -> None:
    victim = tmp_path / "victim.py"
    victim.write_text("original\n")
    body = f"    open({str(victim)!r}, 'w').write('poisoned')\n"
    graded = grade({SLUG: with_f(body)}, "-k", "f_on_lesson_grid")
    assert victim.read_text() == "original\n"
    assert "Permission denied" in graded.checks(SLUG)["f_on_lesson_grid"]["message"]


def test_a_submission_may_write_in_its_own_working_folder(grade) -> None:
    body = "    open('notes.txt', 'w').write('mine')\n"
    graded = grade({SLUG: with_f(body)}, "-k", "f_on_lesson_grid")
    assert graded.failed(SLUG) == set()


def test_a_submission_cannot_signal_the_grader(grade) -> None:
    body = "    import os, signal\n    os.kill(os.getppid(), signal.SIGINT)\n"
    graded = grade({SLUG: with_f(body)}, "-k", "f_on_lesson_grid")
    assert graded.result["complete"] is True
    assert "Operation not permitted" in graded.checks(SLUG)["f_on_lesson_grid"]["message"]


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the 32-bit system call door exists on x86_64")
def test_the_32_bit_system_call_door_is_closed(grade) -> None:
    body = ("    import ctypes, mmap, os\n"
            "    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
            "    page.write(bytes([0xB8, 2, 0, 0, 0, 0xCD, 0x80, 0xC3]))  # i386 fork through int 0x80\n"
            "    pid = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()\n"
            "    if pid == 0:\n        os._exit(0)\n"
            "    if pid > 0:\n        raise RuntimeError('forked')\n")
    graded = grade({SLUG: with_f(body)}, "-k", "f_on_lesson_grid")
    assert graded.failed(SLUG) == set()  # the fork failed (-1), so f went on and answered right


def test_more_threads_asked_by_a_right_answer_cost_nothing(grade) -> None:
    prelude = "import torch\ntorch.set_num_threads(2)\n"
    big = ("    big = torch.randn(300, 300)\n    (big @ big).sum()\n")
    graded = grade({SLUG: with_f(big, prelude)}, "--call-timeout", "5")
    assert graded.failed(SLUG) == set()


def test_without_landlock_a_submission_still_cannot_open_the_graders_memory(grade, monkeypatch) -> None:
    # As on a kernel without Landlock (or a container that hides it): /proc/<grader>/mem would
    # let a worker running as the grader's user, root above all, rewrite the grader's verdicts.
    monkeypatch.setattr(worker, "restrict_writes", lambda *args, **kwargs: False)
    body = "    import os\n    open(f'/proc/{os.getppid()}/mem', 'r+b')\n"
    graded = grade({SLUG: with_f(body)}, "-k", "f_on_lesson_grid")
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert "PermissionError" in message, message


def test_the_grader_stops_being_dumpable_and_a_worker_gives_up_ptrace() -> None:
    # The half that protects a grader run by an ordinary user (no capabilities to drop) is
    # the grader not being dumpable; the test above, run as root here, proves the other half.
    code = ("import ctypes\n"
            "from graders import memory_guard\n"
            "assert memory_guard.protect_this_process()\n"
            "assert memory_guard.drop_ptrace_capability()\n"
            "effective = int(next(l for l in open('/proc/self/status') if l.startswith('CapEff')).split()[1], 16)\n"
            "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0), effective >> 19 & 1)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.split() == ["0", "0"], done.stdout + done.stderr  # PR_GET_DUMPABLE, CAP_SYS_PTRACE
