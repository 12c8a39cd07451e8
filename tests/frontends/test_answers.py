"""A notebook's answers as the batch grader reads them (graders/frontends/grade/intake/answers.py), from the
lesson's real notebook as students get it: an answer cell a student copied to fix their code in the copy
is graded from the last copy, as `nbgrader check` keeps it for autograde, and the student is told so."""

from __future__ import annotations

import json

import nbformat

import course_config
from graders.frontends.grade.intake.answers import notebook_answers
from graders.frontends.nbgrader.notebook import lesson_notebook
from graders.frontends.nbgrader.runtime import strip_magic

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
SLUGS = [e.slug for e in LESSON.exercises]
FIRST_TRY = "def as_grid(x):\n    return x  # the first try: wrong\n"


def _notebook(answers: dict[str, str]) -> nbformat.NotebookNode:
    """The lesson's notebook (reference answers inside) with these answer cells' sources."""
    notebook = lesson_notebook(LESSON, list(LESSON.exercises), notebook="lesson01.ipynb", exercise_seconds=180)
    notebook = nbformat.from_dict(json.loads(nbformat.writes(notebook)))
    for cell in notebook.cells:
        slug = cell.metadata.get("nbgrader", {}).get("grade_id", "").removeprefix("answer-")
        if slug in answers:
            cell.source = f"%%answer {slug}\n{answers[slug]}"
    return notebook


def _copy_below(notebook: nbformat.NotebookNode, slug: str, source: str, *, where: int | None = None) -> int:
    """A copy of the answer cell for `slug` (its metadata too, as Jupyter copies it), holding `source`, put at
    `where` (default: just below the test cell); returns its place, counting every cell from 1."""
    index = next(i for i, c in enumerate(notebook.cells)
                 if c.metadata.get("nbgrader", {}).get("grade_id") == f"answer-{slug}")
    copy = nbformat.v4.new_code_cell(f"%%answer {slug}\n{source}",
                                     metadata=json.loads(json.dumps(notebook.cells[index].metadata)))
    where = index + 2 if where is None else where
    notebook.cells.insert(where, copy)
    return where + 1


def test_a_copied_answer_cell_is_graded_from_the_last_copy_and_the_student_is_told() -> None:
    views = (ROOT / "reference" / "lesson01" / "views.py").read_text()
    notebook = _notebook({"views": FIRST_TRY})
    first = 1 + next(i for i, c in enumerate(notebook.cells)
                     if c.metadata.get("nbgrader", {}).get("grade_id") == "answer-views")
    last = _copy_below(notebook, "views", views)
    found = notebook_answers(nbformat.writes(notebook), "lesson01.ipynb", SLUGS)
    assert found.sources["views"] == strip_magic(f"%%answer views\n{views}")
    assert found.problems == [f"2 answer cells for views: graded the last one (cell {last}); "
                              f"the first (cell {first}) was ignored"]
    assert set(found.sources) == set(SLUGS)


def test_three_copies_grade_the_last_and_name_the_others() -> None:
    notebook = _notebook({"views": FIRST_TRY})
    second = _copy_below(notebook, "views", "def as_grid(x):\n    return 2  # the second try\n")
    last = _copy_below(notebook, "views", "def as_grid(x):\n    return 3  # the third try\n", where=len(notebook.cells))
    found = notebook_answers(nbformat.writes(notebook), "lesson01.ipynb", ["views"])
    assert "the third try" in found.sources["views"]
    (problem,) = found.problems
    assert problem.startswith(f"3 answer cells for views: graded the last one (cell {last}); the other 2 (cells ")
    assert f", {second}) were ignored" in problem


def test_copies_found_by_their_first_line_follow_the_same_rule() -> None:
    notebook = _notebook({"views": FIRST_TRY})
    _copy_below(notebook, "views", "def as_grid(x):\n    return 'fixed'\n")
    for cell in notebook.cells:  # both lost their nbgrader metadata (pasted into another notebook)
        cell.metadata.pop("nbgrader", None)
    found = notebook_answers(nbformat.writes(notebook), "lesson01.ipynb", ["views"])
    assert "'fixed'" in found.sources["views"]
    assert found.problems[0].startswith("2 answer cells for views: graded the last one")
