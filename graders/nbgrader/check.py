"""`python -m graders nbgrader check COURSE`: find and mend the hand-ins that would stop autograde.

Run it after collecting and before `nbgrader autograde`. For each submitted/<student>/<assignment>/:

- a notebook renamed on the way (an LMS saves `lesson01 (1).ipynb`) is renamed back, when it
  is the only notebook there;
- a cell a student copied carries the same nbgrader id twice, and nbgrader then stops the
  whole batch ("old version of the metadata format", nbgrader #1083): the copies lose their
  nbgrader metadata and become ordinary cells (autograde empties them anyway);
- what it cannot mend is reported: a file that is not a notebook, several notebooks, answer
  or test cells that are gone (test cells autograde puts back; a missing answer scores 0).

The notebooks it changes are first copied to COURSE/check-backups/<time>/. `--dry-run` only reports.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path


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
    backups = course / "check-backups" / time.strftime("%Y%m%d-%H%M%S")
    findings = []
    for folder in sorted(p for p in submitted.iterdir() if p.is_dir()):
        finding = _check(folder.name, folder / assignment, expected, backups, dry_run)
        if finding.mended or finding.problems:
            findings.append(finding)
    _report(findings, dry_run, backups)
    return findings


def _expected_notebooks(course: Path, assignment: str) -> dict[str, set[str]]:
    """The release's notebooks by name, each with the nbgrader ids of its cells."""
    found = {}
    for path in sorted((course / "source" / assignment).glob("*.ipynb")):
        found[path.name] = {_grade_id(c) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]} - {""}
    if not found:
        raise SystemExit(f"nbgrader check: no notebook in {course / 'source' / assignment}: is {assignment!r} the "
                         f"assignment's name?")
    return found


def _check(student: str, folder: Path, expected: dict[str, set[str]], backups: Path, dry_run: bool) -> Finding:
    finding = Finding(student)
    notebooks = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
    if not notebooks:
        finding.problems.append("no notebook handed in")
        return finding
    if len(expected) == 1 and not (folder / next(iter(expected))).exists():
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
    return finding


def _check_cells(path: Path, ids: set[str], finding: Finding, backup: Path, dry_run: bool) -> None:
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        cells = notebook["cells"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        finding.problems.append(f"{path.name} is not a notebook nbgrader can read ({type(error).__name__})")
        return
    seen: set[str] = set()
    copies = 0
    for cell in cells:
        grade_id = _grade_id(cell)
        if grade_id and grade_id in seen:
            copies += 1
            cell.get("metadata", {}).pop("nbgrader", None)
        seen.add(grade_id)
    if copies:
        finding.mended.append(f"{path.name}: {copies} copied cell(s) no longer carry an nbgrader id twice")
        if not dry_run:
            _back_up(path, backup)
            path.write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")
    missing = sorted(ids - seen)
    if missing:
        finding.problems.append(f"{path.name}: cells gone: {', '.join(missing)} (autograde puts back test cells; "
                                f"a missing answer scores 0)")


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
