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
from dataclasses import dataclass, field
from pathlib import Path

from graders.engine.course_version import course_digest, exercise_digests  # noqa: F401 - main.py keys by them
from graders.engine.results import NotAResult, SubmissionResult

STUDENTS = "students"
_SAFE = re.compile(r"[^A-Za-z0-9._@+-]")


@dataclass
class StudentRecord(SubmissionResult):
    """What the batch stores of a student (students/<id>.json): the result model, and beside its fields what it
    says of the hand-in it grades."""

    student: str = ""  # the student's id, from the LMS
    key: str = ""  # result_key: what was graded (every exercise's key) and the hand-in's problems
    exercise_keys: dict[str, str] = field(default_factory=dict)  # each exercise's key (exercise_keys)
    origin: str = ""  # where the answers came from
    problems: list[str] = field(default_factory=list)  # what was wrong with the hand-in, in words
    error: str = ""  # why it could not be graded; "" when it was


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


def to_regrade(record: StudentRecord | None, keys: dict[str, str]) -> list[str]:
    """The exercises of a stored record to grade again: those whose key changed, or all of them when the
    record is not one to build on (none, a run that failed or stopped early, an older layout)."""
    if record is None or not record.exercise_keys or record.error or not record.complete:
        return list(keys)
    present = {e.slug for e in record.exercises}
    return [slug for slug, key in keys.items() if record.exercise_keys.get(slug) != key or slug not in present]


def merged(record: StudentRecord, result: SubmissionResult, slugs: list[str], order: list[str]) -> SubmissionResult:
    """A stored result with the exercises `slugs` replaced by a new result's, its totals counted again."""
    new = {e.slug: e for e in result.exercises}
    kept = {e.slug: e for e in record.exercises if e.slug not in slugs}
    exercises = [new.get(slug) or kept[slug] for slug in order if slug in new or slug in kept]
    integrity = [line for line in record.integrity if line.split(":", 1)[0] not in slugs]
    # What confined the workers, in words: the old part's where only it was not confined, else the new part's.
    old_part_unconfined = result.confined and not record.confined
    return SubmissionResult(result.submission, result.lesson, sum(e.score for e in exercises),
                            sum(e.max_score for e in exercises), result.trusted, record.complete and result.complete,
                            record.confined and result.confined,
                            record.confinement if old_part_unconfined else result.confinement,
                            exercises, integrity + result.integrity)


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


def stored(out: Path, student: str) -> StudentRecord | None:
    """The stored record of a student, or None (never stored, or unreadable: then graded again)."""
    try:
        record = StudentRecord.read(out / STUDENTS / f"{file_name(student)}.json")
    except (OSError, NotAResult):
        return None
    return record if record.student == student else None


def store(out: Path, record: StudentRecord) -> Path:
    path = out / STUDENTS / f"{file_name(record.student)}.json"
    write_atomically(path, record.to_json() + "\n")
    return path


class CompareError(ValueError):
    """The folder to compare with is not a batch's output; the message says what to give."""


def previous_records(folder: Path, current_out: Path) -> list[StudentRecord]:
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
            records.append(StudentRecord.read(path))
        except (OSError, NotAResult) as error:
            raise CompareError(f"--compare: {path} cannot be read ({error})") from None
    return [r for r in records if r.student]  # a record of no student (an older layout's) compares with none
