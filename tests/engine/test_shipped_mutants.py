"""The data files of single edits (graders/engine/shipped_mutants.py): of today's references, generator and checks;
each check's inputs kept beside them for the explanation to ask after a wrong answer; no quiz ships an edit of its key."""

from __future__ import annotations

import course_config
from graders.engine import mutation, shipped_mutants, single_edits
from graders.sandbox import unpack
from test_single_edits import DATA, LESSON, REWRITE, _source


def test_the_data_file_is_of_todays_references_and_generator() -> None:
    assert DATA.get("generator") == single_edits.generator_digest(), f"the generator changed: run `{REWRITE}`"
    for slug, entry in DATA["exercises"].items():
        assert entry["reference"] == single_edits.source_digest(_source(slug)), f"{slug} changed: run `{REWRITE}`"
        assert entry["checks"] == single_edits.checks_digest(LESSON, slug), \
            f"{slug}'s checks changed since the edits were proved: run `{REWRITE} {slug}`"
        indices = {m.index for m in mutation.mutants(_source(slug))}
        assert entry["generated"] == len(indices) and {m["index"] for m in entry["kept"]} <= indices


def test_each_checks_inputs_are_kept_beside_the_data_file_for_the_explanation_to_ask() -> None:
    raw = unpack(single_edits.inputs_path(LESSON).read_bytes())
    assert raw["generator"] == single_edits.generator_digest(), f"run `{REWRITE}`"
    kept = single_edits.shipped_inputs(LESSON)
    assert set(kept) == set(DATA["exercises"]), f"run `{REWRITE}`"
    for slug, entry in DATA["exercises"].items():
        reference = single_edits.reference_module(LESSON, slug)
        for check, count in entry["inputs"].items():
            calls = kept[slug][check]
            bound = [single_edits.arguments(reference, single_edits.Input(LESSON, slug, f, a, k, None))
                     for f, a, k in calls]
            assert sum(b is not None for b in bound) == count, (slug, check)
    # A driver's calls are kept by its name, and the name finds the grader's own function only.
    drivers = {f for checks in kept.values() for calls in checks.values() for f, _, _ in calls
               if f.startswith(single_edits.DRIVER)}
    assert drivers and all(single_edits.driver(f) is not None for f in drivers)
    assert single_edits.driver(single_edits.DRIVER + "os:system") is None


def test_a_quiz_ships_no_edit_of_its_answer_key() -> None:
    quizzes = [e.slug for e in course_config.LESSON_01.exercises if shipped_mutants.is_quiz(e)]
    assert quizzes == ["quick_check"] and not set(quizzes) & set(DATA["exercises"])


