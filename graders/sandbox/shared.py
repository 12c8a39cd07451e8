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

In a student's own runs the worker is also sent, ahead of the checks, the loads and requests of
the run before (ahead.py), so that it computes while the grader judges.
"""

from __future__ import annotations

import time
from pathlib import Path

from graders.sandbox.ahead import LOAD, RunAhead
from graders.sandbox.budget import Budget
from graders.sandbox.confinement import Confinement
from graders.sandbox.outcome import Fact, Kind, Outcome, Stage, Status
from graders.sandbox.process import Settings, Worker
from graders.sandbox.wire import pack


class SubmissionWorker:
    """The worker of one submission folder, replaced when it dies."""

    def __init__(self, code_folder: Path, budget: Budget, settings: Settings,
                 plans: dict[str, list[bytes]] | None = None) -> None:
        self.code_folder = code_folder
        self.budget = budget
        self.settings = settings
        self.plans = plans or {}  # module name -> the requests its checks made in the run before, in the run's order
        self.ahead = RunAhead(self.plans, code_folder)
        self.asked: dict[str, list[bytes]] = {}  # module name -> the requests its checks made in this run, in order
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
        return self.worker if outcome.status == Status.READY else outcome

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
        self.holder = None


class Lease:
    """One exercise module's use of its submission's worker: the backend its `Student` holds.

    Where the run before's plan holds (ahead.py), its load and requests are answers that went ahead.
    At the first request it does not foresee, a worker that was sent anything not taken is replaced by
    a fresh one, which loads the module and is asked again, in order, what the checks asked of it so far,
    so that nothing that went ahead is in the module's state; from there each request waits for its
    answer. Either way each answer is the one its request gets after exactly the checks' own earlier
    requests, and a call or a load is judged by its own time against its limit.
    """

    shares_the_graders_process = False  # the grader may compute beside its calls (engine/student.py, Meanwhile)

    def __init__(self, shared: SubmissionWorker, module_path: Path) -> None:
        self.shared = shared
        self.module_path = module_path
        self.name = module_path.stem
        self.worker: Worker | None = None
        self.confinement: Confinement | None = None  # what the worker reported before any student code ran
        self.asked: list[bytes] = []  # what the checks asked of this worker since it loaded the module
        self.replay_seconds = 0.0  # spent asking a fresh worker again what the checks had asked (`_off_plan`)

    @property
    def alive(self) -> bool:
        return self.worker is not None and self.worker.alive

    def spawn(self) -> None:
        self.shared.prestart()

    def start(self) -> Outcome:
        worker = self.shared.started()
        if isinstance(worker, Outcome):
            return worker
        self.shared.asked.setdefault(self.name, [])  # the module's place in the next run's plan
        self.confinement = worker.confinement
        number = self.shared.ahead.take(worker, self.name, LOAD)
        if number is None:
            worker = worker if worker.alive else self.shared.started()  # the plan's worker stopped: a fresh one
            if isinstance(worker, Outcome):
                return worker
            return self._load(worker)
        limit = self.shared.budget.import_seconds
        outcome = _judged_by_its_own_time(worker, worker.receive(number, limit, during=Stage.IMPORT), limit)
        if outcome.status == Status.BROKEN and worker.alive:
            # An earlier module left what only a new process undoes: this one loads in a fresh worker, its plan kept.
            self.shared.ahead.abandon(self.name, keep_requests=True)
            worker.stop()
            fresh = self.shared.started()
            return fresh if isinstance(fresh, Outcome) else self._load(fresh)
        self._hold(worker if outcome.status == Status.READY else None)
        return outcome

    def request(self, message: dict, seconds: float | None = None) -> Outcome:
        assert self.worker is not None, "start() the lease first"
        limit = self.shared.budget.call_seconds if seconds is None else seconds
        body = pack({**message, "module": self.name})
        self.shared.asked.setdefault(self.name, []).append(body)  # the next run's plan
        if self.shared.holder is not self and self.worker.alive:  # another exercise's module was loaded since
            self.shared.ahead.abandon(self.name)
            worker = self.worker if self.worker.alive else self.shared.started()
            if isinstance(worker, Outcome):
                return worker
            reloaded = self._load(worker)
            if reloaded.status != Status.READY:
                return Outcome(Status.BROKEN, fact=Fact(Kind.NOT_LOADED_AGAIN, status=reloaded.status))
        number = self.shared.ahead.take(self.worker, self.name, body)
        if number is None and not self.worker.alive:  # what went ahead may have run: ask a fresh worker again
            started = time.monotonic()
            failed = self._off_plan()
            self.replay_seconds += time.monotonic() - started
            if failed is not None:
                return failed
        if number is not None:
            outcome = _judged_by_its_own_time(self.worker, self.worker.receive(number, limit), limit)
        else:
            sent = self.worker.send([body], limit)
            outcome = sent if isinstance(sent, Outcome) else self.worker.receive(sent[0], limit)
        self.asked.append(body)
        self.shared.ahead.send(self.worker)
        return outcome

    def probe(self, messages: list[dict], seconds: float) -> list[Outcome] | None:
        """Requests made for an explanation only, answered by a worker of their own: forked for them, the module
        loaded in it, stopped after them. Nothing of it reaches the checks' worker, its plan or what is asked again
        of a fresh one, so no verdict can depend on it. The answers in order, past a call that raised (the worker goes on)
        up to the first that ended the worker (a timeout, a death), within `seconds` in all, counted once the module
        is loaded (the start and the load have the sandbox's own limits: on a loaded machine they may take most of a
        few seconds, which the calls would lose); None where the worker could not be set up or load the module."""
        shared = self.shared
        worker = Worker(shared.code_folder, shared.budget, shared.settings, tuple(shared.warm_ups))
        try:
            worker.spawn()
            if worker.start().status != Status.READY or worker.load(self.module_path).status != Status.READY:
                return None
            deadline = time.monotonic() + seconds
            outcomes: list[Outcome] = []
            for message in messages:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                outcome = worker.request({**message, "module": self.name}, left)
                outcomes.append(outcome)
                if outcome.status not in (Status.RETURNED, Status.RAISED):
                    break
            return outcomes
        finally:
            worker.stop()

    def stop(self) -> None:
        """This exercise is done with the worker; the next one loads its module over it (the plan's next load and
        requests go ahead now)."""
        self.shared.ahead.release(self.shared.worker, self.name)
        if self.shared.holder is self:
            self.shared.holder = None
        self.worker = None

    def _off_plan(self) -> Outcome | None:
        """The checks asked what the plan did not foresee, and the worker that had been sent it was stopped: a
        fresh one loads the module and is asked again what the checks asked so far. An outcome when that fails."""
        asked = self.asked
        fresh = self.shared.started()
        if isinstance(fresh, Outcome):
            return fresh
        loaded = self._load(fresh)
        if loaded.status != Status.READY:
            return Outcome(Status.BROKEN, fact=Fact(Kind.NOT_LOADED_AGAIN, status=loaded.status))
        for body in asked:  # their answers were judged already; only what they did to the module matters
            sent = fresh.send([body])
            again = sent if isinstance(sent, Outcome) else fresh.receive(sent[0])
            if not fresh.alive:
                return Outcome(Status.BROKEN, fact=Fact(Kind.NOT_REPLAYED, status=again.status, cause=again.fact))
            self.asked.append(body)
        return None

    def _load(self, worker: Worker) -> Outcome:
        """Load the module in `worker` without the plan; its requests go ahead again where they come next."""
        outcome = worker.load(self.module_path)
        if outcome.status == Status.BROKEN and worker.alive:
            # An earlier module left what only a new process undoes (a thread, a lowered limit).
            worker.stop()
            fresh = self.shared.started()
            if isinstance(fresh, Outcome):
                return fresh
            worker, self.confinement = fresh, fresh.confinement
            outcome = worker.load(self.module_path)
        self._hold(worker if outcome.status == Status.READY else None)
        if self.worker is not None:
            self.shared.ahead.resume(self.worker, self.name)
        return outcome

    def _hold(self, worker: Worker | None) -> None:
        """The module is loaded in `worker` (None: it could not be)."""
        self.worker = worker
        self.shared.holder = self if worker is not None else None
        if worker is not None:
            self.confinement = worker.confinement
        self.asked = []


def _judged_by_its_own_time(worker: Worker, outcome: Outcome, limit: float) -> Outcome:
    """An answer that went ahead began before it was waited for, so its wait was short: a call or load that itself
    ran past its limit is a timeout, as a run without a plan makes it (the worker stopped). The worker's own measure:
    plans are a student's own runs only, which the student's own machine decides anyway."""
    if not outcome.replied or outcome.seconds <= limit:
        return outcome
    worker.stop()
    return Outcome(Status.TIMEOUT, seconds=outcome.seconds, written=outcome.written, replied=True)
