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
import shutil
import tempfile
import zipfile
from pathlib import Path

import course_config

COURSE_FILES = ("course_config.py", "pyproject.toml", "README.md")
COURSE_FOLDERS = ("graders", "reference", "exercises")
SETUP = '''#!/usr/bin/env bash
# Gradescope runs this once, while it builds the autograder's image. Choose a base image with
# Python 3.11 or newer (Ubuntu 24.04). Written by `python -m graders gradescope build`.
set -euo pipefail
apt-get update -q && apt-get install -y -q python3 python3-venv python3-pip
PYTHON="$(command -v python3.12 || command -v python3.11 || command -v python3)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "the autograder needs Python 3.11 or newer: choose Gradescope's Ubuntu 24.04 base image" >&2; exit 1; }
"$PYTHON" -m venv /autograder/venv
# torch's CPU build (the version course_config's numbers come from), not the CUDA one of PyPI.
/autograder/venv/bin/pip install -q -e "/autograder/source/course[batch]" --extra-index-url https://download.pytorch.org/whl/cpu
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
    print(f"wrote {out_zip}: upload it as the autograder (Ubuntu 24.04 base image)")
    return out_zip


def _add_script(bundle: zipfile.ZipFile, name: str, text: str) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = 0o755 << 16  # executable once unpacked
    bundle.writestr(info, text)


def prepare(root: Path) -> None:
    """Grade the reference once, into the expected-values cache every submission reuses."""
    from graders.batch.main import exercise_targets, expected_values
    from graders.kept_values import course_digest

    expected_values(exercise_targets(course_config.LESSONS[0]), _cache(root), course_digest(), os.cpu_count() or 1)


def run(root: Path, *, allow_unconfined: bool = False) -> int:
    """Grade /autograder/submission/ (under `root`) into /autograder/results/results.json."""
    from graders.batch import main as batch
    from graders.platforms import gradescope_results

    root = Path(root)
    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gradescope-") as scratch:
        source, problems = _stage(root / "submission", Path(scratch) / "class")
        out = Path(scratch) / "out"
        try:
            batch.main(source, out=out, jobs=1, allow_unconfined=allow_unconfined, cache=_cache(root))
            record = json.loads(next((out / "students").glob("*.json")).read_text())
        except SystemExit as refused:
            record = {"score": 0.0, "max_score": course_config.LESSONS[0].points, "exercises": [],
                      "error": str(refused), "problems": []}
    record["problems"] = problems + record.get("problems", [])
    (results / "results.json").write_text(json.dumps(gradescope_results(record), indent=2) + "\n")
    return 0


def _stage(submission: Path, folder: Path) -> tuple[Path, list[str]]:
    """The submission as a class of one: a notebook as it is, .py files as student/lesson01/<slug>.py."""
    lesson = course_config.LESSONS[0]
    student = folder / "student"
    notebooks = sorted(p for p in submission.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    if notebooks:
        folder.mkdir(parents=True)
        shutil.copyfile(notebooks[0], folder / "student_submission.ipynb")
        note = [f"{len(notebooks)} notebooks submitted; graded {notebooks[0].name}"] if len(notebooks) > 1 else []
        return folder, note
    (student / lesson.folder).mkdir(parents=True)
    for exercise in lesson.exercises:
        found = [p for p in (submission / f"{exercise.slug}.py", submission / lesson.folder / f"{exercise.slug}.py")
                 if p.is_file()]
        if found:
            shutil.copyfile(found[0], student / lesson.folder / found[0].name)
    return folder, []


def _cache(root: Path) -> Path:
    return Path(root) / "source" / "cache"
