"""Reading handed-in files (graders/frontends/grade/intake/handed_in.py) as a hostile student would hand them in:
links to the reference, to a classmate's file and to a root-only file, a linked folder, a FIFO, a
file swapped for a link after the listing, and zips with escaping names, link entries and bombs.
Nothing a link points to is ever read, and every refusal is a sentence naming the file."""

from __future__ import annotations

import os
import stat
import struct
import zipfile
from pathlib import Path, PurePosixPath

import pytest

import course_config
from graders.frontends.grade.intake import handed_in
from graders.frontends.grade.intake.handed_in import Refused

REFERENCE = course_config.ROOT / "reference" / "lesson01" / "views.py"
SECRET = "SECRET-first-line-of-a-root-only-file-4f1c"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file only its owner (the grader's user) may read, whose first line must never come out."""
    path = tmp_path / "outside" / "shadow"
    path.parent.mkdir()
    path.write_text(f"{SECRET}\nmore\n")
    path.chmod(0o600)
    return path


def _by_path(entries: list[handed_in.Entry]) -> dict[str, handed_in.Entry]:
    return {str(e.path): e for e in entries}


def test_a_walk_lists_links_as_refused_and_reads_only_regular_files(tmp_path: Path, secret: Path) -> None:
    hand_in = tmp_path / "class" / "mallory" / "lesson01"
    hand_in.mkdir(parents=True)
    (hand_in / "own.py").write_text("x = 1\n")
    os.symlink(REFERENCE, hand_in / "views.py")
    os.symlink(secret, hand_in / "quick_check.py")
    (tmp_path / "class" / "ann" / "lesson01").mkdir(parents=True)
    (tmp_path / "class" / "ann" / "lesson01" / "views.py").write_text("ann's answer\n")
    os.symlink("../../ann/lesson01/views.py", hand_in / "shape_bugs.py")

    entries = _by_path(handed_in.walk(tmp_path / "class"))
    assert entries["mallory/lesson01/own.py"].read(100) == b"x = 1\n"
    assert entries["ann/lesson01/views.py"].read(100) == b"ann's answer\n"
    for linked in ("views.py", "quick_check.py", "shape_bugs.py"):
        entry = entries[f"mallory/lesson01/{linked}"]
        assert entry.refused == "is a symbolic link"
        with pytest.raises(Refused) as refused:
            entry.read(2**20)
        assert f"mallory/lesson01/{linked} is a symbolic link: it was not read" in str(refused.value)
        assert SECRET not in str(refused.value) and "def " not in str(refused.value)
    assert entries["mallory"].folder and entries["mallory/lesson01"].folder


def test_a_linked_folder_is_not_entered(tmp_path: Path) -> None:
    (tmp_path / "class" / "ann" / "lesson01").mkdir(parents=True)
    (tmp_path / "class" / "ann" / "lesson01" / "views.py").write_text("ann's answer\n")
    (tmp_path / "class" / "eve").mkdir()
    os.symlink("../ann/lesson01", tmp_path / "class" / "eve" / "lesson01")
    os.symlink(REFERENCE.parent, tmp_path / "class" / "ref")
    entries = _by_path(handed_in.walk(tmp_path / "class"))
    assert entries["eve/lesson01"].refused == "is a symbolic link"
    assert entries["ref"].refused == "is a symbolic link"
    assert not [p for p in entries if p.startswith(("eve/lesson01/", "ref/"))]


def test_reading_refuses_a_path_through_a_link_swapped_in_after_the_listing(tmp_path: Path) -> None:
    (tmp_path / "class" / "eve" / "lesson01").mkdir(parents=True)
    (tmp_path / "class" / "eve" / "lesson01" / "views.py").write_text("eve's\n")
    entry = _by_path(handed_in.walk(tmp_path / "class"))["eve/lesson01/views.py"]
    # Between the listing and the read, the folder becomes a link to the reference's folder.
    os.rename(tmp_path / "class" / "eve" / "lesson01", tmp_path / "class" / "eve" / "old")
    os.symlink(REFERENCE.parent, tmp_path / "class" / "eve" / "lesson01")
    with pytest.raises(Refused) as refused:
        entry.read(2**20)
    assert "lies under lesson01, which is a symbolic link" in str(refused.value)
    # And the file itself swapped for a link.
    os.unlink(tmp_path / "class" / "eve" / "lesson01")
    os.rename(tmp_path / "class" / "eve" / "old", tmp_path / "class" / "eve" / "lesson01")
    os.unlink(tmp_path / "class" / "eve" / "lesson01" / "views.py")
    os.symlink(REFERENCE, tmp_path / "class" / "eve" / "lesson01" / "views.py")
    with pytest.raises(Refused) as refused:
        entry.read(2**20)
    assert "views.py is a symbolic link" in str(refused.value)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    (tmp_path / "class" / "eve" / "lesson01").mkdir(parents=True)
    os.mkfifo(tmp_path / "class" / "eve" / "lesson01" / "views.py")
    entry = _by_path(handed_in.walk(tmp_path / "class"))["eve/lesson01/views.py"]
    assert entry.refused == "is not a regular file (a FIFO)"
    with pytest.raises(Refused, match="not a regular file"):  # read_file on it directly: open does not block
        handed_in.read_file(tmp_path / "class", "eve/lesson01/views.py", 100)


def test_sizes_are_capped_on_the_listing_and_on_the_bytes_read(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_bytes(b"#" * 5000)
    entry = _by_path(handed_in.walk(tmp_path))["big.py"]
    assert entry.unreadable(4096) == "is 0.0 MiB, over the 0.0 MiB a hand-in may be"
    with pytest.raises(Refused, match="big.py is 0.0 MiB, over"):
        entry.read(4096)
    assert entry.read(5000) == b"#" * 5000


def test_one_students_huge_tree_does_not_hide_the_classmates_after_it(tmp_path: Path) -> None:
    (tmp_path / "aaa" / "lesson01").mkdir(parents=True)
    for number in range(50):
        (tmp_path / "aaa" / "lesson01" / f"junk{number}.txt").write_text("")
    (tmp_path / "zed" / "lesson01").mkdir(parents=True)
    (tmp_path / "zed" / "lesson01" / "views.py").write_text("zed's\n")
    entries = _by_path(handed_in.walk(tmp_path, per_folder=10))
    assert entries["aaa/lesson01"].refused.startswith("holds too many files")
    assert entries["zed/lesson01/views.py"].read(100) == b"zed's\n"


def test_hidden_folders_and_archive_clutter_are_skipped_unless_asked(tmp_path: Path) -> None:
    (tmp_path / "ann" / ".git").mkdir(parents=True)
    (tmp_path / "ann" / ".git" / "HEAD").write_text("ref\n")
    (tmp_path / "__MACOSX").mkdir()
    assert set(_by_path(handed_in.walk(tmp_path))) == {"ann"}
    assert "ann/.git/HEAD" in _by_path(handed_in.walk(tmp_path, skip_clutter=False))


# --- zips -------------------------------------------------------------------------------------------


def _zip(path: Path, members: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
        for info, data in members:
            bundle.writestr(info, data)
    return path


def _link_entry(name: str, target: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16  # how zip -y stores a link: its target is the data
    return info


def test_zip_entries_that_would_escape_are_refused_and_told_to_their_student(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "class.zip", [
        ("ann_lesson01.ipynb", b"{}"),
        ("../../mallory_escape.ipynb", b"{}"),
        ("/etc/mallory_absolute.ipynb", b"{}"),
        ("sub\\..\\..\\mallory_backslash.ipynb", b"{}"),
        ("C:/mallory_drive.ipynb", b"{}"),
        (_link_entry("mallory_link.ipynb", str(REFERENCE)), str(REFERENCE).encode()),
    ])
    with handed_in.zip_entries(archive) as entries:
        found = _by_path(entries)
        assert found["ann_lesson01.ipynb"].read(100) == b"{}"
        for path in ("mallory_escape.ipynb", "etc/mallory_absolute.ipynb", "sub/mallory_backslash.ipynb",
                     "mallory_drive.ipynb"):
            assert found[path].refused.startswith("has a name in the archive that reaches outside it"), path
            with pytest.raises(Refused, match="it was not read"):
                found[path].read(100)
        assert found["mallory_link.ipynb"].refused == "is a symbolic link stored in the archive"
        with pytest.raises(Refused):
            found["mallory_link.ipynb"].read(100)
    assert not (tmp_path / "mallory_escape.ipynb").exists() and not Path("/etc/mallory_absolute.ipynb").exists()


def test_a_zip_bomb_entry_is_refused_on_its_declared_size(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "bomb.zip", [("ann_lesson01.ipynb", b"{}"), ("mallory_bomb.ipynb", b"\0" * 2**24)])
    assert archive.stat().st_size < 2**16  # 16 MiB of zeros deflate to a few KiB
    with handed_in.zip_entries(archive) as entries:
        found = _by_path(entries)
        with pytest.raises(Refused, match="over the 1.0 MiB a hand-in may be"):
            found["mallory_bomb.ipynb"].read(2**20)
        assert found["ann_lesson01.ipynb"].read(2**20) == b"{}"


def test_a_zip_entry_that_lies_about_its_size_never_yields_more_than_the_cap(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "liar.zip", [("mallory_liar.ipynb", b"A" * 2**22)])
    raw = bytearray(archive.read_bytes())
    # Make both headers claim 100 bytes while the deflated data still unpacks to 4 MiB.
    local = raw.find(b"PK\x03\x04")
    struct.pack_into("<I", raw, local + 22, 100)
    central = raw.find(b"PK\x01\x02")
    struct.pack_into("<I", raw, central + 24, 100)
    archive.write_bytes(bytes(raw))
    with handed_in.zip_entries(archive) as entries:
        entry = _by_path(entries)["mallory_liar.ipynb"]
        assert entry.size == 100
        with pytest.raises(Refused, match="damaged in the archive"):  # the bytes read fail the CRC
            entry.read(2**20)


def test_an_archive_declaring_too_many_entries_or_bytes_is_refused_whole(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "many.zip", [(f"s{n}_x.ipynb", b"{}") for n in range(30)])
    with pytest.raises(Refused, match="declares 30 entries, more than the 20"):
        with handed_in.zip_entries(archive, entries=20):
            pass
    with pytest.raises(Refused, match="uncompressed, more than"):
        with handed_in.zip_entries(archive, total=50):
            pass


def test_the_entry_count_is_read_from_the_end_record_before_zipfile_parses_the_directory(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "few.zip", [("a_x.ipynb", b"{}")])
    raw = bytearray(archive.read_bytes())
    end = raw.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", raw, end + 8, 60000, 60000)  # a record claiming 60000 entries
    archive.write_bytes(bytes(raw))
    with pytest.raises(Refused, match="declares 60000 entries"):
        with handed_in.zip_entries(archive):
            pass


def test_the_total_of_bytes_really_read_is_capped_across_the_archive(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "class.zip", [(f"s{n}_x.ipynb", b"x" * 1000) for n in range(5)])
    with handed_in.zip_entries(archive, total=5000) as entries:
        for entry in entries:
            assert entry.read(1000) == b"x" * 1000
        with pytest.raises(Refused, match="unpacks to more than"):  # a sixth read: over the archive's budget
            entries[0].read(1000)


def test_a_refusal_names_the_file_and_what_to_do() -> None:
    sentence = handed_in.problem(PurePosixPath("alice/lesson01/views.py"), "is a symbolic link")
    assert sentence.startswith("alice/lesson01/views.py is a symbolic link: it was not read")
    assert "hand in the file itself" in sentence


def test_a_name_that_is_not_text_is_refused_and_said_printably(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path / "class")
    os.makedirs(folder + b"/eve/lesson01")
    with open(folder + b"/eve/lesson01/\xff\xfe.py", "w") as handle:
        handle.write("x = 1\n")
    (entry,) = [e for e in handed_in.walk(tmp_path / "class") if e.refused]
    assert entry.refused == "has a name that is not UTF-8 text"
    assert str(entry.path) == "eve/lesson01/\ufffd\ufffd.py"
    str(entry.path).encode("utf-8")  # a page, a CSV or a JSON file can hold it
