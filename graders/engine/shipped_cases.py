"""Generated inputs drawn once and shipped with the course, so that a first run draws none.

A lesson's cases follow only from its recipes (graders/<lesson>/cases.py and the modules of ours
it imports), the seeds and tolerances of its exercises, and hypothesis's version: the same on
every machine. Drawing them costs about a second of CPU (hypothesis needs a millisecond per
example), which a student's first run spent in the drawing helper beside the grader's import of
torch, and then waited for. So `python -m graders.engine.shipped_cases` draws them once into
graders/<lesson>/drawn_cases.json, with a digest of all they follow from. A run uses the file only
while that digest still holds; otherwise (a recipe, seed or hypothesis changed) the cases are
drawn as before, with the same result. tests/engine/test_shipped_cases.py fails when the file
is out of date, and says how to write it again.

Imports neither torch nor hypothesis: read by the drawing helper before either is loaded.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata
import json
from pathlib import Path

import course_config

FILE_NAME = "drawn_cases.json"
_PACKAGE_FOLDER = Path(__file__).resolve().parents[1]  # graders/, or nbchecks/ in a student bundle


def path(lesson: str) -> Path:
    return _PACKAGE_FOLDER / lesson / FILE_NAME


def provenance(lesson: str) -> str:
    """A digest of everything the lesson's cases follow from."""
    sink = hashlib.sha256()
    for source in _recipe_sources(lesson):
        sink.update(source.relative_to(_PACKAGE_FOLDER).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    for exercise in _lesson(lesson).exercises:
        settings = {"seeds": {k: v.value for k, v in exercise.seeds.items()},
                    "tolerances": {k: v.value for k, v in exercise.tolerances.items()}}
        sink.update(json.dumps([exercise.slug, settings], sort_keys=True).encode())
    sink.update(importlib.metadata.version("hypothesis").encode())
    return sink.hexdigest()[:32]


@functools.cache
def shipped(lesson: str) -> dict[str, dict[str, str]]:
    """Per exercise slug, each recipe's cases as a Python literal: every exercise of the lesson,
    those without recipes empty. Nothing when the file is missing, unreadable or out of date."""
    try:
        data = json.loads(path(lesson).read_text(encoding="utf-8"))
        if data["provenance"] != provenance(lesson):
            return {}
        return {str(slug): {str(name): str(literal) for name, literal in cases.items()}
                for slug, cases in data["exercises"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ImportError):  # ImportError: no hypothesis
        return {}


def case(lesson: str, slug: str, name: str) -> str | None:
    """One recipe's shipped cases, as a Python literal, or None."""
    return shipped(lesson).get(slug, {}).get(name)


def covers(lesson: str, slug: str) -> bool:
    """Whether every case of this exercise is shipped (an exercise without recipes counts)."""
    return slug in shipped(lesson)


def write(lesson: str) -> Path:
    """Draw every case of the lesson and write them, with their provenance, beside its recipes."""
    from graders.engine.drawing import recipes  # hypothesis, only here

    drawn = recipes(lesson)
    exercises = {e.slug: {name: repr(recipe()) for name, recipe in drawn.get(e.slug, {}).items()}
                 for e in _lesson(lesson).exercises}
    target = path(lesson)
    target.write_text(json.dumps({"provenance": provenance(lesson), "exercises": exercises}, indent=1) + "\n",
                      encoding="utf-8")
    shipped.cache_clear()
    return target


def _lesson(folder: str) -> course_config.Lesson:
    return next(lesson for lesson in course_config.LESSONS if lesson.folder == folder)


def _recipe_sources(lesson: str) -> list[Path]:
    """The lesson's cases.py and every module of ours it imports, directly or through them."""
    package = _PACKAGE_FOLDER.name
    found: list[Path] = []
    queue = [_PACKAGE_FOLDER / lesson / "cases.py"]
    while queue:
        source = queue.pop()
        if source in found or not source.is_file():
            continue
        found.append(source)
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == package:
                queue.append(_PACKAGE_FOLDER.joinpath(*node.module.split(".")[1:]).with_suffix(".py"))
    return sorted(found)


def main() -> None:
    for lesson in course_config.LESSONS:
        if (_PACKAGE_FOLDER / lesson.folder / "cases.py").is_file():
            print(f"wrote {write(lesson.folder).relative_to(_PACKAGE_FOLDER.parent)}")


if __name__ == "__main__":
    main()
