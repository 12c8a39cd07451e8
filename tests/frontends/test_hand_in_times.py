"""A cloned hand-in's time, from real repositories the git command made: packed by `git gc --aggressive`, its
last commit stored as a delta, read as git reads it; and hostile ones (HEAD reaching out, a linked objects folder,
files and deltas that would inflate past any commit) giving an unknown time with the reason, never an exception
(graders/frontends/grade/intake/hand_in_times.py). nbgrader's timestamp.txt is read too, never through a link.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import sys
import time
import zlib
from datetime import datetime, timezone
from pathlib import Path

import pytest

import course_config
from graders.frontends.grade.intake.hand_in_times import (CHAIN_BYTES, GIT_FILE_BYTES, git_commit_time,
                                                          nbgrader_timestamp)

UTC = timezone.utc
GIT = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
# The same long message on every commit, the last one's shorter: git deltas the smaller commits against the
# largest, so HEAD is stored as a delta (test_the_last_commit_is_a_delta_in_the_pack proves it).
MESSAGE = " ".join(f"step {i} of the exercise" for i in range(60))


def _git(repository: Path, *command: str, date: str = "2026-12-01T09:00:00+00:00") -> str:
    environment = {**GIT, "HOME": str(repository), "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    run = subprocess.run(["git", *command], cwd=repository, env=environment, capture_output=True, text=True,
                         check=True)
    return run.stdout.strip()


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five commits of one answer, then `git gc --aggressive`: every object in one pack, the branch in
    packed-refs, the last commit (dated in India, +0530) a delta on an earlier one."""
    repository = tmp_path_factory.mktemp("clones") / "ana"
    repository.mkdir()
    _git(repository, "init", "-q", "-b", "main")
    for attempt in range(1, 6):
        (repository / "answer.py").write_text(f"def f():\n    return {attempt}\n")
        _git(repository, "add", "answer.py")
        message = MESSAGE if attempt == 5 else MESSAGE + " and the earlier attempts say a little more"
        _git(repository, "-c", "user.name=Ana", "-c", "user.email=ana@uni.example", "commit", "-q",
             "-m", f"attempt {attempt}", "-m", message, date=f"2026-12-0{attempt}T09:0{attempt}:00+05:30")
    _git(repository, "gc", "-q", "--aggressive")
    return repository


def _head(repository: Path) -> str:
    return _git(repository, "rev-parse", "HEAD")


def _pack(repository: Path) -> Path:
    (pack,) = (repository / ".git" / "objects" / "pack").glob("*.pack")
    return pack


def test_the_last_commit_is_a_delta_in_the_pack(packed: Path) -> None:
    head = _head(packed)
    assert not (packed / ".git" / "objects" / head[:2] / head[2:]).exists(), "HEAD's commit is still loose"
    assert not (packed / ".git" / "refs" / "heads" / "main").exists(), "the branch is not in packed-refs"
    listing = _git(packed, "verify-pack", "-v", str(_pack(packed).with_suffix(".idx")))
    (line,) = [row.split() for row in listing.splitlines() if row.startswith(head)]
    # sha, type, size, size in pack, offset, then depth and base for a delta only
    assert line[1] == "commit" and len(line) == 7 and int(line[5]) >= 1, f"HEAD is stored whole: {line}"


def test_a_commit_stored_as_a_delta_gives_the_time_and_zone_git_gives(packed: Path) -> None:
    seconds = int(_git(packed, "log", "-1", "--format=%ct"))
    assert git_commit_time(packed) == (datetime.fromtimestamp(seconds, tz=UTC),
                                       "last git commit, +0530 (the student's clock)")
    assert git_commit_time(packed)[0] == datetime(2026, 12, 5, 3, 35, tzinfo=UTC)


def test_a_loose_commit_gives_its_time_too(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x",
         date="2026-12-02T09:00:00-08:00")
    assert git_commit_time(tmp_path) == (datetime(2026, 12, 2, 17, 0, tzinfo=UTC),
                                         "last git commit, -0800 (the student's clock)")


def _copy(packed: Path, to: Path) -> Path:
    shutil.copytree(packed, to, symlinks=True)
    return to


@pytest.mark.parametrize("head", ["ref: refs/heads/../../../../../etc/passwd", "ref: ../../outside",
                                  "ref: /etc/passwd", "ref: refs/heads/\x01main"])
def test_a_head_that_names_a_file_outside_its_refs_gives_no_time(packed: Path, tmp_path: Path, head: str) -> None:
    clone = _copy(packed, tmp_path / "mallory")
    (clone / ".git" / "HEAD").write_text(head + "\n")
    when, why = git_commit_time(clone)
    assert when is None and "not a branch of its repository" in why, why


def test_a_head_that_is_a_link_gives_no_time(packed: Path, tmp_path: Path) -> None:
    clone = _copy(packed, tmp_path / "mallory")
    (clone / ".git" / "HEAD").unlink()
    (clone / ".git" / "HEAD").symlink_to(packed / ".git" / "HEAD")
    when, why = git_commit_time(clone)
    assert when is None and "HEAD is a symbolic link" in why, why


