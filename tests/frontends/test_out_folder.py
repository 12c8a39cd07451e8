"""Whether --out can hold a class's results (graders/frontends/grade/run/out_folder.py), said before anything is
read: inside SOURCE, a file, or a place no folder can be written is refused with what to give instead; a new
folder outside SOURCE, or beside an nbgrader course's submitted/, is taken, and trying leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders.frontends.grade.run.out_folder import OutError, check_out


def _refusal(source: Path, out: Path) -> str:
    with pytest.raises(OutError) as error:
        check_out(source, out)
    return str(error.value)


def test_an_out_inside_source_or_source_itself_is_refused_with_a_folder_to_give(tmp_path: Path) -> None:
    source = tmp_path / "download"
    source.mkdir()
    said = _refusal(source, source / "results")
    assert f"is inside SOURCE {source}" in said and f"--out {tmp_path / 'download-results'}" in said, said
    assert "is SOURCE itself" in _refusal(source, source)
    (tmp_path / "link").symlink_to(source)  # a link to SOURCE is SOURCE
    assert "is SOURCE itself" in _refusal(source, tmp_path / "link")


def test_a_file_or_a_folder_under_a_file_is_refused(tmp_path: Path) -> None:
    source, taken = tmp_path / "download", tmp_path / "grades.csv"
    source.mkdir()
    taken.write_text("")
    assert "is a file, not a folder" in _refusal(source, taken)
    assert f"{taken} is a file, so no folder can be made under it" in _refusal(source, taken / "out")


def test_a_place_no_folder_can_be_written_in_is_refused_with_the_reason(tmp_path: Path) -> None:
    # /proc is a folder even root cannot make one in: only trying tells, as it does on a read-only mount.
    source = tmp_path / "download"
    source.mkdir()
    said = _refusal(source, Path("/proc") / "graders-results")
    assert said.startswith("--out /proc/graders-results: no folder for the results can be written there ("), said
    assert said.endswith("give a folder you can write to"), said


def test_a_new_folder_outside_source_is_taken_and_the_probe_leaves_nothing(tmp_path: Path) -> None:
    source = tmp_path / "download"
    source.mkdir()
    check_out(source, tmp_path / "new" / "results")
    assert list(tmp_path.iterdir()) == [source], "checking made folders it did not take away"
    existing = tmp_path / "results"
    existing.mkdir()
    check_out(source, existing)
    assert list(existing.iterdir()) == []


def test_results_may_sit_in_an_nbgrader_course_beside_its_submitted_folder(tmp_path: Path) -> None:
    (tmp_path / "course" / "submitted").mkdir(parents=True)
    check_out(tmp_path / "course", tmp_path / "course" / "results")
    assert "is inside SOURCE" in _refusal(tmp_path / "course", tmp_path / "course" / "submitted" / "results")
