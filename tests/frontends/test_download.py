"""What every LMS download layout shares (graders/frontends/grade/lms/download.py): which listed files count as
answers, a hand-in ordered by its file's time, and an LMS's wall-clock time read back from a zip entry or from
a file unzipped in another zone."""

from __future__ import annotations

from datetime import datetime
from pathlib import PurePosixPath
from zoneinfo import ZoneInfo

from graders.frontends.grade.intake.handed_in import Entry
from graders.frontends.grade.lms.download import by_file_time, relevant, wall_clock

BERLIN = ZoneInfo("Europe/Berlin")


def _entry(path: str, **fields: object) -> Entry:
    return Entry(PurePosixPath(path), size=10, mtime=1_764_663_300.0, **fields)


def test_answers_are_notebooks_py_files_and_links_where_a_folder_of_them_could_be() -> None:
    assert relevant(_entry("ann/lesson01.ipynb")) and relevant(_entry("ann/views.py"))
    assert not relevant(_entry("ann/notes.txt")) and not relevant(_entry("ann/onlinetext.html"))
    assert not relevant(_entry("ann/lesson01", folder=True)), "a folder is walked, not graded"
    # A link is never followed: one named like a folder could hide answers, so it counts (and is refused).
    assert relevant(_entry("ann/lesson01", refused="is a symbolic link"))
    assert not relevant(_entry("ann/notes.txt", refused="is a symbolic link"))


def test_an_lms_time_is_read_back_in_the_zone_the_download_was_unzipped_in() -> None:
    # Unzipped in Berlin, the zip entry's 08:15 became the instant 08:15 in Berlin: read there, it is 08:15 again.
    seconds = datetime(2026, 12, 2, 8, 15, tzinfo=BERLIN).timestamp()
    assert wall_clock(seconds, BERLIN) == datetime(2026, 12, 2, 8, 15)
    assert wall_clock(seconds, ZoneInfo("UTC")) == datetime(2026, 12, 2, 7, 15), "read in the wrong zone"
    assert wall_clock(seconds) == datetime.fromtimestamp(seconds), "by default, this machine's zone"
    # No time, and times no clock gives, are unknown rather than an error.
    assert wall_clock(0) is None and wall_clock(-5.0) is None and wall_clock(1e20) is None


def test_a_hand_in_by_file_time_is_ordered_by_it_and_is_an_lms_arrival_only_when_asked() -> None:
    entry = _entry("Ann_12_assignsubmission_file_/lesson01.ipynb")
    plain = by_file_time(entry, "lesson01.ipynb")
    assert plain.order == (entry.mtime,) and plain.name == "lesson01.ipynb"
    assert plain.when.startswith("modified 2025-12-0") and plain.arrived is None
    moodle = by_file_time(entry, "lesson01.ipynb", lms_clock=True, unzipped_in=BERLIN)
    assert moodle.arrived == wall_clock(entry.mtime, BERLIN) == datetime(2025, 12, 2, 9, 15)
