"""Issue 42, item 5: an unknown or impossible hand-in time is never silently on time.

A student sets their own clock: a git commit dated 1970 or 2300, or an nbgrader timestamp.txt written by their
own `nbgrader submit`, used to read as "time unknown", taken as on time (100), while an honest classmate a few
days late got 60. Now such a hand-in is graded, marked "needs a decision" (grades.csv, the report), held back
from every LMS file until the ledger decides, unless the term's file sets a rule; honest classmates keep their
exact scores. The rule is decided by pure functions (term.py, standing.py, lms/), tested as such; one
small class of git clones is graded for real and shared by the end-to-end tests.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import course_config
from conftest import batch_environment
from graders.frontends.grade.term.decisions import Decision, in_force, read_ledger
from graders.frontends.grade.lms.blackboard import blackboard_csv
from graders.frontends.grade.lms.canvas import canvas_csv
from graders.frontends.grade.lms.grade_import import held_back
from graders.frontends.grade.lms.moodle import left_out_of_moodle_grades, moodle_grades_csv, moodle_worksheet_csv
from graders.frontends.grade.term.class_term import load_term
from graders.frontends.grade.intake.sources import find_submissions
from graders.frontends.grade.term.standing import Person, build_standings
from graders.frontends.grade.term.term import LatePolicy, TermError, read_term_file
from graders.frontends.grade.store import StudentRecord

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
UTC = timezone.utc
DUE = datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)  # the grading run's clock
POLICY = LatePolicy(due=DUE, percent_per_day=10)
DAY = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)  # when the decisions below were written


def _record(student: str, score: float) -> StudentRecord:
    return StudentRecord.from_dict({"student": student, "score": score, "max_score": 100.0, "problems": [], "error": "",
                                    "exercises": [{"slug": "views", "score": score, "max_score": 100.0, "checks": []}]})


def _decision(student: str, action: str, value: str, exercise: str = "") -> Decision:
    return Decision(DAY, "dr.lee", student, action, exercise, value, "looked at it", row=2)


# The class of the issue: a forged 2300 commit (no usable time), one of 1970, a time that passes as a time but is
# after the run, an honest classmate four days late, one on time.
TIMES = {"mallory": (None, "its last git commit is dated 2300-01-01 00:00 UTC, no usable time (the student's clock)"),
         "oscar": (None, "its last git commit is dated 1970-01-02 00:00 UTC, no usable time (the student's clock)"),
         "trent": (datetime(2150, 1, 1, tzinfo=UTC), "last git commit, +0000 (the student's clock)"),
         "ben": (DUE + timedelta(days=3, hours=10), "last git commit, +0000 (the student's clock)"),
         "ana": (DUE - timedelta(hours=12), "last git commit, +0000 (the student's clock)")}
FORGERS = ("mallory", "oscar", "trent")


def _class(decisions: list[Decision] | None = None, policy: LatePolicy = POLICY) -> dict:
    records = [_record(student, 100.0) for student in TIMES]
    return build_standings(records, 100.0, policy=policy, decisions=decisions or [], times=TIMES, now=NOW,
                           ledger="term/decisions.csv")


# --- the rule, where pure functions decide it ------------------------------------------------------------------

def test_a_time_before_the_terms_start_or_after_the_grading_run_is_impossible() -> None:
    assert POLICY.impossible(DUE + timedelta(days=2), NOW) == ""
    assert "after this grading run" in POLICY.impossible(NOW + timedelta(minutes=1), NOW)
    # no term_start: half a year before the due date bounds the term
    assert POLICY.impossible(DUE - timedelta(days=182), NOW) == ""
    assert "before the term's start" in POLICY.impossible(DUE - timedelta(days=184), NOW)
    started = LatePolicy(due=DUE, term_start=datetime(2026, 10, 5, tzinfo=UTC))
    assert "term_start" in started.impossible(datetime(2026, 10, 4, 23, 0, tzinfo=UTC), NOW)
    assert started.impossible(datetime(2026, 10, 5, 0, 1, tzinfo=UTC), NOW) == ""


def test_the_term_file_sets_the_terms_start_and_the_rule_and_names_its_mistakes(tmp_path: Path) -> None:
    term = tmp_path / "term.toml"
    term.write_text('[deadline]\ndue = 2026-12-01T23:59:00+01:00\nterm_start = 2026-10-05T00:00:00+02:00\n'
                    'unknown_time = "late"\n')
    read = read_term_file(term)
    assert read.policy.term_start == datetime(2026, 10, 5, tzinfo=timezone(timedelta(hours=2)))
    assert read.policy.unknown_time == "late"
    term.write_text('[deadline]\ndue = 2026-12-01T23:59:00+01:00\n')
    assert read_term_file(term).policy.unknown_time == "needs decision"  # the default
    for text, named in (('unknown_time = "ontime"\n', '"needs decision"'),
                        ("term_start = 2026-10-05T00:00:00\n", "UTC offset"),
                        ("term_start = 2026-12-02T00:00:00+00:00\n", "is not before due")):
        term.write_text(f"[deadline]\ndue = 2026-12-01T23:59:00+01:00\n{text}")
        with pytest.raises(TermError, match=named):
            read_term_file(term)


def test_an_unknown_or_impossible_time_needs_a_decision_and_honest_classmates_keep_their_exact_scores() -> None:
    standings = _class()
    assert (standings["ben"].late_days, standings["ben"].final) == (4, 60.0)  # 4 started days, 10% each
    assert (standings["ana"].late_days, standings["ana"].final) == (0, 100.0)
    assert not standings["ben"].needs_decision and not standings["ana"].needs_decision
    for student in FORGERS:
        waiting = standings[student]
        assert waiting.needs_decision.startswith("NEEDS A DECISION"), student
        # the exact command, with the ledger and the student's id
        assert f"python -m graders decide term/decisions.csv {student} hand_in_time WHEN --reason WHY" in \
            waiting.needs_decision
        assert any("your instructor decides how it counts" in note for note in waiting.notes)
    assert "2300-01-01" in standings["mallory"].needs_decision and "1970" in standings["oscar"].needs_decision
    assert "after this grading run" in standings["trent"].needs_decision


def test_the_ledger_decides_with_an_accepted_time_or_a_decision_that_makes_lateness_moot() -> None:
    decided = _class([_decision("mallory", "hand_in_time", "2026-12-03T20:00:00+00:00"),
                      _decision("oscar", "override", "70"), _decision("trent", "waive_late", "yes")])
    mallory, oscar, trent = decided["mallory"], decided["oscar"], decided["trent"]
    assert (mallory.needs_decision, mallory.late_days, mallory.final) == ("", 2, 80.0)  # counted from that time
    assert any("set to 2026-12-03 20:00 (UTC+00:00) by your instructor" in note for note in mallory.notes)
    assert (oscar.needs_decision, oscar.final) == ("", 70.0)
    assert (trent.needs_decision, trent.final) == ("", 100.0)
    assert decided["ben"].final == 60.0 and decided["ana"].final == 100.0
    excused = _class([_decision("mallory", "excuse", "yes")])["mallory"]
    assert excused.excused and not excused.needs_decision
    moved = _class([_decision("mallory", "extension", "+3 days")])["mallory"]
    assert moved.needs_decision, "an extension moves the due date; the hand-in's time is still unknown"


def test_the_terms_rule_can_take_such_a_time_as_on_time_or_as_late() -> None:
    on_time = _class(policy=LatePolicy(due=DUE, percent_per_day=10, unknown_time="on time"))
    late = _class(policy=LatePolicy(due=DUE, percent_per_day=10, max_percent=50, unknown_time="late"))
    zero = _class(policy=LatePolicy(due=DUE, percent_per_day=10, zero_after_days=7, unknown_time="late"))
    for student in FORGERS:
        assert not on_time[student].needs_decision and on_time[student].final == 100.0
        assert any('unknown_time = "on time"' in note for note in on_time[student].private)
        assert (late[student].needs_decision, late[student].final) == ("", 50.0)  # the policy's largest penalty
        assert zero[student].final == 0.0
    assert (late["ben"].final, late["ana"].final) == (60.0, 100.0)


def test_a_hand_in_that_scores_0_needs_no_decision_however_unknown_its_time() -> None:
    standings = build_standings([_record("mallory", 0.0)], 100.0, policy=POLICY, times={"mallory": (None, "")},
                                now=NOW)
    assert not standings["mallory"].needs_decision and standings["mallory"].final == 0.0


def test_no_lms_file_holds_a_student_whose_time_needs_a_decision() -> None:
    people = {s: Person(s, s.title(), f"{s}@uni.example", login=s) for s in ("1", "2")}
    records = [_record("1", 100.0), _record("2", 100.0)]
    times = {"1": TIMES["mallory"], "2": TIMES["ben"]}
    standings = list(build_standings(records, 100.0, policy=POLICY, roster=people, times=times, now=NOW).values())
    assert held_back(standings) == ["1"]
    for text in (canvas_csv(standings, "lesson01", 100.0),
                 moodle_worksheet_csv(standings, "lesson01", 100.0),
                 moodle_grades_csv(standings, "lesson01", 100.0),
                 blackboard_csv(standings, "lesson01", 100.0)):
        rows = list(csv.reader(io.StringIO(text)))
        assert not any(cell in ("1", "Participant 1", "1@uni.example") for row in rows for cell in row), text
        assert any("60" in row for row in rows), text  # the honest classmate, four days late
    assert left_out_of_moodle_grades(standings) == []  # held back is said once, not as a missing e-mail


def test_decide_records_an_accepted_hand_in_time_and_refuses_one_without_its_offset(tmp_path: Path) -> None:
    book = tmp_path / "decisions.csv"

    def decide(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "graders", "decide", str(book), *arguments, "--by", "dr.lee"],
                              capture_output=True, text=True, cwd=ROOT)

    refused = decide("mallory", "hand_in_time", "2026-12-03T20:00:00", "--reason", "LMS log")
    assert refused.returncode != 0 and "has no UTC offset" in refused.stderr, refused.stderr
    refused = decide("mallory", "hand_in_time", "+2 days", "--reason", "LMS log")
    assert refused.returncode != 0 and "hand_in_time '+2 days'" in refused.stderr, refused.stderr
    written = decide("mallory", "hand_in_time", "2026-12-03T20:00:00+00:00", "--reason", "LMS log")
    assert written.returncode == 0, written.stderr
    forced = in_force(read_ledger(book))
    assert forced["mallory"].hand_in_time.value == "2026-12-03T20:00:00+00:00"
    assert "hand_in_time: 2026-12-03T20:00:00+00:00" in decide("--show").stdout


def test_an_nbgrader_timestamp_of_1970_or_2300_needs_a_decision(tmp_path: Path) -> None:
    """timestamp.txt is written by the student's own `nbgrader submit`: the same rule as a commit's time."""
    notebook = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    stamps = {"mallory": "2300-01-01 00:00:00.000000 UTC", "oscar": "1970-01-01 00:00:00.000000 UTC",
              "trent": "2150-06-01 08:00:00.000000 UTC", "ben": "2026-12-05 10:00:00.000000 UTC"}
    for student, stamp in stamps.items():
        folder = tmp_path / "course" / "submitted" / student / "lesson01"
        folder.mkdir(parents=True)
        (folder / "lesson01.ipynb").write_text(notebook)
        (folder / "timestamp.txt").write_text(stamp + "\n")
    term = tmp_path / "term.toml"
    term.write_text('decisions = "decisions.csv"\n[deadline]\ndue = 2026-12-01T23:59:00+00:00\npercent_per_day = 10\n')
    layout, found = find_submissions(tmp_path / "course", lesson="lesson01", slugs=["views"])
    assert layout == "nbgrader course"
    setting = load_term(term, None, None, tmp_path / "out", {"": 100.0, "views": 100.0}, None)
    applied = setting.applied([_record(s, 100.0) for s in stamps], found, LESSON)
    standings = applied.standings
    assert standings["ben"].final == 60.0 and not standings["ben"].needs_decision
    for student in ("mallory", "oscar", "trent"):
        assert standings[student].needs_decision, student
        assert f"decide {tmp_path / 'decisions.csv'} {student} hand_in_time" in standings[student].needs_decision
    assert "timestamp.txt holds '1970-01-01" in standings["oscar"].needs_decision


# --- a class of git clones, graded for real --------------------------------------------------------------------

BATCH_DUE = "2026-12-01T23:59:00+00:00"
COMMITS = {"mallory": "@10413792000 +0000",  # 2300-01-01: no clock's time, once read as "unknown, so on time"
           "oscar": "@86400 +0000",  # 1970-01-02
           "ben": "2026-12-05T10:00:00+00:00",  # an honest classmate, four started days late: 60% of his score
           "ana": "2026-12-01T12:00:00+00:00"}  # on time
SLUGS = ("views", "shape_bugs")


def _clones(folder: Path) -> Path:
    """Cloned Classroom repositories: <student>/lesson01/<slug>.py, each the reference, committed at its time."""
    for student, date in COMMITS.items():
        repository = folder / student
        (repository / "lesson01").mkdir(parents=True)
        for slug in SLUGS:
            shutil.copy(ROOT / "reference" / "lesson01" / f"{slug}.py", repository / "lesson01" / f"{slug}.py")
        environment = {"GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin", "HOME": str(folder),
                       "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
        for command in (["git", "init", "-q"], ["git", "add", "."],
                        ["git", "-c", "user.name=s", "-c", "user.email=s@uni.example", "commit", "-q", "-m", "done"]):
            subprocess.run(command, cwd=repository, check=True, env=environment, capture_output=True)
    return folder


def _grade(folder: Path, out: Path) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(folder / "clones"), "--out", str(out),
                          "--term", str(folder / "term.toml"), "-j", "2"], capture_output=True, text=True,
                         timeout=1200, cwd=ROOT, env=batch_environment())
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run


def _grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def _lms(out: Path, name: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO((out / "lms" / name).read_text())))


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("clock")
    _clones(folder / "clones")
    (folder / "roster.csv").write_text("id,name,email\n" + "".join(f"{s},{s.title()},{s}@uni.example\n"
                                                                   for s in COMMITS))
    (folder / "term.toml").write_text(f'roster = "roster.csv"\ndecisions = "decisions.csv"\n[deadline]\n'
                                      f'due = {BATCH_DUE}\npercent_per_day = 10\n')
    run = _grade(folder, folder / "out")
    raw = {p.stem: json.loads(p.read_text())["score"] for p in (folder / "out" / "students").glob("*.json")}
    return {"folder": folder, "out": folder / "out", "run": run, "raw": raw}


def test_a_forged_commit_time_is_graded_marked_and_held_back_while_honest_classmates_keep_their_scores(
        graded: dict) -> None:
    out, raw = graded["out"], graded["raw"]
    assert raw["mallory"] == raw["oscar"] == raw["ben"] == raw["ana"] > 0  # the same answers, graded alike
    grades = _grades(out)
    ledger_file = graded["folder"] / "decisions.csv"
    for student in ("mallory", "oscar"):
        row = grades[student]
        assert row["score"] == "" and float(row["raw_score"]) == raw[student], row  # graded, no final yet
        assert row["time_source"] == "none" and row["late_days"] == "0"
        assert row["needs_decision"].startswith("NEEDS A DECISION"), row
        assert f"python -m graders decide {ledger_file} {student} hand_in_time WHEN" in row["needs_decision"]
    assert "2300-01-01" in grades["mallory"]["needs_decision"] and "1970-01-02" in grades["oscar"]["needs_decision"]
    assert float(grades["ben"]["score"]) == round(raw["ben"] * 0.6, 2) and grades["ben"]["late_days"] == "4"
    assert float(grades["ana"]["score"]) == raw["ana"] and not grades["ana"]["needs_decision"]
    report = (out / "report.html").read_text()
    assert 'data-key="needs-decision-count">2<' in report
    assert 'data-key="needs-decision" data-student="mallory"' in report
    assert report.index("needs-decision") < report.index('id="reteach"'), "among the students to look at first"
    assert f"decide {ledger_file} oscar hand_in_time WHEN" in report
    mean = float(re.search(r'data-key="mean" data-basis="final" data-value="([^"]+)"', report).group(1))
    assert mean == pytest.approx((float(grades["ana"]["score"]) + float(grades["ben"]["score"])) / 2), \
        "the class's mean is of final scores: not yet theirs"
    exported = {row[1]: row[5] for row in _lms(out, "canvas.csv")[2:]}
    assert exported == {"ana": grades["ana"]["score"], "ben": grades["ben"]["score"]}
    assert {row[0] for row in _lms(out, "blackboard.csv")[1:]} == {"ana", "ben"}
    assert {row[0] for row in _lms(out, "moodle_grades.csv")[1:]} == {"ana@uni.example", "ben@uni.example"}
    said = graded["run"].stdout
    assert "2 students held back from lms/, their hand-in time unknown or impossible: 'mallory', 'oscar'" in said
    assert "no known hand-in time, so taken as on time" not in said
    progress = next(line for line in graded["run"].stderr.splitlines() if "] mallory: " in line)
    assert "needs a decision" in progress, progress
    mallory_page = (out / "feedback" / "mallory.html").read_text()
    assert "your instructor decides how it counts" in mallory_page and "--reason WHY" not in mallory_page
    assert 'data-key="final">no final score yet' in mallory_page


def test_the_ledgers_decision_releases_the_held_back_students_without_grading_again(graded: dict,
                                                                                     tmp_path: Path) -> None:
    folder = tmp_path / "term"  # a copy: the other tests read the first run's outputs
    shutil.copytree(graded["folder"], folder, symlinks=True)
    book, raw = folder / "decisions.csv", graded["raw"]
    for arguments in (("mallory", "hand_in_time", "2026-12-03T20:00:00+00:00", "--reason", "the LMS's log"),
                      ("oscar", "override", "5", "--reason", "no way to tell: agreed with the student")):
        decided = subprocess.run([sys.executable, "-m", "graders", "decide", str(book), *arguments, "--by", "dr.lee"],
                                 capture_output=True, text=True, cwd=ROOT)
        assert decided.returncode == 0, decided.stderr
    run = _grade(folder, folder / "out")
    assert "0 to grade" in run.stdout, run.stdout
    grades = _grades(folder / "out")
    assert float(grades["mallory"]["score"]) == round(raw["mallory"] * 0.8, 2)  # two started days late
    assert grades["oscar"]["score"] == "5"
    assert not grades["mallory"]["needs_decision"] and not grades["oscar"]["needs_decision"]
    exported = {row[1]: row[5] for row in _lms(folder / "out", "canvas.csv")[2:]}
    assert exported == {s: g["score"] for s, g in grades.items()}
    assert "held back" not in run.stdout
