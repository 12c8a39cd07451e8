"""The class report's sections (graders/frontends/grade/outputs/report.py), from stored-record dicts; the two
pages it links for each student (their feedback and the instructor's view of it) are test_feedback_html.py's.

Records are DIR/students/<id>.json: `integrity` (evidence lines, top level and per exercise; absent in
records stored before it existed), `problems`, `error`, and per check `concept` and `cause` (absent in
older records). Every id, problem, evidence line, mistake and concept name is the student's own text, or
quotes it, so it must show escaped. The numbers, read back in a browser, are tests/frontends/test_report_browser.py's.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

import course_config
from graders.frontends.grade.outputs import tables
from graders.frontends.grade.outputs.html_page import escape
from graders.frontends.grade.outputs.report import report_html
from graders.frontends.grade.term.standing import Person, Standing
from graders.frontends.grade.store import StudentRecord, file_name

LESSON = course_config.LESSON_01
HOSTILE = '<img src=x onerror="alert(1)">'
ESCAPED = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"


def _record(student: str, **fields: Any) -> StudentRecord:
    return StudentRecord.from_dict({"student": student, "score": 0.0, "max_score": LESSON.points, "exercises": [],
                                    "problems": [], "error": "", **fields})


def _exercise(slug: str, failed: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """A stored exercise result: every check passed but those in `failed` (check id -> the failure's fields)."""
    checks = []
    for check in LESSON.exercise(slug).checks:
        failure = (failed or {}).get(check.id)
        checks.append({"id": check.id, "points": check.points, "passed": failure is None, "hidden": check.hidden,
                       "score": check.points if failure is None else 0.0, "message": "" if failure is None else "no",
                       "mistake": None, "not_implemented": False, "files": [], **(failure or {})})
    return {"slug": slug, "score": sum(c["score"] for c in checks), "max_score": LESSON.exercise(slug).points,
            "checks": checks}


def _report(records: list[StudentRecord], **options: Any) -> str:
    return report_html(records, LESSON, tables.class_stats(records, LESSON), **options)


def _section(html: str, anchor: str) -> str:
    """The HTML from a section's heading to the next heading of its level or above ('' if there is none)."""
    found = re.search(rf'<h([23]) id="{anchor}">', html)
    if found is None:
        return ""
    end = re.compile("<h2" if found.group(1) == "2" else "<h[23]").search(html, found.end())
    return html[found.start():end.start() if end else len(html)]


def _link(student: str) -> str:
    return f'<a href="instructor/{file_name(student)}.html">'


# ------------------------------------------------------------------ students to look at first


def test_integrity_flags_list_each_flagged_student_with_the_evidence_and_links_to_their_pages() -> None:
    evidence = ["micrograd: micrograd.py line 3: sys._getframe: reaches the grader's frames",
                f"views: views.py line 9: {HOSTILE}"]
    records = [_record("mallory", integrity=evidence,
                       exercises=[{"slug": "views", "score": 0, "max_score": 1, "checks": [], "integrity": evidence}]),
               _record("bob", integrity=[]),
               _record("carol")]  # stored before the field existed
    section = _section(_report(records), "integrity")
    assert "Integrity flags (" in section and 'data-key="integrity">1<' in section, section
    assert '<a href="instructor/mallory.html">mallory</a>' in section, "the id opens the instructor's view"
    assert '<a href="feedback/mallory.html">feedback</a>' in section
    assert "sys._getframe: reaches the grader&#x27;s frames" in section
    assert f"views.py line 9: {ESCAPED}" in section
    assert HOSTILE not in section
    assert "bob" not in section and "carol" not in section


def test_no_integrity_section_when_no_record_has_evidence() -> None:
    html = _report([_record("bob", integrity=[]), _record("carol")])
    assert 'id="integrity"' not in html and "Integrity flags" not in html, "no section for no flag"


def test_hand_in_problems_list_problems_and_errors_escaped() -> None:
    odd = f'eve"{HOSTILE}'
    records = [_record("dan", problems=["two notebooks for one id: dan_1.ipynb, dan_2.ipynb (the latest, by the "
                                        "LMS's timestamp, was graded)"]),
               _record(odd, problems=[f"a symlink refused: {HOSTILE}.py"], error=f"SyntaxError: {HOSTILE}"),
               _record("alice", score=10.0)]
    html = _report(records)
    section = _section(html, "hand-in-problems")
    assert 'data-key="hand-in-problems">2<' in section, section
    assert "<li>two notebooks for one id: dan_1.ipynb, dan_2.ipynb" in section
    assert f"not graded: SyntaxError: {ESCAPED}" in section
    assert "a symlink refused: &lt;img" in section
    assert f'{_link(odd)}eve&quot;&lt;img' in section
    assert HOSTILE not in html
    assert "alice" not in section
    assert 'Not graded: <span data-key="not-graded">1</span>' in html


def test_no_hand_in_section_when_every_hand_in_was_clean() -> None:
    html = _report([_record("alice", score=10.0)])
    assert "Hand-in problems" not in html, "no section for no problem"
    assert "No one: no integrity flag" in _section(html, "look-first")


def test_similar_pairs_link_this_terms_students_and_the_side_by_side_page() -> None:
    similar = [{"exercise": "views", "first": "alice", "second": f"bob{HOSTILE}", "similarity": 0.8},
               {"exercise": "micrograd", "first": "2024-fall/zed", "second": "alice", "similarity": 0.95}]
    section = _section(_report([_record("alice"), _record(f"bob{HOSTILE}")], similar=similar), "similar")
    rows = section.split("<tr>")[2:]
    assert len(rows) == 2 and "micrograd" in rows[0], "most alike first"
    assert 'data-value="0.95">95%<' in rows[0] and 'href="similarity.html"' in rows[0]
    assert "2024-fall/zed <small>(an earlier term)</small>" in rows[0], "an archived answer has no page to link"
    assert f"{_link('alice')}alice</a>" in rows[1] and f"{_link(f'bob{HOSTILE}')}bob{ESCAPED}</a>" in rows[1]
    assert HOSTILE not in section and "never a verdict" in _report([_record("alice")], similar=similar)


# ------------------------------------------------------------------ what to reteach


def test_reteach_groups_mistakes_by_concept_and_counts_each_student_once() -> None:
    same = {"mistake": "sum_instead_of_mean", "concept": "training_loop"}
    records = [_record("ann", exercises=[_exercise("shape_bugs", {"mse_loss_matches_torch": same,
                                                                  "mse_loss_fresh_inputs": same})]),
               _record("ben", exercises=[_exercise("shape_bugs", {"mse_loss_matches_torch": same}),
                                         _exercise("linear_module", {"lesson_numbers": {
                                             "mistake": "sums_the_loss", "concept": "training_loop"}})]),
               _record("cat", exercises=[_exercise("shape_bugs")])]
    section = _section(_report(records), "reteach")
    assert section.count('class="concept"') == 1, "one row for the concept, however many checks and mistakes"
    assert 'data-concept="training_loop" data-key="students">2<' in section, "two students, not three checks"
    assert f'data-key="share" data-value="{2 / 3!r}">67%<' in section
    assert 'data-mistake="sum_instead_of_mean" data-key="students">2<' in section
    assert 'data-mistake="sums_the_loss" data-key="students">1<' in section
    assert "shape_bugs</a>: mse_loss_matches_torch, mse_loss_fresh_inputs" in section, "where, in lesson order"
    assert escape(course_config.CONCEPTS["training_loop"]) in section, "the concept's sentence"


def test_every_concept_is_shown_ranked_by_students_with_other_last(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(course_config, "CONCEPTS", {"c00": "The first idea."}, raising=False)
    records = []
    for n in range(12):  # twelve concepts, concept c<n> made by n + 1 students: more than any cap of ten
        records += [_record(f"s{n}-{i}", exercises=[_exercise("views", {"as_grid_is_a_view": {
            "mistake": f"m{n}", "concept": f"c{n:02d}"}})]) for i in range(n + 1)]
    records.append(_record("odd", exercises=[_exercise("views", {"as_grid_is_a_view": {"mistake": f"m{HOSTILE}",
                                                                                         "concept": HOSTILE}})]))
    records.append(_record("lone", exercises=[_exercise("views", {"flatten_non_contiguous": {"mistake": "unfiled"}})]))
    section = _section(_report(records), "reteach")
    ranked = re.findall(r'data-concept="([^"]*)" data-key="share"', section)
    ties = [ESCAPED, "c00"]  # one student each: by name ("<" sorts before "c")
    assert ranked == [f"c{n:02d}" for n in range(11, 0, -1)] + ties + ["other"], ranked
    assert "<b>c00</b>: The first idea." in section, "a concept course_config describes shows its sentence"
    assert "<b>c05</b></th>" in section, "a concept it does not yet describe shows its key"
    assert "<b>other</b>: Mistakes no lesson idea is named for." in section and ">unfiled<" in section
    assert HOSTILE not in section


def test_no_named_mistake_says_so() -> None:
    section = _section(_report([_record("ann", exercises=[_exercise("views", {"as_grid_is_a_view": {}})])]), "reteach")
    assert "No named mistake was made." in section, section


# ------------------------------------------------------------------ exercises and checks


def test_exercises_are_ranked_by_mean_with_not_started_and_timeouts_apart() -> None:
    stub = {c.id: {"not_implemented": True} for c in LESSON.exercise("views").checks}
    timeout = {"cause": "timeout of as_grid", "message": "as_grid did not return"}
    records = [_record("ann", exercises=[_exercise("views", stub), _exercise("micrograd")]),
               _record("ben", exercises=[_exercise("views", {"as_grid_is_a_view": timeout}), _exercise("micrograd")]),
               _record("cat", exercises=[_exercise("views", {"flatten_non_contiguous": {"mistake": "m"}}),
                                         _exercise("micrograd", {"relu": {"cause": "allowance spent"}})])]
    html = _report(records)
    ranked = re.findall(r'data-exercise="([a-z_]+)" data-key="mean"', _section(html, "exercises"))
    assert ranked[:2] == ["views", "micrograd"], f"lowest mean first: {ranked}"
    assert 'data-exercise="views" data-key="not-started">1<' in html
    assert 'data-exercise="views" data-key="timed-out">1<' in html
    assert 'data-exercise="micrograd" data-key="timed-out">1<' in html
    # views: only cat started and did not time out: 5 of its 6 checks passed
    assert f'data-exercise="views" data-key="pass-rate" data-value="{5 / 6!r}"' in html
    assert 'data-exercise="views" data-key="band-0">1<' in html and 'data-exercise="views" data-key="band-4">2<' in html
    views = _section(html, "views")
    whose = 'data-exercise="views" data-check="as_grid_is_a_view"'
    assert (f'{whose} data-key="passed">1<' in views and f'{whose} data-key="failed">0<' in views
            and f'{whose} data-key="not-written">1<' in views and f'{whose} data-key="timed-out">1<' in views), views
    assert f'{whose} data-key="pass-rate" data-value="1.0">100%<' in views, "a timeout is not a failure of the check"


def test_a_file_that_did_not_import_no_file_and_an_untouched_stub_are_each_their_own_kind_not_mistakes() -> None:
    views = LESSON.exercise("views").checks
    broken = {c.id: {"cause": "import", "message": "lesson01/views.py could not be imported"} for c in views}
    missing = {c.id: {"cause": "missing file", "message": "lesson01/views.py does not exist"} for c in views}
    stub = {c.id: {"not_implemented": True} for c in views}
    records = [_record("ann", exercises=[_exercise("views", broken)]),
               _record("ben", exercises=[_exercise("views", missing)]),
               _record("cat", exercises=[_exercise("views", stub)]),
               _record("dan", exercises=[_exercise("views", {"as_grid_is_a_view": {}})])]
    stats = tables.class_stats(records, LESSON)
    first = next(s for s in stats if s.exercise == "views" and s.check == views[0].id)
    assert first.mistakes == {tables.DID_NOT_IMPORT: 1, tables.NOT_HANDED_IN: 1, tables.NOT_STARTED: 1,
                              tables.NOT_NAMED: 1}, first.mistakes  # only dan's failure is "(not named)"
    html = _report(records)
    for key in ("no-file", "not-started", "did-not-import"):
        assert f'data-exercise="views" data-key="{key}">1<' in html, key
    section = _section(html, "views")
    whose = f'data-exercise="views" data-check="{views[0].id}"'
    assert f'{whose} data-key="did-not-import">1<' in section and f'{whose} data-key="failed">1<' in section
    assert f"{escape(tables.NOT_NAMED)}: 1 (25%)" in section, "ann's import error is no unnamed mistake"
    # only dan tried views: 5 of its 6 checks passed
    assert f'data-exercise="views" data-key="pass-rate" data-value="{5 / 6!r}"' in _section(html, "exercises")
    other = next(s for s in stats if s.exercise == "views" and s.check == views[1].id)
    assert tables.NOT_NAMED not in other.mistakes, "a check dan passed names no mistake for the others"


# ------------------------------------------------------------------ the headline and the roster


def _standing(student: str, raw: float, **fields: Any) -> Standing:
    defaults = {"person": Person(student, name=f"{student.title()}{HOSTILE}", section="B"), "handed_in": True,
                "final": raw}
    return Standing(student=student, raw=raw, max_score=LESSON.points, **{**defaults, **fields})


def test_the_headline_says_whether_its_scores_are_raw_or_final() -> None:
    records = [_record("ann", score=80.0), _record("ben", score=40.0)]
    raw = _report(records)
    assert 'data-key="students">2<' in raw and 'data-basis="raw" data-value="60.0">60.0<' in raw, raw
    standings = {"ann": _standing("ann", 80.0, final=72.0, late_days=1, penalty=0.1),
                 "ben": _standing("ben", 40.0, excused=True),
                 "cy": _standing("cy", 0.0, handed_in=False)}
    final = _report(records, standings=standings)
    assert 'data-basis="final" data-value="36.0">36.0<' in final, "ann's 72 and cy's 0; ben is excused"
    assert 'data-key="in-all">3<' in final and 'data-key="nothing-handed-in">1<' in final


def test_the_roster_lists_every_student_with_their_pages_and_the_terms_marks() -> None:
    records = [_record("ann", score=80.0), _record("zed", score=10.0), _record("ben", score=40.0)]
    standings = {"ben": _standing("ben", 40.0, overrides={f"views{HOSTILE}": 6.0}, final=46.0),
                 "ann": _standing("ann", 80.0, final=72.0, late_days=1, penalty=0.1),
                 "cy": _standing("cy", 0.0, handed_in=False)}
    section = _section(_report(records, standings=standings), "roster")
    order = re.findall(r'data-student="([^"]+)" data-key="final"', section)
    assert order == ["ann", "ben", "cy", "zed"], f"everyone, on the roster or not, by id: {order}"
    assert "not on the roster" in section.split('data-student="zed"')[-1], "zed has no standing of the roster"
    assert f'{_link("ann")}ann</a>' in section and '<a href="feedback/ann.html">feedback</a>' in section
    assert '<td>cy</td>' in section and "nothing handed in" in section, "no page to link for who handed nothing in"
    assert 'data-student="ann" data-key="penalty" data-value="0.1">10% (1 day late)<' in section
    assert f"set by a decision: views{ESCAPED} 6" in section and f"Ben{ESCAPED}" in section
    assert HOSTILE not in section
    bare = _section(_report(records), "roster")
    assert re.findall(r'data-student="([^"]+)" data-key="final"', bare) == ["ann", "ben", "zed"], "by id"
    assert "not on the roster" not in bare, "no roster, no mark"


# ------------------------------------------------------------------ the pages it links


def test_three_or_more_students_linked_by_similar_pairs_are_one_row() -> None:
    students = ["ann", "bob", "cat", "dan", "eve"]
    similar = [{"exercise": "views", "first": a, "second": b, "similarity": 1.0}
               for a, b in (("ann", "bob"), ("bob", "cat"), ("ann", "cat"))]
    similar.append({"exercise": "views", "first": "dan", "second": "eve", "similarity": 0.9})
    section = _section(_report([_record(s) for s in students], similar=similar), "similar")
    assert 'data-key="alike-group" data-exercise="views">3<' in section
    assert section.count('data-key="similarity"') == 1, "the pair outside the group keeps its own row"
    assert 'data-key="similar">4<' in section
