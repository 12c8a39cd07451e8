"""Gradescope: `python -m graders gradescope build OUT.zip` writes an autograder that runs every check.

Gradescope unpacks the zip into /autograder/source/, runs `setup.sh` once when it builds the
image, then `run_autograder` for each submission, which must leave
/autograder/results/results.json. Ours:

    setup.sh         a virtual environment with this course package (torch's CPU build), and
                     the reference graded once into the expected-values cache (`prepare`)
    run_autograder   `python -m graders gradescope run`: the files in /autograder/submission/
                     (the exercises' .py files, flat or under lesson01/, or one notebook) graded
                     by the batch grader, with every hidden check and the live reference
    course/          this package: the engine, the checks, the reference, course_config.py

Hidden checks are shown as course_config.HIDDEN_CHECKS_SHOW says, once grades are published.
The sandbox is required, as in every instructor path, unless the zip is built with
--allow-unconfined; a run that cannot be confined gives 0 and says so.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

import course_config
from graders.frontends.grade.intake import handed_in
from graders.engine.stubs import released_stubs
from graders.frontends.grade.intake.hand_ins import choose
from graders.frontends.grade.lms.download import by_file_time

COURSE_FILES = ("course_config.py", "pyproject.toml", "constraints.txt", "README.md")
COURSE_FOLDERS = ("graders", "reference")
SETUP = '''#!/usr/bin/env bash
# Gradescope runs this once, while it builds the autograder's image. Choose a base image with
# Python 3.11 or newer (Ubuntu 24.04). Written by `python -m graders gradescope build`.
set -euo pipefail
apt-get update -q && apt-get install -y -q python3 python3-venv python3-pip
PYTHON="$(command -v python3.12 || command -v python3.11 || command -v python3)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "the autograder needs Python 3.11 or newer: choose Gradescope's Ubuntu 24.04 base image" >&2; exit 1; }
"$PYTHON" -m venv /autograder/venv
# torch's CPU build (the version course_config's numbers come from), not the CUDA one of PyPI; every other
# package at the version the course's tests ran on (constraints.txt).
/autograder/venv/bin/pip install -q -e "/autograder/source/course[batch]" -c /autograder/source/course/constraints.txt \
    --extra-index-url https://download.pytorch.org/whl/cpu
cd /autograder/source/course && /autograder/venv/bin/python -m graders gradescope prepare --root /autograder
'''
RUN = '''#!/usr/bin/env bash
# Gradescope runs this for every submission. Written by `python -m graders gradescope build`.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{GRADERS_PYTHON:-$ROOT/venv/bin/python}}"
cd "$ROOT/source/course"
exec "$PYTHON" -m graders gradescope run --root "$ROOT"{flags}
'''


def build(out_zip: Path, *, allow_unconfined: bool = False) -> Path:
    """Write the autograder zip."""
    out_zip = Path(out_zip)
    if out_zip.suffix != ".zip":
        raise SystemExit(f"gradescope build: {out_zip} should end in .zip (Gradescope takes a zip)")
    root = course_config.ROOT
    with zipfile.ZipFile(out_zip, "w", zipfile.ZIP_DEFLATED) as bundle:
        _add_script(bundle, "setup.sh", SETUP)
        _add_script(bundle, "run_autograder", RUN.format(flags=" --allow-unconfined" if allow_unconfined else ""))
        for name in COURSE_FILES:
            if (root / name).is_file():
                bundle.write(root / name, f"course/{name}")
        for folder in COURSE_FOLDERS:
            for path in sorted((root / folder).rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                    bundle.write(path, f"course/{path.relative_to(root)}")
        # The stubs as the course committed them, as every release does (graders/engine/stubs.py): not the
        # instructor's working copy, where they may have tried an exercise.
        for lesson in course_config.LESSONS:
            texts = released_stubs(lesson.folder, [exercise.slug for exercise in lesson.exercises])
            for slug, text in texts.items():
                bundle.writestr(f"course/exercises/{lesson.folder}/{slug}.py", text)
    print(f"wrote {out_zip}: upload it as the autograder (Ubuntu 24.04 base image)")
    return out_zip


def _add_script(bundle: zipfile.ZipFile, name: str, text: str) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = 0o755 << 16  # executable once unpacked
    bundle.writestr(info, text)


def prepare(root: Path) -> None:
    """Grade the reference once, into the expected-values cache every submission reuses."""
    from graders.frontends.grade.run import cluster
    from graders.frontends.grade.run.main import expected_values
    from graders.engine.kept_values import course_digest

    course = course_digest()
    lesson = course_config.LESSONS[0]
    with cluster.connected(cluster.GradingSite(jobs=os.cpu_count() or 1), course,
                           reference=(lesson.folder, [e.slug for e in lesson.exercises])) as client:
        expected_values(client, lesson, _cache(root), course)


def run(root: Path, *, allow_unconfined: bool = False) -> int:
    """Grade /autograder/submission/ (under `root`) into /autograder/results/results.json."""
    from graders.frontends.grade.run import main as batch
    from graders.frontends.grade.store import StudentRecord
    from graders.frontends.platforms import gradescope_results

    root = Path(root)
    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gradescope-") as scratch:
        source, problems = _stage(root / "submission", Path(scratch) / "class")
        out = Path(scratch) / "out"
        try:
            batch.main(source, out=out, jobs=1, allow_unconfined=allow_unconfined, cache=_cache(root))
            record = StudentRecord.read(next((out / "students").glob("*.json")))
        except SystemExit as refused:
            lesson = course_config.LESSONS[0]
            record = StudentRecord("", lesson.number, 0.0, lesson.points, trusted=True, complete=False,
                                   confined=False, confinement="", error=str(refused))
    graded = gradescope_results(record, error=record.error, problems=problems + record.problems)
    (results / "results.json").write_text(json.dumps(graded, indent=2) + "\n")
    return 0


def _stage(submission: Path, folder: Path) -> tuple[Path, list[str]]:
    """The submission as a class of one: a notebook as it is, .py files as student/lesson01/<slug>.py.
    The student made everything in submission/ (Gradescope unpacks their zip there, links included):
    it is read through handed_in.py, so a link to the reference or to any file this user can read
    is refused and said, never copied; what is staged is the bytes read, in files we write."""
    lesson = course_config.LESSONS[0]
    entries = handed_in.walk(submission) if submission.is_dir() else []
    rule = "file modification time (a Gradescope submission carries no other)"
    notebooks = [by_file_time(e, str(e.path)) for e in entries if e.path.suffix == ".ipynb"]
    if notebooks:
        chosen, problems = choose(notebooks, handed_in.NOTEBOOK_BYTES, rule, f"{lesson.folder}.ipynb")
        folder.mkdir(parents=True)
        if chosen is None:  # nothing readable: the batch grades an empty notebook, and the problems say why
            problems.append("no notebook that could be read; every exercise scores 0")
            data = b"{}"
        else:
            data = _read(chosen.entry, handed_in.NOTEBOOK_BYTES, problems)
        (folder / "student_submission.ipynb").write_bytes(data)
        return folder, problems
    (student := folder / "student" / lesson.folder).mkdir(parents=True)
    problems = [handed_in.problem(e.path, e.refused) for e in entries if e.refused and not e.path.suffix]
    for exercise in lesson.exercises:
        places = (PurePosixPath(f"{exercise.slug}.py"), PurePosixPath(lesson.folder, f"{exercise.slug}.py"))
        found = [by_file_time(e, str(e.path)) for e in entries if e.path in places]
        chosen, told = choose(found, handed_in.ANSWER_BYTES, rule, f"{exercise.slug}.py")
        problems += told
        if chosen is not None:
            (student / f"{exercise.slug}.py").write_bytes(_read(chosen.entry, handed_in.ANSWER_BYTES, problems))
    # The student's own modules (helpers.py beside the exercise files): staged as they came, for the batch to read
    # beside the answers (graders/frontends/grade/intake/sources.py says what it takes of them).
    slugs = {exercise.slug for exercise in lesson.exercises}
    own = {e.path.stem: e for e in sorted(entries, key=lambda e: len(e.path.parts))  # lesson01/<name>.py wins
           if e.path.suffix == ".py" and e.path.stem not in slugs and not e.folder
           and e.path.parent in (PurePosixPath("."), PurePosixPath(lesson.folder)) and e.path.stem.isidentifier()}
    for name, entry in own.items():
        if entry.refused:
            problems.append(handed_in.problem(entry.path, entry.refused))
        else:
            (student / f"{name}.py").write_bytes(_read(entry, handed_in.ANSWER_BYTES, problems))
    return folder, problems


def _read(entry: handed_in.Entry, limit: int, problems: list[str]) -> bytes:
    try:
        return entry.read(limit)
    except handed_in.Refused as refused:  # changed since it was listed
        problems.append(str(refused))
        return b""


def _cache(root: Path) -> Path:
    return Path(root) / "source" / "cache"
