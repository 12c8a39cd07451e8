"""Each student's stored result, keyed by exactly what was graded, written so that nothing is lost.

Each exercise of a result has its own key: a digest of the student's answers and of that exercise's
version of the course (engine/course_version.py: the engine, its room's checks and mistakes, its
reference and course_config.py). A rerun regrades a student only in the exercises whose key changed,
so a mistake added to one room's catalogue regrades that exercise across the class and keeps every
other stored result; a batch killed halfway resumes where it stopped. Every file is written beside
its target and renamed over it, so a reader (or a rerun) never sees half a file. An earlier run's
stored results are read back here too (previous_records), for the term's --compare and the regrade's changes.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from graders.engine.course_version import course_digest, exercise_digests  # noqa: F401 - main.py keys by them

STUDENTS = "students"
_SAFE = re.compile(r"[^A-Za-z0-9._@+-]")


def exercise_keys(digests: dict[str, str], sources: dict[str, str],
                  modules: dict[str, str] | None = None) -> dict[str, str]:
    """Each exercise's key: its course digest and every answer file, and the student's own modules (a module may
    import another of the student's own modules, so any file that changed regrades all of that student's
    exercises). Without own modules, the key is the one earlier versions stored."""
    answers = json.dumps(sources, sort_keys=True) + (f"\n{json.dumps(modules, sort_keys=True)}" if modules else "")
    return {slug: hashlib.sha256(f"{digest}\n{answers}".encode()).hexdigest() for slug, digest in digests.items()}


def result_key(keys: dict[str, str], problems: list[str]) -> str:
    """The key of a whole result: its exercises' keys and the problems found with what was handed in."""
    return hashlib.sha256(json.dumps({"exercises": keys, "problems": problems}, sort_keys=True).encode()).hexdigest()


def to_regrade(record: dict[str, Any] | None, keys: dict[str, str]) -> list[str]:
    """The exercises of a stored record to grade again: those whose key changed, or all of them when the
    record is not one to build on (none, a run that failed or stopped early, an older layout)."""
    kept = record.get("exercise_keys") if record is not None else None
    if (not isinstance(kept, dict) or record.get("error") or not record.get("complete")
            or not isinstance(record.get("exercises"), list)):
        return list(keys)
    present = {e.get("slug") for e in record["exercises"] if isinstance(e, dict)}
    return [slug for slug, key in keys.items() if kept.get(slug) != key or slug not in present]


def merged(record: dict[str, Any], result: dict[str, Any], slugs: list[str], order: list[str]) -> dict[str, Any]:
    """A stored result with the exercises `slugs` replaced by a new result's, its totals counted again."""
    new = {e["slug"]: e for e in result["exercises"]}
    kept = {e.get("slug"): e for e in record["exercises"] if e.get("slug") not in slugs}
    exercises = [new.get(slug) or kept[slug] for slug in order if slug in new or slug in kept]
    integrity = [line for line in record.get("integrity", []) if line.split(":", 1)[0] not in slugs]
    # What confined the workers, in words: the old part's where only it was not confined, else the new part's.
    old_part_unconfined = bool(result.get("confined")) and not record.get("confined")
    return {**result, "exercises": exercises, "integrity": integrity + result.get("integrity", []),
            "score": sum(e["score"] for e in exercises), "max_score": sum(e["max_score"] for e in exercises),
            "complete": bool(record.get("complete")) and bool(result.get("complete")),
            "confined": bool(record.get("confined")) and bool(result.get("confined")),
            "confinement": record.get("confinement", "") if old_part_unconfined else result.get("confinement", "")}


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


class CompareError(ValueError):
    """The folder to compare with is not a batch's output; the message says what to give."""


def previous_records(folder: Path, current_out: Path) -> list[dict[str, Any]]:
    """The stored results of an earlier run's output folder."""
    if not (folder / "students").is_dir():
        raise CompareError(f"--compare {folder}: no students/ folder there; give the --out folder of an "
                           f"earlier `python -m graders grade` run")
    if folder.resolve() == current_out.resolve():
        raise CompareError(f"--compare {folder} is the --out folder itself, whose results this run replaces; "
                           f"grade into a new folder and compare with this one")
    records = []
    for path in sorted((folder / "students").glob("*.json")):
        try:
            records.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as error:
            raise CompareError(f"--compare: {path} cannot be read ({error})") from None
    return records
