"""The class report's sections on the students to look at first: integrity flags and hand-in problems.

Both come from the stored records (DIR/students/<id>.json): `integrity` (evidence lines, top level
and per exercise; absent in records stored before it existed), `problems` and `error`. Every id,
problem and evidence line is the student's own text, so it must show escaped.
"""

from __future__ import annotations

import re
from typing import Any

import course_config
from graders.frontends.grade import tables
from graders.frontends.grade.report import report_html
from graders.frontends.grade.store import file_name

LESSON = course_config.LESSON_01
HOSTILE = '<img src=x onerror="alert(1)">'


def _record(student: str, **fields: Any) -> dict[str, Any]:
    return {"student": student, "score": 0.0, "max_score": LESSON.points, "exercises": [], "problems": [],
            "error": "", **fields}


def _report(records: list[dict[str, Any]]) -> str:
    return report_html(records, LESSON, tables.class_stats(records, LESSON))


def _section(html: str, anchor: str) -> str:
    """The HTML from a section's heading to the next heading ('' if there is no such section)."""
    found = re.search(rf'<h2 id="{anchor}">.*?(?=<h2|\Z)', html, re.DOTALL)
    return found.group(0) if found else ""


def test_integrity_flags_list_each_flagged_student_with_the_evidence_and_a_link_to_their_feedback() -> None:
    evidence = ["micrograd: micrograd.py line 3: sys._getframe: reaches the grader's frames",
                f"views: views.py line 9: {HOSTILE}"]
    records = [_record("mallory", integrity=evidence,
                       exercises=[{"slug": "views", "score": 0, "max_score": 1, "checks": [], "integrity": evidence}]),
               _record("bob", integrity=[]),
               _record("carol")]  # stored before the field existed
    section = _section(_report(records), "integrity")
    assert "Integrity flags (1)" in section
    assert '<a href="feedback/mallory.html">mallory</a>' in section
    assert "sys._getframe: reaches the grader&#x27;s frames" in section
    assert "views.py line 9: &lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in section
    assert HOSTILE not in section
    assert "bob" not in section and "carol" not in section


def test_no_integrity_section_when_no_record_has_evidence() -> None:
    html = _report([_record("bob", integrity=[]), _record("carol")])
    assert 'id="integrity"' not in html and "Integrity flags" not in html


def test_hand_in_problems_list_problems_and_errors_escaped() -> None:
    odd = f'eve"{HOSTILE}'
    records = [_record("dan", problems=["two notebooks for one id: dan_1.ipynb, dan_2.ipynb (the latest, by the "
                                        "LMS's timestamp, was graded)"]),
               _record(odd, problems=[f"a symlink refused: {HOSTILE}.py"], error=f"SyntaxError: {HOSTILE}"),
               _record("alice", score=10.0)]
    html = _report(records)
    section = _section(html, "hand-in-problems")
    assert "Hand-in problems (2)" in section
    assert "<li>two notebooks for one id: dan_1.ipynb, dan_2.ipynb" in section
    assert "not graded: SyntaxError: &lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in section
    assert "a symlink refused: &lt;img" in section
    assert f'<a href="feedback/{file_name(odd)}.html">eve&quot;&lt;img' in section
    assert HOSTILE not in html
    assert "alice" not in section
    assert "Not graded: 1" in html


def test_no_hand_in_section_when_every_hand_in_was_clean() -> None:
    html = _report([_record("alice", score=10.0)])
    assert "Hand-in problems" not in html
