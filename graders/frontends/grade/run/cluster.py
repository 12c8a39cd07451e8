"""The batch's side of Dask distributed: a cluster to grade on, the reference graded once, a class streamed back.

Without `--scheduler` the batch starts a `LocalCluster` of `jobs` workers, one thread each, on
this machine (threads of this process: each worker's grading services are processes of their own),
listening on loopback only and serving no dashboard unless asked; with it, it joins a running cluster
(`tcp://` or `tls://`). Either way every worker gets the `GradingServices` plugin (dask_worker.py), so one
code path grades on a laptop and on a cluster. What travels: a task carries one submission's answers (workers share no
files with the instructor) and comes back as the JSON result with its plots; the reference's
expected values are computed once per class, as tasks, and broadcast to every worker once.
"""

from __future__ import annotations

import contextlib
import logging
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import dask
from distributed import Client, Future, KilledWorker, LocalCluster, Worker, as_completed
from distributed.security import Security

from graders.frontends.grade.run import dask_worker

UNCONFINED = ("graders grade: the sandbox cannot fully hold on the worker {worker} ({missing}), so a hostile "
              "submission could read the reference or reach other students' files. Grade on Linux with "
              "Landlock and seccomp (as root or not), or pass --allow-unconfined to grade anyway.")
CONNECT_SECONDS = 30.0
LOOPBACK = "127.0.0.1:0"  # a free port that only this machine's own programs can reach
NO_BOKEH = ("graders grade: --dashboard needs bokeh, which is not installed (pip install bokeh); grading goes on "
            "without it")
WORKER_PATIENCE = 300.0  # a cluster whose workers are still starting (jobs in a queue, pods being scheduled)
KILLED = ("its grading ended the Dask worker that ran it {times} (a worker killed, or out of memory); "
          "graded 0")


@dataclass(frozen=True)
class GradingSite:
    """Where to grade: a scheduler's address, or None for a cluster of `jobs` processes on this machine."""

    scheduler: str | None = None
    jobs: int = 1
    tls_ca_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    dashboard: bool = False  # on a cluster of this machine: serve Dask's dashboard, on 127.0.0.1

    def security(self) -> Security | None:
        if not (self.tls_ca_file or self.tls_cert or self.tls_key):
            return None
        return Security(tls_ca_file=self.tls_ca_file, tls_client_cert=self.tls_cert, tls_client_key=self.tls_key,
                        require_encryption=True)


@contextlib.contextmanager
def connected(where: GradingSite, course: str, logs: Path | None = None,
              reference: tuple[str, list[str]] | None = None) -> Iterator[Client]:
    """A client of the cluster to grade on, every worker with its grading services; closed after. The
    services' logs go to `logs` on a cluster of this machine, else to each worker's local directory.
    `reference` (a lesson and its exercises) says that the reference will be graded: each worker's first
    service then draws the generated inputs of its share while it loads torch."""
    cluster = None
    if where.scheduler is None:
        cluster = _this_machine(max(1, where.jobs), where.dashboard)
        client = Client(cluster)
    else:
        try:
            client = Client(where.scheduler, security=where.security(), timeout=f"{CONNECT_SECONDS:g}s")
        except (OSError, TimeoutError, ValueError) as error:
            raise SystemExit(f"graders grade: no Dask scheduler answered at {where.scheduler} within "
                             f"{CONNECT_SECONDS:g} s ({type(error).__name__}: {error}); check the address, that the "
                             f"scheduler runs, and for a tls:// one the certificates") from None
    try:
        if cluster is not None:
            # Its workers are started with it, but on a loaded machine the client's first view of the scheduler
            # was seen to come before they registered ("has no worker" below, once in a test run).
            with contextlib.suppress(TimeoutError):
                client.wait_for_workers(max(1, where.jobs), timeout=WORKER_PATIENCE)
        if where.scheduler is not None and not client.scheduler_info()["workers"]:
            print(f"graders grade: waiting up to {WORKER_PATIENCE:g} s for a worker to join {where.scheduler}...",
                  flush=True)
            with contextlib.suppress(TimeoutError):
                client.wait_for_workers(1, timeout=WORKER_PATIENCE)
        draws = {}
        if reference is not None:
            lesson, slugs = reference
            draws = {address: [f"{lesson}/{slug}" for slug in part]
                     for address, part in reference_parts(client, slugs).items()}
        local_logs = str(logs) if logs is not None and cluster is not None else None
        client.register_plugin(dask_worker.GradingServices(course, local_logs, draws), name=dask_worker.PLUGIN)
        if cluster is not None and where.dashboard:
            link = client.dashboard_link
            print(f"graders grade: Dask dashboard at {link}" if _dashboard_answers(link) else NO_BOKEH, flush=True)
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _this_machine(jobs: int, dashboard: bool) -> LocalCluster:
    """A cluster of `jobs` one-thread workers in this process, listening on 127.0.0.1 only.

    On one machine the Dask workers are threads of this process: they only pass answers and results to their
    grading services, which are processes of their own; worker processes would cost an interpreter each, ~1
    CPU-second and ~150 MiB, for nothing (the tests start real ones with `dask worker`). They talk in-process, but
    Dask's scheduler and every worker still start an HTTP server (task names with student ids, call stacks, worker
    logs, no authentication), by default on every interface: here on loopback, and with no route unless the
    dashboard is asked for (it needs bokeh, not a dependency)."""
    quiet = {} if dashboard else {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}
    with dask.config.set(quiet):  # read while the scheduler and workers start, inside LocalCluster()
        return LocalCluster(n_workers=jobs, threads_per_worker=1, processes=False, memory_limit=0,
                            dashboard_address=LOOPBACK, worker_dashboard_address=LOOPBACK,
                            scheduler_kwargs={"dashboard": dashboard},
                            worker_class=Worker if dashboard else _NoDashboardWorker, silence_logs=logging.ERROR)


