"""Whether --out can hold a class's results, said before anything is read or graded.

An --out inside SOURCE (or SOURCE itself) is refused: the results would be read as hand-ins by every
later run on that download, which then finds no LMS layout and no submissions (in an nbgrader course, only
its submitted/ folder holds hand-ins: results may go elsewhere in the course). A file, or a place this
user cannot create a folder in, is refused with the reason, instead of an error about a file inside it
(roster.csv, decisions.csv) or a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path


class OutError(ValueError):
    """--out cannot hold the results; the message names the paths and what to give instead."""


def check_out(source: Path, out: Path) -> None:
    """OutError unless `out` is, or can become, a folder of this user's outside `source`."""
    source, out = Path(source).expanduser().absolute(), Path(out).expanduser().absolute()
    real_source, real_out = _real(source), _real(out)
    # An nbgrader course's hand-ins are its submitted/ folder only: results may sit beside it, in the course.
    read = real_source / "submitted" if (real_source / "submitted").is_dir() else real_source
    if real_out == real_source or real_out == read or read in real_out.parents:
        where = "is SOURCE itself" if real_out == real_source else f"is inside SOURCE {source}"
        raise OutError(f"--out {out} {where}: the results would be read as hand-ins by every later run; give a "
                       f"folder outside it, e.g. --out {source.parent / (source.stem + '-results')}")
    if out.exists() and not out.is_dir():
        raise OutError(f"--out {out} is a file, not a folder: give a folder for the results (a new one is created)")
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise OutError(f"--out {out}: {existing} is a file, so no folder can be made under it; give another folder")
    _probe(out, existing)


def _probe(out: Path, existing: Path) -> None:
    """Make the folders `out` needs and take them away again: only trying tells (root may "write" to /proc, and
    a read-only mount or a quota says no only then)."""
    missing = [p for p in (out, *out.parents) if p != existing and existing in p.parents]
    made: list[Path] = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            made.append(folder)
        probe = out / f".graders-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise OutError(f"--out {out}: no folder for the results can be written there ({error.strerror or error}); "
                       f"give a folder you can write to") from None
    finally:
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                pass


def _real(path: Path) -> Path:
    """The path with every link of its existing part resolved (a link to SOURCE is SOURCE)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
