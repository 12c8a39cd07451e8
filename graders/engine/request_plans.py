"""What a student's run asked each exercise's worker, kept for the next run to send ahead.

The checks ask a module the same requests, in the same order, run after run, as long as its answers
lead them the same way. In a run that waits for each answer before it judges it, the grader and the
worker take turns: one of the two is always idle. So a student's run keeps the requests its checks
made, per submission folder and module, modules in the order graded, and the next run sends them
ahead (graders/sandbox/ahead.py); where the checks ask otherwise, that module's plan ends there,
with nothing of it left in the worker. The file lies beside the kept expected values
(kept_values.py), one per version of the course, and is written only where those are kept: a
student's own runs, never the instructor's paths.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

from graders.engine import kept_values

PREFIX = "plans-"
# The folders whose plans the file keeps, the most recently graded: a student grades one checkout, perhaps a copy or
# two; without a bound, a machine that grades folder after folder (the project's own tests, 245 folders) would read and
# write every plan it ever made on every run.
KEPT_FOLDERS = 8
# Module name -> its packed requests in the order the checks made them; the modules in the order they were graded.
Plans = dict[str, list[bytes]]


def path_beside(kept: Path) -> Path:
    """The plans' file of the version of the course whose expected values are kept in `kept`."""
    return kept.with_name(PREFIX + kept.name.removeprefix(kept_values.PREFIX))


def load(path: Path) -> dict[str, Plans]:
    """Every folder's plans in the file; none from a file that is missing or not of this shape."""
    try:
        stored = json.loads(path.read_text())
        return {folder: {module: [base64.b64decode(body, validate=True) for body in bodies]
                         for module, bodies in modules.items()}
                for folder, modules in stored.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def save(path: Path, runs: dict[str, Plans]) -> None:
    """Store what this run asked, folder by folder and module by module, over what the file held; folders
    that are gone are dropped, and so are all but the KEPT_FOLDERS most recently graded."""
    stored = {folder: modules for folder, modules in load(path).items() if Path(folder).is_dir()}
    for folder, modules in runs.items():  # a module graded before keeps its place; a new one comes last
        stored[folder] = {**stored.pop(folder, {}), **modules}  # the folder itself moves last: graded most recently
    stored = dict(list(stored.items())[-KEPT_FOLDERS:])
    encoded = {folder: {module: [base64.b64encode(body).decode() for body in bodies]
                        for module, bodies in modules.items()}
               for folder, modules in stored.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")  # two runs at once never share a partial file
    partial.write_text(json.dumps(encoded))
    partial.replace(path)
    kept_values.forget_other_versions(path, PREFIX)
