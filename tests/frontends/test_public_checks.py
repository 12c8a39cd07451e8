"""The student's copy of a checks module and of a manifest (graders/frontends/nbgrader/public_checks.py): every
hidden check gone, with the helpers only they used; each `@expected` body a raise (its values are replayed); a
public check that repeats the reference withheld; a manifest with the public checks, the hidden ones' points as
one sum and only the settings the released checks name; and TOML that reads back as the data it was written
from. On every exercise of the lesson, and on a small made-up one."""

from __future__ import annotations

import ast
import math
import tomllib
from pathlib import Path

import pytest

import course_config
from graders.frontends.nbgrader.public_checks import REPLAYED, public_checks, public_manifest, toml_text

LESSON = course_config.LESSON_01


def _room(slug: str) -> Path:
    return course_config.ROOT / "graders" / LESSON.folder / slug


@pytest.mark.parametrize("slug", [e.slug for e in LESSON.exercises])
def test_no_hidden_check_is_released_and_every_public_one_is_or_is_said_withheld(slug: str) -> None:
    exercise = LESSON.exercise(slug)
    reference = (course_config.ROOT / "reference" / LESSON.folder / f"{slug}.py").read_text()
    released, withheld = public_checks((_room(slug) / "checks.py").read_text(), exercise, reference)
    functions = {n.name for n in ast.parse(released).body if isinstance(n, ast.FunctionDef)}
    public = {f"test_{c.id}" for c in exercise.checks if not c.hidden}
    assert not {f"test_{c.id}" for c in exercise.checks if c.hidden} & functions
    assert public - functions == {f"test_{check}" for check in withheld}, "a public check vanished unsaid"
    manifest = tomllib.loads(public_manifest(_room(slug) / "exercise.toml", released))
    assert [c["id"] for c in manifest["checks"]] == [c.id for c in exercise.checks if not c.hidden]
    hidden_points = sum(c.points for c in exercise.checks if c.hidden)
    assert manifest.get("withheld_points", 0) == hidden_points
    named = {n.value for n in ast.walk(ast.parse(released)) if isinstance(n, ast.Constant)}
    for table in ("seeds", "tolerances"):
        assert set(manifest.get(table, {})) <= named, f"{table} the released checks never name"


CHECKS = '''"""Checks of a made-up exercise."""

from graders.kit import expected

from graders.lesson01.made_up import mistakes  # only the hidden check names a mistake


def _fresh_inputs():
    return [3, 4]


@expected
def doubled(x):
    """What double gives."""
    return 2 * x


def test_doubles(student):
    assert student.double(2) == doubled(2)


def test_doubles_fresh(student):  # hidden
    assert all(student.double(x) == 2 * x for x in _fresh_inputs()), mistakes.HALVED


def test_copies_the_solution(student):
    x = 5
    total = x + x + 0 * len("as the reference computes it")
    assert student.double(x) == total
'''


def test_a_made_up_modules_hidden_check_its_helper_and_its_import_go_and_expected_bodies_raise() -> None:
    made_up = course_config.Exercise("made_up", "Made up", "Doubling", (
        course_config.Check("doubles", 1, "doubles 2"), course_config.Check("doubles_fresh", 1, "fresh", hidden=True),
        course_config.Check("copies_the_solution", 1, "doubles 5")))
    reference = 'def double(x):\n    total = x + x + 0 * len("whatever it says")\n    return total\n'
    released, withheld = public_checks(CHECKS, made_up, reference)
    assert withheld == ["copies_the_solution"], "it repeats the reference's line (its strings aside)"
    assert "total = x + x" not in released
    assert "test_doubles_fresh" not in released and "_fresh_inputs" not in released and "mistakes" not in released
    assert "test_doubles(student)" in released and f'    """What double gives."""\n    {REPLAYED}' in released


def test_toml_reads_back_as_the_data_it_was_written_from() -> None:
    data = {"title": 'say "hi"', "points": 3, "scale": 1.0, "tiny": 1e-05, "flag": True, "odd": "tab\there\x7f",
            "checks": [{"id": "a", "points": 1.5}, {"id": "b", "points": 2}],
            "tolerances": {"plain": {"rtol": 1e-07}, "the key": {"atol": math.inf}}}
    text = toml_text(data)
    assert tomllib.loads(text) == data and "1e-5" in text
    assert isinstance(tomllib.loads(text)["points"], int) and isinstance(tomllib.loads(text)["scale"], float)
    with pytest.raises(TypeError, match="no TOML written here for NoneType"):
        toml_text({"nothing": None})
