"""What a test cell prints: an exercise's result in the layout of `pytest exercises/`'s
summary, each failed check's message under it, and the plots the checks drew.

Copied into each student bundle with runtime.py: standard library (and IPython) only.
"""

from __future__ import annotations

from pathlib import Path


def print_feedback(exercise: dict, *, public_only: bool) -> None:
    """Print one exercise of the result model (the plugin's --json) to stdout."""
    checks = exercise.get("checks", [])
    print(f"{exercise['slug']}: {exercise['score']:g} / {exercise['max_score']:g} points"
          + ("  (public checks; the hidden ones run when your notebook is graded)" if public_only else ""))
    if exercise.get("not_implemented") and exercise["score"] == 0:
        print("  not implemented yet: write the functions in the answer cell above.")
        return
    for item in checks:
        mark = "PASS" if item["passed"] else "FAIL"
        hidden = " [hidden]" if item.get("hidden") else ""
        shown = item.get("shown", item.get("message")) or ""
        named = item.get("mistake") and (not item.get("hidden") or "mistake:" in shown)
        mistake = f"   ({item['mistake']})" if named else ""
        print(f"  {mark}  {item['id']}{hidden}: {item['score']:g} / {item['points']:g}{mistake}")
        for line in shown.splitlines():
            print(f"        {line}")


def show_plots(exercise: dict) -> None:
    """Display the PNG files the checks wrote, inline (and so in the feedback HTML)."""
    # A hidden check's plot shows its inputs: only where its whole message is shown too.
    files = [f for c in exercise.get("checks", []) if not c.get("hidden") or c.get("shown") == c.get("message")
             for f in c.get("files", []) if str(f).endswith(".png")]
    if not files:
        return
    try:
        from IPython.display import Image, display
    except ImportError:
        return
    for name in files:
        if Path(name).is_file():
            display(Image(filename=name))
