"""The LMSs the batch knows, one module each (moodle.py, canvas.py, blackboard.py), in one ordered registry.

An LMS module builds one `Lms` (platform.py): its download layout, its roster exports and its grade
imports. Intake tries the downloads in this order (the first that fits every answer-like file wins), the
roster tries the LMSs' roster layouts in this order before a plain CSV, and the outputs write every grade
import into lms/. A new LMS is one module and one line below, or `register` from a course's own code.

The order of the wings of grade/ (tests/test_house.py holds it): the shared floor (store.py,
spreadsheet.py, person.py), then lms/, intake/, term/, outputs/, run/; none imports one after it.
"""

from __future__ import annotations

from datetime import tzinfo

from graders.frontends.grade.lms import blackboard, canvas, moodle
from graders.frontends.grade.lms.download import Layout, ListedFile
from graders.frontends.grade.lms.platform import GradeImport, Lms, RosterLayout

_REGISTERED: list[Lms] = [moodle.LMS, canvas.LMS, blackboard.LMS]
ALREADY_REGISTERED = "an LMS named {name!r} is registered already: give another name, or unregister it first"


def register(lms: Lms, *, before: str | None = None) -> None:
    """Add `lms` to the registry: last, or just before the LMS named `before` (its download is tried first)."""
    if any(known.name == lms.name for known in _REGISTERED):
        raise ValueError(ALREADY_REGISTERED.format(name=lms.name))
    names = [known.name for known in _REGISTERED]
    if before is not None and before not in names:
        raise ValueError(f"before={before!r} names no registered LMS: they are {', '.join(map(repr, names))}")
    _REGISTERED.insert(names.index(before) if before is not None else len(_REGISTERED), lms)


def unregister(name: str) -> None:
    """Take the LMS named `name` out of the registry (a test's own LMS, once it is done)."""
    _REGISTERED[:] = [known for known in _REGISTERED if known.name != name]


def registered() -> tuple[Lms, ...]:
    """Every LMS, in the order they are tried."""
    return tuple(_REGISTERED)


def recognise_download(entries: list[ListedFile], unzipped_in: tzinfo | None = None) -> Layout | None:
    """The LMS download these entries are, or None. `unzipped_in`: for the files of an unzipped folder, the zone
    of the machine that unzipped them (default: this machine's), which turned the zip's times into theirs."""
    for lms in _REGISTERED:
        found = lms.download(entries, unzipped_in) if lms.download is not None else None
        if found is not None:
            return found
    return None


def roster_layouts() -> list[RosterLayout]:
    """Every LMS's roster exports, in the registry's order."""
    return [layout for lms in _REGISTERED for layout in lms.rosters]


def grade_imports() -> list[GradeImport]:
    """Every LMS's grade imports, in the registry's order: the files the batch writes into lms/."""
    return [found for lms in _REGISTERED for found in lms.grade_imports]
