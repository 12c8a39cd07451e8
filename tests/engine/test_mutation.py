"""The single edits of a reference (graders/engine/mutation.py): one edit each, in one fixed order, of the module's
functions and its classes' methods, each with its family and words that never hold a line of the reference."""

from __future__ import annotations

import ast

from graders.engine import mutation
from test_single_edits import DATA, _code_lines, _source


def test_every_family_has_a_name_words_and_a_hint_and_every_edit_says_its_family() -> None:
    for family, (name, general, hint) in mutation.FAMILIES.items():
        assert name and general and hint.endswith("."), family
    for slug in DATA["exercises"]:
        for mutant in mutation.mutants(_source(slug)):
            assert mutant.family in mutation.FAMILIES and mutant.edit and "\n" not in mutant.edit, mutant


def test_no_edit_in_words_holds_a_line_of_the_reference() -> None:
    for slug in DATA["exercises"]:
        lines = _code_lines(_source(slug))
        assert lines, slug
        for mutant in mutation.mutants(_source(slug)):
            assert not any(line in mutant.edit for line in lines), (slug, mutant.edit)
            assert "torch." not in mutant.edit, (slug, mutant.edit)


def test_a_mutant_is_one_edit_of_the_reference_and_runs() -> None:
    source = "def f(x, n=3):\n    y = x - 2 * x\n    for p in (x, y):\n        p.grad.zero_()\n    return y.sum()\n"
    found = mutation.mutants(source)
    families = {m.family for m in found}
    assert {"sign", "operator", "off_by_one", "reduction", "missing_call", "swapped"} <= families
    assert any(m.edit == "x's gradient never cleared, so that it grows step after step" for m in found)
    assert any(m.edit == "the sign of one term flipped: the term with 2 · x" for m in found)
    plain = ast.unparse(ast.parse(source))
    for mutant in found:
        assert mutant.source != plain
        compile(mutant.source, "<mutant>", "exec")
    assert [m.index for m in found] == [m.index for m in mutation.mutants(source)]  # the same order every time


def test_a_classes_methods_are_edited_and_the_words_say_which() -> None:
    source = ("class Value:\n    def __init__(self, data):\n        self.data = data\n        self.grad = 0.0\n\n"
              "    def __mul__(self, other):\n        return Value(self.data * other.data)\n\n"
              "def double(v):\n    return v * Value(2.0)\n")
    found = mutation.mutants(source)
    assert {m.function for m in found} >= {"Value.__mul__", "double"}
    in_method = [m for m in found if m.function == "Value.__mul__"]
    assert in_method and all(m.edit.endswith("(in Value.__mul__)") for m in in_method), in_method
    assert not any("(in " in m.edit for m in found if m.function == "double")
    for mutant in in_method:  # each edits the method and leaves the class whole
        namespace: dict = {}
        exec(compile(mutant.source, "<mutant>", "exec"), namespace)  # noqa: S102 - an edit of the text above
        assert isinstance(namespace["Value"], type)
