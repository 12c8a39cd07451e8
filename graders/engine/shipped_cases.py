"""Generated inputs drawn once and shipped with the course, so that a first run draws none.

A lesson's cases follow only from its recipes (graders/<lesson>/cases.py and the modules of ours
it imports, course_config.py that reads their seeds and tolerances), the seeds and tolerances of
its exercises, and hypothesis's version: the same on every machine. Drawing them costs about a second of CPU (hypothesis needs a millisecond per
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
from graders.engine.case_recipes import recipes

FILE_NAME = "drawn_cases.json"
_PACKAGE_FOLDER = Path(__file__).resolve().parents[1]  # graders/, or nbchecks/ in a student bundle


def path(lesson: str) -> Path:
    return _PACKAGE_FOLDER / lesson / FILE_NAME


def provenance(lesson: str) -> str:
    """A digest of everything the lesson's cases follow from."""
    sink = hashlib.sha256()
    for source in [*_recipe_sources(lesson), Path(course_config.__file__)]:
        text = source.read_bytes().replace(b"\r\n", b"\n")  # a checkout with Windows line ends draws the same
        name = source.relative_to(_PACKAGE_FOLDER).as_posix() if _PACKAGE_FOLDER in source.parents else source.name
        sink.update(name.encode() + b"\0" + text + b"\0")
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
        exercises = data["exercises"]
        if data["provenance"] != provenance(lesson) or not all(
                isinstance(slug, str) and isinstance(cases, dict)
                and all(isinstance(n, str) and isinstance(c, str) for n, c in cases.items())
                for slug, cases in exercises.items()):
            return {}
        return exercises
    # ImportError: no hypothesis installed; StopIteration: no such lesson; SyntaxError: a recipe's source
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ImportError, StopIteration, SyntaxError,
            RecursionError):
        return {}


def case(lesson: str, slug: str, name: str) -> str | None:
    """One recipe's shipped cases, as a Python literal, or None."""
    return shipped(lesson).get(slug, {}).get(name)


def covers(lesson: str, slug: str) -> bool:
    """Whether every case of this exercise is shipped (an exercise without recipes counts)."""
    return slug in shipped(lesson)


def write(lesson: str) -> Path:
    """Draw every case of the lesson and write them, with their provenance, beside its recipes."""
    drawn = recipes(lesson)  # imports the lesson's cases.py, and hypothesis with it: only here
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
    """The lesson's cases.py and every module of ours it imports (each package's __init__.py on the way too), in
    whichever form the import is written; followed further inside the lesson's folder, where recipes live. What
    an engine module imports in turn (drawing.py: the sandbox, to fork the helper) draws nothing; anything that
    still changed a case is caught by tests/engine/test_shipped_cases.py, which draws them all afresh."""
    found: set[Path] = set()
    cases = _PACKAGE_FOLDER / lesson / "cases.py"
    queue = [cases]
    while queue:
        source = queue.pop()
        if source in found or not source.is_file():
            continue
        found.add(source)
        if source != cases and (_PACKAGE_FOLDER / lesson) not in source.parents:
            continue
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            queue += [file for name in names for file in _files_of(name)]
    return sorted(found)


def _files_of(module: str) -> list[Path]:
    """The files of ours that importing `module` runs: each package's __init__.py and the module itself."""
    parts = module.split(".")
    if parts[0] != _PACKAGE_FOLDER.name:
        return []
    files = []
    for depth in range(1, len(parts) + 1):
        place = _PACKAGE_FOLDER.joinpath(*parts[1:depth])
        files += [place / "__init__.py", place.with_suffix(".py")] if depth > 1 else [place / "__init__.py"]
    return [file for file in files if file.is_file()]


def main() -> None:
    for lesson in course_config.LESSONS:
        if (_PACKAGE_FOLDER / lesson.folder / "cases.py").is_file():
            print(f"wrote {write(lesson.folder).relative_to(_PACKAGE_FOLDER.parent)}")


if __name__ == "__main__":
    main()
