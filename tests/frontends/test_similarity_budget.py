"""Similarity within bounds: an answer too large to be worth comparing is left out, and what was not compared is
said on the page, never silently dropped (the comparison's time budget is test_similarity_run.py's). The attack
it answers: 14 files of 2 MiB (the per-file cap of a hand-in) held grades.csv and report.html back by minutes
(benchmarks/similarity_budget.py measures it in a class of 100)."""

from __future__ import annotations

import json
from pathlib import Path

import course_config
from graders.frontends.grade.outputs.similarity import ANSWER_BYTES, compare, similar_pairs
from graders.frontends.grade.outputs.similarity_page import similarity_html
from test_batch import SLUGS, _grade, _reference, _write_folders
from test_similarity import ACCUMULATION, COPIES, FINN_ACCUMULATION, STUB_TEXTS, _class, _pairs

LESSON = course_config.LESSON_01


def _padded(source: str, size: int) -> str:
    """`source` with statements of its own added until it is `size` bytes: each line different, as filler that
    no classmate shares (and no longer the kind of answer anyone writes by hand)."""
    lines, number = [source], 0
    while sum(map(len, lines)) < size:
        lines.append(f"padding_{number} = {number} * 7 + len('{number}')\n")
        number += 1
    return "".join(lines)


def test_a_copy_padded_past_the_cap_is_left_out_and_named_not_silently_dropped() -> None:
    answers = {"ben": {"grad_accumulation": ACCUMULATION["ben"]},
               "mal": {"grad_accumulation": _padded(FINN_ACCUMULATION, ANSWER_BYTES + 1)}}
    assert not similar_pairs(answers, STUB_TEXTS), "an answer over the cap was compared"
    found = compare(answers, STUB_TEXTS)
    assert found.not_compared == ["grad_accumulation: mal's answer was not compared: 64 KiB, over the 64 KiB an "
                                  "answer may hold to be compared"], found.not_compared
    page = similarity_html(found.pairs, answers, not_compared=found.not_compared)
    assert "Not compared" in page and "mal&#x27;s answer was not compared" in page, page


def test_honest_answers_under_the_cap_are_compared_as_before() -> None:
    found = compare(_class(), STUB_TEXTS)
    assert _pairs(found.pairs) == COPIES and found.not_compared == []
    assert "Not compared" not in similarity_html(found.pairs, _class(), not_compared=found.not_compared)


def test_an_answer_at_the_cap_is_still_compared() -> None:
    answers = {"ben": {"grad_accumulation": ACCUMULATION["ben"]},
               "finn": {"grad_accumulation": _padded(FINN_ACCUMULATION, ANSWER_BYTES - 200)}}
    assert len(answers["finn"]["grad_accumulation"].encode()) <= ANSWER_BYTES
    found = compare(answers, STUB_TEXTS)
    assert found.not_compared == [] and {(p.first, p.second) for p in found.pairs} == {("ben", "finn")}, found


def test_a_batch_says_which_answer_it_did_not_compare_and_grades_it_as_any_other(tmp_path: Path) -> None:
    solved = {slug: _reference(slug) for slug in SLUGS}
    padded = _padded(_reference("grad_accumulation"), 100 * 2**10)
    root = _write_folders(tmp_path / "class", {"ann": solved, "mal": {**solved, "grad_accumulation": padded}})
    run = _grade(root, tmp_path / "out", "-j", "2", check=True)
    assert "graders grade: similarity: grad_accumulation: mal's answer was not compared: 100 KiB" in run.stdout, \
        run.stdout[-3000:]
    page = (tmp_path / "out" / "similarity.html").read_text()
    assert "Not compared" in page and "grad_accumulation: mal&#x27;s answer was not compared" in page
    scores = {name: json.loads((tmp_path / "out" / "students" / f"{name}.json").read_text())["score"]
              for name in ("ann", "mal")}
    assert scores == {"ann": LESSON.points, "mal": LESSON.points}, scores
