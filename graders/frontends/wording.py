"""Counts in what the instructor reads: "1 student", "2 students", never "1 students" or "student(s)"."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and the noun, singular for exactly one (plural: noun + "s" unless given)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
