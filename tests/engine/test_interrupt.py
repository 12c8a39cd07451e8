"""Ctrl-C is the user's, not a crash: a student who presses it while a check runs gets pytest's
interrupted run (exit status 2) with one line saying what happened, no "zygote died", a JSON that
says it is incomplete, and no process of the grading left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import ROOT, STUBS
from process_tree import family_once_a_worker_runs
from graders.engine.session import INTERRUPTED

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
