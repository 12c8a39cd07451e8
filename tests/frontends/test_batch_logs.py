"""What the batch grader writes for the instructor to read: the grading services' logs (OUT/logs) and the
progress lines. A small class graded for real (one solved, one whose code writes to stderr, one that
crashes at import, one with a file missing, one whose id is hostile text): every block a service writes
begins with a line naming the student, each failure in it names the student and the exercise, an id
holding a newline cannot forge a line, and counts read "1 problem", "2 problems"."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import course_config

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
SLUGS = [e.slug for e in LESSON.exercises]
# An id that, were it written as it is, would put a line in the log saying that ann's block begins.
HOSTILE = "eve\ngraders: grading student 'ann' (lesson01: every exercise)"
HEADER = re.compile(r"graders: grading (?P<whose>the reference|student (?P<id>.+)) \((?P<what>[^()]*)\)")
START = re.compile(r"graders: a grading service starts \(pid \d+\)")
FAILURE = re.compile(r"_{3,} (?P<title>.+) _{3,}")


def _reference(slug: str) -> str:
    return (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()


def _class() -> dict[str, dict[str, str]]:
    solved = {slug: _reference(slug) for slug in SLUGS}
    return {
        "ann": solved,
        "bob": {**solved, "views": "import sys\nprint('bob was here', file=sys.stderr)\n" + _reference("views")},
        "cat": {**solved, "quick_check": "raise RuntimeError('cat crashes at import')\n"},
        "gus": {slug: source for slug, source in solved.items() if slug != "micrograd"},  # one problem
        HOSTILE: solved,
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("class")
    for student, files in _class().items():
        (root / student / "lesson01").mkdir(parents=True)
        for slug, source in files.items():
            (root / student / "lesson01" / f"{slug}.py").write_text(source)
    out = tmp_path_factory.mktemp("results")
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "2"],
                         capture_output=True, text=True, timeout=1200, cwd=ROOT)
    logs = {p.name: p.read_text() for p in sorted((out / "logs").glob("*.log"))}
    assert logs, run.stdout[-3000:] + run.stderr[-3000:]
    return {"run": run, "logs": logs, "out": out}


def _blocks(text: str) -> list[tuple[str, list[str]]]:
    """A log's blocks after the service's start-up, each with its first line's `whose` and its lines."""
    lines = text.splitlines()
    assert lines and START.fullmatch(lines[0]), f"the log does not begin with the service's start:\n{text[:1500]}"
    blocks: list[tuple[str, list[str]]] = [("start-up", [])]
    for line in lines:
        header = HEADER.fullmatch(line)
        if header:
            blocks.append((header["whose"], []))
        blocks[-1][1].append(line)
    return blocks[1:]


def test_every_block_of_every_log_begins_with_whose_it_is_and_ends_with_how_it_ended(graded: dict) -> None:
    seen = []
    for name, text in graded["logs"].items():
        blocks = _blocks(text)
        assert blocks, f"{name} has no block:\n{text[:1500]}"
        for whose, lines in blocks:
            assert re.fullmatch(rf"graders: done with {re.escape(whose)} \(pytest's exit status \d+\)", lines[-1]), (
                name, lines[-3:])
            seen.append(whose)
    students = [whose for whose in seen if whose != "the reference"]
    assert sorted(students) == sorted(f"student {student!r}" for student in _class())


def test_each_failure_in_a_log_names_the_student_and_the_exercise(graded: dict) -> None:
    failures = []
    for text in graded["logs"].values():
        for whose, lines in _blocks(text):
            for line in lines:
                title = FAILURE.fullmatch(line)
                if title:
                    found = re.fullmatch(rf"test_\w+: {re.escape(whose)}, exercise (\w+)", title["title"])
                    assert found and found[1] in SLUGS, line
                    failures.append((whose, found[1]))
    assert ("student 'cat'", "quick_check") in failures
    assert ("student 'gus'", "micrograd") in failures
    assert not [f for f in failures if f[0] in ("student 'ann'", "student 'bob'")]


def test_a_students_trouble_is_found_with_grep(graded: dict) -> None:
    logs = sorted((graded["out"] / "logs").glob("*.log"))
    found = subprocess.run(["grep", "-h", "student 'cat'", *map(str, logs)], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    assert found[0] == "graders: grading student 'cat' (lesson01: every exercise)", found
    assert any("student 'cat', exercise quick_check" in line for line in found), found
    assert found[-1].startswith("graders: done with student 'cat' (pytest's exit status 1)"), found


def test_an_id_holding_a_newline_cannot_forge_a_line(graded: dict) -> None:
    lines = [line for text in graded["logs"].values() for line in text.splitlines()]
    assert lines.count("graders: grading student 'ann' (lesson01: every exercise)") == 1  # ann's own, no forgery
    assert f"graders: grading student {HOSTILE!r} (lesson01: every exercise)" in lines
    assert not any(line.startswith("eve") for line in lines)


def test_the_progress_lines_count_problems_in_good_english(graded: dict) -> None:
    printed = graded["run"].stderr
    lines = {student: line for student in ("ann", "gus") for line in printed.splitlines()
             if re.match(rf"\[\s*\d+/5\] {student}: ", line)}
    assert lines.keys() == {"ann", "gus"}, printed[-3000:]
    assert lines["gus"].endswith("(1 problem)") and "(" not in lines["ann"], lines
    assert "problems)" not in printed.replace("(1 problem)", "")
