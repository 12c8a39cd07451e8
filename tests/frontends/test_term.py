"""The term, from its files to each student's standing: the late policy, the ledger of decisions, the
`decide` verb, and what a regrade changes. Real files, read the way `python -m graders grade` reads them."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import course_config
from graders.frontends.grade.term.decisions import Decision, LedgerError, in_force, read_ledger
from graders.frontends.grade import store
from graders.frontends.grade.outputs import regrade
from graders.frontends.grade.intake.hand_in_times import git_commit_time, nbgrader_timestamp
from graders.frontends.grade.term.standing import Person, build_standings
from graders.frontends.grade.term.term import LatePolicy, TermError, read_term_file
from graders.frontends.grade.store import StudentRecord

UTC = timezone.utc
DUE = datetime(2026, 12, 1, 23, 59, tzinfo=timezone(timedelta(hours=1)))
POLICY = LatePolicy(due=DUE, grace=timedelta(minutes=15), percent_per_day=10, max_percent=30, zero_after_days=7)


def _record(student: str, **scores: float) -> StudentRecord:
    exercises = [{"slug": slug, "score": points, "max_score": 10.0, "checks": []} for slug, points in scores.items()]
    return StudentRecord.from_dict({"student": student, "score": sum(scores.values()), "max_score": 20.0,
                                    "exercises": exercises, "problems": [], "error": ""})


def _decide(path: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders", "decide", str(path), *arguments, "--by", "dr.lee"],
                          capture_output=True, text=True)


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


def test_decide_writes_an_audited_ledger_and_refuses_what_is_not_a_decision(tmp_path: Path) -> None:
    path = tmp_path / "decisions.csv"
    assert _decide(path, "alice", "override", "8.5", "--exercise", "micrograd", "--reason", "tolerance").returncode == 0
    assert _decide(path, "alice", "extension", "+2 days", "--reason", "medical note").returncode == 0
    for arguments, said in ((("bob", "override", "lots", "--reason", "r"), "not a number"),
                            (("bob", "excuse", "yes"), "`reason` is empty"),
                            (("bob", "override", "3", "--exercise", "nope", "--reason", "r"), "not one of this lesson"),
                            (("bob", "promote", "yes", "--reason", "r"), "not one of override"),
                            (("bob", "extension", "tomorrow", "--reason", "r"), "+N days")):
        run = _decide(path, *arguments)
        assert run.returncode != 0 and said in run.stderr, run.stderr
    rows = list(csv.DictReader(path.open()))
    assert [(r["who"], r["student"], r["action"]) for r in rows] == [("dr.lee", "alice", "override"),
                                                                     ("dr.lee", "alice", "extension")]
    assert rows[1]["value"] == "'+2 days"  # a spreadsheet would take +2 days for a formula
    assert [d.value for d in read_ledger(path)] == ["8.5", "+2 days"]
    assert all(datetime.fromisoformat(r["when"]).tzinfo is not None for r in rows)
    for arguments, said in ((("bob", "override", "nan", "--reason", "r"), "from 0"),
                            (("bob", "override", "11", "--exercise", "micrograd", "--reason", "r"), "up to 10"),
                            (("bob", "override", "850", "--reason", "r"), "up to 100"),
                            (("bob", "extension", "+1e20 days", "--reason", "r"), "from 0 to 366"),
                            (("bob", "extension", "+-3 days", "--reason", "r"), "from 0 to 366")):
        run = _decide(path, *arguments)
        assert run.returncode != 0 and said in run.stderr, (arguments, run.stderr)
    shown = subprocess.run([sys.executable, "-m", "graders", "decide", str(path), "--show"], capture_output=True,
                           text=True)
    assert "override on micrograd: 8.5" in shown.stdout and "2 decisions" in shown.stdout


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


def test_hand_in_times_come_from_nbgrader_timestamps_and_git_and_never_through_a_link(tmp_path: Path) -> None:
    folder = tmp_path / "submitted" / "alice" / "lesson01"
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text("2026-12-02 08:30:00.000000 UTC\n")
    assert nbgrader_timestamp(tmp_path / "submitted", "alice", "lesson01")[0] == datetime(2026, 12, 2, 8, 30,
                                                                                           tzinfo=UTC)
    secret = tmp_path / "secret.txt"
    secret.write_text("2001-01-01 00:00:00\n")
    linked = tmp_path / "submitted" / "mallory" / "lesson01"
    linked.mkdir(parents=True)
    (linked / "timestamp.txt").symlink_to(secret)
    assert nbgrader_timestamp(tmp_path / "submitted", "mallory", "lesson01")[0] is None
    clone = tmp_path / "clone"
    clone.mkdir()
    signer, fired = tmp_path / "sign.sh", tmp_path / "fired.sh"
    signer.write_text('#!/bin/sh\ncat > /dev/null\necho "[GNUPG:] SIG_CREATED D 1 8 00 1 X" >&2\n'
                      'printf -- "-----BEGIN PGP SIGNATURE-----\\n\\nfake\\n-----END PGP SIGNATURE-----\\n"\n')
    fired.write_text(f"#!/bin/sh\ntouch {tmp_path / 'FIRED'}\n")
    signer.chmod(0o755)
    fired.chmod(0o755)
    environment = {"GIT_COMMITTER_DATE": "2026-12-02T09:00:00+00:00", "GIT_AUTHOR_DATE": "2026-12-02T09:00:00+00:00",
                   "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for command in (["git", "init", "-q"], ["git", "-c", "user.name=a", "-c", "user.email=a@b", "-c",
                                            f"gpg.program={signer}", "commit", "-q", "-S", "--allow-empty", "-m", "x"]):
        subprocess.run(command, cwd=clone, check=True, env=environment)
    # the student's own repository config: a signed commit's check runs the program it names, and a promisor
    # remote's upload-pack runs when git wants an object it lacks
    with open(clone / ".git" / "config", "a") as config:
        config.write(f"[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {fired}\n"
                     f"[extensions]\n\tpartialClone = origin\n[remote \"origin\"]\n\tpromisor = true\n"
                     f"\turl = {tmp_path}\n\tuploadpack = {fired}\n")
    subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=clone, env=environment, capture_output=True)
    assert (tmp_path / "FIRED").exists()  # the control: a plain `git log` runs it
    (tmp_path / "FIRED").unlink()
    assert git_commit_time(clone)[0] == datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    assert not (tmp_path / "FIRED").exists()
    packed = tmp_path / "packed"  # a clone's objects are in a pack, its branch in packed-refs
    subprocess.run(["git", "clone", "-q", "--no-local", str(clone), str(packed)], check=True, env=environment,
                   capture_output=True)
    assert git_commit_time(packed)[0] == datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    assert not (tmp_path / "FIRED").exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").symlink_to(clone / ".git")
    assert git_commit_time(other)[0] is None
    forged = tmp_path / "forged"  # a commit time no clock gives
    subprocess.run(["git", "init", "-q", str(forged)], check=True, env=environment)
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"],
                   cwd=forged, check=True, env={**environment, "GIT_COMMITTER_DATE": "@99999999999 +0000"})
    assert git_commit_time(forged)[0] is None


def test_each_lms_zip_gives_the_time_its_lms_received_the_graded_hand_in(tmp_path: Path) -> None:
    import zipfile

    from graders.frontends.grade.intake.sources import find_submissions

    notebook = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    downloads = {
        "moodle": [("Ana Alves_1234_assignsubmission_file_/lesson01.ipynb", (2026, 12, 2, 8, 15, 0))],
        "canvas": [("alves_4321_987_lesson01.ipynb", (2026, 12, 1, 9, 0, 0)),
                   ("alves_4321_990_lesson01.ipynb", (2026, 12, 2, 7, 30, 0))],  # the later upload is graded
        "blackboard": [("lesson01_ana_attempt_2026-12-02-06-45-00_lesson01.ipynb", (2020, 1, 1, 0, 0, 0)),
                       ("lesson01_ana_attempt_2026-12-02-06-45-00.txt", (2020, 1, 1, 0, 0, 0))],
    }
    exact = "from its zip entry (exact)"  # an unzipped folder's times are approximate (test_instructor_edges.py)
    expected = {"moodle": ("1234", datetime(2026, 12, 2, 8, 15), f"Moodle's time for the file, {exact}"),
                "canvas": ("4321", datetime(2026, 12, 2, 7, 30), f"Canvas's time for the file, {exact}"),
                "blackboard": ("ana", datetime(2026, 12, 2, 6, 45), "Blackboard's attempt time")}
    for lms, files in downloads.items():
        archive = tmp_path / f"{lms}.zip"
        with zipfile.ZipFile(archive, "w") as bundle:
            for name, when in files:
                bundle.writestr(zipfile.ZipInfo(name, date_time=when), notebook)
        _, found = find_submissions(archive, lesson="lesson01", slugs=["views"])
        student, when, how = expected[lms]
        assert [(s.student, s.submitted_at, s.submitted_how) for s in found] == [(student, when, how)], lms


def test_times_on_an_lms_clock_are_placed_in_the_lms_time_zone(tmp_path: Path) -> None:
    from graders.frontends.grade.term.class_term import load_term
    from graders.frontends.grade.intake.sources import Submission

    term = tmp_path / "term.toml"
    term.write_text('[deadline]\ndue = 2026-12-01T23:59:00+01:00\npercent_per_day = 10\n'
                    'lms_time_zone = "Europe/Berlin"\n')
    setting = load_term(term, None, None, tmp_path / "out", {"": 100.0, "views": 6.0}, None)
    # 23:30 on the Berlin server's clock is on time; the same wall-clock time read as UTC would be late
    on_time = Submission("ana", "", submitted_at=datetime(2026, 12, 1, 23, 30), submitted_how="Moodle's time")
    late = Submission("ben", "", submitted_at=datetime(2026, 12, 2, 0, 30), submitted_how="Moodle's time")
    records = [_record("ana", views=10.0), _record("ben", views=10.0)]
    standings = setting.applied(records, [on_time, late], course_config.LESSON_01)
    assert standings.standings["ana"].late_days == 0 and standings.standings["ben"].late_days == 1


def test_a_reuploaded_file_is_a_hand_in_of_its_exercise_and_a_module_of_the_students_own_is_kept(
        tmp_path: Path) -> None:
    import os

    from graders.frontends.grade.intake.sources import find_submissions

    folder = tmp_path / "moodle" / "Emma Eze_1048205_assignsubmission_file_"
    folder.mkdir(parents=True)
    (folder / "views.py").write_text("# first try\n")
    (folder / "views (1).py").write_text("# the fix\n")
    (folder / "helpers.py").write_text("# mine\n")
    os.utime(folder / "views.py", (1_700_000_000, 1_700_000_000))
    os.utime(folder / "views (1).py", (1_700_100_000, 1_700_100_000))
    _, (emma,) = find_submissions(tmp_path / "moodle", lesson="lesson01", slugs=["views", "micrograd"])
    assert emma.sources == {"views": "# the fix\n"}
    assert any("views (1).py" in p and "2 hand-ins" in p for p in emma.problems), emma.problems
    # A .py file of no exercise is one of the student's own modules, which their exercises may import (issue 41:
    # every path takes what the student's own run takes).
    assert emma.modules == {"helpers": "# mine\n"}
    assert not any("helpers.py" in p for p in emma.problems), emma.problems


def test_a_file_name_with_an_impossible_attempt_time_is_no_blackboard_download(tmp_path: Path) -> None:
    from graders.frontends.grade.intake.sources import find_submissions

    (tmp_path / "class").mkdir()
    notebook = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    (tmp_path / "class" / "aaa_hw_attempt_2026-13-45-99-99-99_x.ipynb").write_text(notebook)
    (tmp_path / "class" / "bob_lesson01.ipynb").write_text(notebook)
    layout, found = find_submissions(tmp_path / "class", lesson="lesson01", slugs=["views"])
    assert layout == "notebooks" and {s.student for s in found} == {"aaa", "bob"}


def test_a_note_handed_in_beside_the_answers_is_named_for_the_instructor(tmp_path: Path) -> None:
    from graders.frontends.grade.intake.sources import find_submissions

    folder = tmp_path / "moodle" / "Lena Lux_1048210_assignsubmission_file_"
    folder.mkdir(parents=True)
    (folder / "views.py").write_text("# mine\n")
    (folder / "notes.txt").write_text("please have a look at question 3\n")
    _, (lena,) = find_submissions(tmp_path / "moodle", lesson="lesson01", slugs=["views"])
    assert any(p.startswith("notes.txt was handed in too") for p in lena.problems), lena.problems


def test_an_extension_of_days_keeps_the_due_time_on_the_lms_clock_across_summer_time() -> None:
    from zoneinfo import ZoneInfo

    due = datetime.fromisoformat("2026-10-20T23:59:00+02:00")  # Berlin, summer time ends on 25 October
    policy = LatePolicy(due=due, percent_per_day=10, zone=ZoneInfo("Europe/Berlin"))
    rows = [Decision(datetime(2026, 10, 1, tzinfo=UTC), "lee", "ann", "extension", "", "+7 days", "ill", row=2)]
    standings = build_standings([_record("ann", views=5.0)], 10.0, policy=policy, decisions=rows)
    assert standings["ann"].due.isoformat() == "2026-10-27T23:59:00+01:00"


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


def test_grades_csv_and_the_lms_files_write_a_formula_like_id_as_text() -> None:
    from graders.frontends.grade.lms.canvas import canvas_csv
    from graders.frontends.grade.outputs import tables

    evil = '=cmd|" /C calc"!A0'
    records = [_record(evil, views=5.0)]
    standings = build_standings(records, 100.0, roster={evil: Person(evil, name="@SUM(1+1)")})
    grades = list(csv.DictReader(io.StringIO(tables.grades_csv(records, course_config.LESSON_01, standings))))
    assert grades[0]["student"] == f"'{evil}" and grades[0]["name"] == "'@SUM(1+1)" and grades[0]["score"] == "5"
    canvas = list(csv.reader(io.StringIO(canvas_csv(list(standings.values()), "lesson01", 100.0))))
    assert canvas[2][:2] == ["'@SUM(1+1)", f"'{evil}"]
