"""The comparison run beside the grading (graders/frontends/grade/outputs/similarity_run.py): it stops when its time
is up and says what it left, and a class compared in time loses nothing."""

from __future__ import annotations

import time

import course_config
from graders.frontends.grade.outputs.similarity_page import similarity_html
from graders.frontends.grade.outputs.similarity_run import BUDGET_SECONDS, GRACE_SECONDS, Similarity
from test_similarity import COPIES, _class, _pairs

LESSON = course_config.LESSON_01


def test_the_comparison_stops_when_its_time_is_up_and_says_what_it_left() -> None:
    # 200 students x 14 exercises take seconds to fingerprint: far more than the budget of 0.3 s given here.
    references = {e.slug: (course_config.ROOT / "reference" / LESSON.folder / f"{e.slug}.py").read_text()
                  for e in LESSON.exercises}
    answers = {f"s{number:03d}": dict(references) for number in range(200)}
    with Similarity(answers, LESSON, budget=0.3) as similarity:
        started = time.monotonic()
        found = similarity.result()
        waited = time.monotonic() - started
    assert waited < 0.3 + GRACE_SECONDS + 1.0, f"the outputs waited {waited:.1f} s for a budget of 0.3 s"
    # Stopped by its own clock, or (on a machine too loaded for it to notice in time) ended: either way said.
    said = ("the time for comparing ran out", "did not stop within")
    assert found.not_compared and all(any(s in line for s in said) for line in found.not_compared), \
        found.not_compared
    page = similarity_html(found.pairs, answers, not_compared=found.not_compared)
    assert all(line.replace("'", "&#x27;") in page for line in found.not_compared)


def test_a_class_compared_in_time_loses_nothing() -> None:
    assert BUDGET_SECONDS <= 10, "the outputs are to wait a few seconds for the comparison, not minutes"
    with Similarity(_class(), LESSON) as similarity:  # its whole budget, start-up included: about 1 s of it
        found = similarity.result()
    assert found.not_compared == [] and _pairs(found.pairs) == COPIES, found
