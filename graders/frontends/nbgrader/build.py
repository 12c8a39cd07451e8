"""`python -m graders nbgrader build COURSE_DIR`: a ready nbgrader course for one lesson.

    COURSE_DIR/nbgrader_config.py
    COURSE_DIR/source/<assignment>/<lesson>.ipynb    solutions in solution regions
    COURSE_DIR/source/<assignment>/nbchecks/         the student bundle (bundle.py)

Then the usual nbgrader flow: generate_assignment, release, collect, autograde,
generate_feedback, export (docs/nbgrader.md).
"""

from __future__ import annotations

from pathlib import Path

import course_config
from graders.frontends.nbgrader.bundle import PACKAGE, rename_recording, write_bundle
from graders.frontends.nbgrader.config import write_config
from graders.frontends.nbgrader.record import prove_bundle, record_expected
from graders.engine.stubs import released_stubs

def main(course_dir: Path, *, assignment: str | None = None, lesson: str = "lesson01", course_id: str = "course",
         exercise_seconds: float = 180.0, exercises: list[str] | None = None,
         prove: bool = True) -> Path:
    """Build the course; returns the folder source/<assignment>/."""
    chosen_lesson = next((l for l in course_config.LESSONS if l.folder == lesson), None)
    if chosen_lesson is None:
        known = ", ".join(l.folder for l in course_config.LESSONS)
        raise SystemExit(f"--lesson {lesson}: course_config.py has no such lesson (it has: {known})")
    chosen = _exercises(chosen_lesson, exercises)
    # The answer cells' stubs, read first: one that cannot be handed out stops the build before it writes.
    stubs = released_stubs(chosen_lesson.folder, [e.slug for e in chosen])
    assignment = assignment or chosen_lesson.folder
    course_dir = Path(course_dir).resolve()
    source = course_dir / "source" / assignment
    source.mkdir(parents=True, exist_ok=True)
    notebook_name = f"{chosen_lesson.folder}.ipynb"

    print(f"recording the public checks' expected values from the reference ({len(chosen)} exercises)...")
    expected = rename_recording(record_expected(chosen_lesson, chosen))
    withheld = write_bundle(source, chosen_lesson, chosen, expected)
    bundle = source / PACKAGE
    for slug, ids in withheld.items():
        for check_id in ids:
            print(f"warning: {slug}: public check {check_id} repeats the reference's code, so students do not "
                  f"get it (it still runs at autograde); compute that value in an @expected function instead")
    if prove:
        print("grading the reference with the student bundle, as a student's test cell would...")
        prove_bundle(bundle, chosen_lesson, chosen, withheld)
    import nbformat  # here, not at the top: every verb of the command line imports this module for its defaults

    from graders.frontends.nbgrader.notebook import lesson_notebook

    notebook = lesson_notebook(chosen_lesson, chosen, notebook=notebook_name, exercise_seconds=exercise_seconds,
                               stubs=stubs)
    nbformat.write(notebook, source / notebook_name)
    config, written = write_config(course_dir, course_id=course_id, exercise_seconds=exercise_seconds)
    print(f"wrote {source / notebook_name} ({len(chosen)} exercises, {sum(e.points for e in chosen):g} points)")
    print(f"wrote {bundle}/ (public checks and recorded expected values for students)")
    print(f"{'wrote' if written else 'kept your'} {config}")
    print(f"next: cd {course_dir} && nbgrader generate_assignment {assignment}")
    return source


def _exercises(lesson: course_config.Lesson, slugs: list[str] | None) -> list[course_config.Exercise]:
    if not slugs:
        return list(lesson.exercises)
    try:
        return [lesson.exercise(slug) for slug in slugs]
    except KeyError as error:
        raise SystemExit(f"--exercise: {error.args[0]}") from None
