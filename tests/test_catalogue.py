"""The catalogue of mistakes is kept as changes to the reference (tests/mistake_catalogue.py): each applies to
today's reference, changes something, and stays a small change, not a copy; a change that no longer
applies fails loudly, naming its file and block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mistake_catalogue as catalogue
from mistake_catalogue import ChangeError

CHANGES = sorted(catalogue.CATALOGUE.glob(f"*/mistakes/*{catalogue.SUFFIX}"))
REFERENCE = "import torch\n\n\ndef f(x):\n    return x + 1\n\n\ndef g(x):\n    return x + 1\n"


@pytest.mark.parametrize("path", CHANGES, ids=[f"{p.parent.parent.name}/{p.stem}" for p in CHANGES])
def test_each_change_applies_to_the_reference_and_is_small(path: Path) -> None:
    change = catalogue.read(path)
    reference = (catalogue.REFERENCE / f"{change.slug}.py").read_text()
    text = change.text()
    assert text.startswith(change.header) and text != change.header + reference, "the change changes nothing"
    size = len(reference.splitlines())
    replaced = sum(len(block.old) for block in change.blocks)
    written = sum(len(block.new) for block in change.blocks)
    assert max(replaced, written) < 0.4 * size, f"{path}: {replaced} lines replaced by {written}: a copy, not a change"


HEADER_KEYS = {"mistake", "fails", "named", "replayed fails"}  # what tests/conftest.py reads


@pytest.mark.parametrize("path", CHANGES, ids=[f"{p.parent.parent.name}/{p.stem}" for p in CHANGES])
def test_each_header_line_that_looks_like_a_key_is_one_the_tests_read(path: Path) -> None:
    # A misspelt "# mistake:" would make the change a comment-only variant, skipped by test_mistakes.py.
    for line in catalogue.read(path).header.splitlines():
        key = re.match(r"# ([a-z][a-z ]*):", line)
        assert key is None or key.group(1) in HEADER_KEYS, (
            f"{path}: header line {line!r}: {key.group(1)!r} is not one of {sorted(HEADER_KEYS)}")


def test_the_catalogue_is_all_changes() -> None:
    assert len(CHANGES) > 100
    assert not (catalogue.ROOT / "tests" / "submissions").exists()
    for folder in catalogue.CATALOGUE.glob("*/mistakes"):
        assert (catalogue.REFERENCE / f"{folder.parent.name}.py").exists(), folder
        assert {p.suffix for p in folder.iterdir()} == {catalogue.SUFFIX}, folder


@pytest.mark.parametrize("path", [p for p in CHANGES if p.stem.startswith("correct_")],
                         ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_each_correct_variant_is_no_mistake_and_its_room_grades_it(path: Path) -> None:
    # A correct_<how>.change is a right answer written another way: the room's tests must grade it for full marks,
    # or a check that later turns against that way of writing it would cost students points unseen.
    assert "# mistake:" not in catalogue.read(path).header, f"{path}: a correct variant names a mistake"
    tests = sorted(path.parent.parent.glob("test_*.py"))
    assert any(f'"{path.stem}"' in test.read_text() for test in tests), (
        f"{path}: no test in {path.parent.parent} grades it by name")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "lesson01" / "views" / "mistakes" / f"wrong{catalogue.SUFFIX}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_change_replaces_deletes_and_appends_lines_below_its_header(tmp_path: Path) -> None:
    path = _write(tmp_path, "# mistake: off by one\n# fails: a, b\n\n"
                            "@@ replace\ndef f(x):\n    return x + 1\n@@ with\ndef f(x):\n    return x + 2\n@@ end\n\n"
                            "@@ replace\nimport torch\n\n@@ with\n@@ end\n"
                            "@@ append\nprint(f(1))\n@@ end\n")
    change = catalogue.read(path)
    assert change.slug == "views" and change.name == "wrong"
    assert change.header == "# mistake: off by one\n# fails: a, b\n\n"
    assert change.text(REFERENCE) == ("# mistake: off by one\n# fails: a, b\n\n"
                                      "\ndef f(x):\n    return x + 2\n\n\ndef g(x):\n    return x + 1\nprint(f(1))\n")


def test_a_replace_that_does_not_match_names_the_file_and_the_block(tmp_path: Path) -> None:
    path = _write(tmp_path, "# mistake: m\n\n@@ replace\nimport torch\n@@ with\nimport numpy\n@@ end\n\n"
                            "@@ replace\n    return x - 1\n@@ with\n    return x\n@@ end\n")
    with pytest.raises(ChangeError) as raised:
        catalogue.read(path).text(REFERENCE)
    assert str(path) in str(raised.value) and "line 9" in str(raised.value) and "does not occur" in str(raised.value)


def test_a_replace_that_matches_twice_or_overlaps_another_is_refused(tmp_path: Path) -> None:
    twice = _write(tmp_path, "@@ replace\n    return x + 1\n@@ with\n    return x\n@@ end\n")
    with pytest.raises(ChangeError, match="occurs 2 times") as raised:
        catalogue.read(twice).text(REFERENCE)
    assert str(twice) in str(raised.value)
    overlapping = _write(tmp_path, "@@ replace\ndef f(x):\n    return x + 1\n@@ with\n@@ end\n"
                                   "@@ replace\ndef f(x):\n@@ with\n@@ end\n")
    with pytest.raises(ChangeError, match="line 6: this block replaces lines that the block at line 1"):
        catalogue.read(overlapping).text(REFERENCE)


@pytest.mark.parametrize("text, why", [
    ("# mistake: m\n", "no '@@ replace' or '@@ append' block"),
    ("@@ replace\nimport torch\n@@ with\nimport numpy\n", "ends before '@@ end'"),
    ("@@ replace\nimport torch\n@@ end\n", "line 3: expected '@@ with', found '@@ end'"),
    ("@@ replace\n@@ with\nimport numpy\n@@ end\n", "no lines to replace"),
    ("@@ replace\nimport torch\n@@ with\n@@ end\nimport numpy\n", "line 5: expected '@@ replace' or '@@ append'"),
    ("@@ append\nx = 1\n@@ with\n@@ end\n", "line 3: expected '@@ end'"),
])
def test_a_malformed_change_is_refused_with_its_file_and_line(tmp_path: Path, text: str, why: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ChangeError) as raised:
        catalogue.read(path)
    assert str(path) in str(raised.value) and why in str(raised.value), raised.value
