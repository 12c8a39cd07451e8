"""Released data gives nothing away: a submission that is only a table of the bundle's
recorded values earns at most a quarter of any exercise when the instructor grades.

The table student is the strongest lookup we know: each of its functions digests its own
arguments exactly as the recording keys them and returns the recorded value, from the
reference's calls first and then from any recorded function called with the same arguments.
Replayed against the bundle it earns most public points (so the attack is real); graded with
the live reference, every public check also runs on fresh inputs and the table has nothing.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

import course_config
from conftest import STUBS
from graders.frontends.nbgrader.record import record_expected

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
SHARE = 0.25  # the most a table may earn of an exercise under instructor grading

# The student copies the bundle's own digest and wire format beside the answers, as helper files (a
# worker holds none of the grader's modules to import them from).
TABLE_STUDENT = '''
from table_fingerprint import digest
from table_wire import unpack

_TABLE = {table!r}
_SLUG = {slug!r}


def _digest(args, kwargs):
    plain = [a for a in args if not callable(a)]
    return digest([plain, kwargs])


def _look_up(name, args, kwargs):
    digest = _digest(args, kwargs)
    key = f"reference:{{_SLUG}}:{{name}}:{{digest}}"
    if key in _TABLE:
        return unpack(bytes.fromhex(_TABLE[key]))
    for other, value in _TABLE.items():
        if other.endswith(":" + digest):
            return unpack(bytes.fromhex(value))
    raise NotImplementedError(name)

'''
FUNCTION = '''
def {name}(*args, **kwargs):
    return _look_up({name!r}, args, kwargs)
'''


@pytest.fixture(scope="module")
def recording() -> dict[str, str]:
    return record_expected(LESSON, list(LESSON.exercises))


def _table_submission(folder: Path, recording: dict[str, str]) -> Path:
    (folder / LESSON.folder).mkdir(parents=True)
    engine = ROOT / "graders"
    (folder / LESSON.folder / "table_wire.py").write_text((engine / "sandbox" / "wire.py").read_text())
    fingerprint = (engine / "engine" / "fingerprint.py").read_text()
    assert "from graders.sandbox import pack, tensor_bytes" in fingerprint
    (folder / LESSON.folder / "table_fingerprint.py").write_text(
        fingerprint.replace("from graders.sandbox import pack, tensor_bytes", "from table_wire import pack, tensor_bytes"))
    for exercise in LESSON.exercises:
        stub = (STUBS / LESSON.folder / f"{exercise.slug}.py").read_text()
        names = [n.name for n in ast.parse(stub).body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]
        table = {k: v for k, v in recording.items() if f":{exercise.slug}:" in k or f".{exercise.slug}:" in k}
        source = TABLE_STUDENT.format(table=table, slug=exercise.slug)
        source += "".join(FUNCTION.format(name=name) for name in names)
        (folder / LESSON.folder / f"{exercise.slug}.py").write_text(source)
    return folder


def _grade(pytester: pytest.Pytester, folder: Path, *extra: str) -> dict[str, float]:
    out = folder / "result.json"
    pytester.runpytest_inprocess(str(STUBS), "--submission", str(folder), "--json", str(out),
                                 "-p", "no:cacheprovider", "-q", "--call-timeout", "5", *extra)
    return {e["slug"]: e["score"] for e in json.loads(out.read_text())["exercises"]}


def test_a_table_of_the_released_values_earns_at_most_a_quarter_of_each_exercise(
        pytester: pytest.Pytester, tmp_path: Path, recording: dict[str, str]) -> None:
    folder = _table_submission(tmp_path / "table", recording)
    replayed_file = tmp_path / "expected.json"
    replayed_file.write_text(json.dumps(recording))
    replayed = _grade(pytester, folder, "--replay-expected", str(replayed_file), "-m", "not hidden")
    live = _grade(pytester, folder)
    public = sum(c.points for e in LESSON.exercises for c in e.checks if not c.hidden)
    # 27 points before the checks of how asked the source too: a table shows no autograd, no torch.no_grad(),
    # so it no longer passes them (24 when last measured).
    assert sum(replayed.values()) >= 20, f"the table should work against the bundle: {replayed}"
    over = {slug: score for slug, score in live.items() if score > SHARE * LESSON.exercise(slug).points + 1e-9}
    assert not over, f"a table earns more than {SHARE:.0%} of these exercises under live grading: {over}"
