"""The steps around nbgrader's Execute (graders/frontends/nbgrader/preprocessors.py): which cells are the build's
own (the setup cell, the test cells, unchanged), a blanked student cell given back its source after Execute, and
the bundle's copy taken out of a feedback folder. Blanking under a real autograde is test_nbgrader_attacks.py's."""

from __future__ import annotations

from pathlib import Path

import nbformat

import course_config
from graders.frontends.nbgrader.notebook import lesson_notebook
from graders.frontends.nbgrader.preprocessors import STASH, DropBundleFromFeedback, RestoreStudentCells, is_ours

LESSON = course_config.LESSON_01


def _notebook() -> nbformat.NotebookNode:
    return lesson_notebook(LESSON, [LESSON.exercise("views")], notebook="lesson01.ipynb", exercise_seconds=30.0)


def test_the_setup_and_test_cells_are_ours_only_as_the_build_wrote_them() -> None:
    cells = {cell.metadata["nbgrader"]["grade_id"]: cell for cell in _notebook().cells}
    assert is_ours(cells["setup"]) and is_ours(cells["test-views"])
    assert not is_ours(cells["answer-views"]) and not is_ours(cells["introduction"])
    edited = nbformat.from_dict({**cells["test-views"], "source": cells["test-views"].source + "\nimport os"})
    assert not is_ours(edited), "a test cell a student added to runs as theirs"
    forged = nbformat.v4.new_code_cell(cells["test-views"].source)  # the same source, no nbgrader metadata
    assert not is_ours(forged)


def test_restoring_gives_each_blanked_cell_its_source_back() -> None:
    notebook = _notebook()
    student = nbformat.v4.new_code_cell("", metadata={STASH: "print('my own cell')"})
    notebook.cells.append(student)
    untouched = [cell.source for cell in notebook.cells[:-1]]
    RestoreStudentCells().preprocess(notebook, {})
    assert student.source == "print('my own cell')" and STASH not in student.metadata
    assert [cell.source for cell in notebook.cells[:-1]] == untouched


def test_the_bundles_copy_leaves_the_feedback_folder_and_nothing_else_does(tmp_path: Path) -> None:
    feedback = tmp_path / "feedback" / "ann" / "lesson01"
    (feedback / "nbchecks").mkdir(parents=True)
    (feedback / "nbchecks" / "runtime.py").write_text("")
    (feedback / "lesson01.html").write_text("")
    resources = {"nbgrader": {"student": "ann", "assignment": "lesson01"},
                 "metadata": {"path": str(tmp_path / "autograded" / "ann" / "lesson01")}}
    DropBundleFromFeedback().preprocess(_notebook(), resources)
    assert [p.name for p in feedback.iterdir()] == ["lesson01.html"]
    (feedback / "nbchecks").mkdir()  # a folder of that name that is no bundle stays
    DropBundleFromFeedback().preprocess(_notebook(), resources)
    assert (feedback / "nbchecks").is_dir()
