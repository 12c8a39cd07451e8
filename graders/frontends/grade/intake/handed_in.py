"""Reading handed-in files: regular files only, never through a link, size-capped.

Students make what lies under a class's SOURCE (their folders, an LMS download, an nbgrader
course's submitted/, a zip) and Gradescope's submission folder. The instructor's process reads
it with the instructor's rights before any sandbox exists, so a symbolic link there would hand
us whatever it points to (the reference, a classmate's answer, a root-only file) as if the
student had written it. Here:

- a folder is walked one level at a time, each level opened with O_NOFOLLOW | O_DIRECTORY at
  its parent's descriptor, and a file is opened with O_NOFOLLOW the same way: no component
  of a path is ever resolved through a link, not even one swapped in after the walk;
- a link, a FIFO, a device or a socket is listed as refused, with the reason, and never opened;
- every read is capped and counts the bytes it really got;
- a zip's entries are read from the archive, never unpacked to disk: a name that would reach
  outside, a link entry or another special entry is refused; the number of entries, each
  entry's size and the total are capped, on the sizes the archive declares and on the bytes
  really read.

A refusal is a sentence that names the file and says what to do; callers put it in that
student's problems. Only an archive that is no class download at all stops anything.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import struct
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

NOTEBOOK_BYTES = 16 * 2**20  # a notebook of answers, outputs included, is far smaller
ANSWER_BYTES = 2 * 2**20  # one exercise's .py file
FILES_PER_HAND_IN = 20_000  # entries walked under one top-level folder (a student's); a cloned repo's .git is skipped
DEPTH = 24  # folders inside folders
ZIP_ENTRIES = 20_000  # a class download has a few files per student
ZIP_BYTES = 4 * 2**30  # uncompressed, declared and really read, for the whole archive
CLUTTER = ("__MACOSX", "__pycache__")  # archive and interpreter droppings, never a hand-in

_OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Refused(Exception):
    """A handed-in file that is not read; str() is a sentence naming it, why, and what to do."""


@dataclass(frozen=True)
class Entry:
    """One file of a hand-in, as listed: never followed, not yet read."""

    path: PurePosixPath  # relative to the hand-in's root; for a zip, the entry's name made safe
    size: int  # bytes, as listed (a zip's: as the archive declares)
    mtime: float  # seconds since the epoch: the file's modification time, or the zip entry's time
    refused: str = ""  # why it will not be read ("is a symbolic link"); empty for a regular file
    folder: bool = False  # a real folder, listed so that an empty one is seen too; never read
    _read: Callable[[int], bytes] | None = field(default=None, repr=False, compare=False)

    def unreadable(self, limit: int) -> str:
        """Why this entry cannot be read within `limit` bytes, or ""."""
        if self.refused or self.folder:
            return self.refused or "is a folder"
        return f"is {_mib(self.size)}, over the {_mib(limit)} a hand-in may be" if self.size > limit else ""

    def read(self, limit: int) -> bytes:
        """The entry's bytes, at most `limit` of them; Refused otherwise."""
        why = self.unreadable(limit)
        if why or self._read is None:
            raise Refused(problem(self.path, why or "cannot be read"))
        return self._read(limit)


def problem(path: PurePosixPath | str, why: str) -> str:
    """The sentence a student's problems get for a file that was not read."""
    return (f"{path} {why}: it was not read and counts as not handed in (hand in the file itself, "
            f"a regular file, not a link or a special file)")


def text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def read_file(root: Path, relative: PurePosixPath | str, limit: int) -> bytes:
    """The bytes of root/relative, opened component by component without following any link.
    `root` is the instructor's own folder (it may be a link they made); everything below it is not."""
    relative = PurePosixPath(relative)
    if relative.is_absolute() or not relative.parts or ".." in relative.parts:
        raise Refused(problem(relative, "is not a path inside the hand-in"))
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in relative.parts[:-1]:
            try:
                inner = os.open(part, _OPEN_FOLDER, dir_fd=folder)
            except OSError as error:
                raise Refused(problem(relative, _open_failed(error, f"lies under {part}, which"))) from None
            os.close(folder)
            folder = inner
        try:
            handle = os.open(relative.name, _OPEN_FILE, dir_fd=folder)
        except OSError as error:
            raise Refused(problem(relative, _open_failed(error, ""))) from None
    finally:
        os.close(folder)
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            raise Refused(problem(relative, _not_regular(status.st_mode)))
        if status.st_size > limit:
            raise Refused(problem(relative, f"is {_mib(status.st_size)}, over the {_mib(limit)} a hand-in may be"))
        data = _read_capped(handle, limit)
    finally:
        os.close(handle)
    if len(data) > limit:  # it grew since fstat: the cap is on what was really read
        raise Refused(problem(relative, f"is over the {_mib(limit)} a hand-in may be"))
    return data


