"""The zygote (graders/sandbox/zygote.py): a run's rooms' warm-ups are run by it as soon as it has loaded, ahead
of any worker, and nothing but a driver module's function is ever run there; and it goes, its workers with it,
when the grader that started it is killed."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from graders.frontends.pytest_plugin import room_warm_ups

from attacks import SLUG, with_f
from conftest import ROOT, STUBS
from process_tree import confined, family_once_a_worker_runs, running

JVP_LOADED = "torch._decomp.decompositions_for_jvp"  # what forward_vs_reverse's warm_up loads on first use of jvp
PROBE = """
import sys


def loaded(name):
    return name in sys.modules
"""
# A process of its own, with a zygote of its own that no earlier grading warmed: it sends the zygote the
# warm-ups named (none, or some), then asks a worker forked after them whether a module is loaded there.
ASK = """
import json, sys
from pathlib import Path
from graders import sandbox
from graders.sandbox import Budget
from graders.sandbox.shared import SubmissionWorker
from graders.sandbox.zygote import ZYGOTE

folder, module, warm_ups = Path(sys.argv[1]), sys.argv[2], tuple(sys.argv[3:])
sandbox.prepare()
if warm_ups:
    ZYGOTE.warm(warm_ups)
budget = Budget(call_seconds=30, import_seconds=30, memory_mb=1024, output_kb=64, message_mb=16)
shared = SubmissionWorker(folder, budget, sandbox.Settings())
lease = shared.lease(folder / "probe.py")
assert lease.start().status == "ready"
outcome = lease.request({"op": "call", "function": "loaded", "args": [module], "kwargs": {}})
print(json.dumps(outcome.value if outcome.status == "returned" else outcome.status))
shared.close()
"""


def _loaded_in_a_worker(folder: Path, module: str, *warm_ups: str) -> bool:
    (folder / "probe.py").write_text(PROBE)
    ran = subprocess.run([sys.executable, "-c", ASK, str(folder), module, *warm_ups], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def test_the_zygote_runs_a_warm_up_it_is_sent_before_any_worker_needs_it(tmp_path: Path) -> None:
    assert _loaded_in_a_worker(tmp_path, JVP_LOADED) is False
    assert _loaded_in_a_worker(tmp_path, JVP_LOADED, "graders.lesson01.forward_vs_reverse.drivers:warm_up") is True


def test_the_zygote_runs_nothing_but_a_driver_modules_function(tmp_path: Path) -> None:
    # A checks module holds hidden inputs and seeds: it is never loaded into a worker's ancestor.
    checks = "graders.lesson01.forward_vs_reverse.checks"
    assert _loaded_in_a_worker(tmp_path, checks, f"{checks}:worker_warm_up", "json:dumps") is False


def test_a_students_run_names_the_warm_ups_of_the_rooms_it_grades_and_only_those() -> None:
    exercises = STUBS / "lesson01"
    assert room_warm_ups([exercises / "forward_vs_reverse.py"]) == ("graders.lesson01.forward_vs_reverse.drivers:warm_up",)
    assert room_warm_ups([exercises / "views.py", exercises / "views.py"]) == ("graders.lesson01.views.drivers:warm_up",)
    # A room without drivers has nothing for the zygote to run; one whose drivers define no warm_up is skipped there.
    rooms_with_drivers = {p.parent.name for p in (ROOT / "graders" / "lesson01").glob("*/drivers.py")}
    named = room_warm_ups(sorted(exercises.glob("*.py")))
    assert {name.split(".")[2] for name in named} == rooms_with_drivers != set()


def test_killing_the_grader_takes_its_zygote_and_workers_with_it(tmp_path: Path) -> None:
    folder = tmp_path / "submission" / "lesson01"
    folder.mkdir(parents=True)
    (folder / f"{SLUG}.py").write_text(with_f("    while True:\n        pass\n"))
    grader = subprocess.Popen([sys.executable, "-m", "pytest", str(STUBS / "lesson01" / f"{SLUG}.py"),
                               "--submission", str(folder.parent), "-p", "no:cacheprovider", "-q"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        family = family_once_a_worker_runs(grader.pid, seconds=60)  # the zygote and the worker stuck in the loop
        assert any(confined(pid) for pid in family), family
    finally:
        grader.send_signal(signal.SIGKILL)
        grader.wait()
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in family if running(pid)]
