"""nbgrader_config.py for a course built by `python -m graders nbgrader build`."""

from __future__ import annotations

import shutil
from pathlib import Path

from graders.frontends.nbgrader.kernel import KERNEL_NAME, write_kernelspec

MARKER = "# Written by `python -m graders nbgrader build`"
TEMPLATE = '''{marker}. The next build rewrites this file while its first
# line is this one: delete that line to keep your own edits.
import os
from pathlib import Path

c = get_config()  # noqa: F821 (nbgrader defines it)

c.CourseDirectory.course_id = {course_id!r}

# No student cell runs in the kernel under autograde: every code cell but the setup and test
# cells is emptied before execution and given back after it (the test cells grade the answers
# in sandboxed processes, from the notebook file), and the kernel is one that imports nothing
# from the notebook's folder. The test cells refuse to grade if either is missing.
c.Autograde.autograde_preprocessors = [
    "graders.frontends.nbgrader.preprocessors.BlankStudentCells",
    "nbgrader.preprocessors.Execute",
    "graders.frontends.nbgrader.preprocessors.RestoreStudentCells",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Execute.kernel_name = {kernel_name!r}

# Feedback pages that name each exercise and wrap long lines (the template is in {jupyter_folder}/templates/,
# on top of nbgrader's own), without a copy of nbchecks/ beside each.
import nbgrader  # noqa: E402

c.HTMLExporter.template_name = {template_name!r}
c.HTMLExporter.template_file = "graders.html.j2"  # its own name: it extends nbgrader's index.html.j2
c.HTMLExporter.extra_template_basedirs = [
    str(Path(__file__).resolve().parent / {jupyter_folder!r} / "templates"),
    os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates"),
]
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "graders.frontends.nbgrader.preprocessors.DropBundleFromFeedback",
]
# What the template shows of a student's notebook goes through these: sanitized markdown, outputs
# as checked pictures or escaped text, a Content-Security-Policy in the page's head (see graders/frontends/safe_html.py).
c.HTMLExporter.filters = {feedback_filters!r}
# Jupyter finds that kernel's spec in {jupyter_folder}/kernels/, beside this file.
os.environ["JUPYTER_PATH"] = os.pathsep.join(
    [str(Path(__file__).resolve().parent / {jupyter_folder!r}), *filter(None, [os.environ.get("JUPYTER_PATH")])])

# Per-cell limit while nbgrader executes a notebook. A test cell grades one exercise in a
# separate process that stops itself after {exercise_seconds:g} s; the margin covers starting it.
c.Execute.timeout = {cell_timeout}
c.Execute.interrupt_on_timeout = True
# A kernel that does not start (or a cell that does not answer) fails that notebook, not the batch.
c.Execute.startup_timeout = 120

# A test cell a student deleted is put back, so that its exercise is still graded.
c.OverwriteCells.add_missing_cells = True

# The test cells stop after their own time limit, so a retry would only double a bad submission's time.
c.Execute.execute_retries = 0

# Where `release_assignment` / `collect` exchange files when students use the Assignment List
# extension; any folder every student can read (and write, for submissions). Unused if you hand
# out release/ and gather notebooks yourself.
# c.Exchange.root = "/srv/nbgrader/exchange"
'''


JUPYTER_FOLDER = "jupyter"  # COURSE/jupyter/kernels/<name>/kernel.json, COURSE/jupyter/templates/<name>/
TEMPLATE_NAME = "graders-feedback"
TEMPLATES = Path(__file__).resolve().parent / "templates"
# The Jinja filters that template calls (by name, for nbconvert to import): without them it does not compile.
FEEDBACK_FILTERS = {
    "sanitized": "graders.frontends.safe_html.sanitized",
    "output_html": "graders.frontends.nbgrader.feedback_filters.output_html",
    "head_with_policy": "graders.frontends.nbgrader.feedback_filters.head_with_policy",
}


def write_config(course: Path, *, course_id: str, exercise_seconds: float) -> tuple[Path, bool]:
    """Write COURSE/nbgrader_config.py unless the instructor has made it their own, and the
    autograde kernel's spec beside it (always: its Python is the one that built the course).

    Returns the path and whether it was written."""
    write_kernelspec(course / JUPYTER_FOLDER)
    templates = course / JUPYTER_FOLDER / "templates"
    shutil.rmtree(templates / TEMPLATE_NAME, ignore_errors=True)
    shutil.copytree(TEMPLATES / TEMPLATE_NAME, templates / TEMPLATE_NAME)
    path = course / "nbgrader_config.py"
    if path.exists() and not path.read_text().startswith(MARKER):
        return path, False
    cell_timeout = int(exercise_seconds) + 60
    path.write_text(TEMPLATE.format(marker=MARKER, course_id=course_id, exercise_seconds=exercise_seconds,
                                    cell_timeout=cell_timeout, kernel_name=KERNEL_NAME, jupyter_folder=JUPYTER_FOLDER,
                                    template_name=TEMPLATE_NAME, feedback_filters=FEEDBACK_FILTERS))
    return path, True
