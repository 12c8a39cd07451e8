"""The instructor's edges of `python -m graders grade` (issue 41, section 3): an --out or SOURCE that cannot work
is refused in one line; hand-in times from an unzipped folder say what they are and can be placed where it was
unzipped; a roster without e-mails warns; and one small Moodle class, graded for real, shows the student's page,
grades.csv, the report and the progress lines as a term with a late student, an extension, a partial hand-in,
a file that does not import and an untouched stub leaves them.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
import zipfile
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import course_config
from conftest import STUBS, batch_environment
from graders.frontends.grade.intake.sources import FOLDER_TIMES_SAID, ZIP_TIMES, find_submissions
from graders.frontends.grade.outputs.tables import DID_NOT_IMPORT
from graders.frontends.grade.term.term import read_term_file

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
SLUGS = [e.slug for e in LESSON.exercises]
DUE = "2026-12-01T23:59:00+00:00"
ON_TIME, TWO_DAYS_LATE = (2026, 12, 1, 12, 0, 0), (2026, 12, 3, 12, 0, 0)


def _reference(slug: str) -> str:
    return (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()


def _stub(slug: str) -> str:
    return (STUBS / "lesson01" / f"{slug}.py").read_text()


def _grade(source: Path, out: Path | str, *extra: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders", "grade", str(source), "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=1200, cwd=cwd, env=batch_environment())


def _moodle(folder: Path, hand_ins: dict[str, dict[str, str]], times: dict[str, tuple] | None = None) -> Path:
    """A Moodle download unzipped into `folder`: participant id -> file name -> text; each file's time as unzip
    sets it on this machine (the zip's date and time read in this machine's zone)."""
    for student, files in hand_ins.items():
        participant = folder / f"Student {student}_{student}_assignsubmission_file_"
        participant.mkdir(parents=True)
        for name, text in files.items():
            (participant / name).write_text(text)
            stamp = time.mktime((*(times or {}).get(student, ON_TIME), 0, 0, -1))
            os.utime(participant / name, (stamp, stamp))
    return folder


# ------------------------------------------------------------------ what cannot work is one line
def test_an_out_or_a_source_that_cannot_work_is_refused_in_one_line_saying_what_to_do(tmp_path: Path) -> None:
    download = _moodle(tmp_path / "moodle", {"11": {"views.py": _reference("views")}})
    a_file = tmp_path / "roster.csv"
    a_file.write_text("id,name\n11,Ann\n")
    not_a_zip = tmp_path / "download.zip"
    not_a_zip.write_text("<html>Your session expired</html>")
    wrapped = tmp_path / "wrapped.zip"
    with zipfile.ZipFile(wrapped, "w") as bundle:
        bundle.writestr("Lesson 1 download/Student 11_11_assignsubmission_file_/views.py", _reference("views"))
    cases = [(download, download, [f"--out {download} is SOURCE itself", "give a folder outside it"]),
             (download, download / "results", [f"--out {download / 'results'} is inside SOURCE {download}",
                                               "give a folder outside it"]),
             (download, a_file, [f"--out {a_file} is a file, not a folder", "give a folder"]),
             (download, Path("/proc/results"), ["--out /proc/results: no folder for the results can be written",
                                                "give a folder you can write to"]),
             (not_a_zip, tmp_path / "out", [f"{not_a_zip} is named .zip but is no zip archive", "download it again"]),
             (wrapped, tmp_path / "out", ["everything is inside one folder, Lesson 1 download/",
                                          "the download is one level down", "grade a zip made from inside"])]
    for source, out, said in cases:
        run = _grade(source, out)
        lines = run.stderr.strip().splitlines()
        assert run.returncode != 0 and len(lines) == 1 and "Traceback" not in run.stderr, (source, out, run.stderr)
        assert all(words in lines[0] for words in said), (said, lines[0])
    assert sorted(p.name for p in download.iterdir()) == ["Student 11_11_assignsubmission_file_"], "nothing written"
    assert not (tmp_path / "out").exists()
    unzipped = tmp_path / "unzipped"
    (unzipped / "Lesson 1 download").mkdir(parents=True)
    os.rename(download, unzipped / "Lesson 1 download" / "moodle")
    run = _grade(unzipped, tmp_path / "out")
    assert f"grade {unzipped / 'Lesson 1 download'}" in run.stderr and "one level down" in run.stderr, run.stderr
    run = _grade(unzipped / "Lesson 1 download" / "moodle", tmp_path / "out", "--unzipped-in", "Mars/Olympus")
    assert "--unzipped-in 'Mars/Olympus': not a time zone name" in run.stderr, run.stderr


# ------------------------------------------------------------------ hand-in times of an unzipped folder
def test_an_unzipped_folders_times_are_read_in_the_zone_it_was_unzipped_in_and_say_so(tmp_path: Path) -> None:
    moodle_time = datetime(2026, 12, 2, 8, 15)  # Moodle's zip says 08:15 (its own clock, no zone)
    archive = tmp_path / "moodle.zip"
    name = "Ana Alves_1234_assignsubmission_file_/views.py"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr(zipfile.ZipInfo(name, date_time=moodle_time.timetuple()[:6]), _reference("views"))
    # Unzipped on a laptop in Berlin: the file's time is 08:15 in Berlin, whatever zone grades it later.
    berlin = ZoneInfo("Europe/Berlin")
    unzipped = tmp_path / "unzipped"
    (unzipped / name).parent.mkdir(parents=True)
    (unzipped / name).write_text(_reference("views"))
    stamp = moodle_time.replace(tzinfo=berlin).timestamp()
    os.utime(unzipped / name, (stamp, stamp))

    def found(source: Path, **where: ZoneInfo) -> tuple[datetime | None, str]:
        _, (ana,) = find_submissions(source, lesson="lesson01", slugs=["views"], **where)
        return ana.submitted_at, ana.submitted_how

    assert found(archive) == (moodle_time, f"Moodle's time for the file, {ZIP_TIMES}")
    assert found(archive, unzipped_in=ZoneInfo("America/New_York")) == found(archive), "a zip's times need no zone"
    when, how = found(unzipped, unzipped_in=berlin)
    assert when == moodle_time and FOLDER_TIMES_SAID in how and "Europe/Berlin" in how and "approximate" in how
    when, how = found(unzipped)  # this machine's zone: right only where it was unzipped here
    assert when == datetime.fromtimestamp(stamp) and "this machine's zone" in how, how
    term = tmp_path / "term.toml"
    term.write_text(f'[deadline]\ndue = {DUE}\nunzipped_in = "Europe/Berlin"\n')
    assert str(read_term_file(term).unzipped_in) == "Europe/Berlin"


# ------------------------------------------------------------------ one small class, graded for real
HAND_INS = {
    "11": {"views.py": _reference("views")},  # a partial hand-in: thirteen exercises missing
    "12": {"views.py": "def as_grid(x, rows:\n    pass\n", "shape_bugs.py": _reference("shape_bugs")},  # no import
    "14": {f"{slug}.py": _reference(slug) for slug in ("views", "shape_bugs")},  # two days late
    "15": {"views.py": _stub("views")},  # the stub, untouched
    "16": {"views.py": _reference("views"), "views (1).py": _stub("views")},  # two hand-ins, and an extension
}


@pytest.fixture(scope="module")
def term(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("edges")
    download = _moodle(folder / "moodle", HAND_INS, times={"14": TWO_DAYS_LATE})
    (download / "Student 13_13_assignsubmission_file_").mkdir()  # a participant who handed in nothing
    (folder / "roster.csv").write_text("id,name\n" + "".join(f"{s},Student {s}\n" for s in range(11, 17)))
    (folder / "term.toml").write_text(f'roster = "roster.csv"\ndecisions = "decisions.csv"\n[deadline]\n'
                                      f'due = {DUE}\npercent_per_day = 10\n')
    decided = subprocess.run([sys.executable, "-m", "graders", "decide", str(folder / "decisions.csv"), "16",
                              "extension", "+2 days", "--reason", "medical note", "--by", "dr.lee"],
                             capture_output=True, text=True, cwd=ROOT)
    assert decided.returncode == 0, decided.stderr
    run = _grade(download, folder / "out", "--term", str(folder / "term.toml"), "-j", "2")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    with open(folder / "out" / "grades.csv", newline="") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    return {"out": folder / "out", "run": run, "grades": grades}


def test_the_run_says_folder_times_are_approximate_and_which_time_each_students_lateness_used(term: dict) -> None:
    said = term["run"].stdout
    assert "the hand-in times are the unzipped files' times, read as unzipped in this machine's zone" in said, said
    assert "Grade the download's zip for exact times, or say where it was unzipped with --unzipped-in ZONE" in said
    assert "lateness from the hand-in time \"Moodle's time for the file, read from the unzipped file's time" in said
    grades = term["grades"]
    assert all(FOLDER_TIMES_SAID in grades[s]["time_source"] for s in HAND_INS), grades["11"]["time_source"]
    assert grades["14"]["late_days"] == "2" and grades["14"]["score"] == "11.2"  # 14 points, 20% taken


def test_the_progress_line_of_a_late_student_shows_the_final_score_beside_the_checks(term: dict) -> None:
    line = next(line for line in term["run"].stderr.splitlines() if "] 14: " in line)
    assert f"] 14: 11.2 / {LESSON.points:g} after the term (14 from the checks)" in line, line


def test_a_roster_without_any_e_mail_says_the_moodle_gradebook_import_holds_no_one(term: dict) -> None:
    assert (term["out"] / "lms" / "moodle_grades.csv").read_text() == "Email address,lesson01\n"
    assert ("lms/moodle_grades.csv holds no student: the roster gives none of the 6 students an e-mail address"
            in term["run"].stdout), term["run"].stdout


def test_the_report_counts_an_import_error_no_file_and_a_stub_as_their_own_kinds(term: dict) -> None:
    report = (term["out"] / "report.html").read_text()
    assert 'data-exercise="views" data-key="did-not-import">1<' in report  # 12
    assert 'data-exercise="views" data-key="not-started">1<' in report  # 15
    assert 'data-exercise="views" data-key="no-file">1<' in report  # 13
    with open(term["out"] / "mistakes.csv", newline="") as handle:
        views = [row for row in csv.DictReader(handle) if row["exercise"] == "views"]
    assert {row["mistake"] for row in views} >= {DID_NOT_IMPORT}
    assert not [row for row in views if row["mistake"] == "(not named)"], "12's syntax error is no unnamed mistake"


def test_a_students_page_says_each_missing_exercise_once_and_nothing_meant_for_the_instructor(term: dict) -> None:
    out, grades = term["out"], term["grades"]
    partial = (out / "feedback" / "11.html").read_text()
    assert partial.count("does not exist") == len(SLUGS) - 1, "one line per missing exercise"
    assert "inputs you were not shown" not in partial
    twice = (out / "feedback" / "16.html").read_text()
    assert "2 hand-ins for this student" in twice and "remove the others and grade again" not in twice
    assert "remove the others and grade again" in (out / "instructor" / "16.html").read_text()
    assert "extension: +2 days" in grades["16"]["decisions"] and "extension: extension" not in grades["16"]["decisions"]
    nothing = (out / "feedback" / "13.html").read_text()
    assert "neither a notebook nor an exercise&#x27;s .py file" in nothing and "no notebook" not in nothing
