"""`python -m graders nbgrader check COURSE`: find and mend the hand-ins that would stop autograde.

Run it after collecting and before `nbgrader autograde`. First, anywhere under submitted/:

- a symbolic link (a notebook, a folder, any file), a FIFO or another special file, and a
  notebook too large to be one, are moved aside to COURSE/check-set-aside/<time>/, keeping
  their place in the tree: nbgrader copies what a link points to and autograde would then
  grade (and show in feedback) the reference, a classmate's notebook or any file this user can
  read. The student's hand-in then lacks that file, and the report says so;

then, for each submitted/<student>/<assignment>/:

- a notebook renamed on the way (an LMS saves `lesson01 (1).ipynb`) is renamed back, when it
  is the only notebook there;
- a cell a student copied carries the same nbgrader id twice, and nbgrader then stops the
  whole batch ("old version of the metadata format", nbgrader #1083): all copies but one lose
  their nbgrader metadata and become ordinary cells (autograde empties them anyway). Of an answer
  cell, the LAST copy keeps it: the one the student wrote last (often to fix their code), what a
  kernel running the notebook top to bottom defines last, and what the batch grader grades
  (graders/frontends/grade/intake/answers.py); a markdown note above each earlier copy tells the student,
  in their feedback, that it was not graded. Of a locked cell (setup, test, task), whose source
  autograde restores anyway, the first keeps it: the setup cell must stay above the test cells;
- what it cannot mend is reported: a file that is not a notebook, several notebooks, answer
  or test cells that are gone (test cells autograde puts back; a missing answer scores 0).

The notebooks it changes are first copied to COURSE/check-backups/<time>/; every notebook is read
through graders.frontends.grade.intake.handed_in (never through a link, size-capped). `--dry-run` only reports.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from graders.frontends.grade.intake import handed_in


_PLAIN_ID = re.compile(r"[A-Za-z0-9_-]+")  # what nbgrader allows in a grade_id
COPY_NOTE = ("**Not graded: an earlier copy of your answer to `{slug}`.** This notebook holds more than one "
             "answer cell for `{slug}`; the last one (further down) is the one graded, as the one you wrote last. "
             "This cell was ignored. *(A note from your instructor's check of the hand-ins.)*")


@dataclass
class Finding:
    student: str
    mended: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def main(course: Path, *, assignment: str = "lesson01", dry_run: bool = False) -> list[Finding]:
    course = Path(course)
    submitted = course / "submitted"
    if not submitted.is_dir():
        raise SystemExit(f"nbgrader check: {submitted} does not exist: collect the submissions first "
                         f"(nbgrader collect or zip_collect, or copy them there)")
    expected = _expected_notebooks(course, assignment)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backups = course / "check-backups" / stamp
    entries = handed_in.walk(submitted, skip_clutter=False)  # nbgrader copies hidden files too
    findings: dict[str, Finding] = {}
    for entry in entries:
        why = entry.unreadable(handed_in.NOTEBOOK_BYTES) if entry.path.suffix == ".ipynb" else entry.refused
        if why and not entry.folder:
            finding = findings.setdefault(entry.path.parts[0], Finding(entry.path.parts[0]))
            finding.problems.append(_set_aside(submitted, entry.path, why, course / "check-set-aside" / stamp, dry_run))
    for folder in sorted(p for p in submitted.iterdir() if p.is_dir() and not p.is_symlink()):
        where = PurePosixPath(folder.name, assignment)
        notebooks = [submitted / e.path for e in entries if e.path.parent == where and e.path.suffix == ".ipynb"
                     and not e.unreadable(handed_in.NOTEBOOK_BYTES)]
        finding = findings.setdefault(folder.name, Finding(folder.name))
        _check(finding, folder / assignment, notebooks, expected, backups, dry_run)
    found = [f for _, f in sorted(findings.items()) if f.mended or f.problems]
    _report(found, dry_run, backups)
    return found


def _set_aside(submitted: Path, relative: PurePosixPath, why: str, aside: Path, dry_run: bool) -> str:
    """Move a link, a special file or an oversized notebook out of nbgrader's way; say what was done.
    A folder (one that holds too many files) is only reported: it is the student's whole hand-in."""
    place = submitted / relative
    try:
        movable = not stat.S_ISDIR(os.lstat(place).st_mode)
    except OSError:
        return f"{relative} {why}, and is gone since"
    told = f"{relative} {why}: set aside so that nbgrader never reads it (nor, for a link, what it points to)"
    if not movable:
        return f"{relative} {why}: look at it before autograde"
    if dry_run:
        return f"{told}; it would be moved to {aside / relative}"
    (aside / relative).parent.mkdir(parents=True, exist_ok=True)
    os.rename(place, aside / relative)  # renames the link itself, never what it points to
    return (f"{told}; moved to {aside / relative}, so this hand-in lacks it (the student hands in the file "
            f"itself, or it counts as not handed in)")


def _expected_notebooks(course: Path, assignment: str) -> dict[str, set[str]]:
    """The release's notebooks by name, each with the nbgrader ids of its cells."""
    found = {}
    for path in sorted((course / "source" / assignment).glob("*.ipynb")):
        found[path.name] = {_grade_id(c) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]} - {""}
    if not found:
        raise SystemExit(f"nbgrader check: no notebook in {course / 'source' / assignment}: is {assignment!r} the "
                         f"assignment's name?")
    return found


