"""Each student's stored result, keyed by exactly what was graded, written so that nothing is lost.

A result's key is a digest of the student's answers and of the course's checks (the engine,
the checks, the reference and course_config.py): a rerun regrades a student only when one
of them changed, and a batch killed halfway resumes where it stopped. Every file is written
beside its target and renamed over it, so a reader (or a rerun) never sees half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from course_config import FORGET_MISTAKES_VARIABLE
from graders.engine.kept_values import course_digest  # noqa: F401 - results are keyed by it (main.py)

STUDENTS = "students"
_SAFE = re.compile(r"[^A-Za-z0-9._@+-]")


def result_key(course: str, sources: dict[str, str], problems: list[str]) -> str:
    forgotten = os.environ.get(FORGET_MISTAKES_VARIABLE, "")  # a test's forgotten mistakes change diagnoses
    payload = json.dumps({"course": course, "sources": sources, "problems": problems,
                          **({"forgotten": forgotten} if forgotten else {})}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def file_name(student: str) -> str:
    """A file name for a student id: the id itself when it is plain, else a readable and unique stand-in."""
    if not _SAFE.search(student) and student not in (".", "..") and student:
        return student
    return f"{_SAFE.sub('_', student)[:60] or 'student'}-{hashlib.sha256(student.encode()).hexdigest()[:8]}"


def write_atomically(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    if isinstance(text, bytes):
        partial.write_bytes(text)
    else:
        partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def stored(out: Path, student: str) -> dict[str, Any] | None:
    """The stored record of a student, or None (never stored, or unreadable: then graded again)."""
    path = out / STUDENTS / f"{file_name(student)}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("student") == student else None


def store(out: Path, record: dict[str, Any]) -> Path:
    path = out / STUDENTS / f"{file_name(record['student'])}.json"
    write_atomically(path, json.dumps(record, indent=2) + "\n")
    return path
