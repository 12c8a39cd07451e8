"""The instructor's notebook of one lesson, with nbgrader's cell metadata (schema v3).

    introduction (locked markdown)   how the notebook works
    setup (locked code)              registers %%answer, loads the checks
    per exercise, in lesson order:
      task (locked markdown)         title, points, the lesson's context, the task
      answer-<slug> (solution)       stub + reference bodies in solution regions
      test-<slug> (grade, locked)    runs the checks; worth the exercise's points

Every piece comes from the exercise's own files and its course_config.py entry; the stub is
the committed one (graders/engine/stubs.py): nbgrader removes only the solution regions, so anything
else an instructor's solved working copy holds would reach students.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat

import course_config
from graders.frontends.nbgrader.answer_cell import answer_source, module_docstring
from graders.frontends.nbgrader.runtime import MAGIC, SETUP_CELL, TEST_CELL
from graders.engine.stubs import released_stubs

SCHEMA_VERSION = 3
INTRODUCTION = """\
# Lesson {number}: {title}

{count} exercises, {points:g} points. For each exercise:

1. read the task and the docstrings in the **answer cell**, and write the body of each function
   where it says `YOUR CODE HERE` (remove the `raise NotImplementedError()`);
2. run the answer cell, so that you can try your functions in a cell of your own;
3. run the **test cell** below it: it prints the same feedback as `pytest exercises/` and the
   points you would get from the checks you can see.

Run the setup cell below first. Keep the first line of each answer cell, `%%{magic} <exercise>`:
it tells the checks which exercise the cell answers. Each answer cell is graded on its own, as
a separate Python file, so put everything it needs (imports, helpers) inside it.

When your notebook is graded, hidden checks run as well, on fresh inputs; your code then runs
in a separate process with a time limit on every call.
"""
TASK = """\
## {index}. {title}

*{points:g} points. In the lesson: {section}.*

{task}

Write the functions in the answer cell, run it, then run the test cell.
"""


def lesson_notebook(lesson: course_config.Lesson, exercises: list[course_config.Exercise], *, notebook: str,
                    exercise_seconds: float, stubs: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """The source notebook for these exercises (reference solutions inside solution regions).
    `stubs` are the stub texts by slug, as `released_stubs` gives them (read here when not given)."""
    if stubs is None:
        stubs = released_stubs(lesson.folder, [e.slug for e in exercises])
    cells = [
        _locked_markdown("introduction", INTRODUCTION.format(
            number=lesson.number, title=lesson.title, count=len(exercises),
            points=sum(e.points for e in exercises), magic=MAGIC)),
        _code("setup", SETUP_CELL.format(lesson=lesson.folder, notebook=notebook, seconds=exercise_seconds,
                                         submission_seconds=float(course_config.LIMITS.submission_seconds.value),
                                         points={e.slug: e.points for e in exercises}), locked=True),
    ]
    for index, exercise in enumerate(exercises, start=1):
        stub = stubs[exercise.slug]
        reference = _read(course_config.ROOT / "reference" / lesson.folder / f"{exercise.slug}.py")
        cells += [
            _locked_markdown(f"task-{exercise.slug}", TASK.format(
                index=index, title=exercise.title, points=exercise.points, section=exercise.section,
                task=_task_text(stub))),
            _code(f"answer-{exercise.slug}", answer_source(exercise.slug, stub, reference), solution=True),
            _code(f"test-{exercise.slug}", TEST_CELL.format(slug=exercise.slug), locked=True,
                  points=exercise.points),
        ]
    notebook_node = nbformat.v4.new_notebook(cells=cells)
    notebook_node.metadata.update({
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(notebook_node)
    return notebook_node


def _task_text(stub: str) -> str:
    """The stub's module docstring without its title line and its instructions for the .py file
    (how to run pytest, where the docstrings are): the notebook gives its own. Then the
    functions to write."""
    paragraphs = module_docstring(stub).split("\n\n")[1:]
    kept = []
    for paragraph in paragraphs:
        sentences = re.split(r"(?<=[.?!:])\s+(?=[A-Z])", " ".join(paragraph.split()))
        sentences = [s for s in sentences if s and not any(word in s.lower() for word in _FOR_FILES)]
        if sentences:
            kept.append(" ".join(sentences))
    names = [n.name for n in ast.parse(stub).body
             if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
    kept.append("To write: " + ", ".join(f"`{name}`" for name in names) + ".")
    return "\n\n".join(kept)


_FOR_FILES = ("pytest", "exercises/", "check your work", "docstring says")


def _read(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: every exercise in course_config.py needs its reference")
    return path.read_text(encoding="utf-8")


def _metadata(grade_id: str, *, grade: bool = False, solution: bool = False, locked: bool = False,
              points: float | None = None) -> dict:
    meta: dict = {"grade": grade, "solution": solution, "locked": locked, "grade_id": grade_id,
                  "schema_version": SCHEMA_VERSION}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def _locked_markdown(grade_id: str, text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(text.strip() + "\n", metadata=_metadata(grade_id, locked=True))


def _code(grade_id: str, source: str, *, solution: bool = False, locked: bool = False,
          points: float | None = None) -> nbformat.NotebookNode:
    grade = points is not None
    cell = nbformat.v4.new_code_cell(source.rstrip("\n"), metadata=_metadata(
        grade_id, grade=grade, solution=solution, locked=locked, points=points))
    cell.metadata["editable"] = not locked
    cell.metadata["deletable"] = not locked
    return cell
