"""When a hand-in arrived, from what its source records, for the late policy (term.py).

    an LMS download    the LMS's own clock: Blackboard's attempt time in the file name; for Moodle and
                       Canvas, the time their zip gives each file (when it reached the LMS), exact from
                       the zip, approximate from an unzipped folder (lms_layouts.py: where it was unzipped)
    an nbgrader course submitted/<student>/<assignment>/timestamp.txt, as nbgrader collect writes it
                       (read by nbgrader's own rule, so both paths agree on a time with a zone name)
    student folders    the last commit's committer time, when the folder is a git clone (GitHub Classroom)

A commit time is what the student's own clock said when they committed: it can be set to anything, so
for a deadline that matters, take the LMS's or nbgrader's time. git itself is never run on a student's
.git folder: its config is the student's, and git obeys configs that run commands (a promisor remote's
upload-pack, a signature program). The commit is read here instead, as data: HEAD, its ref (loose or
packed), and the commit object (loose, or whole in a pack; a commit stored as a delta gives no time).
Every file is opened through handed_in.py: regular files only, never through a link, size-capped.

A time that is no time (a year out of range, an impossible offset) is taken as none, with the reason: the
outputs say the time is unknown, and why. An unknown time, or one the term finds impossible (before its
start, after the grading run), is never taken as on time silently (term.py, standing.py).
"""

from __future__ import annotations

import re
import struct
import zlib
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from graders.frontends.grade import handed_in

TIMESTAMP_BYTES = 1024
GIT_FILE_BYTES = 64 * 2**20  # a pack of a student's exercise repository is far smaller
EARLIEST, LATEST = 1990, 2200  # a hand-in's year outside these is a forged or broken time
_SHA = re.compile(rb"[0-9a-f]{40}")
_COMMITTER = re.compile(rb"^committer .* (\d{1,12}) ([+-]\d{4})$", re.MULTILINE)


def sane(when: datetime | None) -> datetime | None:
    """`when` if it is a usable time (its offset valid, its year plausible), else None."""
    if when is None:
        return None
    try:
        utc = when.astimezone(timezone.utc) if when.tzinfo is not None else when
    except (ValueError, OverflowError):
        return None
    return when if EARLIEST <= utc.year <= LATEST else None


def nbgrader_timestamp(submitted: Path, student: str, assignment: str) -> tuple[datetime | None, str]:
    """The time in submitted/<student>/<assignment>/timestamp.txt, or None with the reason. Read without
    following links: the file is the student's."""
    try:
        data = handed_in.read_file(submitted, PurePosixPath(student, assignment, "timestamp.txt"), TIMESTAMP_BYTES)
    except handed_in.Refused as error:
        return None, f"no timestamp ({error})"
    except OSError as error:
        return None, f"no timestamp ({error.strerror or error})"
    text = handed_in.text(data).strip()
    try:
        when = _nbgrader_time(text)
    except (ValueError, OverflowError, TypeError, LookupError):
        return None, f"timestamp.txt holds {text[:40]!r}, not a time"
    when = sane(when)
    return (when, "nbgrader timestamp") if when else (None, f"timestamp.txt holds {text[:40]!r}, not a usable time")


def _nbgrader_time(text: str) -> datetime:
    """nbgrader's reading of a timestamp (a zone name such as EST is nbgrader's to interpret); dateutil's where
    nbgrader is not installed (a batch of plain folders)."""
    try:
        from nbgrader.utils import parse_utc
    except ImportError:
        from dateutil import parser

        when = parser.parse(text)
        return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    when = parse_utc(text)
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)  # nbgrader's times are UTC when naive


def git_commit_time(folder: Path) -> tuple[datetime | None, str]:
    """The committer time of HEAD in the git clone `folder`, or None with the reason."""
    try:
        commit = _commit(folder)
    except handed_in.Refused as error:
        return None, f"its git history cannot be read ({error})"
    except (OSError, ValueError, zlib.error, struct.error) as error:
        return None, f"its git history cannot be read ({error})"
    found = _COMMITTER.search(commit) if commit else None
    if found is None:
        return None, "no commit could be read"
    seconds, offset = int(found.group(1)), found.group(2).decode()
    try:
        when = datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None, "the commit's time is out of range"
    if sane(when) is None:
        return None, f"its last git commit is dated {when:%Y-%m-%d %H:%M} UTC, no usable time (the student's clock)"
    return when, f"last git commit, {offset} (the student's clock)"


