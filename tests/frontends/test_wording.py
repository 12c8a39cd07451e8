"""Counts in what the instructor reads (graders/frontends/wording.py): one noun for exactly one, its plural
otherwise, never "1 students" or "student(s)"."""

from __future__ import annotations

from graders.frontends.wording import counted


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert [counted(n, "student") for n in (0, 1, 2)] == ["0 students", "1 student", "2 students"]
    assert counted(1, "match", "matches") == "1 match" and counted(3, "match", "matches") == "3 matches"
