"""Two steps around nbgrader's Execute, so that under autograde no student cell runs in the kernel.

`BlankStudentCells` empties every code cell that is not one of ours (the setup cell and the
test cells, whose sources nbgrader has just restored from the gradebook), keeping each
student source in the cell's metadata; `RestoreStudentCells` puts them back once the kernel
is done, so the autograded notebook and its feedback show the student's code as handed in.
The test cells grade the answers from the notebook file on disk, which nbgrader wrote before
executing: student code runs only in the sandboxed workers. Before each notebook, BlankStudentCells
also offers the kernel the run's one grading process (shared_server.py). nbgrader_config.py lists the
pipeline (`c.Autograde.autograde_preprocessors`, written by the build). A third step keeps the
bundle out of the feedback folders.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool

from graders.frontends.nbgrader import shared_server
from graders.frontends.nbgrader.runtime import BLANKED_ENV, SETUP_PREFIX, TEST_CELL

STASH = "graders_blanked_source"  # the cell metadata key that holds a blanked cell's source


def is_ours(cell: NotebookNode) -> bool:
    """A setup or test cell as the build wrote it (nbgrader restores locked cells' sources)."""
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
    source = cell.get("source", "")
    if grade_id == "setup":
        return source.startswith(SETUP_PREFIX)
    if grade_id.startswith("test-"):
        return source == TEST_CELL.format(slug=grade_id.removeprefix("test-"))
    return False


class BlankStudentCells(NbGraderPreprocessor):
    """Before Execute: every code cell but ours becomes empty; its source waits in metadata."""

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> tuple[NotebookNode, dict[str, Any]]:
        for cell in nb.cells:
            if cell.cell_type == "code" and not is_ours(cell):
                cell.metadata[STASH] = cell.source
                cell.source = ""
        os.environ[BLANKED_ENV] = "1"  # the kernel Execute starts next inherits it: the test cells check
        shared_server.offer_to_kernels()  # one grading process for the whole run (shared_server.py)
        return nb, resources


class RestoreStudentCells(NbGraderPreprocessor):
    """After Execute: the blanked cells get their sources back (their outputs stay empty)."""

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> tuple[NotebookNode, dict[str, Any]]:
        for cell in nb.cells:
            if STASH in cell.get("metadata", {}):
                cell.source = cell.metadata.pop(STASH)
        os.environ.pop(BLANKED_ENV, None)
        shared_server.withdraw_from_kernels()
        return nb, resources


class DropBundleFromFeedback(Preprocessor):
    """In generate_feedback: remove the copy of nbchecks/ that nbgrader makes beside each feedback
    file (it copies every file of the autograded folder); students already have the bundle."""

    enabled = Bool(True)  # nbconvert's preprocessors are off unless told; nbgrader lists this one to run

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> tuple[NotebookNode, dict[str, Any]]:
        info = resources.get("nbgrader", {})
        autograded = Path(resources.get("metadata", {}).get("path", ""))  # autograded/<student>/<assignment>
        if len(autograded.parts) >= 3 and info.get("student") and info.get("assignment"):
            copied = autograded.parents[2] / "feedback" / info["student"] / info["assignment"] / "nbchecks"
            if (copied / "runtime.py").is_file():
                shutil.rmtree(copied, ignore_errors=True)
        return nb, resources
