"""The ledger of decisions (graders/frontends/grade/term/decisions.py): a hand-edited row without who or why refused
with its line, and the latest decision of each kind in force."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from graders.frontends.grade.term.decisions import Decision, LedgerError, in_force, read_ledger

UTC = timezone.utc


def test_a_hand_edited_ledger_row_without_who_or_why_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "decisions.csv"
    path.write_text("when,who,student,action,exercise,value,reason\n"
                    "2026-12-05T10:00:00+00:00,dr.lee,alice,excuse,,yes,flu\n"
                    "2026-12-05T10:00:00+00:00,,bob,excuse,,yes,flu\n")
    with pytest.raises(LedgerError, match="row 3: `who` is empty"):
        read_ledger(path)
    path.write_text("when,who,student,action,exercise,value,reason\n2026-12-05T10:00:00+00:00,dr.lee\n")
    with pytest.raises(LedgerError, match="row 2: `student` is empty"):
        read_ledger(path)


def test_the_latest_decision_is_in_force_and_an_empty_value_withdraws_it() -> None:
    day = datetime(2026, 12, 5, tzinfo=UTC)
    rows = [Decision(day, "lee", "alice", "override", "views", "3", "first look", row=2),
            Decision(day, "lee", "alice", "override", "views", "4", "second look", row=3),
            Decision(day, "lee", "bob", "excuse", "", "yes", "flu", row=4),
            Decision(day, "lee", "bob", "excuse", "", "", "mistake: withdrawn", row=5),
            Decision(day, "carol", "carol", "regrade_request", "views", "please", "e-mail", row=6)]
    forced = in_force(rows)
    assert forced["alice"].overrides["views"].value == "4"
    assert "bob" not in forced or forced["bob"].excused is None
    assert forced["carol"].requests[0][1] is None  # still open
