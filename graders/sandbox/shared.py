"""One worker for all of a submission's exercises: each module loaded in turn, on a clean baseline.

A worker per exercise cost a fork, a sandbox set-up, an exit and a few thousand pages copied
on write: about 60 ms of CPU each, 14 times per student, more than most students' code
costs. So a session gives every exercise of a submission's folder a `Lease` on one
`SubmissionWorker`. The lease loads its module into the worker (which first undoes what the
modules before changed: baseline.py) and sends its requests there, named by module.

A module that leaves what cannot be undone in place (a thread still running, a lowered
resource limit) makes the next module load in a fresh worker. Only the exercise whose code
breaks the worker pays for it: a timeout or a crash kills the
worker, that exercise's later checks and every later exercise get a fresh one, as before.
Should two exercises' checks interleave, a lease whose module is no longer the worker's
loads it again before its request, so each request still sees only its own module.

In a student's own runs a lease also sends ahead the requests its module's checks made in the
run before (graders/engine/request_plans.py), so that the worker computes while the grader
judges: see `Lease`.
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path

from graders.sandbox.process import Budget, Outcome, Settings, Worker
from graders.sandbox.wire import pack

# Requests sent ahead and not yet answered: at most this share of the socket's buffer (~200 KiB on Linux), each one
# counted with AHEAD_OVERHEAD more bytes than its own for the kernel's bookkeeping (~770 bytes a write, measured;
# a request goes in a write of its own at worst), so that no write ever waits for the worker to read.
AHEAD_SHARE = 2
AHEAD_OVERHEAD = 1024


class SubmissionWorker:
    """The worker of one submission folder, replaced when it dies."""

    def __init__(self, code_folder: Path, budget: Budget, settings: Settings,
                 plans: dict[str, list[bytes]] | None = None) -> None:
        self.code_folder = code_folder
        self.budget = budget
        self.settings = settings
        self.plans = plans or {}  # module name -> the requests its checks made in the run before (Lease)
        self.asked: dict[str, list[bytes]] = {}  # module name -> the requests its checks made in this run
        self.warm_ups: list[str] = []  # every exercise's, so that the zygote runs them all before the fork
        self.worker: Worker | None = None
        self.holder: Lease | None = None  # whose module the worker holds now

    def needs(self, warm_up: str | None) -> None:
        """Add an exercise's warm-up (a driver module's "module:function") to what the zygote runs
        before it forks the next worker."""
        if warm_up and warm_up not in self.warm_ups:
            self.warm_ups.append(warm_up)

    def lease(self, module_path: Path) -> "Lease":
        return Lease(self, module_path)

    def prestart(self) -> None:
        """Fork the worker now, so that its set-up overlaps with grading."""
        if self.worker is None or not self.worker.alive:
            self.worker = Worker(self.code_folder, self.budget, self.settings, tuple(self.warm_ups))
            self.worker.spawn()

    def started(self) -> Worker | Outcome:
        """The live, confined worker; or what went wrong in setting one up."""
        if self.worker is None or not self.worker.alive:
            self.worker = None
            self.prestart()
        assert self.worker is not None
        outcome = self.worker.start()
        return self.worker if outcome.status == "ready" else outcome

    def settle(self) -> None:
        """Before another module is loaded: the module loaded now takes the answers it had sent ahead for."""
        if self.holder is not None:
            self.holder.settle()

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
        self.holder = None


class Lease:
    """One exercise module's use of its submission's worker: the backend its `Student` holds.

    With a plan (the requests this module's checks made in the run before, in order), the lease sends
    them ahead, a share of the socket's buffer at a time, once the module is loaded: the worker computes the
    next answers while the grader judges the last. A request the checks make is then taken from the
    front of what was sent ahead when it is the same bytes. The first one that is not ends the plan:
    what went ahead may have changed the module's state, so a fresh worker loads the module and is
    asked again, in order, what the checks asked of it so far; from there, each request waits for its
    answer, as without a plan. Either way each answer is the one its request gets after exactly the
    checks' own earlier requests: a plan changes when the worker computes, never what.
    """

    def __init__(self, shared: SubmissionWorker, module_path: Path) -> None:
        self.shared = shared
        self.module_path = module_path
        self.worker: Worker | None = None
        self.confinement = None  # what the worker reported before any student code ran
        # Packed requests, in order, consumed from the front: from the first this run has not asked yet (a lease
        # made after its module's worker died takes up where the last one was).
        self.plan = list(shared.plans.get(module_path.stem, ()))[len(shared.asked.get(module_path.stem, ())):]
        self.ahead: deque[tuple[bytes, int]] = deque()  # (request, number) sent ahead, not yet taken
        self.ahead_bytes = 0
        self.asked: list[bytes] = []  # what the checks asked of this worker since it loaded the module
        self.replay_seconds = 0.0  # spent asking a fresh worker again what the checks had asked (`_off_plan`)

    @property
    def alive(self) -> bool:
        return self.worker is not None and self.worker.alive

    def spawn(self) -> None:
        self.shared.prestart()

    def start(self) -> Outcome:
        self.shared.settle()
        worker = self.shared.started()
        if isinstance(worker, Outcome):
            return worker
        self.confinement = worker.confinement
        return self._load(worker)

    def request(self, message: dict, seconds: float | None = None) -> Outcome:
        assert self.worker is not None, "start() the lease first"
        limit = self.shared.budget.call_seconds if seconds is None else seconds
        body = pack({**message, "module": self.module_path.stem})
        self.shared.asked.setdefault(self.module_path.stem, []).append(body)  # the next run's plan
        if self.shared.holder is not self and self.worker.alive:  # another exercise's module was loaded since
            self.shared.settle()
            # What the other module had sent ahead may have ended the worker: then this one loads in a fresh one.
            worker = self.worker if self.worker.alive else self.shared.started()
            if isinstance(worker, Outcome):
                return worker
            reloaded = self._load(worker)
            if reloaded.status != "ready":
                return Outcome("broken", detail=f"the module could not be loaded again ({reloaded.status})")
        if self.ahead and self.ahead[0][0] != body:
            started = time.monotonic()
            failed = self._off_plan()
            self.replay_seconds += time.monotonic() - started
            if failed is not None:
                return failed
        if self.ahead:
            _, number = self.ahead.popleft()
            self.ahead_bytes -= len(body) + AHEAD_OVERHEAD
            outcome = self.worker.receive(number, limit)
            if outcome.status in ("returned", "raised") and outcome.seconds > limit:
                # It began before the checks asked for it, so its wait was short; but the call itself ran longer than
                # a request is given, and a run without a plan would have stopped it. (The worker's own measure: a
                # student's run only, which the student's own machine decides anyway.)
                self.worker.stop()
                outcome = Outcome("timeout", seconds=outcome.seconds, written=outcome.written, replied=True)
        else:
            sent = self.worker.send([body], limit)
            outcome = sent if isinstance(sent, Outcome) else self.worker.receive(sent[0], limit)
        self.asked.append(body)
        if self.worker.alive:
            self._send_ahead()
        else:  # what went ahead died with it; a fresh worker is asked request by request
            self._drop_plan()
        return outcome

    def stop(self) -> None:
        """This exercise is done with the worker; the next one loads its module over it."""
        if self.ahead and self.worker is not None:
            # Requests of the last run that this one did not make may be running: the next module gets a fresh worker.
            self.worker.stop()
        self._drop_plan()
        if self.shared.holder is self:
            self.shared.holder = None
        self.worker = None

    def settle(self) -> None:
        """Another module is about to be loaded in this worker: what this one sent ahead must not run on into it,
        nor be waited for in the other exercise's time, so the worker holding it stops (the other gets a fresh
        one)."""
        if self.ahead and self.worker is not None:
            self.worker.stop()
        self._drop_plan()

    def _send_ahead(self) -> None:
        """Top up what went ahead, in one write, once at most half of what may go ahead is still out (fewer,
        larger writes: each one wakes the worker)."""
        assert self.worker is not None
        # What the worker has not read yet must fit in the socket's buffer, so that a write never waits on a
        # worker that itself waits to send its answers: that would hold both until the call's time limit.
        room = self.worker.send_buffer // AHEAD_SHARE
        if not self.plan or self.ahead_bytes > room // 2:
            return
        bodies: list[bytes] = []
        while self.plan and (not self.ahead and not bodies
                             or self.ahead_bytes + len(self.plan[0]) + AHEAD_OVERHEAD <= room):
            bodies.append(self.plan.pop(0))
            self.ahead_bytes += len(bodies[-1]) + AHEAD_OVERHEAD
        sent = self.worker.send(bodies)
        if isinstance(sent, Outcome):  # the worker is gone: the next request finds out
            self._drop_plan()
            return
        self.ahead.extend(zip(bodies, sent))

    def _drop_plan(self) -> None:
        self.plan, self.ahead, self.ahead_bytes = [], deque(), 0

    def _off_plan(self) -> Outcome | None:
        """The checks asked what the plan did not foresee: a fresh worker, with the module loaded and asked
        again what the checks asked so far, as if nothing had been sent ahead. An outcome when that fails."""
        assert self.worker is not None
        asked = self.asked
        self.worker.stop()
        self._drop_plan()
        fresh = self.shared.started()
        if isinstance(fresh, Outcome):
            return fresh
        self.confinement = fresh.confinement
        loaded = self._load(fresh)
        if loaded.status != "ready":
            return Outcome("broken", detail=f"the module could not be loaded again ({loaded.status})")
        for body in asked:  # their answers were judged already; only what they did to the module matters
            sent = fresh.send([body])
            again = sent if isinstance(sent, Outcome) else fresh.receive(sent[0])
            if not fresh.alive:
                return Outcome("broken", detail=f"the calls made before this one were made again in a fresh process "
                                                f"(to bring the module back to the state they left), and one of them "
                                                f"did not answer this time ({again.status}{': ' if again.detail else ''}"
                                                f"{again.detail})")
            self.asked.append(body)
        return None

    def _load(self, worker: Worker) -> Outcome:
        outcome = worker.load(self.module_path)
        if outcome.status == "broken" and worker.alive:
            # An earlier module left what only a new process undoes (a thread, a lowered limit).
            worker.stop()
            fresh = self.shared.started()
            if isinstance(fresh, Outcome):
                return fresh
            worker, self.confinement = fresh, fresh.confinement
            outcome = worker.load(self.module_path)
        ready = outcome.status == "ready"
        self.worker = worker if ready else None
        self.shared.holder = self if ready else None
        self.asked = []
        if ready:
            self._send_ahead()
        return outcome
