"""The side-by-side page of similar answers (graders/frontends/grade/outputs/similarity_page.py): a hostile id and
answer show escaped under the page's policy, each student links to their feedback, an archived answer says it is
an earlier term's, and the page says it is no verdict. The answers are test_similarity.py's hand-written ones."""

from __future__ import annotations

from graders.frontends.grade.outputs.similarity import similar_pairs
from graders.frontends.grade.outputs.similarity_page import similarity_html
from graders.frontends.grade.store import file_name
from test_similarity import ACCUMULATION, ARCHIVE, FINN_ACCUMULATION, HOSTILE, JAY_SIN_EXP, STUB_TEXTS, _names


def test_the_page_escapes_a_hostile_id_and_answer_and_says_it_is_no_verdict() -> None:
    hostile_copy = FINN_ACCUMULATION.replace("# make x and differentiate", f"# {HOSTILE}") \
                                    .replace("return seen", f"return seen  # '{HOSTILE}'")
    answers = {"ben": {"grad_accumulation": ACCUMULATION["ben"]}, HOSTILE: {"grad_accumulation": hostile_copy},
               "jay": {"sin_exp_derivative": JAY_SIN_EXP}}
    pairs = similar_pairs(answers, STUB_TEXTS, archive=ARCHIVE)
    assert _names(pairs) == {HOSTILE, "ben", "jay", "2025-fall/zoe", "2025-fall/yan"}, f"listed {pairs}"
    page = similarity_html(pairs, answers, archive=ARCHIVE)
    assert HOSTILE not in page and "<img" not in page and "<script" not in page, "student text reached the page raw"
    assert "&lt;img src=x onerror=alert(1)&gt;" in page, "the hostile id and comment should show, escaped"
    assert page.count('http-equiv="Content-Security-Policy"') == 1, "the page must carry the CSP"
    assert f'<a href="feedback/{file_name(HOSTILE)}.html">' in page and '<a href="feedback/ben.html">ben</a>' in page
    assert "2025-fall/zoe (an earlier term)" in page and "feedback/2025-fall" not in page, \
        "an archived answer has no feedback page this term"
    assert "not a verdict" in page and "<mark>" in page, "the page says what it is and marks the matching lines"
    assert "No two answers look alike" in similarity_html([], answers)
