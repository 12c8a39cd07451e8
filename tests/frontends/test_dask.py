"""The batch on Dask distributed, for real: a scheduler and `dask worker` processes started as separate
commands on 127.0.0.1 and reached with --scheduler, against the LocalCluster that `graders grade` starts
by itself. A mixed class with hostile students gets the same grades check by check on both, with a
worker killed by SIGKILL in the middle; a worker whose sandbox cannot hold refuses unless told; a
submission whose Dask worker dies every time is graded 0 with that reason, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT
from process_tree import children_of, parent
from test_batch import _class, _grade, _reference, _write_folders

SLUG = "neuron_chain_rule"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """A scheduler and workers, each its own `dask` command, as an instructor's IT would start them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.processes: list[subprocess.Popen] = []
        self._start("scheduler", ["dask", "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
                                  "--no-dashboard"])

    def add_worker(self, name: str, environment: dict[str, str] | None = None) -> subprocess.Popen:
        return self._start(name, ["dask", "worker", self.address, "--nthreads", "1", "--nworkers", "1",
                                  "--no-dashboard", "--name", name, "--local-directory", str(self.folder / name)],
                           environment)

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        with Client(self.address, timeout="60s") as client:
            client.wait_for_workers(count, timeout=120)

    def close(self) -> None:
        # Workers first, while their scheduler still answers: a worker told to stop says goodbye to it, and
        # with the scheduler already gone it waits out its connection timeouts (8 s a test).
        scheduler, *workers = self.processes
        self._stop(workers)
        self._stop([scheduler])

    @staticmethod
    def _stop(processes: list[subprocess.Popen]) -> None:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def _start(self, name: str, command: list[str], environment: dict[str, str] | None = None) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "w")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                                   env={**os.environ, **(environment or {})})
        self.processes.append(process)
        return process


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    started = Cluster(tmp_path / "cluster")
    try:
        yield started
    finally:
        started.close()


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (out / "students").glob("*.json")}


def _checks(record: dict) -> dict[str, float]:
    return {f"{e['slug']}::{c['id']}": c["score"] for e in record["exercises"] for c in e["checks"]}


def _services_below(pid: int) -> list[int]:
    """The grading services among a process's descendants, top ones only (a service's zygote is a copy)."""
    found = []
    for child in children_of(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"graders.frontends.grade.run.service" in command:
            found.append(child)
        else:
            found += _services_below(child)
    return found


def test_a_separate_scheduler_and_workers_grade_as_the_local_cluster_even_with_a_worker_killed(
        cluster: Cluster, tmp_path: Path) -> None:
    root = _write_folders(tmp_path / "class", _class())
    local = _grade(root, tmp_path / "local", "-j", "2", check=True)
    first = cluster.add_worker("one")
    cluster.add_worker("two")
    cluster.wait_for_workers(2)
    out = tmp_path / "remote"
    batch = subprocess.Popen([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out),
                              "--scheduler", cluster.address], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             env={**os.environ, "GRADERS_CACHE_DIR": "off"})  # the reference is graded first
    # Once the first student is stored, the Dask worker under `one` is killed mid-batch; its nanny
    # starts another and the scheduler gives the lost task to a worker again.
    deadline = time.monotonic() + 600
    while not list((out / "students").glob("*.json")) and time.monotonic() < deadline and batch.poll() is None:
        time.sleep(0.1)
    workers = children_of(first.pid)  # the nanny's worker process
    assert workers, "the dask worker command started no worker process"
    for pid in workers:
        os.kill(pid, signal.SIGKILL)
    printed = batch.communicate(timeout=1200)[0]
    assert batch.returncode == 0, printed[-3000:]
    assert "Traceback" not in printed, printed[-3000:]
    here, there = _records(tmp_path / "local"), _records(out)
    assert sorted(there) == sorted(here) == sorted(_class())
    for student in here:
        assert _checks(there[student]) == _checks(here[student]), student
        assert there[student]["error"] == here[student]["error"] == "", student
    assert local.returncode == 0


def test_a_worker_whose_sandbox_cannot_hold_refuses_unless_allowed(cluster: Cluster, tmp_path: Path) -> None:
    cluster.add_worker("bare", {"GRADERS_TEST_SANDBOX_WITHOUT": "namespace,landlock"})
    cluster.wait_for_workers(1)
    root = _write_folders(tmp_path / "class", {"ann": {SLUG: _reference(SLUG)}})
    refused = _grade(root, tmp_path / "refused", "--scheduler", cluster.address)
    assert refused.returncode != 0
    assert "the sandbox cannot fully hold on the worker tcp://127.0.0.1" in refused.stderr, refused.stderr[-2000:]
    assert "--allow-unconfined" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "refused" / "students").exists()
    allowed = _grade(root, tmp_path / "allowed", "--scheduler", cluster.address, "--allow-unconfined", check=True)
    assert "grading NOT CONFINED on tcp://127.0.0.1" in allowed.stdout
    record = _records(tmp_path / "allowed")["ann"]
    assert record["confined"] is False and "NOT CONFINED" in record["confinement"]
    assert next(e for e in record["exercises"] if e["slug"] == SLUG)["score"] > 0


