"""What a student module changes of its process, put back before the next one loads (graders/sandbox/baseline.py),
in a process of its own as a worker's: torch's settings and generators, replaced functions, the environment, the
working folder and the student's modules are restored; a thread left running or a resource limit lowered cannot
be, and is reported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

DRIVER = textwrap.dedent("""
    import json, os, random, resource, sys, threading, time, types
    import torch
    from graders.sandbox.baseline import Baseline
    folder = sys.argv[1]
    baseline = Baseline.take()
    first = torch.rand(3).tolist()
    torch.set_rng_state(baseline.torch_rng)
    # What a student module does at its top level:
    torch.set_default_dtype(torch.float64)
    torch.set_grad_enabled(False)
    torch.sum = lambda *args, **kwargs: 0
    del torch.mean
    random.seed(1)
    os.environ["STUDENT"] = "was here"
    os.chdir(folder)
    own = types.ModuleType("student_helper")
    own.__file__ = folder + "/student_helper.py"
    sys.modules["student_helper"] = own
    lost_before = baseline.lost()
    baseline.restore(folder)
    seen = {"dtype": str(torch.get_default_dtype()), "grad": torch.is_grad_enabled(),
            "sum": torch.sum(torch.ones(2)).item(), "mean": hasattr(torch, "mean"),
            "rng": torch.rand(3).tolist() == first, "env": "STUDENT" in os.environ, "cwd": os.getcwd() == folder,
            "module": "student_helper" in sys.modules, "lost_before": str(lost_before)}
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 1, hard))
    seen["limit"] = str(baseline.lost())
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    seen["thread"] = str(baseline.lost())
    print(json.dumps(seen))
""")


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("student")
    run = subprocess.run([sys.executable, "-c", DRIVER, str(folder)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_torchs_settings_generators_and_replaced_functions_are_put_back(seen: dict) -> None:
    assert seen["dtype"] == "torch.float32" and seen["grad"] is True
    assert seen["sum"] == 2.0 and seen["mean"] is True
    assert seen["rng"] is True


def test_the_environment_the_folder_and_the_students_modules_are_put_back(seen: dict) -> None:
    assert seen["env"] is False and seen["cwd"] is False and seen["module"] is False
    assert seen["lost_before"] == "None"  # all of that a restore undoes: the same worker goes on


def test_a_lowered_limit_and_a_thread_left_running_are_reported_as_lost(seen: dict) -> None:
    assert seen["limit"] == "limit changed" and seen["thread"] == "thread left"
