"""When a hand-in arrived, from what its source records, for the late policy (term.py).

    an LMS download    the LMS's own clock: Blackboard's attempt time in the file name; for Moodle and
                       Canvas, the time their zip gives each file (when it reached the LMS)
    an nbgrader course submitted/<student>/<assignment>/timestamp.txt, as nbgrader collect writes it
    student folders    the last commit's committer time, when the folder is a git clone (GitHub Classroom)

A commit time is what the student's own clock said when they committed: it can be set to anything, so
for a deadline that matters, take the LMS's or nbgrader's time. The git history is read by `git log`
with every configurable command switched off (a cloned repository's own .git/config is the student's),
from a real .git folder only (not a link, not a `gitdir:` file pointing elsewhere).
"""

from __future__ import annotations

import os
import stat
import subprocess
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from graders.frontends.grade import handed_in

GIT_SECONDS = 10.0  # a history git cannot read in this long is taken as no time
TIMESTAMP_BYTES = 1024


def from_epoch(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def nbgrader_timestamp(submitted: Path, student: str, assignment: str) -> tuple[datetime | None, str]:
    """The time in submitted/<student>/<assignment>/timestamp.txt (nbgrader's "2026-12-01 22:59:00.123456 UTC";
    a time without zone is UTC, as nbgrader takes it), or None with the reason. Read without following links:
    the file is the student's."""
    try:
        data = handed_in.read_file(submitted, PurePosixPath(student, assignment, "timestamp.txt"), TIMESTAMP_BYTES)
    except handed_in.Refused as error:
        return None, f"no timestamp ({error})"
    except OSError as error:
        return None, f"no timestamp ({error.strerror or error})"
    return _parsed(handed_in.text(data).strip())


def _parsed(text: str) -> tuple[datetime | None, str]:
    from dateutil import parser  # matplotlib's dependency, so installed wherever the batch runs

    try:
        when = parser.parse(text)
    except (ValueError, OverflowError):
        return None, f"timestamp.txt holds {text[:40]!r}, not a time"
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)), "nbgrader timestamp"


def git_commit_time(folder: Path) -> tuple[datetime | None, str]:
    """The committer time of HEAD in the git clone `folder`, or None with the reason."""
    dot_git = folder / ".git"
    try:
        if not stat.S_ISDIR(os.lstat(dot_git).st_mode):
            return None, ".git is not a folder (a link or a gitdir file is not read)"
    except OSError:
        return None, "not a git clone"
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1",
                   "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0",
                   "GIT_DIR": str(dot_git), "HOME": os.devnull, "LC_ALL": "C"}
    # --no-show-signature: a repository's config could turn signature checks on and name the program that
    # checks them; nothing else `log` does with this format runs a configured command.
    command = ["git", "-c", "log.showSignature=false", "-c", "core.fsmonitor=false", "--no-pager", "log", "-1",
               "--no-show-signature", "--format=%ct", "HEAD"]
    try:
        done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=GIT_SECONDS,
                              stdin=subprocess.DEVNULL, cwd=folder)
    except FileNotFoundError:
        return None, "git is not installed"
    except subprocess.TimeoutExpired:
        return None, f"git log took more than {GIT_SECONDS:g} s"
    if done.returncode != 0 or not done.stdout.strip().isdigit():
        return None, "no commit could be read"
    return from_epoch(int(done.stdout.strip())), "last git commit (the student's clock)"
