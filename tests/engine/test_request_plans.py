"""What a student's run asked each worker, kept for the next run (graders/engine/request_plans.py): saved and
loaded back byte for byte, a module graded before keeps its place, a folder that is gone is dropped, a file of
another shape is no plan, and the file beside another version's kept values goes."""

from __future__ import annotations

from pathlib import Path

from graders.engine import kept_values, request_plans


def test_plans_are_loaded_back_as_saved_module_order_kept(tmp_path: Path) -> None:
    folder = tmp_path / "submission"
    folder.mkdir()
    path = tmp_path / "cache" / "plans-v1.json"
    request_plans.save(path, {str(folder): {"views": [b"\x00first", b"second\xff"], "fit": [b"x"]}})
    request_plans.save(path, {str(folder): {"new": [b"n"], "views": [b"again"]}})
    plans = request_plans.load(path)
    assert plans == {str(folder): {"views": [b"again"], "fit": [b"x"], "new": [b"n"]}}
    assert list(plans[str(folder)]) == ["views", "fit", "new"]  # the module graded before keeps its place


def test_a_folder_that_is_gone_is_dropped_when_the_next_run_saves(tmp_path: Path) -> None:
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    kept.mkdir()
    gone.mkdir()
    path = tmp_path / "plans-v1.json"
    request_plans.save(path, {str(kept): {"a": [b"1"]}, str(gone): {"a": [b"2"]}})
    gone.rmdir()
    request_plans.save(path, {})
    assert request_plans.load(path) == {str(kept): {"a": [b"1"]}}


def test_a_missing_or_foreign_file_holds_no_plan(tmp_path: Path) -> None:
    path = tmp_path / "plans-v1.json"
    assert request_plans.load(path) == {}
    for text in ("not json", "[1, 2]", '{"f": {"m": ["not base64!"]}}', '{"f": 3}'):
        path.write_text(text)
        assert request_plans.load(path) == {}, text


def test_the_plans_lie_beside_their_versions_kept_values_and_other_versions_go(tmp_path: Path) -> None:
    kept = tmp_path / f"{kept_values.PREFIX}abc123.json"
    path = request_plans.path_beside(kept)
    assert path == tmp_path / "plans-abc123.json"
    old = tmp_path / "plans-old999.json"
    old.write_text("{}")
    request_plans.save(path, {})
    assert path.is_file() and not old.exists()
