"""The tests grade the stubs as committed, whatever a course maintainer tried in their checkout's exercises/."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from committed_stubs import stubs_as_committed
from conftest import ROOT

STUB = "def f(x):\n    raise NotImplementedError\n"


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=folder, check=True,
                   capture_output=True)


def test_a_tried_exercise_and_a_helper_file_are_not_taken_as_the_stubs(tmp_path: Path) -> None:
    lesson = tmp_path / "exercises" / "lesson01"
    lesson.mkdir(parents=True)
    (lesson / "a.py").write_text(STUB)
    (lesson / "b.py").write_text(STUB)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "stubs")
    assert stubs_as_committed(tmp_path) == (tmp_path / "exercises", [])  # untouched: the folder itself

    (lesson / "a.py").write_text("def f(x):\n    return x\n")  # tried
    (lesson / "helpers.py").write_text("TWO = 2\n")  # a file of the maintainer's own
    stubs, differ = stubs_as_committed(tmp_path)
    assert differ == ["exercises/lesson01/a.py", "exercises/lesson01/helpers.py"]
    assert stubs.name == "exercises" and stubs != tmp_path / "exercises"
    assert sorted(p.name for p in (stubs / "lesson01").iterdir()) == ["a.py", "b.py"]
    assert (stubs / "lesson01" / "a.py").read_text() == STUB
    assert (lesson / "a.py").read_text() == "def f(x):\n    return x\n"  # the working copy is left as it is


def test_without_git_the_working_copy_is_taken(tmp_path: Path) -> None:
    (tmp_path / "exercises" / "lesson01").mkdir(parents=True)
    assert stubs_as_committed(tmp_path) == (tmp_path / "exercises", [])


def test_no_test_reads_the_working_copys_exercises() -> None:
    """Every test that takes the stubs reads conftest's STUBS; ROOT / "exercises" would read what a maintainer
    tried there. (Paths given as the target of a run with --submission select exercises only, and are spelled
    as strings such as "exercises/lesson01/views.py" or `STUBS / ...`.)"""
    reading = re.compile(r"""ROOT\s*/\s*["']exercises""")
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / "tests").rglob("*.py"))
             if path != Path(__file__).resolve()
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if reading.search(line) and not line.lstrip().startswith("#")]
    assert not found, found
