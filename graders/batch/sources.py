"""Where a class's submissions come from, and each student's answers.

    COURSE/submitted/<student>/<assignment>/*.ipynb   an nbgrader course (after collect or zip_collect)
    FOLDER/<student>/<lesson>/<slug>.py               folders laid out like exercises/
    FOLDER/**/<student>_<anything>.ipynb              notebooks downloaded from an LMS (or a .zip of them)

The layout is recognised in that order. Whatever a hand-in gets wrong (a renamed notebook,
two notebooks of one student, a copied answer cell) is noted for that student, never a stop.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from graders.batch.answers import load_nbformat, notebook_answers

DEFAULT_STUDENT_PATTERN = r"(?P<student>[^_/\\]+)_"
MAX_ANSWER_BYTES = 2 * 2**20  # a bigger "answer" is not one; the batch must not load it


class SourceError(ValueError):
    """SOURCE is not a layout the batch grader knows; the message says what it looked for."""


@dataclass
class Submission:
    """One student's answers, by exercise, and what was wrong with the hand-in."""

    student: str
    origin: str  # where the answers came from, for the instructor
    sources: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def find_submissions(source: Path, *, lesson: str, slugs: list[str], assignment: str | None = None,
                     student_pattern: str = DEFAULT_STUDENT_PATTERN) -> tuple[str, list[Submission]]:
    """The layout's name and every submission in it, sorted by student."""
    source = source.expanduser()
    if not source.exists():
        raise SourceError(f"{source}: no such file or folder")
    pattern = _compiled(student_pattern)
    if source.is_file() and zipfile.is_zipfile(source):
        return "zip of notebooks", _from_zip(source, slugs, pattern)
    if not source.is_dir():
        raise SourceError(f"{source}: give a folder (an nbgrader course, student folders, notebooks) or a .zip")
    if (source / "submitted").is_dir():
        return "nbgrader course", _from_course(source, lesson, slugs, assignment or lesson)
    if any(source.rglob("*.ipynb")):
        return "notebooks", _from_notebooks(sorted(source.rglob("*.ipynb")), slugs, pattern, source)
    folders = sorted(p for p in source.iterdir() if (p / lesson).is_dir())
    if folders:
        return "student folders", [_from_folder(p, lesson, slugs) for p in folders]
    raise SourceError(f"{source}: found no submissions. Expected an nbgrader course (submitted/<student>/"
                      f"{assignment or lesson}/), folders <student>/{lesson}/<exercise>.py, or notebooks "
                      f"named like <student>_<anything>.ipynb")


def course_exercises(course: Path, assignment: str, lesson: str, slugs: list[str]) -> list[str]:
    """The exercises an nbgrader course's assignment has (its source notebook's answer cells, in
    lesson order); all of them where there is no source notebook to tell."""
    nbformat = load_nbformat()

    notebook = course / "source" / assignment / f"{lesson}.ipynb"
    try:
        cells = nbformat.read(notebook, as_version=4).cells
    except (OSError, ValueError):
        return slugs
    present = {c.metadata.get("nbgrader", {}).get("grade_id", "").removeprefix("answer-") for c in cells}
    return [slug for slug in slugs if slug in present] or slugs


def _compiled(student_pattern: str) -> re.Pattern:
    try:
        pattern = re.compile(student_pattern)
    except re.error as error:
        raise SourceError(f"--student-pattern {student_pattern!r}: not a regular expression ({error})") from None
    if "student" not in pattern.groupindex:
        raise SourceError(f"--student-pattern {student_pattern!r}: it needs a group named student, e.g. "
                          f"{DEFAULT_STUDENT_PATTERN!r}")
    return pattern


