"""When a hand-in arrived, from what its source records, for the late policy (term.py).

    an LMS download    the LMS's own clock: Blackboard's attempt time in the file name; for Moodle and
                       Canvas, the time their zip gives each file (when it reached the LMS), exact from
                       the zip, approximate from an unzipped folder (lms/download.py: where it was unzipped)
    an nbgrader course submitted/<student>/<assignment>/timestamp.txt, as nbgrader collect writes it
                       (read by nbgrader's own rule, so both paths agree on a time with a zone name)
    student folders    the last commit's committer time, when the folder is a git clone (GitHub Classroom)

A commit time is what the student's own clock said when they committed: it can be set to anything, so
for a deadline that matters, take the LMS's or nbgrader's time. git itself is never run on a student's
.git folder: its config is the student's, and git obeys configs that run commands (a promisor remote's
upload-pack, a signature program). The commit is read here instead, as data, with dulwich, which parses the
bytes it is handed and runs nothing: HEAD, its ref (loose or in packed-refs), the commit object (loose, or in a
pack, whole or as a chain of deltas). Every file is opened through handed_in.py (regular files only, never
through a link, size-capped) and only its bytes reach dulwich, which never opens a path of the student's (no
alternates, no .git file's gitdir). dulwich trusts the sizes a pack declares, so a delta chain is measured
first and refused past a budget: a crafted pack cannot inflate gigabytes in the instructor's process.

A time that is no time (a year out of range, an impossible offset) is taken as none, with the reason: the
outputs say the time is unknown, and why. An unknown time, or one the term finds impossible (before its
start, after the grading run), is never taken as on time silently (term.py, standing.py).
"""

from __future__ import annotations

import io
import re
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from graders.frontends.grade.intake import handed_in

if TYPE_CHECKING:  # dulwich is imported where a clone is read: a student's own pytest run never loads it
    from dulwich.objects import Commit, ShaFile
    from dulwich.pack import PackData, PackIndex

TIMESTAMP_BYTES = 1024
GIT_FILE_BYTES = 64 * 2**20  # a pack of a student's exercise repository is far smaller
COMMIT_BYTES = 2**20  # a commit object, headers and message: a loose one is inflated to at most this
CHAIN_BYTES = 16 * 2**20  # a packed commit's delta chain, every level's delta and result inflated together
CHAIN_DEPTH = 4095  # git's own cap on a delta chain (pack-objects --depth); gc --aggressive makes 50
EARLIEST, LATEST = 1990, 2200  # a hand-in's year outside these is a forged or broken time
_SHA = re.compile(rb"[0-9a-f]{40}")


def plausible_time(when: datetime | None) -> datetime | None:
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
    when = plausible_time(when)
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


class _NoCommit(Exception):
    """Why HEAD's commit is not read; str() is the sentence the time's reason gives."""


