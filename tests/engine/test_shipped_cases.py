"""The generated inputs shipped with the course (graders/engine/shipped_cases.py) are what hypothesis draws
today, are read instead of drawn while they are up to date, and are ignored once anything they follow from
changes."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import course_config

from conftest import STUBS
from graders.engine import drawing, shipped_cases
from graders.engine.case_recipes import recipes
from graders.frontends import pytest_plugin

LESSON = course_config.LESSON_01.folder
REWRITE = "python -m graders.engine.shipped_cases"


def test_the_shipped_cases_are_up_to_date_and_what_hypothesis_draws_now() -> None:
    shipped = shipped_cases.shipped(LESSON)
    assert shipped, f"graders/{LESSON}/{shipped_cases.FILE_NAME} is missing or out of date: run `{REWRITE}`"
    assert set(shipped) == {e.slug for e in course_config.LESSON_01.exercises}
    for slug, named in recipes(LESSON).items():
        for name, recipe in named.items():
            # As text: 2 (a node's number in a graph) and 2.0 (a constant) compare equal as values.
            assert shipped[slug][name] == repr(recipe()), f"{slug}.{name}: run `{REWRITE}`"


@pytest.mark.parametrize("change", ["a seed", "a recipe's source", "hypothesis's version"])
def test_cases_out_of_date_are_never_read(change: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    before = shipped_cases.provenance(LESSON)
    if change == "a seed":
        shape_bugs = course_config.LESSON_01.exercise("shape_bugs")
        seed = shape_bugs.seeds["fresh_pairs"]
        monkeypatch.setitem(shape_bugs.seeds, "fresh_pairs", type(seed)(int(seed.value) + 1, seed.description))
    elif change == "a recipe's source":
        copy = tmp_path / "graders"
        (copy / LESSON / "micrograd").mkdir(parents=True)
        for source in shipped_cases._recipe_sources(LESSON):
            target = copy / source.relative_to(shipped_cases._PACKAGE_FOLDER)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(source.read_text())
        (copy / "engine" / "drawing.py").write_text((copy / "engine" / "drawing.py").read_text() + "\n# edited\n")
        (copy / LESSON / shipped_cases.FILE_NAME).write_text(shipped_cases.path(LESSON).read_text())
        monkeypatch.setattr(shipped_cases, "_PACKAGE_FOLDER", copy)
    else:
        monkeypatch.setattr(shipped_cases.importlib.metadata, "version", lambda name: "0.0.1")
    shipped_cases.shipped.cache_clear()
    try:
        assert shipped_cases.provenance(LESSON) != before
        assert shipped_cases.shipped(LESSON) == {} and not shipped_cases.covers(LESSON, "shape_bugs")
        assert shipped_cases.case(LESSON, "shape_bugs", "fresh_pairs") is None
    finally:
        monkeypatch.undo()
        shipped_cases.shipped.cache_clear()


def test_a_broken_file_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / LESSON).mkdir()
    monkeypatch.setattr(shipped_cases, "path", lambda lesson: tmp_path / lesson / shipped_cases.FILE_NAME)
    current = shipped_cases.provenance(LESSON)
    for text in ("", "[]", json.dumps({"provenance": current, "exercises": [1]}),
                 json.dumps({"provenance": current, "exercises": {"shape_bugs": {"fresh_pairs": [[1], [2]]}}})):
        (tmp_path / LESSON / shipped_cases.FILE_NAME).write_text(text)
        shipped_cases.shipped.cache_clear()
        assert shipped_cases.shipped(LESSON) == {}, text
    shipped_cases.shipped.cache_clear()


def test_a_first_run_leaves_the_helper_nothing_to_draw_and_the_grader_reads_the_shipped_cases(tmp_path: Path) -> None:
    exercises = STUBS
    wanted = pytest_plugin._to_draw([str(exercises)], course_config.ROOT, kept_allowed=False, cache=None,
                                    draw_ahead=False)
    assert ("lesson01", "shape_bugs") in wanted  # the helper is given them, and skips them (drawing._draw_into)
    assert all(shipped_cases.covers(lesson, slug) for lesson, slug in wanted)
    helper = drawing.Drawer()
    helper.start(wanted)  # a real helper process: it ends without drawing or sending anything
    assert helper.sock is not None and helper._receive(seconds=30) is False and not helper.received
    helper.close()
    drawer = drawing.Drawer()  # no helper started: a case not shipped would be drawn here, in place
    assert drawer.get(LESSON, "shape_bugs", "generated_pairs") == ast.literal_eval(
        shipped_cases.case(LESSON, "shape_bugs", "generated_pairs"))
    assert drawer.received.keys() == {f"{LESSON}/shape_bugs.generated_pairs"}