def walk(root: Path, *, skip_clutter: bool = True, per_folder: int = FILES_PER_HAND_IN,
         depth: int = DEPTH) -> list[Entry]:
    """Every file under `root`, links and special files listed as refused and never entered.
    Each top-level folder (a student's, in most layouts) has its own budget of `per_folder`
    entries, so one student's huge tree cannot hide the classmates listed after it.
    `skip_clutter` leaves out hidden names (.git, .ipynb_checkpoints) and archive droppings."""
    found: list[Entry] = []
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in _names(top, None, skip_clutter):
            _visit(top, name, PurePosixPath(name), Path(root), found, [per_folder], depth, skip_clutter)
    finally:
        os.close(top)
    return found


def _visit(parent: int, name: str, relative: PurePosixPath, root: Path, found: list[Entry], budget: list[int],
           depth: int, skip_clutter: bool) -> None:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are no text: not opened, and said in text any page can hold
        shown = relative.parent / name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        found.append(Entry(shown, 0, 0.0, "has a name that is not UTF-8 text"))
        return
    budget[0] -= 1
    if budget[0] == -1:
        found.append(Entry(relative.parent, 0, 0.0, "holds too many files; the rest of it was not looked at"))
    if budget[0] < 0:
        return
    try:
        status = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return  # gone since it was listed
    if stat.S_ISLNK(status.st_mode):
        found.append(Entry(relative, 0, status.st_mtime, "is a symbolic link"))
    elif stat.S_ISREG(status.st_mode):
        found.append(Entry(relative, status.st_size, status.st_mtime,
                           _read=lambda limit: read_file(root, relative, limit)))
    elif not stat.S_ISDIR(status.st_mode):
        found.append(Entry(relative, 0, status.st_mtime, _not_regular(status.st_mode)))
    elif depth == 0:
        found.append(Entry(relative, 0, status.st_mtime, "is nested too deep in folders"))
    else:
        try:
            folder = os.open(name, _OPEN_FOLDER, dir_fd=parent)
        except OSError as error:  # swapped for a link since the stat
            found.append(Entry(relative, 0, status.st_mtime, _open_failed(error, "")))
            return
        found.append(Entry(relative, 0, status.st_mtime, folder=True))
        try:
            for child in _names(folder, budget[0] + 1, skip_clutter):
                _visit(folder, child, relative / child, root, found, budget, depth - 1, skip_clutter)
        finally:
            os.close(folder)


def _names(folder: int, most: int | None, skip_clutter: bool) -> list[str]:
    """A folder's names in order; at most `most` (+1, so that going over the budget shows)."""
    names = []
    with os.scandir(folder) as listing:
        for item in listing:
            if skip_clutter and (item.name.startswith(".") or item.name in CLUTTER):
                continue
            names.append(item.name)
            if most is not None and len(names) > most:
                break
    return sorted(names)


