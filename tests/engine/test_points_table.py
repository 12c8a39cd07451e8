"""The points table a run ends with (graders/engine/points_table.py): each exercise's points and each check's, a
hidden check marked as one, the failed checks alone under -q, an untouched lesson told where to begin, and a last
line with the lesson's points and how many of its checks ran. Real grading runs of the plugin."""

from __future__ import annotations

import course_config
from attacks import REFERENCE, SLUG, with_f
from conftest import ROOT, STUBS

LESSON = course_config.LESSON_01
VIEWS = (ROOT / "reference" / "lesson01" / "views.py").read_text()
EVERYTHING = sum(len(e.checks) for lesson in course_config.LESSONS for e in lesson.exercises)


def _table(output: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if "Lesson 1: points" in line or "not started yet" in line)
    return lines[start:]


def test_each_exercise_and_check_has_its_line_and_the_last_line_sums_up(grade) -> None:
    graded = grade({"views": VIEWS, SLUG: with_f("    return torch.zeros_like(x)\n")})
    table = _table(graded.output)
    views, sin_exp = LESSON.exercise("views"), LESSON.exercise(SLUG)
    assert f"views: {views.points:g} / {views.points:g} points" in table
    hidden = next(c for c in views.checks if c.hidden)
    assert f"  PASS  {hidden.id} [hidden]: {hidden.points:g} / {hidden.points:g}" in table
    assert f"  FAIL  f_on_lesson_grid: 0 / {sin_exp.check('f_on_lesson_grid').points:g}" in table
    score = graded.result["score"]
    ran = len(views.checks) + len(sin_exp.checks)
    assert table[-1].startswith(f"Lesson 1: {score:g} / {views.points + sin_exp.points:g} points   "
                                f"({ran} of {EVERYTHING} checks ran)")


def test_quiet_shows_the_failed_checks_alone(grade) -> None:
    graded = grade({SLUG: with_f("    return torch.zeros_like(x)\n")}, "-q")
    table = _table(graded.output)
    assert any(line.startswith("  FAIL  f_on_lesson_grid") for line in table)
    assert not any(line.startswith("  PASS") for line in table)


def test_an_untouched_lesson_is_told_where_to_begin(grade) -> None:
    graded = grade({SLUG: (STUBS / "lesson01" / f"{SLUG}.py").read_text(), "views": (STUBS / "lesson01" /
                                                                                     "views.py").read_text()})
    table = _table(graded.output)
    assert "Lesson 1: not started yet. Begin with" in table[0] and "views.py" in table[0]
    assert any(line.startswith("views: 0 /") and "not implemented yet: open" in line for line in table)


def test_a_right_submission_has_every_point(grade) -> None:
    graded = grade({SLUG: REFERENCE}, "-k", "f_on_lesson_grid")
    assert "  PASS  f_on_lesson_grid: 1 / 1" in _table(graded.output)
