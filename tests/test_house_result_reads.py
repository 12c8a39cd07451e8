"""A house rule: the front ends read a result through the typed model (graders/engine/results.py and the batch's
StudentRecord), by attribute, never from its JSON by string key.

What it checks, read from the source: no module under graders/frontends/ subscripts (`x["passed"]`) or calls
`.get`, `.pop` or `.setdefault` with a string constant that is a field name of the result model. Left out are the
field names that other data the front ends read by key also uses (listed in SHARED, with who uses them): a read
of those by key is not seen. Nor is a read through a key held in a variable, `**` unpacking or getattr. So it
catches the way results were read before (`check.get("mistake")`, `record["exercises"]`), not every way one
could be."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import course_config
from graders.engine.results import CheckResult, ExerciseResult, SubmissionResult
from graders.frontends.grade.store import StudentRecord

FRONTENDS = course_config.ROOT / "graders" / "frontends"
# Field names of the result that other data read by key in the front ends uses too, and who reads them.
SHARED = {
    "id": "regular expressions' groups (lms_layouts), roster columns",
    "student": "grading requests and replies, the ledger's cells, nbgrader's resources",
    "lesson": "the grading service's requests",
    "key": "the Dask jobs",
    "error": "the grading service's replies",
    "files": "the grading service's replies (plots as base64)",
    "score": "grades.csv's rows (regrade.published)",
    "points": "the exercise manifests (nbgrader/public_checks)",
    "checks": "the exercise manifests, unnamed_groups.json's groups",
    "hidden": "the exercise manifests",
    "confined": "the grading services' hello",
}
RESULT_FIELDS = {f.name for model in (CheckResult, ExerciseResult, SubmissionResult, StudentRecord)
                 for f in dataclasses.fields(model)}
DISTINCT = RESULT_FIELDS - SHARED.keys()


def reads_by_key(source: str) -> list[tuple[int, str]]:
    """(line, code) of each read by a string key that is a distinct field name of the result model."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("get", "pop", "setdefault") and node.args
              and isinstance(node.args[0], ast.Constant)):
            key = node.args[0].value
        if isinstance(key, str) and key in DISTINCT:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_rule_sees_the_reads_it_forbids() -> None:
    # The control: reads as the front ends wrote them before the typed model.
    before = ('failed = [c for c in record["exercises"] if not c.get("passed")]\n'
              'named = item.get("mistake") and "mistake:" in item.get("shown", "")\n'
              'row = {"score": 1}["score"]\n')
    assert sorted(line for line, _ in reads_by_key(before)) == [1, 1, 2, 2], "two reads on each line, none on the third"
    assert {"exercises", "passed", "mistake", "shown", "max_score", "not_implemented", "mistake_shown"} <= DISTINCT
    assert SHARED.keys() <= RESULT_FIELDS, "a name left out that is no field of the result any more"


@pytest.mark.parametrize("path", sorted(FRONTENDS.rglob("*.py")), ids=lambda p: str(p.relative_to(FRONTENDS)))
def test_no_front_end_reads_a_result_by_string_key(path: Path) -> None:
    found = reads_by_key(path.read_text())
    assert not found, (f"{path.relative_to(course_config.ROOT)} reads result fields by key: "
                       + "; ".join(f"line {line}: {code}" for line, code in found)
                       + ". Read the typed result (SubmissionResult.read / from_dict, store.stored) by attribute")