def _read(folder: Path, *parts: str, limit: int = 4096) -> bytes:
    return handed_in.read_file(folder, PurePosixPath(".git", *parts), limit)


def _commit(folder: Path) -> bytes | None:
    """The raw commit object HEAD names, or None."""
    head = _read(folder, "HEAD").strip()
    if head.startswith(b"ref: "):
        name = head[5:].decode("utf-8", "replace")
        if not name.startswith("refs/") or ".." in name.split("/"):
            return None
        sha = _ref(folder, name)
    else:
        sha = head
    if sha is None or not _SHA.fullmatch(sha):
        return None
    loose = _loose(folder, sha.decode())
    return loose if loose is not None else _packed(folder, sha.decode())


def _ref(folder: Path, name: str) -> bytes | None:
    try:
        return _read(folder, *name.split("/")).strip()
    except handed_in.Refused:
        pass
    try:
        packed = _read(folder, "packed-refs", limit=GIT_FILE_BYTES)
    except handed_in.Refused:
        return None
    for line in packed.splitlines():
        sha, _, ref = line.partition(b" ")
        if ref.decode("utf-8", "replace") == name:
            return sha
    return None


def _loose(folder: Path, sha: str) -> bytes | None:
    try:
        data = zlib.decompress(_read(folder, "objects", sha[:2], sha[2:], limit=GIT_FILE_BYTES))
    except handed_in.Refused:
        return None
    header, _, body = data.partition(b"\0")
    return body if header.startswith(b"commit ") else None


def _packed(folder: Path, sha: str) -> bytes | None:
    """The commit from a pack: the index (version 2) gives its offset; a commit stored whole is read there."""
    wanted = bytes.fromhex(sha)
    listed = handed_in.walk(folder, skip_clutter=False, depth=4)  # links listed as refused, never entered
    for entry in listed:
        if entry.refused or entry.folder or entry.path.parent != PurePosixPath(".git", "objects", "pack") \
                or entry.path.suffix != ".idx":
            continue
        try:
            index = _read(folder, "objects", "pack", entry.path.name, limit=GIT_FILE_BYTES)
        except handed_in.Refused:
            continue
        offset = _offset(index, wanted)
        if offset is None:
            continue
        pack = _read(folder, "objects", "pack", entry.path.with_suffix(".pack").name, limit=GIT_FILE_BYTES)
        return _whole_commit(pack, offset)
    return None


def _offset(index: bytes, wanted: bytes) -> int | None:
    if index[:8] != b"\377tOc\0\0\0\2":
        return None
    fanout = struct.unpack(">256I", index[8:8 + 1024])
    count = fanout[255]
    first = fanout[wanted[0] - 1] if wanted[0] else 0
    names = 8 + 1024
    for position in range(first, fanout[wanted[0]]):
        if index[names + 20 * position:names + 20 * position + 20] == wanted:
            offsets = names + 20 * count + 4 * count  # past the names and their CRCs
            (offset,) = struct.unpack(">I", index[offsets + 4 * position:offsets + 4 * position + 4])
            return None if offset & 0x80000000 else offset  # a pack over 2 GiB is no student's
    return None


def _whole_commit(pack: bytes, offset: int) -> bytes | None:
    byte = pack[offset]
    kind = (byte >> 4) & 7
    position = offset + 1
    while byte & 0x80:  # the object's size, in 7-bit groups: not needed, zlib knows where it ends
        byte = pack[position]
        position += 1
    if kind != 1:  # 1 is a commit; a delta (6, 7) would need its base
        return None
    return zlib.decompressobj().decompress(pack[position:position + GIT_FILE_BYTES], 1 << 20)