def test_objects_linked_from_another_repository_are_not_read(packed: Path, tmp_path: Path) -> None:
    clone = tmp_path / "mallory"  # HEAD names ana's commit, in ana's objects, reached by a link
    (clone / ".git" / "refs").mkdir(parents=True)
    (clone / ".git" / "HEAD").write_text(_head(packed) + "\n")
    (clone / ".git" / "objects").symlink_to(packed / ".git" / "objects")
    when, why = git_commit_time(clone)
    assert when is None, "a commit was read through a link"
    assert ".git/objects is a symbolic link" in why and _head(packed)[:12] in why, why
    assert git_commit_time(packed)[0] is not None  # the control: the commit is there to read


def test_a_pack_too_large_to_be_a_students_is_not_read(packed: Path, tmp_path: Path) -> None:
    clone = _copy(packed, tmp_path / "mallory")
    os.truncate(_pack(clone), GIT_FILE_BYTES + 2**20)  # sparse: large as listed, no disk taken
    when, why = git_commit_time(clone)
    assert when is None and "pack is 65.0 MiB, over the 64.0 MiB" in why, why


def test_a_loose_commit_that_inflates_to_gigabytes_is_not_inflated(packed: Path, tmp_path: Path) -> None:
    clone = _copy(packed, tmp_path / "mallory")
    head = _head(clone)
    size = 2**30  # a zlib bomb of 1 MiB: compressed in pieces, so the test itself never holds a gigabyte
    squeezer = zlib.compressobj(9)
    bomb = squeezer.compress(b"commit %d\0" % size) + b"".join(squeezer.compress(bytes(2**24)) for _ in range(64))
    (clone / ".git" / "objects" / head[:2]).mkdir()
    (clone / ".git" / "objects" / head[:2] / head[2:]).write_bytes(bomb + squeezer.flush())
    started = time.monotonic()
    when, why = git_commit_time(clone)
    assert when is None and "exceeds" in why, why
    assert time.monotonic() - started < 5


def _size(value: int) -> bytes:
    """A delta's size: 7 bits a byte, low bits first, the top bit set while more follow."""
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def _entry(kind: int, size: int, payload: bytes) -> bytes:
    """A pack entry: type and size in git's header (4 size bits first, then 7 a byte), then the zlib data."""
    header = bytearray([kind << 4 | size & 15 | (0x80 if size > 15 else 0)])
    size >>= 4
    while size:
        header.append(size & 0x7F | (0x80 if size > 0x7F else 0))
        size >>= 7
    return bytes(header) + payload


def _offset(distance: int) -> bytes:
    """How far back an OFS_DELTA's base is, as git writes it: 7 bits a byte, high bits first, each continued
    byte's value one less."""
    out = bytearray([distance & 0x7F])
    distance >>= 7
    while distance:
        distance -= 1
        out.insert(0, 0x80 | distance & 0x7F)
        distance >>= 7
    return bytes(out)


def test_a_delta_that_declares_more_than_a_commit_is_refused_before_it_is_inflated(packed: Path,
                                                                                   tmp_path: Path) -> None:
    """A pack of two entries: a real commit, and a delta on it whose result is that commit copied to 64 MiB
    (copy instructions of 3 bytes, each could ask for 16 MiB). dulwich would build it; the chain's measure stops it
    first. The pack is written here byte by byte, its index by dulwich's writer."""
    from dulwich.pack import write_pack_index_v2

    base = (_git(packed, "cat-file", "commit", "HEAD") + "\n").encode()
    copies = 4 * CHAIN_BYTES // len(base) + 1
    copy = bytes([0x80 | 0x30, len(base) & 0xFF, len(base) >> 8])  # from offset 0 (no offset bytes), 2 size bytes
    delta = _size(len(base)) + _size(copies * len(base)) + copy * copies
    first = _entry(1, len(base), zlib.compress(base))
    distance = _offset(len(first))  # the delta's base is the entry just before it
    second = _entry(6, len(delta), distance + zlib.compress(delta, 9))
    second_at = 12 + len(first)
    body = b"PACK" + struct.pack(">II", 2, 2) + first + second
    pack = body + hashlib.sha1(body).digest()
    clone = tmp_path / "mallory"
    folder = clone / ".git" / "objects" / "pack"
    folder.mkdir(parents=True)
    (folder / "pack-bomb.pack").write_bytes(pack)
    commit_sha = hashlib.sha1(b"commit %d\0" % len(base) + base).digest()
    forged = hashlib.sha1(b"the bomb").digest()  # the delta's name: never computed, since it is never inflated
    with open(folder / "pack-bomb.idx", "wb") as index:
        write_pack_index_v2(index, sorted([(commit_sha, 12, zlib.crc32(first)),
                                           (forged, second_at, zlib.crc32(second))]), pack[-20:])
    (clone / ".git" / "HEAD").write_text(forged.hex() + "\n")
    started = time.monotonic()
    when, why = git_commit_time(clone)
    assert when is None and "inflate to over 16 MiB" in why, why
    assert time.monotonic() - started < 5
    (clone / ".git" / "HEAD").write_text(commit_sha.hex() + "\n")  # the control: the pack is read
    assert git_commit_time(clone)[0] == git_commit_time(packed)[0]


