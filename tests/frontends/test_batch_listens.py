"""What the batch offers the network while it grades, seen from outside: every socket it and its processes
listen on, read through psutil for the whole run. Dask's scheduler and workers each start an HTTP server
(task names with student ids, call stacks, worker logs, no authentication); by default it must listen on
loopback only and answer nothing, and `--dashboard` must serve the dashboard on 127.0.0.1 only."""

from __future__ import annotations

import ipaddress
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil

from conftest import ROOT, batch_environment
from test_batch import SLUGS, _reference, _write_folders

# Routes that show who is being graded, and how: the scheduler's JSON and pages, a worker's metrics.
ROUTES = ("/json/identity.json", "/info/main/workers.html", "/info/call-stacks", "/metrics", "/health")


def _watched(command: list[str]) -> tuple[subprocess.CompletedProcess, dict[tuple[str, int], dict[str, int]]]:
    """Run `command`, and while it runs, each socket it or a process below it listens on: (address, port) -> the
    HTTP status of each of ROUTES there (0: no answer), asked the first time the socket is seen."""
    batch = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=batch_environment())
    seen: dict[tuple[str, int], dict[str, int]] = {}
    while batch.poll() is None:
        try:
            processes = [psutil.Process(batch.pid), *psutil.Process(batch.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for process in processes:
            try:
                sockets = process.net_connections("inet")
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            for socket in sockets:
                if socket.status == psutil.CONN_LISTEN and (socket.laddr.ip, socket.laddr.port) not in seen:
                    seen[socket.laddr.ip, socket.laddr.port] = {route: _status(socket.laddr.port, route)
                                                                for route in ROUTES}
        time.sleep(0.1)
    output = batch.communicate(timeout=600)[0]
    return subprocess.CompletedProcess(command, batch.returncode, output), seen


def _status(port: int, route: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{route}", timeout=5) as page:
            return page.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def _grade(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict[tuple[str, int], dict[str, int]]]:
    root = _write_folders(tmp_path / "class", {name: {slug: _reference(slug) for slug in SLUGS}
                                               for name in ("ann", "ben")})
    run, seen = _watched([sys.executable, "-m", "graders", "grade", str(root), "--out", str(tmp_path / "out"),
                          "-j", "2", *extra])
    assert run.returncode == 0, run.stdout[-3000:]
    assert seen, "no listening socket was seen: the watch missed the run's Dask servers"
    return run, seen


def _outside(seen: dict[tuple[str, int], dict[str, int]]) -> list[tuple[str, int]]:
    return [(ip, port) for ip, port in seen if not ipaddress.ip_address(ip).is_loopback]


def test_the_batch_listens_on_loopback_only_and_serves_nothing_by_default(tmp_path: Path) -> None:
    run, seen = _grade(tmp_path)
    assert not _outside(seen), f"the batch listened beyond this machine on {_outside(seen)}"
    served = {where: {route: status for route, status in routes.items() if status == 200}
              for where, routes in seen.items()}
    assert not any(served.values()), f"Dask's HTTP routes answered without --dashboard: {served}"
    assert "dashboard" not in run.stdout


def test_a_dashboard_asked_for_is_served_on_loopback_only(tmp_path: Path) -> None:
    run, seen = _grade(tmp_path, "--dashboard")
    assert not _outside(seen), f"the batch listened beyond this machine on {_outside(seen)}"
    assert any(routes["/json/identity.json"] == 200 for routes in seen.values()), seen
    assert "Dask dashboard at http://127.0.0.1:" in run.stdout or "--dashboard needs bokeh" in run.stdout, \
        run.stdout[-3000:]


def test_a_dashboard_is_refused_with_a_scheduler_that_serves_its_own(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(tmp_path), "--out", str(tmp_path / "out"),
                          "--scheduler", "tcp://127.0.0.1:1", "--dashboard"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode != 0
    assert "--dashboard serves the dashboard of the cluster this command starts" in run.stderr + run.stdout
