"""The "not started yet" banner is said only to a student who has written no code (issue 25): not after a
run of one untouched file, nor after a run that -x stopped at a stub's function, when other code is written."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, STUBS as COMMITTED_STUBS
from graders.engine.progress import holds_code

STUBS, REFERENCE = COMMITTED_STUBS / "lesson01", ROOT / "reference" / "lesson01"
NOT_STARTED = "Lesson 1: not started yet"


def _submission(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "answers"
    (folder / "lesson01").mkdir(parents=True)
    for slug, text in files.items():
        (folder / "lesson01" / f"{slug}.py").write_text(text)
    return folder


def test_a_file_holds_code_once_a_function_is_more_than_a_stub(tmp_path: Path) -> None:
    assert not holds_code(STUBS / "views.py") and holds_code(REFERENCE / "views.py")
    assert not holds_code(tmp_path / "missing.py")
    half = tmp_path / "half.py"
    half.write_text("def f(x):\n    return x +\n")  # written, not finished: it does not parse
    assert holds_code(half)


def test_a_run_of_one_untouched_file_says_not_started_only_when_nothing_else_is_written(grade, tmp_path: Path) -> None:
    stub = (STUBS / "views.py").read_text()
    alone = grade(_submission(tmp_path / "a", {"views": stub}), only=["views"])
    assert f"{NOT_STARTED}. Begin with" in alone.output, alone.output
    elsewhere = grade(_submission(tmp_path / "b", {"views": stub, "quick_check": (REFERENCE / "quick_check.py").read_text()}),
                      only=["views"])
    assert NOT_STARTED not in elsewhere.output and "Lesson 1: points" in elsewhere.output, elsewhere.output
    assert "views: 0 / 6 points   not implemented yet: open" in elsewhere.output


def test_x_stopped_at_a_stubbed_function_of_a_written_file_does_not_say_not_started(grade, tmp_path: Path) -> None:
    reference = (REFERENCE / "dtypes_and_devices.py").read_text()
    body = reference.split("def to_features", 1)[1].split('"""', 2)[2].split("\ndef ", 1)[0]
    partial = reference.replace(body, "\n    raise NotImplementedError\n\n", 1)
    graded = grade(_submission(tmp_path, {"dtypes_and_devices": partial}), "-x", only=["dtypes_and_devices"])
    assert graded.result["complete"] is False and graded.result["score"] == 0, graded.output
    assert NOT_STARTED not in graded.output and "Lesson 1: points" in graded.output, graded.output
    # The stub's function is named under FAILURES, as in any exercise begun; the file is not called untouched.
    assert "`to_features` is not implemented yet" in graded.output.split("FAILURES")[1], graded.output
    assert "not implemented yet: open" not in graded.output, graded.output
