"""Grading processes that each grade one submission at a time, as many as there are cores.

The parent imports torch and pytest once, then forks the grading processes; each runs the
real pytest plugin on one submission after another (`pytest.main`, in process), with its
own zygote and sandboxed workers, and the expected values the batch stored once. A grading
process never runs student code, so a hostile submission cannot stop it; still, the parent
gives each submission a deadline and replaces a grading process that misses it or dies,
so a batch always ends, with every student graded or given a reason.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from graders.sandbox.zygote import ZYGOTE

_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Job:
    """One submission to grade: its answers are in `folder/<lesson>/<slug>.py`."""

    student: str
    folder: Path
    result: Path  # where the plugin writes the submission's JSON result
    plots: Path


@dataclass
class _Process:
    pid: int
    sock: socket.socket
    job: Job | None = None
    started: float = 0.0


# (job, result or None, why there is none, whether a rerun should grade it: the machine failed, not the student)
Done = Callable[[Job, "dict | None", str, bool], None]
FORK_PATIENCE = 60.0  # seconds the pool waits for the machine to allow a grading process before giving up
WAITING = ("graders grade: the machine refuses a new grading process ({error}); waiting up to {seconds:g} s for it "
           "to free some")
CANNOT_FORK = ("no grading process could be started for {seconds:g} s ({error}): the machine is out of processes "
               "or memory; not graded now, a rerun grades it")


class Pool:
    """`jobs` grading processes running `pytest.main(targets + options)` on each submission."""

    def __init__(self, jobs: int, targets: list[str], options: list[str], deadline: float, logs: Path) -> None:
        self.size = max(1, jobs)
        self.targets = targets
        self.options = options
        self.deadline = deadline  # seconds one submission may take in a grading process, start-up included
        self.logs = logs
        self.processes: list[_Process] = []
        self.started = 0
        self.refusal: str | None = None  # why the last grading process could not be started

    def run(self, jobs: Iterable[Job], done: Done) -> None:
        """Grade every job; `done` is called in the parent once per job, in the order they finish."""
        queue = list(jobs)
        tries: dict[str, int] = {}
        self.logs.mkdir(parents=True, exist_ok=True)
        refused_since: float | None = None  # when the machine first refused a new grading process
        try:
            while queue or any(p.job for p in self.processes):
                while queue and (idle := self._idle()) is not None:
                    self._give(idle, queue.pop(0))
                    refused_since = None
                if queue and not self.processes and self.refusal is not None:
                    # No grading process at all, and none can be started (EAGAIN, ENOMEM): wait for the
                    # machine to free some, then give the rest back to the next run rather than fail them.
                    if refused_since is None:
                        print(WAITING.format(error=self.refusal, seconds=FORK_PATIENCE), flush=True)
                    refused_since = refused_since or time.monotonic()
                    if time.monotonic() - refused_since > FORK_PATIENCE:
                        why = CANNOT_FORK.format(seconds=FORK_PATIENCE, error=self.refusal)
                        for job in queue:
                            done(job, None, why, True)
                        queue.clear()
                    time.sleep(0.5)
                self._wait(done, queue, tries)
        finally:
            self.close()

    def close(self) -> None:
        """End every grading process: told by its closed socket, each stops its zygote, which removes its
        workers' cgroups; one that has not ended within a few seconds is killed with its group."""
        for process in self.processes:
            with contextlib.suppress(OSError):
                process.sock.close()
        deadline = time.monotonic() + 5.0
        for process in self.processes:
            while time.monotonic() < deadline:
                with contextlib.suppress(ChildProcessError):
                    if os.waitpid(process.pid, os.WNOHANG)[0]:
                        break
                time.sleep(0.02)
            else:
                self._stop(process)
        self.processes.clear()

    # ---------------------------------------------------------------- parent

    def _idle(self) -> _Process | None:
        for process in self.processes:
            if process.job is None:
                return process
        if len(self.processes) < self.size:
            try:
                process = self._fork()
            except OSError as error:  # EAGAIN (no PID, a thread limit), ENOMEM, EMFILE: the machine, not a student
                self.refusal = f"{type(error).__name__}: {error.strerror or error}"
                return None
            self.refusal = None
            self.processes.append(process)
            return process
        return None

    def _give(self, process: _Process, job: Job) -> None:
        process.job, process.started = job, time.monotonic()
        message = {"student": job.student, "folder": str(job.folder), "result": str(job.result),
                   "plots": str(job.plots)}
        try:
            process.sock.sendall((json.dumps(message) + "\n").encode())
        except OSError:
            pass  # found dead below, and the job retried

    def _wait(self, done: Done, queue: list[Job], tries: dict[str, int]) -> None:
        busy = [p for p in self.processes if p.job is not None]
        if not busy:
            return
        soonest = min(p.started + self.deadline for p in busy)
        ready = select.select([p.sock for p in busy], [], [], max(0.0, soonest - time.monotonic()))[0]
        for process in busy:
            job = process.job
            assert job is not None
            if process.sock in ready:
                line = _read_line(process.sock)
                if line is not None:
                    process.job = None
                    done(job, _result(job), "" if job.result.is_file() else f"the grading process said {line}", False)
                    continue
                self._replace(process)
                self._retry_or_give_up(job, done, queue, tries, "the grading process ended unexpectedly")
            elif time.monotonic() > process.started + self.deadline:
                self._replace(process)
                done(job, None, f"grading took longer than {self.deadline:g} s in all and was stopped", False)

    def _retry_or_give_up(self, job: Job, done: Done, queue: list[Job], tries: dict[str, int], why: str) -> None:
        tries[job.student] = tries.get(job.student, 0) + 1
        if tries[job.student] < 2:
            queue.insert(0, job)  # a fresh grading process tries once more
        else:
            done(job, None, why, False)

    def _replace(self, process: _Process) -> None:
        self._stop(process)
        self.processes.remove(process)

    def _stop(self, process: _Process) -> None:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)  # the grading process, its zygote and workers
        with contextlib.suppress(OSError):
            process.sock.close()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(process.pid, 0)

    def _fork(self) -> _Process:
        log = self.logs / f"grader-{self.started + 1}.log"
        # This process holds every answer the batch read, so a grading process forked from it may not
        # fork its zygote: the batch's clean zygote lends it one (graders/sandbox/zygote.py).
        lent = ZYGOTE.lend()
        ours, theirs = socket.socketpair()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:
            for end in (ours, theirs, lent):
                end.close()
            raise
        self.started += 1
        if pid == 0:
            ours.close()
            ZYGOTE.adopt(lent)
            _grade_forever(theirs, self.targets, self.options, log)
        theirs.close()
        lent.close()  # the grading process holds it now: no later child may, or its end would never be seen
        return _Process(pid, ours)