def _from_course(course: Path, lesson: str, slugs: list[str], assignment: str) -> list[Submission]:
    found = []
    for folder in sorted(p for p in (course / "submitted").iterdir() if p.is_dir()):
        where = folder / assignment
        notebooks = sorted(where.glob("*.ipynb")) if where.is_dir() else []
        if not notebooks:
            found.append(Submission(folder.name, str(where), problems=[f"no notebook in submitted/{folder.name}/"
                                                                        f"{assignment}/; every exercise scores 0"]))
            continue
        exact = [n for n in notebooks if n.name == f"{lesson}.ipynb"]
        chosen = exact[0] if exact else notebooks[0]
        submission = _from_notebook(folder.name, chosen, slugs)
        if not exact:
            submission.problems.insert(0, f"the notebook is named {chosen.name!r}, not {lesson}.ipynb (renamed?); "
                                          f"graded it anyway")
        elif len(notebooks) > 1:
            submission.problems.insert(0, f"{len(notebooks)} notebooks handed in; graded {chosen.name}")
        found.append(submission)
    return found


def _from_notebooks(paths: list[Path], slugs: list[str], pattern: re.Pattern, root: Path) -> list[Submission]:
    by_student: dict[str, list[Path]] = {}
    unnamed = []
    for path in paths:
        if any(part.startswith(".") or part == "__MACOSX" for part in path.relative_to(root).parts):
            continue  # checkpoints and archive clutter
        match = pattern.search(path.name)
        if match and match.group("student"):
            by_student.setdefault(match.group("student"), []).append(path)
        else:
            unnamed.append(path)
    found = []
    for student, notebooks in sorted(by_student.items()):
        chosen = notebooks[-1]
        submission = _from_notebook(student, chosen, slugs)
        if len(notebooks) > 1:
            submission.problems.insert(0, f"{len(notebooks)} notebooks for this student "
                                          f"({', '.join(n.name for n in notebooks)}); graded {chosen.name}")
        found.append(submission)
    for path in unnamed:
        submission = _from_notebook(path.stem, path, slugs)
        submission.problems.insert(0, f"no student id in the file name {path.name!r} (see --student-pattern); "
                                      f"graded as {path.stem!r}")
        found.append(submission)
    return found


def _from_zip(archive: Path, slugs: list[str], pattern: re.Pattern) -> list[Submission]:
    with tempfile.TemporaryDirectory(prefix="graders-zip-") as scratch:
        root = Path(scratch)
        with zipfile.ZipFile(archive) as bundle:
            for member in bundle.infolist():
                name = Path(member.filename)
                if member.is_dir() or name.suffix != ".ipynb" or name.is_absolute() or ".." in name.parts:
                    continue
                if member.file_size > MAX_ANSWER_BYTES * 8:
                    continue  # not a notebook anyone wrote; the student shows up as having none
                target = root / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(bundle.read(member))
        return _from_notebooks(sorted(root.rglob("*.ipynb")), slugs, pattern, root)


def _from_notebook(student: str, path: Path, slugs: list[str]) -> Submission:
    submission = Submission(student, str(path))
    if path.stat().st_size > MAX_ANSWER_BYTES * 8:
        submission.problems.append(f"{path.name} is {path.stat().st_size / 2**20:.0f} MiB, too large to be a "
                                   f"notebook of answers; every exercise scores 0")
        return submission
    answers = notebook_answers(path, slugs)
    submission.sources, submission.problems = answers.sources, answers.problems
    return submission


def _from_folder(folder: Path, lesson: str, slugs: list[str]) -> Submission:
    submission = Submission(folder.name, str(folder))
    for slug in slugs:
        path = folder / lesson / f"{slug}.py"
        if not path.is_file():
            submission.problems.append(f"{slug}: no file {lesson}/{slug}.py; it scores 0")
        elif path.stat().st_size > MAX_ANSWER_BYTES:
            submission.problems.append(f"{slug}: {lesson}/{slug}.py is {path.stat().st_size / 2**20:.1f} MiB, "
                                       f"too large to be an answer; it scores 0")
        else:
            submission.sources[slug] = path.read_text(encoding="utf-8", errors="replace")
    return submission
