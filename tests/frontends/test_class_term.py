"""The term of a class (graders/frontends/grade/term/class_term.py), end to end, with real files and real grading: a
Blackboard download of a small class, its roster, a term file with a due date and a late policy, decisions
written by `python -m graders decide`, grades back in Canvas's and Blackboard's import formats, two near-copies
among honest students, and a regrade after a check's weights changed, compared with the first grading before
anything is published.

The honest students' answers are the hand-written ones of test_similarity.py (each wrote their own four
exercises); finn copied ben's grad_accumulation, renamed; hal wrote sin_exp_derivative his own way, with the
lesson's sign error in the analytic derivative. Apart from that class: times on an LMS's clock placed in the
term file's lms_time_zone.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

import course_config
import test_similarity as written
from conftest import STUBS, batch_environment
from graders.frontends.grade.store import StudentRecord

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
DUE = "2026-12-01T23:59:00+00:00"
# Blackboard's attempt time, in its file names: ben a few hours late (day 1), chloe three days late (but
# with an extension of four), the others on time.
ATTEMPTS = {"ana": "2026-12-01-20-00-00", "ben": "2026-12-02-03-00-00", "chloe": "2026-12-04-12-00-00",
            "dev": "2026-12-01-23-00-00", "emma": "2026-12-01-10-00-00", "finn": "2026-12-01-21-00-00",
            "hal": "2026-12-01-22-00-00"}
ROSTER = [("ana", "Ana Alves", "ana@uni.example", "S001", "A"), ("ben", "Ben Brandt", "ben@uni.example", "S002", "A"),
          ("chloe", "Chloe Chen", "chloe@uni.example", "S003", "B"), ("dev", "Dev Das", "dev@uni.example", "S004", "B"),
          ("emma", "Emma Eze", "emma@uni.example", "S005", "A"), ("finn", "Finn Fox", "finn@uni.example", "S006", "B"),
          ("gina", "Gina Gold", "gina@uni.example", "S007", "A"), ("hal", "Hal Hope", "hal@uni.example", "S008", "B")]


def _answers() -> dict[str, dict[str, str]]:
    answers = {student: {slug: by_student[student] for slug, by_student in written.WRITTEN.items()}
               for student in written.HONEST}
    answers["finn"] = {"grad_accumulation": written.FINN_ACCUMULATION}
    answers["hal"] = {"sin_exp_derivative": written._answer(
        "sin_exp_derivative",
        """
        damping = torch.exp(-x)
        return damping * torch.sin(x)
        """,
        """
        y = x.detach().requires_grad_()
        (grad,) = torch.autograd.grad(f(y), y, grad_outputs=torch.ones_like(y))
        return grad
        """,
        """
        damping = torch.exp(-x)
        return damping * (torch.sin(x) + torch.cos(x))
        """,
        """
        grid = torch.linspace(start, end, n)
        return float(torch.max(torch.abs(autograd_derivative(grid) - analytic_derivative(grid))))
        """)}
    return answers


def _blackboard_download(folder: Path) -> Path:
    folder.mkdir()
    for student, files in _answers().items():
        stamp = f"lesson01_{student}_attempt_{ATTEMPTS[student]}"
        (folder / f"{stamp}.txt").write_text(f"Name: {student}\n")
        for slug, source in files.items():
            (folder / f"{stamp}_{slug}.py").write_text(source)
    return folder


def _term(folder: Path) -> Path:
    with open(folder / "roster.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "name", "email", "sis_id", "section"])
        writer.writerows(ROSTER)
    (folder / "term.toml").write_text(f'roster = "roster.csv"\ndecisions = "decisions.csv"\n'
                                      f'canvas_assignment_id = "4711"\n[deadline]\ndue = {DUE}\n'
                                      f'grace_minutes = 15\npercent_per_day = 10\nmax_percent = 50\n'
                                      f'lms_time_zone = "UTC"\n')
    return folder / "term.toml"


def _run(*arguments: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "graders", *arguments], capture_output=True, text=True,
                         timeout=1200, cwd=cwd, env=batch_environment() if env is None else env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run


def _grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("term")
    download = _blackboard_download(folder / "blackboard")
    settings = _term(folder)
    ledger = str(folder / "decisions.csv")
    _run("decide", ledger, "chloe", "extension", "+4 days", "--reason", "medical note", "--by", "dr.lee")
    _run("decide", ledger, "dev", "override", "1", "--exercise", "quadratic_fit", "--reason", "plot missing",
         "--by", "dr.lee")
    _run("decide", ledger, "emma", "regrade_request", "my accumulation is right", "--exercise",
         "grad_accumulation", "--reason", "e-mail of 3 Dec", "--by", "dr.lee")
    # every path relative to where the instructor stands, as the README writes them
    first = _run("grade", "blackboard", "--out", "v1", "--term", "term.toml", "-j", "2", cwd=folder)
    records = {p.stem: json.loads(p.read_text()) for p in (folder / "v1" / "students").glob("*.json")}
    return {"folder": folder, "download": download, "settings": settings, "run": first, "records": records}


def test_every_output_carries_the_roster_the_penalty_and_the_decisions(term: dict) -> None:
    grades, records = _grades(term["folder"] / "v1"), term["records"]
    assert set(grades) == {row[0] for row in ROSTER}  # gina handed nothing in, and has her row
    assert grades["gina"]["score"] == "0" and "nothing handed in" in grades["gina"]["decisions"]
    for student, name, email, sis_id, section in ROSTER:
        assert (grades[student]["name"], grades[student]["email"], grades[student]["sis_id"],
                grades[student]["section"]) == (name, email, sis_id, section)
    raw = {s: float(r["score"]) for s, r in records.items()}
    assert float(grades["ben"]["score"]) == pytest.approx(round(raw["ben"] * 0.9, 2))
    assert grades["ben"]["late_days"] == "1" and grades["ben"]["penalty_percent"] == "10"
    assert grades["chloe"]["late_days"] == "0" and float(grades["chloe"]["score"]) == raw["chloe"]
    quadratic = next(e for e in records["dev"]["exercises"] if e["slug"] == "quadratic_fit")
    assert float(grades["dev"]["score"]) == pytest.approx(raw["dev"] - quadratic["score"] + 1)
    assert grades["dev"]["quadratic_fit"] == "1"
    assert float(grades["ana"]["score"]) == raw["ana"] and grades["ana"]["submitted_at"].startswith("2026-12-01T20:00")
    page = (term["folder"] / "v1" / "feedback" / "ben.html").read_text()
    assert "10% of the score taken" in page
    gradescope = json.loads((term["folder"] / "v1" / "gradescope" / "ben" / "results.json").read_text())
    assert gradescope["score"] == pytest.approx(round(raw["ben"] * 0.9, 2))
    assert "still open" in term["run"].stdout  # emma's regrade request
    report = (term["folder"] / "v1" / "report.html").read_text()
    assert "Open regrade requests (1)" in report and "my accumulation is right" in report
    assert "plot missing" not in (term["folder"] / "v1" / "feedback" / "dev.html").read_text()  # the reason is ours
    assert "plot missing" in (term["folder"] / "v1" / "instructor" / "dev.html").read_text()
    assert "plot missing" in grades["dev"]["decisions"]


def test_grades_go_back_in_canvas_and_blackboard_formats(term: dict) -> None:
    grades = _grades(term["folder"] / "v1")
    rows = list(csv.reader(io.StringIO((term["folder"] / "v1" / "lms" / "canvas.csv").read_text())))
    header, points, students = rows[0], rows[1], rows[2:]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert header[5] == "lesson01 (4711)" and points[0].strip().startswith("Points Possible")
    assert {row[1]: row[5] for row in students} == {s: g["score"] for s, g in grades.items()}
    assert {row[0] for row in students} >= {"Ana Alves", "Gina Gold"}
    rows = list(csv.reader(io.StringIO((term["folder"] / "v1" / "lms" / "blackboard.csv").read_text())))
    assert rows[0][0] == "Username" and {row[0]: row[1] for row in rows[1:]} == {s: g["score"] for s, g in grades.items()}


def test_the_near_copy_and_only_it_is_listed_for_review(term: dict) -> None:
    with open(term["folder"] / "v1" / "similarity.csv", newline="") as handle:
        pairs = {(row["exercise"], row["first"], row["second"]) for row in csv.DictReader(handle)}
    assert pairs == {("grad_accumulation", "ben", "finn")}
    report = (term["folder"] / "v1" / "report.html").read_text()
    assert "similarity.html" in report and "finn" in report
    assert (term["folder"] / "v1" / "answers" / "finn" / "grad_accumulation.py").read_text() == \
        written.FINN_ACCUMULATION


def test_a_regrade_after_a_check_changed_says_who_changes_before_anything_is_published(term: dict,
                                                                                      tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("course_config.py", "graders", "exercises", "reference"):
        source = STUBS if name == "exercises" else ROOT / name  # the stubs as committed
        if source.is_dir():
            shutil.copytree(source, project / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, project / name)
    manifest = project / "graders" / "lesson01" / "sin_exp_derivative" / "exercise.toml"
    text = manifest.read_text()
    text = text.replace('id = "f_on_lesson_grid"\npoints = 1\n', 'id = "f_on_lesson_grid"\npoints = 1.5\n', 1)
    text = text.replace('id = "analytic_derivative_on_lesson_grid"\npoints = 1\n',
                        'id = "analytic_derivative_on_lesson_grid"\npoints = 0.5\n', 1)
    manifest.write_text(text)
    environment = {**os.environ, "PYTHONPATH": str(project)}
    old, new = term["folder"] / "v1", tmp_path / "v2"
    before = {p: p.stat().st_mtime_ns for p in old.rglob("*") if p.is_file()}
    run = _run("grade", str(term["download"]), "--out", str(new), "--term", str(term["settings"]), "--compare",
               str(old), "-j", "2", cwd=project, env=environment)
    with open(new / "changes.csv", newline="") as handle:
        changes = list(csv.DictReader(handle))
    hal = [row for row in changes if row["student"] == "hal"]
    assert [(r["check"], r["before"], r["after"]) for r in hal] == [("f_on_lesson_grid", "1", "1.5")]
    assert all(float(row["change"]) != 0 for row in changes)

    def passed(record: dict, check: str) -> bool:
        return any(c["id"] == check and c["passed"] for e in record["exercises"] for c in e["checks"])

    expected = {s: 0.5 * passed(r, "f_on_lesson_grid") - 0.5 * passed(r, "analytic_derivative_on_lesson_grid")
                for s, r in term["records"].items()}
    movers = {s for s, change in expected.items() if change}
    assert "hal" in movers
    assert f"{len(movers)} student{'s' if len(movers) != 1 else ''} with a new total" in run.stdout, run.stdout
    assert f"{len(movers)} student{'s' if len(movers) != 1 else ''} with a new final grade" in run.stdout
    page = (new / "changes.html").read_text()
    assert all(f">{s}<" in page for s in movers)
    assert {p: p.stat().st_mtime_ns for p in old.rglob("*") if p.is_file()} == before  # v1 untouched


def _record(student: str, **scores: float) -> StudentRecord:
    exercises = [{"slug": slug, "score": points, "max_score": 10.0, "checks": []} for slug, points in scores.items()]
    return StudentRecord.from_dict({"student": student, "score": sum(scores.values()), "max_score": 20.0,
                                    "exercises": exercises, "problems": [], "error": ""})


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
