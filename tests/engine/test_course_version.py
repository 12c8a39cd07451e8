"""Which version of the course grades an answer (graders/engine/course_version.py) and what a rerun keeps
(graders/frontends/grade/store.py): a change to one room regrades that exercise only, a shared change all.

The digests are taken of a copy of the course (graders/, reference/, course_config.py) that each test edits.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import course_config
from graders.engine import course_version
from graders.frontends.grade import store
from graders.engine.results import SubmissionResult

SLUGS = [e.slug for e in course_config.LESSON_01.exercises]


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "course"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(course_config.ROOT / "graders", root / "graders", ignore=ignore)
    shutil.copytree(course_config.ROOT / "reference", root / "reference", ignore=ignore)
    shutil.copy(course_config.__file__, root / "course_config.py")
    monkeypatch.setattr(course_config, "ROOT", root)
    monkeypatch.setattr(course_config, "__file__", str(root / "course_config.py"))
    monkeypatch.setattr(course_version, "_GRADERS", root / "graders")
    monkeypatch.delenv(course_config.FORGET_MISTAKES_VARIABLE, raising=False)
    return root


def _changed_by(edit: Path, course: Path) -> list[str]:
    before = course_version.exercise_digests("lesson01", SLUGS)
    whole = course_version.course_digest()
    edit.write_text(edit.read_text() + "\n# an author's edit\n")
    after = course_version.exercise_digests("lesson01", SLUGS)
    assert course_version.course_digest() != whole  # the expected values are computed again all the same
    return [slug for slug in SLUGS if before[slug] != after[slug]]


def test_every_exercise_has_its_own_digest(course: Path) -> None:
    assert len(set(course_version.exercise_digests("lesson01", SLUGS).values())) == len(SLUGS)


def test_a_mistake_added_to_one_room_changes_that_exercise_only(course: Path) -> None:
    assert _changed_by(course / "graders" / "lesson01" / "views" / "mistakes.py", course) == ["views"]


def test_a_reference_module_belongs_to_its_exercise(course: Path) -> None:
    assert _changed_by(course / "reference" / "lesson01" / "quick_check.py", course) == ["quick_check"]


@pytest.mark.parametrize("shared", ["graders/engine/compare.py", "course_config.py", "graders/lesson01/cases.py",
                                    # cases.py (every exercise's drawing) imports it from the micrograd room
                                    "graders/lesson01/micrograd/expression_graphs.py"])
def test_a_shared_file_changes_every_exercise(course: Path, shared: str) -> None:
    assert _changed_by(course / shared, course) == SLUGS


def test_the_rest_of_a_room_imported_elsewhere_stays_its_own(course: Path) -> None:
    assert _changed_by(course / "graders" / "lesson01" / "micrograd" / "checks.py", course) == ["micrograd"]


def test_forgotten_mistakes_change_the_exercises_whose_room_names_them(course: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    before = course_version.exercise_digests("lesson01", SLUGS)
    monkeypatch.setenv(course_config.FORGET_MISTAKES_VARIABLE, "sign error, product rule missed")
    named = course_version.exercise_digests("lesson01", SLUGS)
    assert [s for s in SLUGS if named[s] != before[s]] == ["sin_exp_derivative"]
    monkeypatch.setenv(course_config.FORGET_MISTAKES_VARIABLE, "a mistake no room spells")
    unknown = course_version.exercise_digests("lesson01", SLUGS)
    assert all(unknown[s] != before[s] for s in SLUGS)


def _exercise(slug: str, score: float, points: float = 5.0) -> dict:
    return {"slug": slug, "score": score, "max_score": points,
            "checks": [{"id": "c", "points": points, "score": score, "passed": score == points, "files": []}]}


def _record(keys: dict[str, str]) -> dict:
    return {"student": "ann", "key": "old", "exercise_keys": keys, "error": "", "complete": True, "confined": True,
            "confinement": "whole sandbox", "score": 7.0, "max_score": 15.0,
            "exercises": [_exercise("views", 5.0), _exercise("micrograd", 2.0), _exercise("quick_check", 0.0)],
            "integrity": ["micrograd: import graders", "views: import graders"]}


def test_a_rerun_regrades_the_exercises_whose_key_changed_and_nothing_else() -> None:
    keys = {"views": "v", "micrograd": "m", "quick_check": "q"}
    def typed(data: dict) -> store.StudentRecord:
        return store.StudentRecord.from_dict(data)

    assert store.to_regrade(typed(_record(keys)), keys) == []
    assert store.to_regrade(typed(_record(keys)), {**keys, "micrograd": "m2"}) == ["micrograd"]
    assert store.to_regrade(None, keys) == list(keys)
    assert store.to_regrade(typed({**_record(keys), "error": "its worker died"}), keys) == list(keys)
    assert store.to_regrade(typed({**_record(keys), "complete": False}), keys) == list(keys)
    assert store.to_regrade(typed({k: v for k, v in _record(keys).items() if k != "exercise_keys"}), keys) == list(keys)
    missing = {**_record(keys), "exercises": _record(keys)["exercises"][:2]}
    assert store.to_regrade(typed(missing), keys) == ["quick_check"]


def test_a_regraded_exercise_replaces_its_old_result_and_the_totals_are_counted_again() -> None:
    keys = {"views": "v", "micrograd": "m", "quick_check": "q"}
    new = {"score": 5.0, "max_score": 5.0, "complete": True, "confined": True, "confinement": "whole sandbox",
           "exercises": [_exercise("micrograd", 5.0)], "integrity": []}
    record = store.StudentRecord.from_dict(_record(keys))
    merged = store.merged(record, SubmissionResult.from_dict(new), ["micrograd"], ["views", "micrograd", "quick_check"])
    assert [e.slug for e in merged.exercises] == ["views", "micrograd", "quick_check"]
    assert merged.exercises[1].score == 5.0 and (merged.score, merged.max_score) == (10.0, 15.0)
    assert merged.integrity == ["views: import graders"] and merged.complete and merged.confined
    unconfined = store.merged(record, SubmissionResult.from_dict({**new, "confined": False,
                                                                  "confinement": "no Landlock"}),
                              ["micrograd"], ["views", "micrograd", "quick_check"])
    assert not unconfined.confined and unconfined.confinement == "no Landlock"
