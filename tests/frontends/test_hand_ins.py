"""Which of a student's hand-ins is graded (graders/frontends/grade/intake/hand_ins.py): the latest by the layout's
clock, a tie said as a tie and broken by the expected name, files too large named and not read; and hand-ins
found by --student-pattern when no LMS's layout fits. Real files, listed by intake/handed_in.py's walk."""

from __future__ import annotations

import os
import re
from pathlib import Path

from graders.frontends.grade.intake import handed_in
from graders.frontends.grade.intake.hand_ins import TO_GRADE_ANOTHER, by_pattern, choose, for_students
from graders.frontends.grade.lms.download import HandIn, by_file_time

RULE = "file modification time"


def _listed(root: Path, files: dict[str, tuple[str, float]]) -> dict[str, handed_in.Entry]:
    """Write each file with its modification time, and list the files as intake does (folders are listed too, to
    see an empty one; they are no hand-in)."""
    for name, (text, mtime) in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
        os.utime(root / name, (mtime, mtime))
    return {str(entry.path): entry for entry in handed_in.walk(root) if not entry.folder}


def _hand_ins(entries: dict[str, handed_in.Entry]) -> list[HandIn]:
    return [by_file_time(entry, Path(name).name) for name, entry in entries.items()]


def test_one_hand_in_is_graded_with_no_problem(tmp_path: Path) -> None:
    entries = _listed(tmp_path, {"ann/lesson01.ipynb": ("{}", 1_700_000_000)})
    chosen, problems = choose(_hand_ins(entries), handed_in.NOTEBOOK_BYTES, RULE, "lesson01.ipynb")
    assert chosen is not None and str(chosen.entry.path) == "ann/lesson01.ipynb" and problems == []


def test_the_latest_of_several_is_graded_and_all_are_named(tmp_path: Path) -> None:
    entries = _listed(tmp_path, {"ann/lesson01.ipynb": ("{}", 1_700_000_000),
                                 "ann/lesson01 (1).ipynb": ("{}", 1_700_100_000)})
    chosen, problems = choose(_hand_ins(entries), handed_in.NOTEBOOK_BYTES, RULE, "lesson01.ipynb")
    assert str(chosen.entry.path) == "ann/lesson01 (1).ipynb"
    (said,) = problems
    assert said.startswith("2 hand-ins for this student: ann/lesson01.ipynb (modified "), said
    assert "Graded ann/lesson01 (1).ipynb, the latest by file modification time." in said, said
    # The student's page leaves out what only the instructor can do.
    assert said.endswith(TO_GRADE_ANOTHER) and TO_GRADE_ANOTHER not in for_students(said)


def test_a_tie_is_said_and_the_expected_name_wins_it(tmp_path: Path) -> None:
    entries = _listed(tmp_path, {"ann/a_copy.ipynb": ("{}", 1_700_000_000),
                                 "ann/lesson01.ipynb": ("{}", 1_700_000_000)})
    chosen, (said,) = choose(_hand_ins(entries), handed_in.NOTEBOOK_BYTES, RULE, "lesson01.ipynb")
    assert str(chosen.entry.path) == "ann/lesson01.ipynb"
    assert "2 of them tie as the latest by file modification time, and it is named lesson01.ipynb" in said, said
    # Without the expected name among them, the first by name is taken, and that is said too.
    chosen, (said,) = choose(_hand_ins(entries), handed_in.NOTEBOOK_BYTES, RULE, "other.ipynb")
    assert str(chosen.entry.path) == "ann/a_copy.ipynb" and "it comes first by name" in said, said


def test_a_file_over_the_limit_is_named_and_never_chosen(tmp_path: Path) -> None:
    entries = _listed(tmp_path, {"ann/lesson01.ipynb": ("{}", 1_700_000_000),
                                 "ann/huge.ipynb": ("x" * 100, 1_700_100_000)})
    chosen, problems = choose(_hand_ins(entries), 50, RULE, "lesson01.ipynb")
    assert str(chosen.entry.path) == "ann/lesson01.ipynb"
    assert problems == [handed_in.problem("ann/huge.ipynb", entries["ann/huge.ipynb"].unreadable(50))]
    chosen, problems = choose(_hand_ins(entries), 1, RULE, "lesson01.ipynb")
    assert chosen is None and len(problems) == 2, "nothing readable: nothing graded, each file named"


def test_the_pattern_takes_ids_from_notebook_names_and_keeps_the_unnamed_apart(tmp_path: Path) -> None:
    entries = _listed(tmp_path, {"hw/lesson01_ann.ipynb": ("{}", 1), "hw/lesson01_bob.ipynb": ("{}", 2),
                                 "hw/notes_ann.txt": ("", 3), "hw/untitled.ipynb": ("{}", 4)})
    layout = by_pattern(list(entries.values()), re.compile(r"_(?P<student>[a-z]+)\.ipynb$"))
    assert sorted(layout.students) == ["ann", "bob"], "only notebooks count, and only those the pattern names"
    assert [str(entry.path) for entry in layout.unnamed] == ["hw/untitled.ipynb"]
    assert layout.students["ann"][0].arrived is None, "a file's time on this machine is no LMS's clock"
