"""The batch's template (graders/frontends/grade/run/template.py): a run with nothing to grade ends it at once, so a
rerun that only writes the outputs again does not pay for torch's import in a process no one will use (such a
rerun is graded in tests/frontends/test_batch.py, test_a_rerun_grades_only_the_student_who_changed)."""

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
from graders.frontends.grade.run.template import Template
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

