"""Which version of the course grades an answer: one digest for the whole course, one per exercise.

The whole course's digest (the engine, every room's checks, mistakes and manifest, the reference and
course_config.py) names the expected values kept between runs and the grading services a batch may
use. An exercise's digest covers only what can change that exercise's result: every file outside the
rooms (the engine, course_config.py, lesson-wide modules such as cases.py), its own room and its own
reference module. So when an author adds a mistake to one room's catalogue, a rerun of the class
regrades that exercise alone and keeps every other exercise's stored result. A room's module that
any file outside the room imports (micrograd's expression_graphs.py, which cases.py draws graphs
with) counts as shared: a change to it regrades every exercise. This module stays light (no torch).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Callable

import course_config

_GRADERS = Path(__file__).resolve().parents[1]
Owner = Callable[[Path], "str | None"]  # the exercise whose room (or reference module) holds a file, if any


def course_digest() -> str:
    """A digest of everything that decides a grade besides the answers."""
    files = _course_files()
    return _digest(files, _contents(files))


def exercise_digests(lesson: str, slugs: list[str]) -> dict[str, str]:
    """For each exercise of `lesson`, a digest of everything that decides its result besides the answers."""
    files = _course_files()
    contents = _contents(files)  # each file read once, for all the digests and scans below
    owners = {path: _owner(path, lesson, set(slugs)) for path in files}
    owner = owners.__getitem__

    shared_from_rooms = _imported_from_outside(contents, lesson, owner)
    shared = [p for p in files if owner(p) is None or p in shared_from_rooms]
    forgotten = _forgotten_by_exercise(contents, slugs, owner)
    return {slug: _digest(shared + [p for p in files if owner(p) == slug and p not in shared_from_rooms], contents,
                          extra=forgotten[slug]) for slug in slugs}


def _owner(path: Path, lesson: str, slugs: set[str]) -> str | None:
    """The exercise whose room (graders/<lesson>/<slug>/) or reference module (reference/<lesson>/<slug>.py)
    holds `path`, if any."""
    for base, depth in ((_GRADERS / lesson, 2), (course_config.ROOT / "reference" / lesson, 1)):
        try:
            parts = path.relative_to(base).parts
        except ValueError:
            continue
        slug = parts[0] if depth == 2 else Path(parts[0]).stem
        if len(parts) >= depth and slug in slugs:
            return slug
    return None


def _course_files() -> list[Path]:
    root = course_config.ROOT
    files = [Path(course_config.__file__)]
    for folder in (_GRADERS, root / "reference"):  # graders/ and the reference
        # .toml: the exercises' manifests (graders/<lesson>/<slug>/exercise.toml), their tolerances and seeds.
        files += sorted(p for p in folder.rglob("*") if p.suffix in (".py", ".toml") and "__pycache__" not in p.parts)
    return files


def _contents(files: list[Path]) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in files}


def _digest(files: list[Path], contents: dict[Path, bytes], extra: str = "") -> str:
    digest = hashlib.sha256()
    root = course_config.ROOT
    for path in sorted(files):
        digest.update(str(path.relative_to(root) if root in path.parents else path.name).encode())
        digest.update(contents[path])
    digest.update(extra.encode())
    return digest.hexdigest()


def _imported_from_outside(contents: dict[Path, bytes], lesson: str, owner: Owner) -> set[Path]:
    """The room modules that a file outside their room imports, and what those import in turn."""
    pattern = re.compile(rf"graders\.{lesson}\.(\w+)((?:\.\w+)*)(?:\s+import\s+([\w\s,()]+))?")
    imports: dict[Path, set[Path]] = {}
    for path, content in contents.items():
        if path.suffix != ".py":
            continue
        found = set()
        for room, dotted, names in pattern.findall(content.decode("utf-8", errors="replace")):
            package = _GRADERS / lesson / room
            if dotted:
                package = package.joinpath(*dotted.strip(".").split("."))
            module = package.with_suffix(".py")
            if module.is_file():
                found.add(module)
            elif package.is_dir():
                submodules = [package / f"{n}.py" for n in re.findall(r"\w+", names or "")]
                named = [m for m in submodules if m.is_file()]
                # A name from the package itself (its __init__): the whole room, to be safe.
                found |= set(named) if named and len(named) == len(submodules) else set(package.rglob("*.py"))
        imports[path] = found
    shared: set[Path] = set()
    frontier = [m for path, found in imports.items() for m in found if owner(m) != owner(path)]
    while frontier:
        module = frontier.pop()
        if module not in shared:
            shared.add(module)
            frontier += imports.get(module, set())
    return shared


def _forgotten_by_exercise(contents: dict[Path, bytes], slugs: list[str], owner: Owner) -> dict[str, str]:
    """The test switch course_config.FORGET_MISTAKES_VARIABLE, per exercise: the forgotten mistakes whose name
    its room's files spell; a name no room spells (a mistake of the engine) belongs to every exercise."""
    forgotten = sorted({n.strip() for n in os.environ.get(course_config.FORGET_MISTAKES_VARIABLE, "").split(",")
                        if n.strip()})
    spelt = {slug: "" for slug in slugs}
    for path, content in contents.items():
        if (slug := owner(path)) is not None and path.suffix == ".py":
            spelt[slug] += content.decode("utf-8", errors="replace")
    quoted = {name: [slug for slug in slugs if f'"{name}"' in spelt[slug] or f"'{name}'" in spelt[slug]]
              for name in forgotten}
    return {slug: ",".join(n for n in forgotten if slug in quoted[n] or not quoted[n]) for slug in slugs}