def _read_capped(handle: int, limit: int) -> bytes:
    chunks, got = [], 0
    while got <= limit:
        chunk = os.read(handle, min(2**20, limit + 1 - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _open_failed(error: OSError, where: str) -> str:
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return f"{where} is a symbolic link or not a folder".strip() if where else "is a symbolic link"
    if error.errno == errno.ENOENT:
        return f"{where} is missing".strip() if where else "is missing"
    return f"could not be opened ({os.strerror(error.errno or 0)})"


def _not_regular(mode: int) -> str:
    kind = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device",
            stat.S_IFBLK: "a device", stat.S_IFDIR: "a folder", stat.S_IFLNK: "a symbolic link"}
    return f"is not a regular file ({kind.get(stat.S_IFMT(mode), 'a special file')})"


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


# --- zip archives ---------------------------------------------------------------------------------

_DRIVE = re.compile(r"^[A-Za-z]:")


@contextlib.contextmanager
def zip_entries(archive: Path, *, entries: int = ZIP_ENTRIES, total: int = ZIP_BYTES) -> Iterator[list[Entry]]:
    """The archive's files as entries readable while the context lasts. Refused (for the whole
    archive) when it declares more than `entries` entries or `total` uncompressed bytes."""
    declared = _declared_entries(archive)
    if declared > entries:
        raise Refused(f"{archive.name} declares {declared} entries, more than the {entries} a class download "
                      f"has: it was not read (unpack it yourself if you trust it, and grade the folder)")
    with zipfile.ZipFile(archive) as bundle:
        infos = [i for i in bundle.infolist() if not (i.is_dir() or stat.S_ISDIR(i.external_attr >> 16))]
        if len(infos) > entries:
            raise Refused(f"{archive.name} holds {len(infos)} entries, more than the {entries} a class download "
                          f"has: it was not read")
        claimed = sum(i.file_size for i in infos)
        if claimed > total:
            raise Refused(f"{archive.name} declares {_mib(claimed)} uncompressed, more than the {_mib(total)} a "
                          f"class download may be: it was not read (a zip bomb?)")
        budget = [total]
        yield [_zip_entry(bundle, info, budget) for info in infos]


def _zip_entry(bundle: zipfile.ZipFile, info: zipfile.ZipInfo, budget: list[int]) -> Entry:
    path, name_problem = _safe_name(info.filename)
    kind = stat.S_IFMT(info.external_attr >> 16)
    refused = name_problem
    if not refused and kind == stat.S_IFLNK:
        refused = "is a symbolic link stored in the archive"
    elif not refused and kind not in (0, stat.S_IFREG):
        refused = "is not a regular file in the archive"
    elif not refused and info.flag_bits & 0x1:
        refused = "is encrypted in the archive"

    def read(limit: int) -> bytes:
        try:
            with bundle.open(info) as member:
                data = member.read(min(limit, budget[0]) + 1)  # never more than the cap, whatever the header says
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError) as error:
            raise Refused(problem(path, f"is damaged in the archive ({error})")) from None
        budget[0] -= len(data)
        if len(data) > limit or budget[0] < 0:
            raise Refused(problem(path, f"unpacks to more than the {_mib(limit)} a hand-in may be (a zip bomb?)"))
        return data

    return Entry(path, info.file_size, _zip_time(info), refused, _read=read)


def _safe_name(name: str) -> tuple[PurePosixPath, str]:
    """The entry's path as the layouts see it, and why its name is refused ("" when it is fine).
    A refused name keeps its harmless parts so that the refusal can still be told to its student."""
    parts = name.replace("\\", "/").split("/")
    unsafe = ("\\" in name or name.startswith("/") or bool(_DRIVE.match(name)) or ".." in parts)
    if parts and _DRIVE.match(parts[0]):
        parts[0] = parts[0][2:]
    kept = [p for p in parts if p not in ("", ".", "..")]
    path = PurePosixPath(*kept) if kept else PurePosixPath("unnamed")
    return path, (f"has a name in the archive that reaches outside it ({name!r})" if unsafe else "")


def _zip_time(info: zipfile.ZipInfo) -> float:
    try:
        return time.mktime((*info.date_time, 0, 0, -1))
    except (OverflowError, ValueError):
        return 0.0


def _declared_entries(archive: Path) -> int:
    """How many entries the archive's end record declares, read before zipfile builds an object
    for each (a crafted archive could declare millions). zipfile checks the rest itself."""
    with open(archive, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - (22 + 65535))  # the end record, and a comment of at most 64 KiB
        handle.seek(start)
        tail = handle.read()
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or at + 22 > len(tail):
            return 0  # not a zip; zipfile says so
        count = struct.unpack_from("<H", tail, at + 10)[0]
        if count == 0xFFFF and at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":  # zip64: the real count
            handle.seek(struct.unpack_from("<Q", tail, at - 12)[0])
            record = handle.read(56)
            if len(record) == 56 and record[:4] == b"PK\x06\x06":
                count = struct.unpack_from("<Q", record, 32)[0]
        return count