def test_a_damaged_pack_gives_no_time_and_a_reason(packed: Path, tmp_path: Path) -> None:
    clone = _copy(packed, tmp_path / "mallory")
    pack = _pack(clone)
    data = bytearray(pack.read_bytes())
    data[12:-20] = bytes(len(data) - 32)  # every entry zeroed, the header and checksum kept
    pack.write_bytes(bytes(data))
    when, why = git_commit_time(clone)
    assert when is None and why.startswith("its git history cannot be read ("), why


def test_dulwich_is_imported_only_where_a_clone_is_read(packed: Path) -> None:
    """The student's pytest run loads the package but never reads a clone: it must not pay for dulwich."""
    probe = ("import sys, pathlib; import graders.frontends.pytest_plugin, graders.frontends.grade.intake.sources; "
             "assert 'dulwich' not in sys.modules, 'imported with the modules'; "
             "from graders.frontends.grade.intake.hand_in_times import git_commit_time; "
             f"assert git_commit_time(pathlib.Path({str(packed)!r}))[0] is not None; "
             "assert 'dulwich.pack' in sys.modules")
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=course_config.ROOT)


def test_hand_in_times_come_from_nbgrader_timestamps_and_git_and_never_through_a_link(tmp_path: Path) -> None:
    folder = tmp_path / "submitted" / "alice" / "lesson01"
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text("2026-12-02 08:30:00.000000 UTC\n")
    assert nbgrader_timestamp(tmp_path / "submitted", "alice", "lesson01")[0] == datetime(2026, 12, 2, 8, 30,
                                                                                           tzinfo=UTC)
    secret = tmp_path / "secret.txt"
    secret.write_text("2001-01-01 00:00:00\n")
    linked = tmp_path / "submitted" / "mallory" / "lesson01"
    linked.mkdir(parents=True)
    (linked / "timestamp.txt").symlink_to(secret)
    assert nbgrader_timestamp(tmp_path / "submitted", "mallory", "lesson01")[0] is None
    clone = tmp_path / "clone"
    clone.mkdir()
    signer, fired = tmp_path / "sign.sh", tmp_path / "fired.sh"
    signer.write_text('#!/bin/sh\ncat > /dev/null\necho "[GNUPG:] SIG_CREATED D 1 8 00 1 X" >&2\n'
                      'printf -- "-----BEGIN PGP SIGNATURE-----\\n\\nfake\\n-----END PGP SIGNATURE-----\\n"\n')
    fired.write_text(f"#!/bin/sh\ntouch {tmp_path / 'FIRED'}\n")
    signer.chmod(0o755)
    fired.chmod(0o755)
    environment = {"GIT_COMMITTER_DATE": "2026-12-02T09:00:00+00:00", "GIT_AUTHOR_DATE": "2026-12-02T09:00:00+00:00",
                   "GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for command in (["git", "init", "-q"], ["git", "-c", "user.name=a", "-c", "user.email=a@b", "-c",
                                            f"gpg.program={signer}", "commit", "-q", "-S", "--allow-empty", "-m", "x"]):
        subprocess.run(command, cwd=clone, check=True, env=environment)
    # the student's own repository config: a signed commit's check runs the program it names, and a promisor
    # remote's upload-pack runs when git wants an object it lacks
    with open(clone / ".git" / "config", "a") as config:
        config.write(f"[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {fired}\n"
                     f"[extensions]\n\tpartialClone = origin\n[remote \"origin\"]\n\tpromisor = true\n"
                     f"\turl = {tmp_path}\n\tuploadpack = {fired}\n")
    subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=clone, env=environment, capture_output=True)
    assert (tmp_path / "FIRED").exists()  # the control: a plain `git log` runs it
    (tmp_path / "FIRED").unlink()
    assert git_commit_time(clone)[0] == datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    assert not (tmp_path / "FIRED").exists()
    packed = tmp_path / "packed"  # a clone's objects are in a pack, its branch in packed-refs
    subprocess.run(["git", "clone", "-q", "--no-local", str(clone), str(packed)], check=True, env=environment,
                   capture_output=True)
    assert git_commit_time(packed)[0] == datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
    assert not (tmp_path / "FIRED").exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").symlink_to(clone / ".git")
    assert git_commit_time(other)[0] is None
    forged = tmp_path / "forged"  # a commit time no clock gives
    subprocess.run(["git", "init", "-q", str(forged)], check=True, env=environment)
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"],
                   cwd=forged, check=True, env={**environment, "GIT_COMMITTER_DATE": "@99999999999 +0000"})
    assert git_commit_time(forged)[0] is None
