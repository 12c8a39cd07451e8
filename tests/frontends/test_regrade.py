"""What a regrade changes (graders/frontends/grade/outputs/regrade.py): each check that moved with both messages,
the totals, and a changes page and CSV that run nothing a student wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders.frontends.grade import store
from graders.frontends.grade.outputs import regrade
from graders.frontends.grade.store import StudentRecord


def test_a_regrade_names_each_check_that_moved_with_both_messages(tmp_path: Path) -> None:
    def record(student: str, passed: bool, message: str) -> StudentRecord:
        check = {"id": "values", "score": 2.0 if passed else 0.0, "points": 2.0, "passed": passed, "message": message}
        return StudentRecord.from_dict({"student": student, "score": check["score"], "max_score": 2.0, "exercises": [
            {"slug": "views", "score": check["score"], "max_score": 2.0, "checks": [check]}]})

    before = [record("alice", False, "tolerance 1e-8: off by 3e-7"), record("bob", True, "")]
    after = [record("alice", True, ""), record("bob", True, ""), record("carol", True, "")]
    found = regrade.changes(before, after)
    assert [(c.student, c.check, c.before, c.after) for c in found] == [("alice", "values", 0.0, 2.0),
                                                                         ("carol", "", None, 2.0)]
    assert found[0].message_before == "tolerance 1e-8: off by 3e-7"
    assert regrade.totals(before, after) == {"alice": (0.0, 2.0), "carol": (0.0, 2.0)}
    assert "alice,views,values,0,2,+2,failed,passed" in regrade.changes_csv(found)
    (tmp_path / "old").mkdir()
    with pytest.raises(store.CompareError, match="no students/ folder"):
        store.previous_records(tmp_path / "old", tmp_path / "new")
    (tmp_path / "old" / "students").mkdir()
    with pytest.raises(store.CompareError, match="the --out folder itself"):
        store.previous_records(tmp_path / "old", tmp_path / "old")


def test_the_changes_page_escapes_what_students_control_and_csv_cells_run_no_formula() -> None:
    hostile = '<img src=x onerror="alert(1)">'
    before = [StudentRecord.from_dict({"student": hostile, "score": 0.0, "max_score": 2.0, "exercises": [
        {"slug": "views", "score": 0.0, "max_score": 2.0, "checks": [
            {"id": "values", "points": 2.0, "score": 0.0, "passed": False, "message": f"returned: {hostile}"}]}]})]
    after = [StudentRecord.from_dict({"student": hostile, "score": 2.0, "max_score": 2.0, "exercises": [
        {"slug": "views", "score": 2.0, "max_score": 2.0, "checks": [
            {"id": "values", "points": 2.0, "score": 2.0, "passed": True, "message": ""}]}]})]
    found = regrade.changes(before, after)
    page = regrade.changes_html(found, regrade.totals(before, after), "old", ({hostile: "0"}, {hostile: "2"}))
    assert hostile not in page and "&lt;img" in page
    formula = regrade.changes_csv([regrade.Change('=HYPERLINK("http://x")', "views", "values", 0.0, 1.0, False,
                                                  True, "", "")])
    assert "'=HYPERLINK" in formula