def start_child(log: Path, *, truncate: bool = False) -> None:
    """The first steps of a process the batch forks: its own group (the batch stops it with its
    zygote and workers, the terminal's ^C does not reach it), death with the batch even by kill -9,
    no share of the batch's protection from the OOM killer, and its output into `log`."""
    os.setpgid(0, 0)
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    oom_score(0)
    handle = os.open(log, os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if truncate else os.O_APPEND), 0o600)
    os.dup2(handle, 1)
    os.dup2(handle, 2)


def oom_score(adjustment: int) -> None:
    """Set this process's oom_score_adj: -1000 for the batch's parent, which holds the class's results (root
    only may lower it); 0 for what it forks; the workers raise theirs to 1000, the OOM killer's first choice."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write(str(adjustment))
    except OSError:
        pass


def _result(job: Job) -> dict | None:
    try:
        return json.loads(job.result.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _read_line(sock: socket.socket) -> str | None:
    data = b""
    while not data.endswith(b"\n"):
        try:
            chunk = sock.recv(4096)
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return data.decode(errors="replace").strip()


# ---------------------------------------------------------------- a grading process

def _grade_forever(sock: socket.socket, targets: list[str], options: list[str], log: Path) -> None:
    """The life of a grading process: one pytest session per submission, until the parent goes."""
    code = 0
    try:
        start_child(log)
        import pytest
        import torch

        from graders.session import EXIT_ZYGOTE_GONE

        torch.set_num_threads(1)  # as many grading processes as cores: one thread each
        reader = sock.makefile("r", encoding="utf-8")
        for line in reader:
            job = json.loads(line)
            os.chdir(job["folder"])  # messages name the student's files relative to it
            exit_code = pytest.main([*targets, "--submission", job["folder"], "--json", job["result"],
                                     "--plots", job["plots"], *options])
            if exit_code == EXIT_ZYGOTE_GONE:  # its zygote died mid-session: no result, the parent retries
                code = EXIT_ZYGOTE_GONE
                break
            sock.sendall(f"{int(exit_code)}\n".encode())
        ZYGOTE.close()  # os._exit below runs no atexit: stopped here, the zygote removes its workers' cgroups
    except BaseException:  # noqa: BLE001 - the parent sees the socket close and retries
        code = 70
    os._exit(code)
