"""What a notebook's test cell reads (graders/frontends/nbgrader/runtime.py): an answer cell's source with its
`%%answer` line left empty, so that a line number in feedback is the line's number in the cell; and the answer
read from the notebook file on disk, the last copy of it, never through a link and never from a file too large
to be a notebook of answers. Grading from the test cells under autograde is test_nbgrader.py's."""

from __future__ import annotations

import json
from pathlib import Path

from graders.frontends.nbgrader import runtime
from graders.frontends.nbgrader.runtime import strip_magic


def test_the_magic_line_is_left_empty_so_line_numbers_stay_the_cells() -> None:
    assert strip_magic("%%answer views\nimport torch\n") == "\nimport torch\n"
    assert strip_magic("\n\n%%answer views\nx = 1") == "\n\n\nx = 1", "blank lines above the magic count too"
    assert strip_magic("import torch\n%%answer views\n") == "import torch\n%%answer views\n", "not a first line"
    assert strip_magic("%%answer views") == ""


def _notebook(path: Path, cells: list[dict]) -> Path:
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _code(source: str, grade_id: str = "") -> dict:
    metadata = {"nbgrader": {"grade_id": grade_id}} if grade_id else {}
    return {"cell_type": "code", "source": source, "metadata": metadata, "outputs": [], "execution_count": None}


def test_the_answer_on_disk_is_the_graded_cell_else_the_last_copy_by_its_magic(tmp_path: Path) -> None:
    # runtime reads the file, not the kernel's memory: what nbgrader wrote before executing is what is graded.
    notebook = _notebook(tmp_path / "lesson01.ipynb", [
        _code("%%answer views\nx = 'nbgrader knows this cell'", grade_id="answer-views"),
        _code("%%answer views\nx = 'a copy below it'"),
        _code("%%answer micrograd\nx = 'first copy'"), _code("%%answer micrograd\nx = 'last copy'")])
    assert runtime._answer_on_disk(notebook, "views") == "\nx = 'nbgrader knows this cell'"
    assert runtime._answer_on_disk(notebook, "micrograd") == "\nx = 'last copy'"
    assert runtime._answer_on_disk(notebook, "quadratic_fit") is None


def test_a_notebook_through_a_link_or_too_large_gives_no_answer(tmp_path: Path) -> None:
    real = _notebook(tmp_path / "real.ipynb", [_code("%%answer views\nx = 1")])
    (tmp_path / "linked.ipynb").symlink_to(real)
    assert runtime._answer_on_disk(real, "views") == "\nx = 1"
    assert runtime._answer_on_disk(tmp_path / "linked.ipynb", "views") is None
    huge = _notebook(tmp_path / "huge.ipynb", [_code("%%answer views\n" + "#" * runtime.NOTEBOOK_BYTES)])
    assert runtime._answer_on_disk(huge, "views") is None
    (tmp_path / "broken.ipynb").write_text("{not json")
    assert runtime._answer_on_disk(tmp_path / "broken.ipynb", "views") is None
