"""Each exercise's manifest, graders/<lesson>/<slug>/exercise.toml: its schema, and the objects it is read into.

course_config.py lists each lesson's exercises and their points; this module reads their manifests (title,
lesson section, checks, seeds and tolerances) when course_config is imported, checked key by key: a typo stops
the import and names the file and the key, rather than becoming a check worth other points or a hidden check
released. The schema is `_Manifest` below with `Check` and the settings' tables: a new key is a field there.

Students' runs import it (through course_config.py, in the student bundle too): msgspec and the standard
library only.
"""

# No `from __future__ import annotations`: msgspec would evaluate every schema's annotations from text on each
# student's run, which costs more than the rest of its work here.
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from graders.engine.toml_schema import convert, read_toml

# The folder of each lesson's rooms: graders/, or in the student bundle, nbchecks/.
ENGINE = Path(__file__).resolve().parents[1]


class ManifestError(ValueError):
    """An exercise's manifest is missing, not TOML, or has a missing, unknown or mistyped key."""


@dataclass(frozen=True)
class Setting:
    """A value (a number, or a name) with the sentence that says what it is for."""

    value: float | int | str
    description: str


class Check(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One graded check, a [[checks]] table of the manifest: a pytest test `test_<id>` in the room's checks.py."""

    id: Annotated[str, Meta(description="the check's name; its test is test_<id> in checks.py",
                            examples=["shape_of_the_result"])]
    points: Annotated[int | float, Meta(description="what the check is worth", examples=[0.5])]
    description: Annotated[str, Meta(description="one sentence saying what the check proves",
                                     examples=["the result has the input's shape"])]
    # Hidden checks use fresh inputs and never reach students.
    hidden: Annotated[bool, Meta(description="true for a check students never see", examples=[True])] = False
    # A check of *how* (no .data, uses autograd, one jvp per input): only the student's own process can show it,
    # so its verdict is evidence, backed by the submitted source; it scores 0 for a module that reaches for the
    # grader's internals (graders/engine/source_evidence.py).
    how: Annotated[bool, Meta(description="true for a check of how the answer is computed",
                              examples=[True])] = False


class _Seed(msgspec.Struct, forbid_unknown_fields=True):
    """A [seeds.<name>] table."""

    value: Annotated[int, Meta(description="the seed", examples=[1234])]
    description: Annotated[str, Meta(description="what the seed draws", examples=["the fresh tensors' values"])]


class _Tolerance(msgspec.Struct, forbid_unknown_fields=True):
    """A [tolerances.<name>] table."""

    value: Annotated[int | float, Meta(description="the tolerance", examples=[1e-05])]
    description: Annotated[str, Meta(description="what the tolerance bounds",
                                     examples=["relative error allowed in the values"])]


class _Manifest(msgspec.Struct, forbid_unknown_fields=True):
    """The whole file. Seeds and tolerances are read entry by entry (_settings), so that an error names its entry."""

    title: Annotated[str, Meta(description="the exercise's title", examples=["Views share memory"])]
    section: Annotated[str, Meta(description="the lesson's section feedback points to",
                                 examples=["1.3 Views and copies"])]
    checks: Annotated[list[Check], Meta(description="one [[checks]] table per check")]
    seeds: Annotated[dict[str, Any], Meta(description="[seeds.<name>] tables of value and description")] = {}
    tolerances: Annotated[dict[str, Any], Meta(description="[tolerances.<name>] tables of value and "
                                                           "description")] = {}
    # Only in the student bundle's copies: the points of the hidden checks taken out.
    withheld_points: Annotated[int | float, Meta(description="the points of the checks taken out")] = 0


@dataclass(frozen=True)
class Exercise:
    """One exercise: the same slug names its stub, reference, checks and notebook section."""

    slug: str
    title: str
    section: str  # where in the lesson to look; feedback points here
    checks: tuple[Check, ...]
    seeds: dict[str, Setting] = field(default_factory=dict)
    tolerances: dict[str, Setting] = field(default_factory=dict)

    @property
    def points(self) -> float:
        return sum(check.points for check in self.checks)

    def check(self, check_id: str) -> Check:
        for check in self.checks:
            if check.id == check_id:
                return check
        known = ", ".join(c.id for c in self.checks)
        raise KeyError(f"{self.slug} has no check {check_id!r} in its manifest (it has: {known})")

    def seed(self, name: str) -> int:
        return int(self._setting(self.seeds, name, "seed").value)

    def tolerance(self, name: str) -> float:
        return float(self._setting(self.tolerances, name, "tolerance").value)

    def _setting(self, table: dict[str, Setting], name: str, kind: str) -> Setting:
        if name not in table:
            raise KeyError(f"{self.slug} has no {kind} {name!r} in its manifest (it has: {', '.join(table)})")
        return table[name]


def manifest_path(folder: str, slug: str) -> Path:
    """Where the manifest of exercise `slug` of the lesson in `folder` is."""
    return ENGINE / folder / slug / "exercise.toml"


def read_exercises(folder: str, points: tuple[tuple[str, float], ...],
                   shared_seeds: dict[str, str]) -> tuple[Exercise, ...]:
    """The exercises of the lesson in `folder`, each (slug, points) of `points` read from its manifest."""
    return tuple(read_exercise(manifest_path(folder, slug), points=worth, shared_seeds=shared_seeds)
                 for slug, worth in points)


def read_exercise(path: Path, *, points: float, shared_seeds: dict[str, str]) -> Exercise:
    """The exercise whose manifest is at `path` (graders/<lesson>/<slug>/exercise.toml), worth `points` by
    course_config.py; `shared_seeds`: the seeds a manifest gives by value only, with their one description."""
    name = f"{path.parent.parent.name}/{path.parent.name}"
    read = convert(read_toml(path, ManifestError, f"the manifest of {name}"), _Manifest, path, ManifestError)
    for number, check in enumerate(read.checks, 1):
        if any(earlier.id == check.id for earlier in read.checks[:number - 1]):
            raise ManifestError(f"{path}: key checks[{number}].id: {check.id!r} names an earlier check too; give "
                                f"each check an id of its own")
    found = sum(check.points for check in read.checks) + read.withheld_points
    if not math.isclose(found, points, abs_tol=1e-9):
        raise ManifestError(f"{path}: the checks' points add up to {found:g}, but course_config.py gives "
                            f"{name} {points:g} points: change one or the other")
    return Exercise(slug=path.parent.name, title=read.title, section=read.section, checks=tuple(read.checks),
                    seeds=_settings(path, "seeds", read.seeds, _Seed, shared=shared_seeds),
                    tolerances=_settings(path, "tolerances", read.tolerances, _Tolerance))


def _settings(path: Path, name: str, table: dict[str, Any], schema: type[_Seed] | type[_Tolerance],
              shared: dict[str, str] | None = None) -> dict[str, Setting]:
    """The [seeds] or [tolerances] of a manifest: each a table of value and description, except a `shared` one
    (an integer alone, its description the same in every exercise)."""
    settings = {}
    for key, entry in table.items():
        if shared and key in shared:
            settings[key] = Setting(convert(entry, int, path, ManifestError, f"{name}.{key}"), shared[key])
        else:
            read = convert(entry, schema, path, ManifestError, f"{name}.{key}")
            settings[key] = Setting(read.value, read.description)
    return settings
