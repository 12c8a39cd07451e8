"""Each student's stored result (graders/frontends/grade/store.py): a file name no id can misuse, a record that
reads back as written and only as its own student's, the exercises a rerun grades again, and files that are
whole or absent."""

from __future__ import annotations

from pathlib import Path

from graders.frontends.grade import store
from graders.frontends.grade.store import StudentRecord


def _record(student: str, **fields: object) -> StudentRecord:
    return StudentRecord.from_dict({"student": student, "score": 3.0, "max_score": 4.0, "complete": True,
                                    "exercises": [{"slug": "views", "score": 3.0, "max_score": 4.0, "checks": []}],
                                    "problems": [], "error": "", **fields})


def test_a_plain_id_is_its_file_name_and_any_other_a_safe_unique_stand_in() -> None:
    assert store.file_name("ann.lee@uni.example") == "ann.lee@uni.example"
    odd = ["../../etc/passwd", "ann lee", "ann/lee", "..", "", "a" * 100 + "/"]
    names = [store.file_name(student) for student in odd]
    assert all("/" not in name and name not in ("", ".", "..") and len(name) <= 69 for name in names), names
    assert len(set(names)) == len(odd), "two ids share a file name"
    assert store.file_name("ann lee") != store.file_name("ann_lee"), "a stand-in is not another student's id"


def test_a_stored_record_reads_back_and_only_as_its_own_students(tmp_path: Path) -> None:
    path = store.store(tmp_path, _record("ann", origin="moodle/ann", problems=["two notebooks"]))
    assert path == tmp_path / store.STUDENTS / "ann.json"
    back = store.stored(tmp_path, "ann")
    assert back is not None and (back.student, back.score, back.origin, back.problems) == (
        "ann", 3.0, "moodle/ann", ["two notebooks"])
    path.rename(tmp_path / store.STUDENTS / "bob.json")  # ann's record under bob's name is not bob's
    assert store.stored(tmp_path, "bob") is None
    (tmp_path / store.STUDENTS / "cat.json").write_text("{half a fi")
    assert store.stored(tmp_path, "cat") is None, "an unreadable record is graded again, not an error"
    assert store.stored(tmp_path, "dan") is None


def test_a_write_leaves_the_whole_file_and_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "grades.csv"
    store.write_atomically(target, "old")
    store.write_atomically(target, "new")
    store.write_atomically(tmp_path / "deep" / "chart.png", b"\x89PNG")
    assert sorted(p.name for p in target.parent.iterdir()) == ["chart.png", "grades.csv"]
    assert target.read_text() == "new"


def test_a_rerun_grades_again_only_the_exercises_whose_key_changed() -> None:
    digests = {"views": "course-1", "micrograd": "course-1"}
    keys = store.exercise_keys(digests, {"views": "x = 1\n"})
    assert store.exercise_keys(digests, {"views": "x = 1\n"}) == keys, "a key depends on nothing else"
    assert store.exercise_keys(digests, {"views": "x = 2\n"})["micrograd"] != keys["micrograd"], (
        "any answer file changes every exercise's key")
    assert store.exercise_keys(digests, {"views": "x = 1\n"}, {"helpers": "y = 1\n"}) != keys, (
        "a student's own module is part of the key")
    stored = _record("ann", exercise_keys=keys)
    assert store.to_regrade(stored, keys) == ["micrograd"], "views was stored with this key; micrograd never ran"
    changed = {**keys, "views": "another"}
    assert store.to_regrade(stored, changed) == ["views", "micrograd"]
    # A record not to build on is graded again whole.
    assert store.to_regrade(None, keys) == list(keys)
    assert store.to_regrade(_record("ann", exercise_keys=keys, error="timed out"), keys) == list(keys)
    assert store.to_regrade(_record("ann", exercise_keys=keys, complete=False), keys) == list(keys)
    assert store.result_key(keys, []) != store.result_key(keys, ["two notebooks"])
