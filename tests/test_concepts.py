"""Every named mistake names the lesson idea it breaks (a key of course_config.CONCEPTS), every idea of that
vocabulary is broken by some mistake, and a graded failure that names a mistake carries its concept in the JSON
result, whichever way the check named it, without a word of the student's message changing."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

import course_config
from conftest import mistake_submissions
from graders.engine.collect import collect_mistakes
from graders.engine.feedback import CheckFailed, fail
from graders.engine.mistakes import ANY_EXERCISE, Mistake, concept_of


def catalogue(slug: str) -> list[Mistake]:
    return collect_mistakes(importlib.import_module(f"graders.lesson01.{slug}.mistakes"))


def every_mistake() -> list[tuple[str, Mistake]]:
    """(where, mistake) for every exercise's catalogue and the mistakes any exercise can make."""
    found = [(slug, m) for slug in (e.slug for e in course_config.LESSON_01.exercises) for m in catalogue(slug)]
    return found + [("any exercise", m) for m in ANY_EXERCISE]


def test_every_mistake_names_a_concept_of_the_course() -> None:
    unnamed = [f"{where}: {m.name!r} ({m.concept!r})" for where, m in every_mistake()
               if m.concept not in course_config.CONCEPTS]
    assert not unnamed, "mistakes whose concept is not a key of course_config.CONCEPTS:\n" + "\n".join(unnamed)


def test_every_concept_is_broken_by_some_mistake() -> None:
    # A concept no mistake names is a row the class report can never fill: a dead word of the vocabulary.
    used = {m.concept for _, m in every_mistake()}
    assert set(course_config.CONCEPTS) <= used, f"concepts no mistake names: {sorted(set(course_config.CONCEPTS) - used)}"


def test_each_concept_is_a_short_key_with_one_sentence() -> None:
    for key, sentence in course_config.CONCEPTS.items():
        assert key.isidentifier() and key == key.lower(), f"{key!r}: a concept's key is a lower-case identifier"
        assert sentence.endswith(".") and ". " not in sentence, f"{key!r}: its description is one sentence"
        assert 40 < len(sentence) < 300, f"{key!r}: its sentence is {len(sentence)} characters, not a short one"


def test_a_name_always_means_one_concept() -> None:
    # The session looks a concept up by the mistake's name when a check gives the name alone (concept_of).
    for slug in (e.slug for e in course_config.LESSON_01.exercises):
        mistakes = catalogue(slug)
        for mistake in mistakes:
            assert concept_of(mistake.name, mistakes) == mistake.concept, f"{slug}: {mistake.name!r}"
    assert concept_of(None, []) == "" and concept_of("no such mistake", []) == ""


def test_a_misspelt_concept_stops_the_import() -> None:
    with pytest.raises(ValueError, match="not a key of course_config.CONCEPTS"):
        Mistake("a slip", "what it did", "what to change", "a section", concept="zero grad")


def test_fail_carries_the_concept_and_the_message_does_not_show_it() -> None:
    mistake = next(m for _, m in every_mistake() if m.concept == "accumulation")
    with pytest.raises(CheckFailed) as failed:
        fail("f: wrong gradient.", call="f(x)", mistake=mistake)
    feedback = failed.value.feedback
    assert (feedback.mistake, feedback.concept) == (mistake.name, "accumulation")
    # The student's message is the same with or without a concept: it is for the class report, not the student.
    assert feedback.text() == dataclasses.replace(feedback, concept="").text()


def test_a_graded_failure_carries_its_mistakes_concept_in_the_json(grade) -> None:
    # grad_accumulation's check names this mistake by its name alone (it rewords the hint), so the session finds
    # its concept in the catalogue; dtypes_and_devices' is recognised from the error it raises (an error pattern).
    chosen = {("grad_accumulation", "gradient cleared between backward calls"),
              ("dtypes_and_devices", "moved a value that is not a tensor")}
    submissions = [s for s in mistake_submissions() if (s.slug, s.mistake) in chosen]
    assert len(submissions) == len(chosen)
    graded = grade({s.slug: s.text() for s in submissions})
    for submission in submissions:
        concept = next(m.concept for m in catalogue(submission.slug) if m.name == submission.mistake)
        checks = graded.checks(submission.slug)
        for check_id in submission.named:
            assert (checks[check_id]["mistake"], checks[check_id]["concept"]) == (submission.mistake, concept), (
                f"{submission.slug}: {check_id}\n{graded.output}")
        # A check that passed, or failed without naming a mistake, names no concept.
        for check in checks.values():
            assert check["concept"] == "" or check["mistake"] is not None, check
