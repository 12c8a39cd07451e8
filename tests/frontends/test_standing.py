"""Each student's standing (graders/frontends/grade/term/standing.py): decisions, then the late penalty, applied to
the stored scores; who and why kept for the instructor; the roster's students who handed nothing in listed."""

from __future__ import annotations

from datetime import datetime, timedelta

from graders.frontends.grade.term.decisions import Decision
from graders.frontends.grade.term.standing import Person, build_standings

# The term's dates, policy and records, as term.py's own tests build them.
from test_term import DUE, POLICY, UTC, _record  # noqa: E402


def test_standings_apply_overrides_then_the_penalty_and_list_roster_students_who_handed_nothing_in() -> None:
    day = datetime(2026, 12, 5, tzinfo=UTC)
    records = [_record("alice", views=6.0, micrograd=4.0), _record("bob", views=10.0), _record("mallory", views=2.0)]
    roster = {s: Person(s, name=s.title()) for s in ("alice", "bob", "carol", "dave")}
    rows = [Decision(day, "lee", "alice", "override", "micrograd", "8", "regrade accepted", row=2),
            Decision(day, "lee", "bob", "extension", "", "+2 days", "medical", row=3),
            Decision(day, "lee", "dave", "excuse", "", "yes", "withdrew", row=4)]
    times = {"alice": (DUE + timedelta(hours=3), "Blackboard attempt time"),
             "bob": (DUE + timedelta(days=1), "nbgrader timestamp"), "mallory": (None, "")}
    standings = build_standings(records, 20.0, policy=POLICY, roster=roster, decisions=rows, times=times)
    alice, bob = standings["alice"], standings["bob"]
    assert (alice.raw, alice.late_days, alice.penalty, alice.final) == (10.0, 1, 0.1, 12.6)  # (6 + 8) * 0.9
    assert "micrograd set to 8 points by your instructor" in alice.notes
    assert any("1 started day late, 10% of the score taken" in n and "15-minute grace" in n for n in alice.notes)
    assert any("regrade accepted" in n and "lee" in n for n in alice.private)
    assert not any("lee" in n or "regrade accepted" in n for n in alice.notes), "who and why stay the instructor's"
    assert (bob.late_days, bob.final) == (0, 10.0)  # inside his extension
    assert not standings["carol"].handed_in and standings["carol"].final == 0.0
    assert "nothing handed in" in standings["carol"].notes
    assert standings["dave"].excused
    assert standings["mallory"].person is None and any("not on the roster" in n for n in standings["mallory"].private)
    assert any("time is unknown" in n for n in standings["mallory"].private)
    assert not any("medical" in n for n in bob.notes) and any("medical" in n for n in bob.private)
