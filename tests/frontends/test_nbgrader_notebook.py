"""The lesson's source notebook (graders/frontends/nbgrader/notebook.py): nbgrader's schema 3, a locked setup cell,
and per exercise a locked task, an answer cell holding the solution regions and a locked test cell worth the
exercise's points; the task written for a notebook, not for `pytest exercises/`."""

from __future__ import annotations

import nbformat

import course_config
from graders.frontends.nbgrader.notebook import SCHEMA_VERSION, lesson_notebook
from graders.frontends.nbgrader.runtime import SETUP_PREFIX, TEST_CELL

LESSON = course_config.LESSON_01
EXERCISES = [LESSON.exercise("views"), LESSON.exercise("micrograd")]


def _nbgrader(cell: nbformat.NotebookNode) -> dict:
    return cell.metadata["nbgrader"]


def test_the_cells_are_the_setup_then_task_answer_and_test_per_exercise() -> None:
    notebook = lesson_notebook(LESSON, EXERCISES, notebook="lesson01.ipynb", exercise_seconds=30.0)
    nbformat.validate(notebook)
    ids = [_nbgrader(cell)["grade_id"] for cell in notebook.cells]
    assert ids == ["introduction", "setup", "task-views", "answer-views", "test-views", "task-micrograd",
                   "answer-micrograd", "test-micrograd"]
    assert {_nbgrader(cell)["schema_version"] for cell in notebook.cells} == {SCHEMA_VERSION}
    setup = notebook.cells[1]
    assert setup.source.startswith(SETUP_PREFIX) and "exercise_seconds=30.0" in setup.source
    assert "'views': " in setup.source and "'micrograd': " in setup.source, "the points of the exercises built"


def test_only_answer_cells_are_editable_and_only_test_cells_carry_points() -> None:
    cells = {_nbgrader(cell)["grade_id"]: cell
             for cell in lesson_notebook(LESSON, EXERCISES, notebook="n.ipynb", exercise_seconds=30.0).cells}
    for exercise in EXERCISES:
        answer, test = cells[f"answer-{exercise.slug}"], cells[f"test-{exercise.slug}"]
        assert _nbgrader(answer)["solution"] and not _nbgrader(answer)["locked"] and answer.metadata["editable"]
        assert answer.source.startswith(f"%%answer {exercise.slug}\n") and "### BEGIN SOLUTION" in answer.source
        assert test.source == TEST_CELL.format(slug=exercise.slug)
        assert _nbgrader(test)["locked"] and not test.metadata["deletable"]
        assert (_nbgrader(test)["grade"], _nbgrader(test)["points"]) == (True, exercise.points)
    assert sum(_nbgrader(c).get("points", 0) for c in cells.values()) == sum(e.points for e in EXERCISES)


def test_a_task_is_written_for_the_notebook_and_names_the_functions_to_write() -> None:
    # A stub of one function the reference has, whose task also tells how to run pytest on the .py file.
    stub = '"""Title.\n\nWrite it. Run `pytest exercises/` to check your work.\n"""\n\ndef as_grid(x):\n    pass\n'
    notebook = lesson_notebook(LESSON, EXERCISES[:1], notebook="n.ipynb", exercise_seconds=30.0)
    task = next(c for c in notebook.cells if _nbgrader(c)["grade_id"] == "task-views").source
    assert "pytest" not in task and "To write: `as_grid`" in task, task
    own = lesson_notebook(LESSON, EXERCISES[:1], notebook="n.ipynb", exercise_seconds=30.0, stubs={"views": stub})
    task = next(c for c in own.cells if _nbgrader(c)["grade_id"] == "task-views").source
    assert "Write it.\n\nTo write: `as_grid`." in task and "pytest" not in task and "check your" not in task, task
