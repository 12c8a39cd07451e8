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
"""

from __future__ import annotations

from pathlib import Path

from graders.sandbox.process import Budget, Outcome, Settings, Worker


class SubmissionWorker:
    """The worker of one submission folder, replaced when it dies."""

    def __init__(self, code_folder: Path, budget: Budget, settings: Settings) -> None:
        self.code_folder = code_folder
        self.budget = budget
        self.settings = settings
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

    def close(self) -> None:
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
        self.holder = None


class Lease:
    """One exercise module's use of its submission's worker: the backend its `Student` holds."""

    def __init__(self, shared: SubmissionWorker, module_path: Path) -> None:
        self.shared = shared
        self.module_path = module_path
        self.worker: Worker | None = None
        self.confinement = None  # what the worker reported before any student code ran

    @property
    def alive(self) -> bool:
        return self.worker is not None and self.worker.alive

    def spawn(self) -> None:
        self.shared.prestart()

    def start(self) -> Outcome:
        worker = self.shared.started()
        if isinstance(worker, Outcome):
            return worker
        self.confinement = worker.confinement
        return self._load(worker)

    def request(self, message: dict, seconds: float | None = None) -> Outcome:
        assert self.worker is not None, "start() the lease first"
        if self.shared.holder is not self and self.worker.alive:  # another exercise's module was loaded since
            reloaded = self._load(self.worker)
            if reloaded.status != "ready":
                return Outcome("broken", detail=f"the module could not be loaded again ({reloaded.status})")
        return self.worker.request({**message, "module": self.module_path.stem}, seconds)

    def stop(self) -> None:
        """This exercise is done with the worker; the next one loads its module over it."""
        if self.shared.holder is self:
            self.shared.holder = None
        self.worker = None

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
        return outcome
