"""A course's nbgrader_config.py (graders/frontends/nbgrader/config.py), read by traitlets as nbgrader reads it:
no student cell runs in autograde's kernel, the kernel is the isolated one, each cell has the exercise's time and
a margin; the feedback template and kernel are written beside it; and a config the instructor made their own is
left alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from traitlets.config import Config

from graders.frontends.nbgrader.config import JUPYTER_FOLDER, MARKER, TEMPLATE_NAME, write_config
from graders.frontends.nbgrader.kernel import KERNEL_NAME


def _loaded(path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """The config as nbgrader loads it: the file run with `get_config` given."""
    monkeypatch.setenv("JUPYTER_PATH", "")  # the file prepends its own folder; keep the test's environment
    config = Config()
    exec(compile(path.read_text(), str(path), "exec"), {"get_config": lambda: config, "__file__": str(path)})
    return config


def test_the_config_blanks_student_cells_around_execute_in_the_isolated_kernel(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path, written = write_config(tmp_path, course_id="torch101", exercise_seconds=45.0)
    assert written and path == tmp_path / "nbgrader_config.py" and path.read_text().startswith(MARKER)
    config = _loaded(path, monkeypatch)
    steps = config.Autograde.autograde_preprocessors
    execute = steps.index("nbgrader.preprocessors.Execute")
    assert steps[execute - 1].endswith("BlankStudentCells") and steps[execute + 1].endswith("RestoreStudentCells")
    assert (config.CourseDirectory.course_id, config.Execute.kernel_name) == ("torch101", KERNEL_NAME)
    assert (config.Execute.timeout, config.Execute.execute_retries) == (105, 0)
    assert os.environ["JUPYTER_PATH"].split(os.pathsep)[0] == str(tmp_path / JUPYTER_FOLDER)
    assert (tmp_path / JUPYTER_FOLDER / "kernels" / KERNEL_NAME / "kernel.json").is_file()
    assert (tmp_path / JUPYTER_FOLDER / "templates" / TEMPLATE_NAME / "graders.html.j2").is_file()


def test_a_config_made_the_instructors_own_is_kept_and_a_built_one_rewritten(tmp_path: Path) -> None:
    path, _ = write_config(tmp_path, course_id="a", exercise_seconds=10.0)
    assert write_config(tmp_path, course_id="b", exercise_seconds=10.0) == (path, True)
    assert "'b'" in path.read_text(), "the build's own file is rewritten"
    path.write_text(path.read_text().split("\n", 1)[1])  # the marker line deleted: the instructor's now
    own = path.read_text()
    assert write_config(tmp_path, course_id="c", exercise_seconds=10.0) == (path, False)
    assert path.read_text() == own
