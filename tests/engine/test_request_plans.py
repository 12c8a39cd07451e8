"""What a student's run asked each worker, kept for the next run (graders/engine/request_plans.py): saved and
loaded back byte for byte, a module graded before keeps its place, a folder that is gone is dropped, only the
folders graded most recently are kept, a file of another shape is no plan, and the file beside another version's kept values goes."""

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


def test_only_the_folders_graded_most_recently_are_kept(tmp_path: Path) -> None:
    folders = [tmp_path / f"copy{number}" for number in range(request_plans.KEPT_FOLDERS + 3)]
    path = tmp_path / "plans-v1.json"
    for folder in folders:
        folder.mkdir()
        request_plans.save(path, {str(folder): {"a": [folder.name.encode()]}})
    oldest_kept = folders[-request_plans.KEPT_FOLDERS]
    assert list(request_plans.load(path)) == [str(f) for f in folders[-request_plans.KEPT_FOLDERS:]]
    request_plans.save(path, {str(oldest_kept): {"b": [b"again"]}})  # graded again: the most recent now
    kept = request_plans.load(path)
    assert list(kept) == [str(f) for f in folders[-request_plans.KEPT_FOLDERS + 1:]] + [str(oldest_kept)]
    assert kept[str(oldest_kept)] == {"a": [oldest_kept.name.encode()], "b": [b"again"]}  # its plan carried over


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
