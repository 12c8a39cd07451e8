"""The term file and its late policy (graders/frontends/grade/term/term.py): late days counted after the grace,
the penalty capped, the file's mistakes named, and an extension kept on the LMS's clock. The ledger, the standings
and regrades have their own files (test_decisions.py, test_standing.py, test_regrade.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from graders.frontends.grade.term.decisions import Decision
from graders.frontends.grade.term.standing import build_standings
from graders.frontends.grade.term.term import LatePolicy, TermError, read_term_file
from graders.frontends.grade.store import StudentRecord

UTC = timezone.utc
DUE = datetime(2026, 12, 1, 23, 59, tzinfo=timezone(timedelta(hours=1)))
POLICY = LatePolicy(due=DUE, grace=timedelta(minutes=15), percent_per_day=10, max_percent=30, zero_after_days=7)


def _record(student: str, **scores: float) -> StudentRecord:
    exercises = [{"slug": slug, "score": points, "max_score": 10.0, "checks": []} for slug, points in scores.items()]
    return StudentRecord.from_dict({"student": student, "score": sum(scores.values()), "max_score": 20.0,
                                    "exercises": exercises, "problems": [], "error": ""})


def test_a_late_day_is_counted_once_it_is_started_after_the_grace_and_the_penalty_is_capped() -> None:
    assert POLICY.penalty(DUE + timedelta(minutes=14), DUE) == (0, 0.0)  # inside the grace
    assert POLICY.penalty(DUE + timedelta(minutes=16), DUE) == (1, 0.1)
    assert POLICY.penalty(DUE + timedelta(days=1, minutes=16), DUE) == (2, 0.2)
    assert POLICY.penalty(DUE + timedelta(days=5), DUE) == (5, 0.3)  # capped at max_percent
    assert POLICY.penalty(DUE + timedelta(days=8), DUE) == (8, 1.0)  # after zero_after_days
    assert POLICY.penalty(None, DUE) == (0, 0.0)  # no time known: on time, and the notes say so


def test_the_term_file_is_read_and_its_mistakes_are_named(tmp_path: Path) -> None:
    term = tmp_path / "term.toml"
    term.write_text('roster = "roster.csv"\ncanvas_assignment_id = 4711\n[deadline]\n'
                    'due = 2026-12-01T23:59:00+01:00\ngrace_minutes = 15\npercent_per_day = 10\nmax_percent = 30\n'
                    'lms_time_zone = "Europe/Berlin"\n')
    read = read_term_file(term)
    assert read.policy.due == DUE and read.policy.grace == timedelta(minutes=15)
    assert read.roster == tmp_path / "roster.csv" and read.canvas_assignment_id == "4711"
    assert str(read.lms_zone) == "Europe/Berlin"
    for text, named in (("[deadline]\ndue = 2026-12-01T23:59:00\n", "UTC offset"),
                        ("[deadline]\ndue = 2026-12-01T23:59:00Z\npercent_per_dya = 3\n", "percent_per_dya"),
                        ("[deadline]\npercent_per_day = 10\n", "without `due`"),
                        ("[deadline]\ndue = 2026-12-01T23:59:00Z\nmax_percent = 150\n", "cannot exceed 100%"),
                        ("[deadline]\ndue = 2026-12-01T23:59:00Z\nlms_time_zone = \"Mars/Olympus\"\n", "time zone"),
                        ("due = [", "not valid TOML")):
        term.write_text(text)
        with pytest.raises(TermError, match=named):
            read_term_file(term)


def test_a_broken_term_files_message_says_what_was_wrong_and_what_to_write(tmp_path: Path) -> None:
    """The whole message, for a value of the wrong kind, an unknown key and a missing one."""
    term = tmp_path / "term.toml"
    due = "due = 2026-12-01T23:59:00+01:00\n"
    for text, said in (
            (f"[deadline]\n{due}grace_minutes = \"15\"\n",
             'key deadline.grace_minutes should be a number, not "15" (minutes after due that are still on time: '
             "a number, 0 or more (and not infinite); e.g. grace_minutes = 15)"),
            (f"roster_file = \"roster.csv\"\n[deadline]\n{due}",
             "unknown key roster_file: correct its spelling or remove it (the keys here are: roster, "
             "roster_id_column, decisions, canvas_assignment_id, deadline)"),
            ("[deadline]\npercent_per_day = 10\n",
             "key deadline.due is missing: a late policy without `due` takes nothing; add due = <a date-time with "
             "its UTC offset>, e.g. due = 2026-12-01T23:59:00+01:00")):
        term.write_text(text)
        with pytest.raises(TermError) as raised:
            read_term_file(term)
        assert str(raised.value) == f"{term}: {said}"


def test_an_extension_of_days_keeps_the_due_time_on_the_lms_clock_across_summer_time() -> None:
    from zoneinfo import ZoneInfo

    due = datetime.fromisoformat("2026-10-20T23:59:00+02:00")  # Berlin, summer time ends on 25 October
    policy = LatePolicy(due=due, percent_per_day=10, zone=ZoneInfo("Europe/Berlin"))
    rows = [Decision(datetime(2026, 10, 1, tzinfo=UTC), "lee", "ann", "extension", "", "+7 days", "ill", row=2)]
    standings = build_standings([_record("ann", views=5.0)], 10.0, policy=policy, decisions=rows)
    assert standings["ann"].due.isoformat() == "2026-10-27T23:59:00+01:00"
