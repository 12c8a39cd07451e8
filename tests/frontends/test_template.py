"""The batch's template (graders/frontends/grade/template.py): a run with nothing to grade ends it at once, so a
rerun that only writes the outputs again does not pay for torch's import in a process no one will use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT

# In a fresh interpreter: this test process has loaded the grading, and a template is only forked from a process
# that has not.
_STOPPED = """
import os, sys
from pathlib import Path
from graders.frontends.grade.template import Template
template = Template()
template.start()
pid = template.pid
assert pid > 0 and Path(f"/proc/{pid}").exists(), "no template was forked"
template.stop()
assert not Path(f"/proc/{pid}").exists(), "the template still runs (or was left unreaped)"
assert template.fork_service(Path(sys.argv[1]), []) is None, "a stopped template forked a service"
template.stop()  # a second stop is harmless
print("stopped", pid)
"""


def test_a_stopped_template_is_reaped_and_forks_no_service(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-c", _STOPPED, str(tmp_path / "service.log")], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.startswith("stopped"), run.stdout[-2000:] + run.stderr[-2000:]


def test_a_rerun_with_nothing_to_grade_writes_the_outputs_again(tmp_path: Path) -> None:
    from conftest import batch_environment

    root = tmp_path / "class"
    (root / "ann" / "lesson01").mkdir(parents=True)
    (root / "ann" / "lesson01" / "views.py").write_text((ROOT / "reference" / "lesson01" / "views.py").read_text())
    out = tmp_path / "out"
    command = [sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "1"]
    first = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=batch_environment())
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    (out / "grades.csv").unlink()
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, env=batch_environment())
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "1 unchanged since the last run, 0 to grade" in again.stdout, again.stdout
    assert (out / "grades.csv").is_file()
