"""Mistakes the catalogue does not know yet, found across a class (graders/frontends/grade/outputs/unnamed_groups.py).

A real class graded by `python -m graders grade`: three of sin_exp_derivative's catalogued mistakes are
forgotten by the diagnosis (GRADERS_FORGET_MISTAKES, a test switch that changes no score), and ten students
make each of them (each copy with its own comment, as students' files differ); five students are right, three
wrote only part of it, and two make a mistake the catalogue still names. The three groups must be found
whole, apart, with no other student in them, the same on a second grouping, and the report must count what
unnamed_groups.json holds.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import course_config
from conftest import STUBS
from graders.frontends.grade.outputs.unnamed_groups import references, unnamed_groups
from graders.frontends.grade.store import StudentRecord
from mistake_catalogue import submission

ROOT = course_config.ROOT
SLUG = "sin_exp_derivative"
# Three slips that neither the catalogue (once forgotten) nor a single edit of the reference names
# (graders/engine/single_edits.py names a mean taken for a sum, so that slip no longer serves here).
FORGOTTEN = {"sign error": "sign_error", "product rule missed": "product_rule_missed",
             "mean difference instead of the largest": "mean_not_max"}


def _class() -> dict[str, str]:
    reference = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
    stub = (STUBS / "lesson01" / f"{SLUG}.py").read_text()
    students = {}
    for mistake, stem in FORGOTTEN.items():
        for n in range(10):
            students[f"{stem}-{n}"] = submission(SLUG, stem) + f"\n# handed in by student {n}\n"
    for n in range(5):
        students[f"right-{n}"] = reference + f"\n# mine, {n}\n"
    body = "    return torch.sin(x) * torch.exp(-x)\n"
    for n in range(3):  # f written, the rest still the stub's
        students[f"partial-{n}"] = stub.replace("    # TODO: write this function.\n    raise NotImplementedError\n",
                                                body, 1)
    for n in range(2):
        students[f"named-{n}"] = submission(SLUG, "accumulated_twice")
    return students


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("class")
    for student, source in _class().items():
        (root / student / "lesson01").mkdir(parents=True)
        (root / student / "lesson01" / f"{SLUG}.py").write_text(source)
    out = tmp_path_factory.mktemp("out")
    environment = {**os.environ, "GRADERS_FORGET_MISTAKES": ",".join(FORGOTTEN)}
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "2"],
                         capture_output=True, text=True, timeout=1200, cwd=ROOT, env=environment)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    records = [json.loads(p.read_text()) for p in sorted((out / "students").glob("*.json"))]
    return {"out": out, "records": records, "groups": json.loads((out / "unnamed_groups.json").read_text())}


def test_the_forgotten_mistakes_fail_unnamed_and_the_named_one_keeps_its_name(graded: dict) -> None:
    named = {c.get("mistake") for r in graded["records"] for e in r["exercises"] if e["slug"] == SLUG
             for c in e["checks"]}
    assert not named & set(FORGOTTEN) and "gradient accumulated over two backward calls" in named


def test_each_forgotten_mistake_is_one_whole_group_with_no_other_student(graded: dict) -> None:
    groups = graded["groups"][SLUG]
    found = sorted(sorted(group["students"]) for group in groups)
    expected = sorted(sorted(f"{stem}-{n}" for n in range(10)) for stem in FORGOTTEN.values())
    assert found == expected
    assert [g["group"] for g in groups] == [1, 2, 3] and all(g["size"] == 10 for g in groups)
    assert all(g["representative"] in g["students"] and g["checks"] for g in groups)
    sign = next(g for g in groups if g["students"][0].startswith("sign_error"))
    assert "analytic_derivative_on_lesson_grid" in sign["checks"]
    assert any("cos" in line and line.startswith("+") for line in sign["differs"]), sign["differs"]


def test_two_groupings_of_the_same_class_agree(graded: dict) -> None:
    slugs = [e.slug for e in course_config.LESSON_01.exercises]
    answers = {p.name: {f.stem: f.read_text() for f in p.glob("*.py")} for p in (graded["out"] / "answers").iterdir()}
    typed = [StudentRecord.from_dict(r) for r in graded["records"]]  # as the batch reads them
    again = unnamed_groups(typed, slugs, answers, references(ROOT, "lesson01", slugs))
    assert {slug: [g.as_json(len(graded["records"])) for g in listed] for slug, listed in again.items()} == \
        graded["groups"]


def test_mistakes_csv_and_the_report_count_what_the_json_holds(graded: dict) -> None:
    with open(graded["out"] / "mistakes.csv", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["exercise"] == SLUG]
    report = (graded["out"] / "report.html").read_text()
    for group in graded["groups"][SLUG]:
        for check in group["checks"]:
            assert any(r["check"] == check and r["mistake"] == group["label"] and r["count"] == "10" for r in rows)
        shown = re.search(rf'data-exercise="{SLUG}" data-group="{group["group"]}" data-key="group-size">(\d+)<', report)
        assert shown and int(shown.group(1)) == group["size"]


def test_once_the_catalogue_knows_the_mistakes_a_rerun_names_their_students_and_the_groups_are_gone(
        graded: dict, tmp_path: Path) -> None:
    """The author's loop: the forgotten mistakes known again (as a new entry in mistakes.py would be), the same
    command into the same folder grades that exercise of the class again and moves each group's students to
    the name."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(graded["out"], out)
    root = Path(graded["records"][0]["origin"]).parent
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "2"],
                         capture_output=True, text=True, timeout=1200, cwd=ROOT,
                         env={k: v for k, v in os.environ.items() if k != "GRADERS_FORGET_MISTAKES"})
    # Only the exercise whose catalogue changed is graded again; every other exercise's result is kept as it was.
    assert run.returncode == 0, run.stdout[-2000:]
    assert f"0 unchanged since the last run, {len(graded['records'])} to grade, in {SLUG} only" in run.stdout
    assert json.loads((out / "unnamed_groups.json").read_text()) == {}
    for stem_mistake, stem in FORGOTTEN.items():
        record = json.loads((out / "students" / f"{stem}-0.json").read_text())
        named = {c.get("mistake") for e in record["exercises"] if e["slug"] == SLUG for c in e["checks"]}
        assert stem_mistake in named, (stem, named)
    for before in graded["records"]:
        after = json.loads((out / "students" / f"{before['student']}.json").read_text())
        assert [e for e in after["exercises"] if e["slug"] != SLUG] == \
            [e for e in before["exercises"] if e["slug"] != SLUG]
        assert after["score"] == sum(e["score"] for e in after["exercises"])
        assert [e["slug"] for e in after["exercises"]] == [e["slug"] for e in before["exercises"]]
