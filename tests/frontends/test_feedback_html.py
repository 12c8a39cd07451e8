"""A student's feedback page and the instructor's view of it (graders/frontends/grade/outputs/feedback_html.py),
from a stored record: a hidden check shows only what it may, the term's lines are there, and the instructor's
view shows every message in full with where it came from. Every text a student controls shows escaped."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from graders.engine.results import HIDDEN_OUTCOME
from graders.frontends.grade.outputs.feedback_html import feedback_html
from graders.frontends.grade.outputs.html_page import escape
from graders.frontends.grade.term.standing import Person, Standing
from graders.frontends.grade.store import StudentRecord

# The stored records and exercises the report's tests build, shared rather than written twice.
from test_outputs_report import ESCAPED, HOSTILE, LESSON, _exercise, _record  # noqa: E402


def _standing(student: str, raw: float, **fields: Any) -> Standing:
    defaults = {"person": Person(student, name=f"{student.title()}{HOSTILE}", section="B"), "handed_in": True,
                "final": raw}
    return Standing(student=student, raw=raw, max_score=LESSON.points, **{**defaults, **fields})


def _graded(hidden_show: str | None = "shown") -> StudentRecord:
    """A record whose hidden check failed: its message says more than students may see."""
    hidden = next(c for c in LESSON.exercise("views").checks if c.hidden)
    failure = {"message": f"as_grid_and_flatten_on_fresh_tensors: as_grid(x) with x = {HOSTILE} shared nothing",
               "mistake": "copies", "concept": "views", "cause": ""}
    if hidden_show is not None:
        failure["shown"] = f"{HIDDEN_OUTCOME}\n  called:   as_grid(...)\n  mistake:  copies."
    return _record("ann", score=5.5, origin=f"submissions/ann{HOSTILE}", problems=["two notebooks"],
                   integrity=[f"views: views.py line 1: {HOSTILE}"],
                   exercises=[_exercise("views", {hidden.id: failure})])


def test_the_students_page_shows_what_the_hidden_check_shows_and_the_terms_lines(tmp_path: Path) -> None:
    standing = _standing("ann", 5.5, final=4.95, late_days=1, penalty=0.1, notes=[f"Late by a day {HOSTILE}."],
                         submitted_at=datetime(2025, 3, 2, 10, 0), submitted_how="Canvas",
                         due=datetime(2025, 3, 1, 23, 59), overrides={"views": 6.0})
    html = feedback_html(_graded(), LESSON, tmp_path, standing=standing)
    assert escape(f"{HIDDEN_OUTCOME}\n  called:   as_grid(...)") in html and "shared nothing" not in html, (
        "a student's page shows a hidden check's `shown`, never its message")
    assert 'data-key="final">4.95</span> / 100 points (<span data-key="raw">5.5</span> from the checks)' in html
    assert "2025-03-02 10:00</span> (Canvas)" in html and 'data-key="due">2025-03-01 23:59<' in html
    assert 'data-key="penalty" data-value="0.1">10%' in html and 'data-target="views">6<' in html
    assert f"<li>Late by a day {ESCAPED}.</li>" in html
    assert "submissions/ann" not in html and "views.py line 1" not in html, "origin and evidence are the instructor's"
    assert "../report.html" not in html and HOSTILE not in html


def test_a_hidden_check_stored_before_shown_existed_shows_what_the_setting_shows(tmp_path: Path) -> None:
    html = feedback_html(_graded(hidden_show=None), LESSON, tmp_path)
    assert "shared nothing" not in html, "no `shown` stored: the course's setting decides, not the message"


def test_the_instructors_view_shows_every_message_in_full_and_where_it_came_from(tmp_path: Path) -> None:
    html = feedback_html(_graded(), LESSON, tmp_path, instructor=True)
    assert f"as_grid(x) with x = {ESCAPED} shared nothing" in html, "the hidden check's whole message"
    assert "mistake: copies; concept: views" in html
    assert f'data-key="origin">submissions/ann{ESCAPED}<' in html and f"views.py line 1: {ESCAPED}" in html
    assert "Note: two notebooks" in html and '<a href="../report.html">' in html
    assert HOSTILE not in html
