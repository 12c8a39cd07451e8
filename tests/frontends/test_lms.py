"""A new LMS is one module: a made-up one, written into a temporary package and registered, is used by the
batch's intake (its download), the term (its roster export) and the outputs (its grade import), end to end
(graders/frontends/grade/lms/__init__.py)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import course_config
from conftest import batch_environment
from graders.frontends.grade import lms
from graders.frontends.grade.lms.grade_import import format_score
from graders.frontends.grade.lms.platform import Lms

ROOT = course_config.ROOT
SLUG = "views"

# Brightline, an LMS that does not exist: its download names files `<learner key>--<file>`, its roster export
# has "Learner Key" and "Learner Name", and its grade import reads `learner,points`.
BRIGHTLINE = textwrap.dedent('''
    """Brightline, a made-up LMS: one module, as a course would add one."""

    import re

    from graders.frontends.grade.lms.download import Layout, by_file_time, relevant
    from graders.frontends.grade.lms.grade_import import csv_text, final_score, rows_to_write
    from graders.frontends.grade.lms.platform import GradeImport, Lms, RosterLayout

    _FILE = re.compile(r"^(?P<id>u[0-9]+)--(?P<original>.+)$")


    def download(entries, unzipped_in):
        layout = Layout("Brightline download", "the file's modification time")
        for entry in entries:
            match = _FILE.match(entry.path.name)
            if match is None or len(entry.path.parts) > 1:
                if relevant(entry):
                    return None
                continue
            layout.students.setdefault(match["id"], []).append(by_file_time(entry, match["original"]))
        return layout if layout.students else None


    def grades(standings, assignment, max_score, term):
        return csv_text([["learner", "points"]] + [[s.student, final_score(s)] for s in rows_to_write(standings)])


    LMS = Lms("Brightline", download=download,
              rosters=(RosterLayout("Brightline roster", "Brightline's roster (Learner Key, Learner Name)",
                                    fits=lambda columns: "learner key" in columns, id_columns=("learner key",),
                                    fields={"name": ("learner name",)}),),
              grade_imports=(GradeImport("brightline.csv", grades),))
''')
# The batch as `python -m graders grade` runs it, with Brightline registered first by the course's own code.
RUN_WITH_BRIGHTLINE = textwrap.dedent('''
    import sys
    from graders.frontends.grade.run.template import TEMPLATE
    TEMPLATE.start()  # as `python -m graders grade` does, before anything of the grading is loaded
    sys.path.insert(0, sys.argv[1])
    import brightline
    from graders.frontends.grade import lms
    lms.register(brightline.LMS)
    from graders.frontends.cli import main
    sys.exit(main(sys.argv[2:]))
''')


def test_a_made_up_lms_in_one_module_is_used_for_intake_roster_and_grade_import(tmp_path: Path) -> None:
    package = tmp_path / "course_code"
    package.mkdir()
    (package / "brightline.py").write_text(BRIGHTLINE)
    source = tmp_path / "download"
    source.mkdir()
    (source / f"u101--{SLUG}.py").write_text((ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text())
    (source / "u102--notes.txt").write_text("a note to the grader, no answer")
    roster = tmp_path / "roster.csv"
    roster.write_text("Learner Key,Learner Name\nu101,Ann Example\nu102,Bo Example\n")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-c", RUN_WITH_BRIGHTLINE, str(package), "grade", str(source),
                          "--out", str(out), "--roster", str(roster), "-j", "1"],
                         capture_output=True, text=True, timeout=900, cwd=ROOT, env=batch_environment())
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Brightline download" in run.stdout, run.stdout  # intake: its layout named the students
    record = json.loads((out / "students" / "u101.json").read_text())
    views = next(e for e in record["exercises"] if e["slug"] == SLUG)
    assert views["score"] == views["max_score"] > 0, views
    with (out / "grades.csv").open(newline="") as grades:
        names = {row["student"]: row["name"] for row in csv.DictReader(grades)}
    assert names == {"u101": "Ann Example", "u102": "Bo Example"}, names  # the term: its roster's columns
    exported = (out / "lms" / "brightline.csv").read_text().splitlines()
    assert exported == ["learner,points", f"u101,{format_score(record['score'])}", "u102,0"], exported
    assert (out / "lms" / "canvas.csv").is_file(), "the LMSs already known still write their files"


@pytest.fixture
def made_up() -> Lms:
    lms_ = Lms("Made-up")
    yield lms_
    lms.unregister(lms_.name)


def test_registering_places_an_lms_where_asked_and_refuses_a_second_of_one_name(made_up: Lms) -> None:
    before = [known.name for known in lms.registered()]
    assert before[:3] == ["Moodle", "Canvas", "Blackboard"], before
    lms.register(made_up, before="Canvas")
    assert [known.name for known in lms.registered()] == ["Moodle", "Made-up", *before[1:]]
    with pytest.raises(ValueError, match="registered already"):
        lms.register(Lms("Made-up"))
    with pytest.raises(ValueError, match="names no registered LMS"):
        lms.register(Lms("Other"), before="Sakai")
    lms.unregister(made_up.name)
    assert [known.name for known in lms.registered()] == before
