"""What a test cell prints: an exercise's result in the layout of `pytest exercises/`'s
summary, each failed check's message under it, and the plots the checks drew.

Copied into each student bundle with runtime.py: standard library (and IPython) only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# An exercise is an ExerciseResult of the engine's result model (graders/engine/results.py), typed `Any` here: this
# file is copied into the student bundle as it is, and names no module of `graders`.


def print_feedback(exercise: Any, *, public_only: bool) -> None:
    """Print one exercise of the result model (the plugin's --json) to stdout."""
    print(f"{exercise.slug}: {exercise.score:g} / {exercise.max_score:g} points"
          + ("  (public checks; the hidden ones run when your notebook is graded)" if public_only else ""))
    if exercise.not_implemented and exercise.score == 0:
        print("  not implemented yet: write the functions in the answer cell above.")
        return
    for check in exercise.checks:
        mark = "PASS" if check.passed else "FAIL"
        hidden = " [hidden]" if check.hidden else ""
        mistake = f"   ({check.mistake})" if check.mistake_shown else ""
        print(f"  {mark}  {check.id}{hidden}: {check.score:g} / {check.points:g}{mistake}")
        for line in check.shown.splitlines():
            print(f"        {line}")


def show_plots(exercise: Any) -> None:
    """Display the PNG files the checks wrote, inline (and so in the feedback HTML)."""
    # A hidden check's plot shows its inputs: only where its whole message is shown too.
    files = [f for c in exercise.checks if not c.hidden or c.shown == c.message
             for f in c.files if str(f).endswith(".png")]
    if not files:
        return
    try:
        from IPython.display import Image, display
    except ImportError:
        return
    for name in files:
        if Path(name).is_file():
            display(Image(filename=name))
