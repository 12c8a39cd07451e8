"""A root grader's worker sees its reach only (graders/sandbox/namespace_view.py): with Landlock left out, the view
alone keeps the project, the reference and the files of other processes out of sight, shows the submission's own
folder, and gives the worker a scratch folder of its own to write in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from attacks import ONLY_F, SLUG, assert_earns_only_the_honest_part, attack

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="a mount namespace of the worker's own needs root")


@ROOT_ONLY
def test_the_view_alone_shows_nothing_of_the_project_nor_of_other_processes(grade, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("the grader's\n")
    code = f"""
from pathlib import Path
import graders
seen = []
project = Path(graders.__file__).parent.parent
for path in (project / 'reference', project / 'course_config.py', Path({str(outside)!r}), Path('/proc/1/environ')):
    if path.exists() and (path.is_file() or any(path.iterdir())):
        seen.append(str(path))
if seen:
    found = 'sees ' + ', '.join(seen)
"""
    graded = grade({SLUG: attack(code)}, *ONLY_F, "--sandbox-without", "landlock")
    assert_earns_only_the_honest_part(graded)


@ROOT_ONLY
def test_the_submission_is_seen_and_scratch_is_written_in_a_tmpfs_of_its_own(grade) -> None:
    code = """
from pathlib import Path
here = Path(__file__).resolve().parent
open('note.txt', 'w').write('mine')
mounts = open('/proc/self/mountinfo').read()
if not (here / 'sin_exp_derivative.py').is_file() or open('note.txt').read() != 'mine' \\
        or 'graders-scratch' not in mounts:
    found = 'no submission or no scratch of its own: ' + mounts[:200]
"""
    graded = grade({SLUG: attack(code)}, *ONLY_F, "--sandbox-without", "landlock")
    assert_earns_only_the_honest_part(graded)
    assert "namespace view" in graded.result["confinement"]