def git_commit_time(folder: Path) -> tuple[datetime | None, str]:
    """The committer time of HEAD in the git clone `folder`, or None with the reason."""
    try:
        commit = _head_commit(folder)
    except _NoCommit as error:
        return None, str(error)
    except handed_in.Refused as error:
        return None, f"its git history cannot be read ({error})"
    except ImportError:
        raise  # dulwich missing is the instructor's install (the batch extra), not every student's unknown time
    except Exception as error:  # noqa: BLE001
        # the bytes are the student's: whatever a parser makes of damaged ones (dulwich raises AssertionError,
        # KeyError, zlib.error, ApplyDeltaError...) is that student's unknown time, never a stopped batch
        return None, f"its git history cannot be read ({type(error).__name__}: {str(error)[:200]})"
    if commit.commit_time is None:
        return None, "its last git commit has no committer time"
    try:
        when = datetime.fromtimestamp(commit.commit_time, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None, "the commit's time is out of range"
    if plausible_time(when) is None:
        return None, f"its last git commit is dated {when:%Y-%m-%d %H:%M} UTC, no usable time (the student's clock)"
    zone = commit.commit_timezone  # seconds east of UTC, as the commit's "+0530" says
    offset = f"{'-' if zone < 0 else '+'}{abs(zone) // 3600:02d}{abs(zone) // 60 % 60:02d}"
    return when, f"last git commit, {offset} (the student's clock)"


def _read(folder: Path, *parts: str, limit: int = 4096) -> bytes:
    return handed_in.read_file(folder, PurePosixPath(".git", *parts), limit)


def _head_commit(folder: Path) -> Commit:
    """The commit HEAD names, loose or packed, or _NoCommit with the reason."""
    from dulwich.objects import Commit
    from dulwich.refs import check_ref_format

    head = _read(folder, "HEAD").strip()
    if head.startswith(b"ref: "):
        name = head[5:]
        # git's rule for a ref's name (no "..", no control characters), and under refs/ only: a name reaching
        # elsewhere would have us take another file for the branch
        if not name.startswith(b"refs/") or not check_ref_format(name):
            raise _NoCommit(f"its HEAD names {_shown(name)}, not a branch of its repository")
        sha = _ref(folder, name.decode("utf-8", "replace"))
        if sha is None:
            raise _NoCommit(f"its branch {_shown(name[5:])} has no commit")
    else:
        sha = head
    if not _SHA.fullmatch(sha):
        raise _NoCommit(f"its HEAD names {_shown(sha)}, not a commit id")
    found = _loose(folder, sha.decode()) or _packed(folder, sha.decode())
    if not isinstance(found, Commit):
        raise _NoCommit(f"its HEAD names a {found.type_name.decode()}, not a commit")
    return found


def _shown(name: bytes) -> str:
    return repr(name[:80].decode("utf-8", "replace"))


def _ref(folder: Path, name: str) -> bytes | None:
    from dulwich.refs import read_packed_refs_with_peeled

    try:
        return _read(folder, *name.split("/")).strip()
    except handed_in.Refused:
        pass
    try:
        packed = _read(folder, "packed-refs", limit=GIT_FILE_BYTES)
    except handed_in.Refused:
        return None
    for sha, ref, _peeled in read_packed_refs_with_peeled(io.BytesIO(packed)):
        if ref == name.encode():
            return sha
    return None


def _loose(folder: Path, sha: str) -> ShaFile | None:
    from dulwich.objects import ShaFile

    try:
        data = _read(folder, "objects", sha[:2], sha[2:], limit=GIT_FILE_BYTES)
    except handed_in.Refused:
        return None  # packed, or under a link: the search of the packs says which
    return ShaFile.from_file(io.BytesIO(data), max_size=COMMIT_BYTES)  # inflated to the cap at most: no zlib bomb


def _packed(folder: Path, sha: str) -> ShaFile:
    """The object from the pack whose index lists it, its delta chain measured before dulwich resolves it."""
    from dulwich.object_format import SHA1
    from dulwich.objects import ShaFile
    from dulwich.pack import Pack, PackData, load_pack_index_file

    listed = handed_in.walk(folder, skip_clutter=False, depth=4)  # links listed as refused, never entered
    packs = PurePosixPath(".git", "objects", "pack")
    for entry in listed:
        if entry.refused or entry.folder or entry.path.parent != packs or entry.path.suffix != ".idx":
            continue
        # dulwich's index and pack read these in-memory files; closing them is closing dulwich's objects, whatever
        # a damaged file made them raise half-built
        with io.BytesIO(entry.read(GIT_FILE_BYTES)) as index_file:
            index = load_pack_index_file(entry.path.name, index_file, SHA1)
            try:
                offset = index.object_offset(sha.encode())
            except KeyError:
                continue
            contents = _read(folder, "objects", "pack", entry.path.with_suffix(".pack").name, limit=GIT_FILE_BYTES)
            with io.BytesIO(contents) as pack_file, \
                    Pack.from_lazy_objects(lambda: PackData.from_file(pack_file, SHA1), lambda: index) as pack:
                pack.check_length_and_checksum()  # the index is this pack's
                _measure_chain(contents, pack.data, index, offset)
                kind, raw = pack.get_raw(sha.encode())
        return ShaFile.from_raw_string(kind, raw)
    links = [f"{entry.path} {entry.refused}" for entry in listed
             if entry.refused and entry.path.parts[:2] == (".git", "objects")]
    raise _NoCommit(f"its HEAD names commit {sha[:12]}, which none of its object files holds"
                    + (f" ({'; '.join(links[:2])}: not read)" if links else ""))


def _measure_chain(pack: bytes, data: PackData, index: PackIndex, offset: int) -> None:
    """Refuse a delta chain that loops, runs deeper than git makes one or inflates past CHAIN_BYTES, before dulwich
    resolves it: dulwich trusts the sizes a pack declares, and a delta of a few MiB can declare gigabytes."""
    from dulwich.pack import OFS_DELTA, REF_DELTA

    inflated, seen = 0, set()
    while True:
        if offset in seen or len(seen) > CHAIN_DEPTH:
            raise _NoCommit(f"its last commit is stored as a chain of deltas that loops or is deeper than the "
                            f"{CHAIN_DEPTH} git makes: not read")
        seen.add(offset)
        kind, size = _entry_header(pack, offset)
        inflated += size
        if kind in (OFS_DELTA, REF_DELTA) and inflated <= CHAIN_BYTES:
            delta = data.get_unpacked_object_at(offset)  # inflated to its declared size at most, checked above
            inflated += _delta_result_size(b"".join(delta.decomp_chunks))
        if inflated > CHAIN_BYTES:
            raise _NoCommit(f"its last commit is stored as deltas that inflate to over {CHAIN_BYTES // 2**20} MiB "
                            f"(a commit is a few hundred bytes): not read")
        if kind == OFS_DELTA:
            offset -= delta.delta_base
        elif kind == REF_DELTA:
            try:
                offset = index.object_offset(delta.delta_base)
            except KeyError:
                raise _NoCommit("its last commit is a delta on an object outside its pack: not read") from None
        else:
            return


def _entry_header(pack: bytes, offset: int) -> tuple[int, int]:
    """The type and inflated size a pack entry declares: 3 type bits and 4 size bits, then 7 size bits a byte while
    the top bit is set; ten bytes hold any size there is (IndexError past them, or past the pack)."""
    header = pack[offset:offset + 10]
    size, shift, position = header[0] & 15, 4, 0
    while header[position] & 0x80:
        position += 1
        size |= (header[position] & 0x7F) << shift
        shift += 7
    return (header[0] >> 4) & 7, size


def _delta_result_size(delta: bytes) -> int:
    """The size a delta says its result has: the second of the two sizes it starts with, 7 bits a byte."""
    position = 0
    for _ in range(2):
        size, shift = 0, 0
        while True:
            byte = delta[position]
            position += 1
            size |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
            if shift > 63:
                raise _NoCommit("its last commit is stored as a delta whose sizes run past 64 bits: not read")
    return size