class _NoDashboardWorker(Worker):
    """A worker that never adds bokeh's pages to its HTTP server: LocalCluster asks for them whenever it is given
    the server's address, which is how the server is kept on loopback."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "dashboard": False})


def _dashboard_answers(link: str) -> bool:
    """Whether the scheduler serves its dashboard there (without bokeh, the page only says to install it)."""
    try:
        with urllib.request.urlopen(link, timeout=3) as page:
            return page.status == 200 and b"needs bokeh" not in page.read(4096)
    except (OSError, ValueError):
        return False


def refuse_unless_confined(client: Client, allow_unconfined: bool) -> None:
    """Ask each worker's grading service what its sandbox holds; refuse where it does not fully hold."""
    workers = list(client.scheduler_info()["workers"])
    if not workers:
        raise SystemExit(f"graders grade: the cluster at {client.scheduler.address} has no worker")
    hellos = {w: client.submit(dask_worker.sandbox_here, workers=[w], allow_other_workers=False, pure=False)
              for w in workers}
    for worker, future in hellos.items():
        try:
            hello = future.result()
        except dask_worker.WrongCourse as error:
            raise SystemExit(f"graders grade: {error}") from None
        except Exception as error:  # noqa: BLE001 - a service that cannot start: say why, grade nobody wrongly
            raise SystemExit(f"graders grade: the grading service of the worker {worker} could not start "
                             f"({type(error).__name__}): {error}") from None
        if hello.get("confined"):
            continue
        if not allow_unconfined:
            raise SystemExit(UNCONFINED.format(worker=worker, missing="; ".join(hello.get("missing", []))))
        print(f"graders grade: grading NOT CONFINED on {worker}, as asked: {hello.get('summary')}", flush=True)


def reference_parts(client: Client, slugs: list[str]) -> dict[str, list[str]]:
    """The reference's exercises shared out among the workers, by address: lesson order dealt out in turn,
    a share per thread (the same shares each time it is asked, while the workers stay the same)."""
    seats = [address for address, info in sorted(client.scheduler_info()["workers"].items())
             for _ in range(max(1, info["nthreads"]))] or [""]
    seats = seats[:max(1, len(slugs))]
    parts: dict[str, list[str]] = {}
    for index, slug in enumerate(slugs):
        parts.setdefault(seats[index % len(seats)], []).append(slug)
    return parts


def reference_values(client: Client, lesson: str, slugs: list[str]) -> dict[str, str]:
    """The reference's expected values for a lesson's exercises, graded once, shared out among the workers
    (each share where its generated inputs were drawn, unless that worker has gone)."""
    futures = [client.submit(dask_worker.reference_values, lesson, part, pure=False,
                             workers=[address] if address else None, allow_other_workers=True)
               for address, part in reference_parts(client, slugs).items()]
    values: dict[str, str] = {}
    for future in futures:
        values.update(future.result())  # keys name the function and its arguments: parts never disagree
    return values


def grade_all(client: Client, jobs: list[dict[str, Any]], expected: str, seconds: float,
              done: Callable[[dict[str, Any], dict[str, Any]], None]) -> None:
    """Grade each job (its `student`, `lesson`, `sources`, `key`); `done(job, reply)` is called here as each
    comes back, in the order they finish. A reply is the service's, or {"error": why} for a student whose
    grading could not end in a result."""
    values = dask_worker.ExpectedValues(expected)  # sent to each worker once, not with every task
    client.register_plugin(values, name=values.name)
    futures: dict[Future, dict[str, Any]] = {}
    for job in jobs:
        future = client.submit(dask_worker.grade_answers, job, values.digest, seconds, key=f"grade-{job['key']}",
                               retries=1, pure=False)
        futures[future] = job
    for future in as_completed(futures):
        job = futures[future]
        try:
            reply = future.result()
        except KilledWorker as error:
            reply = {"error": killed_worker_message(_allowed_failures() + 1), "killed": str(error)}
        except dask_worker.WrongCourse as error:
            raise SystemExit(f"graders grade: {error}") from None
        except Exception as error:  # noqa: BLE001 - a task that raised twice: this student, not the batch
            reply = {"error": f"grading failed on its worker ({type(error).__name__}: {error})"[:500]}
        future.release()
        done(job, reply)


def killed_worker_message(times: int) -> str:
    """What a student whose grading ended its Dask worker `times` times is told."""
    return KILLED.format(times={1: "once", 2: "twice"}.get(times, f"{times} times"))


def _allowed_failures() -> int:
    import dask

    return int(dask.config.get("distributed.scheduler.allowed-failures"))

