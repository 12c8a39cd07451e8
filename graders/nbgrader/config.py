"""nbgrader_config.py for a course built by `python -m graders nbgrader build`."""

from __future__ import annotations

from pathlib import Path

MARKER = "# Written by `python -m graders nbgrader build`"
TEMPLATE = '''{marker}. The next build rewrites this file while its first
# line is this one: delete that line to keep your own edits.
c = get_config()  # noqa: F821 (nbgrader defines it)

c.CourseDirectory.course_id = {course_id!r}

# Per-cell limit while nbgrader executes a notebook. A test cell grades one exercise in a
# separate process that stops itself after {exercise_seconds:g} s; the margin covers starting it.
c.Execute.timeout = {cell_timeout}
c.Execute.interrupt_on_timeout = True
# A kernel that does not start (or a cell that does not answer) fails that notebook, not the batch.
c.Execute.startup_timeout = 120

# The test cells stop after their own time limit, so a retry would only double a bad submission's time.
c.Execute.execute_retries = 0

# Where `release_assignment` / `collect` exchange files when students use the Assignment List
# extension; any folder every student can read (and write, for submissions). Unused if you hand
# out release/ and gather notebooks yourself.
# c.Exchange.root = "/srv/nbgrader/exchange"
'''


def write_config(course: Path, *, course_id: str, exercise_seconds: float) -> tuple[Path, bool]:
    """Write COURSE/nbgrader_config.py unless the instructor has made it their own.

    Returns the path and whether it was written."""
    path = course / "nbgrader_config.py"
    if path.exists() and not path.read_text().startswith(MARKER):
        return path, False
    cell_timeout = int(exercise_seconds) + 60
    path.write_text(TEMPLATE.format(marker=MARKER, course_id=course_id, exercise_seconds=exercise_seconds,
                                    cell_timeout=cell_timeout))
    return path, True