def _check(finding: Finding, folder: Path, notebooks: list[Path], expected: dict[str, set[str]], backups: Path,
           dry_run: bool) -> None:
    """`notebooks` are the regular files of `folder` (links and special files are set aside already)."""
    student = finding.student
    if not notebooks:
        finding.problems.append("no notebook handed in")
        return
    if len(expected) == 1 and not any(n.name == next(iter(expected)) for n in notebooks):
        name = next(iter(expected))
        if len(notebooks) == 1:
            finding.mended.append(f"renamed {notebooks[0].name!r} to {name!r}")
            if not dry_run:
                _back_up(notebooks[0], backups / student)
                notebooks[0] = notebooks[0].rename(folder / name)
        else:
            finding.problems.append(f"{len(notebooks)} notebooks and none named {name}: "
                                    f"{', '.join(n.name for n in notebooks)}; rename the one to grade")
    for path in notebooks:
        if path.name in expected:
            _check_cells(path, expected[path.name], finding, backups / student, dry_run)


def _check_cells(path: Path, ids: set[str], finding: Finding, backup: Path, dry_run: bool) -> None:
    try:
        notebook = json.loads(handed_in.read_file(path.parent, path.name, handed_in.NOTEBOOK_BYTES))
        cells = notebook["cells"]
    except handed_in.Refused as refused:
        finding.problems.append(str(refused))
        return
    except (OSError, ValueError, KeyError, TypeError) as error:
        finding.problems.append(f"{path.name} is not a notebook nbgrader can read ({type(error).__name__})")
        return
    if not isinstance(cells, list):
        finding.problems.append(f"{path.name} is not a notebook nbgrader can read (its cells are not a list)")
        return
    places: dict[str, list[int]] = {}
    for index, cell in enumerate(cells):
        if _grade_id(cell):
            places.setdefault(_grade_id(cell), []).append(index)
    notes: list[tuple[int, dict]] = []  # (the index of an ignored copy of an answer, the note to put above it)
    for grade_id, indices in places.items():
        if len(indices) < 2:
            continue
        kept = indices[-1] if _is_answer(cells[indices[-1]]) else indices[0]
        for index in indices:
            if index != kept:
                cells[index]["metadata"].pop("nbgrader", None)
        numbers = [index + 1 for index in indices]  # counting every cell from 1, as the batch says it
        shown = grade_id if _PLAIN_ID.fullmatch(grade_id) else repr(grade_id)  # the student's metadata: any text
        if kept == indices[-1]:
            slug = shown.removeprefix("answer-")
            notes += [(index, _note(slug, notebook, len(notes))) for index in indices[:-1]]
            finding.mended.append(f"{path.name}: {_copies_kept(slug, numbers)}")
        else:
            finding.mended.append(f"{path.name}: {len(indices)} cells carry the nbgrader id {shown} (a copied "
                                  f"locked cell); kept the first (cell {numbers[0]}), the copies lost the id")
    for index, note in sorted(notes, key=lambda n: n[0], reverse=True):
        cells.insert(index, note)
    if any(len(indices) > 1 for indices in places.values()) and not dry_run:
        _back_up(path, backup)
        path.write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")
    missing = sorted(ids - set(places))
    if missing:
        finding.problems.append(f"{path.name}: cells gone: {', '.join(missing)} (autograde puts back test cells; "
                                f"a missing answer scores 0)")


def _is_answer(cell: dict) -> bool:
    """An answer cell: a solution cell the student writes in (not a locked cell of the instructor's)."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    return bool(nbgrader.get("solution")) and not nbgrader.get("locked")


def _copies_kept(slug: str, numbers: list[int]) -> str:
    """The report's line for an answer cell handed in `len(numbers)` times, at these places (from 1)."""
    others = len(numbers) - 1
    ignored = (f"the first (cell {numbers[0]}) lost its nbgrader id" if others == 1 else
               f"the other {others} (cells {', '.join(map(str, numbers[:-1]))}) lost their nbgrader id")
    return (f"{len(numbers)} answer cells for {slug}: kept the last one (cell {numbers[-1]}) for autograde to "
            f"grade; {ignored}, with a note above for the student's feedback")


def _note(slug: str, notebook: dict, number: int) -> dict:
    """The markdown cell put above an ignored copy of an answer cell: the student reads it in their feedback."""
    cell = {"cell_type": "markdown", "metadata": {}, "source": COPY_NOTE.format(slug=slug)}
    minor = notebook.get("nbformat_minor")
    if notebook.get("nbformat") == 4 and isinstance(minor, int) and minor >= 5:
        cell["id"] = f"nbgrader-check-note-{number}"  # nbformat 4.5 gives every cell an id
    return cell


def _grade_id(cell: dict) -> str:
    metadata = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    nbgrader = metadata.get("nbgrader", {}) if isinstance(metadata, dict) else {}
    return str(nbgrader.get("grade_id", "")) if isinstance(nbgrader, dict) else ""


def _back_up(path: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, folder / path.name)


def _report(findings: list[Finding], dry_run: bool, backups: Path) -> None:
    if not findings:
        print("nbgrader check: every hand-in is ready for autograde")
        return
    for finding in findings:
        for line in finding.mended:
            print(f"{finding.student}: {'would mend' if dry_run else 'mended'}: {line}")
        for line in finding.problems:
            print(f"{finding.student}: PROBLEM: {line}")
    if not dry_run and any(f.mended for f in findings):
        print(f"nbgrader check: the notebooks as they were are in {backups}")
