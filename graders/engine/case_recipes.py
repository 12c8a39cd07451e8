"""A lesson's recipes of generated inputs: the RECIPES of graders/<lesson>/cases.py.

Read by the drawing helper (drawing.py), which draws them while a run starts, and by shipped_cases.py,
which draws them once to ship with the course. Its own module so that neither of those imports the other.
Imports neither torch nor hypothesis (a lesson's cases.py imports hypothesis when it is loaded).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


def recipes(lesson: str) -> dict[str, dict[str, Callable[[], Any]]]:
    """Per exercise slug, its generated inputs by name, each a function that draws them."""
    # The package's own name: graders here, nbchecks in a student bundle.
    return importlib.import_module(f"{__package__.split('.')[0]}.{lesson}.cases").RECIPES
