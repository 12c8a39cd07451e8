"""An answer cell from a stub and its reference (graders/frontends/nbgrader/answer_cell.py): the stub's imports,
signatures and docstrings kept, each body the reference's between nbgrader's solution markers, whatever else the
reference needs in one more region after the imports, and a refusal when the two do not line up. Checked on
small made-up stubs, and on every exercise of the lesson: with the regions taken out, the stub comes back."""

from __future__ import annotations

import ast

import pytest

import course_config
from conftest import STUBS
from graders.frontends.nbgrader.answer_cell import BEGIN, END, AnswerError, answer_source

STUB = '''"""The task, as the .py file says it."""

import torch


def double(x: torch.Tensor) -> torch.Tensor:
    """Twice x."""
    # TODO: write it
    raise NotImplementedError
'''

REFERENCE = '''"""The task, solved."""

import math

import torch

SCALE = 2.0


def double(x: torch.Tensor) -> torch.Tensor:
    """Twice x."""
    # scale, as the lesson does
    return x * _scale()


def _scale() -> float:
    return SCALE * math.cos(0.0)
'''


def _without_solutions(cell: str) -> str:
    """What nbgrader's release leaves of a cell: every solution region out (it writes its own placeholder)."""
    kept, inside = [], False
    for line in cell.splitlines():
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


def test_the_cell_keeps_the_stubs_signature_and_docstring_and_solves_between_the_markers() -> None:
    cell = answer_source("double", STUB, REFERENCE)
    lines = cell.splitlines()
    assert lines[0] == "%%answer double" and "The task" not in cell, "the magic line, no module docstring"
    assert lines[1] == "import torch"
    # The reference's extra import, constant and helper in one region after the stub's imports.
    extra = lines[lines.index(BEGIN):lines.index(END) + 1]
    assert "import math" in extra and "SCALE = 2.0" in extra and "def _scale() -> float:" in extra, extra
    body = cell[cell.index('    """Twice x."""'):]
    assert body.splitlines()[1:5] == [f"    {BEGIN}", "    # scale, as the lesson does", "    return x * _scale()",
                                      f"    {END}"], body
    assert "TODO" not in cell and "NotImplementedError" not in cell
    namespace: dict = {}
    exec(cell.split("\n", 1)[1], namespace)  # the cell runs as the reference does
    assert namespace["double"](3.0) == 6.0


def test_a_stub_function_missing_from_the_reference_is_refused() -> None:
    with pytest.raises(AnswerError, match="the reference has no function halve in the module"):
        answer_source("double", STUB + "\n\ndef halve(x):\n    raise NotImplementedError\n", REFERENCE)


@pytest.mark.parametrize("slug", [e.slug for e in course_config.LESSON_01.exercises])
def test_every_exercises_cell_gives_back_its_stubs_signatures_and_docstrings(slug: str) -> None:
    stub = (STUBS / "lesson01" / f"{slug}.py").read_text()
    reference = (course_config.ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()
    released = ast.parse(_without_solutions(answer_source(slug, stub, reference).split("\n", 1)[1]))
    stub_functions = {n.name: (ast.dump(n.args), ast.get_docstring(n)) for n in ast.walk(ast.parse(stub))
                      if isinstance(n, ast.FunctionDef)}
    released_functions = {n.name: (ast.dump(n.args), ast.get_docstring(n)) for n in ast.walk(released)
                          if isinstance(n, ast.FunctionDef) and n.name in stub_functions}
    assert released_functions == stub_functions
