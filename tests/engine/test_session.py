"""How the session (graders/engine/session.py) ends a run it cannot finish. Ctrl-C is the user's, not a crash: a
student who presses it while a check runs gets pytest's interrupted run (exit status 2) with one line saying what
happened, no "zygote died", a JSON that says it is incomplete, and no process of the grading left. A zygote that
dies ends the run without a result, and says why."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from attacks import with_f
from conftest import ROOT, STUBS
from process_tree import confined, family_once_a_worker_runs, parent
from graders.engine import session
from graders.engine.session import INTERRUPTED
from graders.frontends.nbgrader import grading_server

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()


def test_ctrl_c_during_a_check_is_an_interruption_and_leaves_no_process(tmp_path: Path) -> None:
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    slow = "    return torch.sin(x) * torch.exp(-x)\n"
    (folder / f"{SLUG}.py").write_text(REFERENCE.replace(slow, "    import time\n    time.sleep(30)\n" + slow, 1))
    result = tmp_path / "result.json"
    # Its own session and process group, as a terminal's foreground job: ^C reaches the whole group.
    run = subprocess.Popen([sys.executable, "-m", "pytest", str(STUBS / "lesson01" / f"{SLUG}.py"),
                            "--submission", str(folder.parent), "--json", str(result), "-p", "no:cacheprovider"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    family = family_once_a_worker_runs(run.pid)
    os.killpg(run.pid, signal.SIGINT)
    output, _ = run.communicate(timeout=120)
    assert run.returncode == 2, output[-3000:]  # pytest's ExitCode.INTERRUPTED
    assert INTERRUPTED in output and "zygote" not in output, output[-3000:]
    assert json.loads(result.read_text())["complete"] is False
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in family) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in family if Path(f"/proc/{pid}").exists()]


def test_a_zygote_that_dies_during_grading_ends_the_run_without_a_result(tmp_path: Path) -> None:
    # Its workers die with it, so some answers may be missing through no fault of the student's:
    # the run ends with no result, and says why (the batch and the notebooks then grade again).
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    (folder / f"{SLUG}.py").write_text(with_f("    import time\n    time.sleep(60)\n"))
    result = tmp_path / "result.json"
    grader = subprocess.Popen([sys.executable, "-m", "pytest", str(STUBS / "lesson01" / f"{SLUG}.py"),
                               "--submission", str(folder.parent), "--json", str(result), "-p", "no:cacheprovider",
                               "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        family = family_once_a_worker_runs(grader.pid, seconds=60)
        workers = [pid for pid in family if confined(pid)]
        zygote = next(pid for pid in family if not confined(pid) and any(parent(w) == pid for w in workers))
        os.kill(zygote, signal.SIGKILL)
        _, errors = grader.communicate(timeout=120)
    finally:
        grader.kill()
    assert grader.returncode == session.EXIT_ZYGOTE_GONE == grading_server.EXIT_ZYGOTE_GONE, errors[-2000:]
    assert "grading stopped, with no result" in errors and not result.exists()