def test_a_submission_whose_worker_dies_every_time_is_graded_zero_with_that_reason(cluster: Cluster,
                                                                                  tmp_path: Path) -> None:
    command = cluster.add_worker("only")
    cluster.wait_for_workers(1)
    slow = "import time\ntime.sleep(6)\n" + _reference(SLUG)
    root = _write_folders(tmp_path / "class", {"ann": {SLUG: slow}})
    out = tmp_path / "out"
    batch = subprocess.Popen([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out),
                              "--scheduler", cluster.address], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             env={**os.environ, "GRADERS_CACHE_DIR": "off"})  # the reference is graded first
    assert batch.stdout is not None
    printed = ""
    while "stored in" not in printed and batch.poll() is None:  # the reference is graded: ann's task is next
        printed += batch.stdout.readline()
    killed: set[int] = set()
    deadline = time.monotonic() + 600
    while batch.poll() is None and time.monotonic() < deadline:
        # Each time ann's task runs, her Dask worker's grading service is up: the worker is killed (its nanny
        # starts another, and the scheduler gives it the task again).
        for service in _services_below(command.pid):
            worker = parent(service)
            if worker and worker not in killed:
                time.sleep(2.0)  # the task has reached the service
                killed.add(worker)
                os.kill(worker, signal.SIGKILL)
        time.sleep(0.2)
    printed += batch.communicate(timeout=60)[0]
    assert batch.returncode == 1, printed[-3000:]  # one student could not be graded
    assert "Traceback" not in printed, printed[-3000:]
    record = _records(out)["ann"]
    assert record["score"] == 0 and "ended the Dask worker that ran it 4 times" in record["error"], record["error"]
    assert len(killed) >= 4  # a worker started after the last death may be killed too, before the batch ends


def _certificates(folder: Path) -> dict[str, str]:
    """A certificate authority and one certificate it signed for 127.0.0.1, made with openssl."""
    folder.mkdir()
    ca, key, cert = folder / "ca.pem", folder / "key.pem", folder / "cert.pem"
    run = lambda *args: subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)  # noqa: E731
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", str(ca), "-days", "1",
        "-subj", "/CN=graders test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", "cert.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "cert.csr", "-CA", str(ca), "-CAkey", "ca-key.pem", "-CAcreateserial", "-out",
        str(cert), "-days", "1", "-extfile", "san.ext")
    return {"--tls-ca-file": str(ca), "--tls-cert": str(cert), "--tls-key": str(key)}


@pytest.mark.skipif(not Path("/usr/bin/openssl").exists(), reason="needs the openssl command to make certificates")
def test_a_tls_cluster_grades_for_a_client_with_certificates_and_refuses_one_without(tmp_path: Path) -> None:
    tls = _certificates(tmp_path / "tls")
    flags = [x for pair in tls.items() for x in pair]
    port = _free_port()
    address = f"tls://127.0.0.1:{port}"
    logs = tmp_path / "cluster"
    logs.mkdir()
    processes = [subprocess.Popen(["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
                                   *flags], stdout=open(logs / "scheduler.log", "w"), stderr=subprocess.STDOUT),
                 subprocess.Popen(["dask", "worker", address, "--nthreads", "1", "--no-dashboard", *flags,
                                   "--local-directory", str(logs / "worker")],
                                  stdout=open(logs / "worker.log", "w"), stderr=subprocess.STDOUT, cwd=ROOT)]
    try:
        root = _write_folders(tmp_path / "class", {"ann": {SLUG: _reference(SLUG)}})
        graded = _grade(root, tmp_path / "out", "--scheduler", address, *flags, check=True)
        assert _records(tmp_path / "out")["ann"]["error"] == "", graded.stdout[-2000:]
        plain = _grade(root, tmp_path / "plain", "--scheduler", f"tcp://127.0.0.1:{port}")
        assert plain.returncode != 0 and "no Dask scheduler answered at tcp://127.0.0.1" in plain.stderr, \
            plain.stderr[-2000:]
        assert "Traceback" not in plain.stderr
        half = _grade(root, tmp_path / "half", "--scheduler", address, "--tls-ca-file", tls["--tls-ca-file"])
        assert half.returncode != 0 and "needs --tls-ca-file, --tls-cert and --tls-key together" in half.stderr
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=30)
