"""`python -m graders new LESSON SLUG --title TITLE`: a new exercise's room, ready to grade.

It writes what one exercise is made of, so that an author starts from files that already work (the
stub scores 0, the reference full marks) and changes them into the real exercise:

    exercises/<lesson>/<slug>.py             the stub: one function, its docstring, NotImplementedError
    reference/<lesson>/<slug>.py             the same function, solved
    graders/<lesson>/<slug>/exercise.toml    the manifest: title, section, a public and a hidden check, seeds
    graders/<lesson>/<slug>/checks.py        the two checks, importing graders.kit alone
    graders/<lesson>/<slug>/mistakes.py      one named mistake, recognised by the public check
    graders/<lesson>/<slug>/__init__.py      the room's package (empty: a worker may import its drivers)
    tests/<lesson>/<slug>/mistakes/factor_ignored.change   the mistake's proof: a wrong answer that
                                             tests/test_mistakes.py grades and must find named as it

and adds the exercise, with its points, at the end of its lesson in course_config.py, so that the house's
tests pass on the new room at once. A lesson totals 100 points, and which exercise gives up the new one's is
the author's choice: `points_from` names it, and the scaffold lowers that exercise's points in course_config.py
and scales its checks' points in its manifest to match (in quarter points, what is left over on its largest
check). A lesson that would pass 100 without one is refused, so no scaffold leaves the house red.
docs/AUTHORING.md goes on from there. Nothing is overwritten: an exercise that exists in any of these places
is refused.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import course_config

DEFAULT_POINTS = 5.0
LESSON_TOTAL = 100.0  # what every lesson's exercises add up to (tests/test_manifests.py holds it)
QUARTER = 0.25  # the smallest step a check's scaled points take


class ScaffoldError(ValueError):
    """The exercise cannot be scaffolded as asked (a bad slug, an unknown lesson, one that exists)."""


def scaffold(lesson_folder: str, slug: str, title: str, section: str = "", points: float = DEFAULT_POINTS,
             root: Path = course_config.ROOT, points_from: str | None = None) -> list[Path]:
    """Write the new exercise's files under `root` (a checkout of this project); returns them. `points_from`
    names the exercise of the lesson that gives up the new one's points."""
    lesson = _lesson(lesson_folder)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", slug):
        raise ScaffoldError(f"{slug!r} cannot name an exercise: use lower-case letters, digits and underscores, "
                            "starting with a letter (it names a Python module)")
    if not title.strip():
        raise ScaffoldError("--title is empty: give the exercise a one-line title")
    if not points > 0:
        raise ScaffoldError(f"--points {points:g}: an exercise is worth more than 0 points")
    if not (root / "exercises").is_dir() or not (root / "course_config.py").is_file():
        raise ScaffoldError(f"{root} is not a checkout of the course (no exercises/ or course_config.py): run "
                            "this in the project's folder, with the package installed from it (pip install -e .)")
    room = root / "graders" / lesson.folder / slug
    files = {
        root / "exercises" / lesson.folder / f"{slug}.py": _STUB,
        root / "reference" / lesson.folder / f"{slug}.py": _REFERENCE,
        room / "__init__.py": _INIT,
        room / "exercise.toml": _MANIFEST,
        room / "checks.py": _CHECKS,
        room / "mistakes.py": _MISTAKES,
        root / "tests" / lesson.folder / slug / "mistakes" / "factor_ignored.change": _MISTAKE_PROOF,
    }
    taken = [str(p.relative_to(root)) for p in files if p.exists()]
    if taken or any(e.slug == slug for e in lesson.exercises):
        raise ScaffoldError(f"{lesson.folder}/{slug} exists already ({', '.join(taken) or 'in course_config.py'}): "
                            "choose another slug, or edit that exercise")
    donor = _donor(lesson, points_from, points)
    twins, fresh = _free_seeds(root)
    values = {"slug": slug, "lesson": lesson.folder, "title": _toml_string(title.strip()),
              "section": _toml_string(section.strip() or f'"{title.strip()}"'), "public_points": points - 1,
              "twins": twins, "fresh": fresh, "python_section": repr(section.strip() or f'"{title.strip()}"'),
              "docstring_title": title.strip().replace('"""', "'''")}
    config = root / "course_config.py"
    updated = _add_to_lesson(config.read_text(), lesson.folder, slug, points)
    # The donor's new manifest text, made before anything is written, so a refusal leaves the checkout as it was.
    rewritten: dict[Path, str] = {}
    if donor is not None:
        kept = donor.points - points
        updated = _with_points(updated, donor.slug, kept)
        manifest = root / "graders" / lesson.folder / donor.slug / "exercise.toml"
        rewritten[manifest] = _scaled_manifest(manifest.read_text(), [check.points for check in donor.checks], kept)
    room.mkdir(parents=True)
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**values), encoding="utf-8")
    config.write_text(updated)
    for path, text in rewritten.items():
        path.write_text(text)
    return [*files, config, *rewritten]


def _donor(lesson: course_config.Lesson, points_from: str | None, points: float) -> course_config.Exercise | None:
    """The exercise that gives up `points`, or None where the lesson has room for them."""
    if points_from is None:
        if lesson.points + points > LESSON_TOTAL + 1e-9:
            raise ScaffoldError(f"{lesson.folder} totals {lesson.points:g} points and a lesson totals "
                                f"{LESSON_TOTAL:g}: say which exercise gives up the new one's {points:g} with "
                                "--points-from SLUG (its checks' points are scaled down to match)")
        return None
    donors = {exercise.slug: exercise for exercise in lesson.exercises}
    if points_from not in donors:
        raise ScaffoldError(f"--points-from {points_from}: {lesson.folder} has no such exercise (it has: "
                            f"{', '.join(donors)})")
    donor = donors[points_from]
    if len(donor.checks) * QUARTER > donor.points - points:
        raise ScaffoldError(f"--points-from {points_from}: it is worth {donor.points:g} points over "
                            f"{len(donor.checks)} checks, too few to give up {points:g} (each check keeps at "
                            f"least {QUARTER:g}): choose another exercise or fewer --points")
    return donor


def _scaled(values: list[float], total: float) -> list[float]:
    """`values` scaled to add up to `total`, each a positive multiple of a quarter; what rounding leaves
    over goes to the largest."""
    factor = total / sum(values)
    scaled = [max(QUARTER, round(value * factor / QUARTER) * QUARTER) for value in values]
    largest = scaled.index(max(scaled))
    scaled[largest] += total - sum(scaled)
    if scaled[largest] < QUARTER:
        raise ScaffoldError(f"cannot scale checks worth {values} to {total:g} points in quarters")
    return scaled


def _scaled_manifest(text: str, points: list[float], total: float) -> str:
    """A manifest's text with its checks' `points = ...` lines (in file order) scaled to add up to `total`;
    every other line, comments included, as it was."""
    new_points = iter(_scaled(points, total))
    lines, in_check = [], False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("["):
            in_check = stripped == "[[checks]]"
        elif in_check and re.match(r"points\s*=", stripped):
            line = re.sub(r"=\s*[^#\n]*?(\s*(#.*)?)$", lambda m: f"= {next(new_points):g}{m.group(1)}", line, count=1)
        lines.append(line)
    if next(new_points, None) is not None:
        raise ScaffoldError("the manifest's [[checks]] tables do not match the exercise's checks: scale them by hand")
    return "".join(lines)


def _with_points(source: str, slug: str, points: float) -> str:
    """course_config.py with `slug`'s row in its lesson's list giving it `points`."""
    row = re.compile(rf'(\("{re.escape(slug)}", )[\d.]+(\),)')
    if len(row.findall(source)) != 1:
        raise ScaffoldError(f"course_config.py: cannot find {slug}'s one row of points: change it by hand")
    return row.sub(lambda m: f"{m.group(1)}{points:g}{m.group(2)}", source)


def _lesson(folder: str) -> course_config.Lesson:
    for lesson in course_config.LESSONS:
        if lesson.folder == folder:
            return lesson
    known = ", ".join(l.folder for l in course_config.LESSONS)
    raise ScaffoldError(f"the course has no lesson {folder!r} (it has: {known})")


def _free_seeds(root: Path) -> tuple[int, int]:
    """A twins seed and a seed for the hidden check that no manifest uses yet (a shared seed would make two
    exercises' fresh inputs move together)."""
    used: set[int] = set()
    for manifest in (root / "graders").glob("lesson*/*/exercise.toml"):
        seeds = tomllib.loads(manifest.read_text()).get("seeds", {})
        used |= {entry if isinstance(entry, int) else entry.get("value") for entry in seeds.values()}
    twins = max((s for s in used if isinstance(s, int) and 20261300 <= s < 20261400), default=20261300) + 1
    fresh = max((s for s in used if isinstance(s, int) and 20261400 <= s < 20261500), default=20261400) + 1
    return twins, fresh


def _add_to_lesson(source: str, folder: str, slug: str, points: float) -> str:
    """course_config.py with (slug, points) last in the lesson's list of exercises."""
    start = source.find(f'folder="{folder}"')
    table = re.compile(r"points=\(\n(?P<rows>(?:[ \t]+\(\"\w+\", [\d.]+\),\n)+)(?P<indent>[ \t]*)\)\)")
    found = table.search(source, start) if start >= 0 else None
    if found is None:
        raise ScaffoldError(f"course_config.py: cannot find the list of {folder}'s exercises "
                            "(`read_exercises(..., points=(...))`) to add the new one to: add it by hand")
    row_indent = re.match(r"[ \t]*", found.group("rows")).group(0)
    row = f'{row_indent}("{slug}", {points:g}),\n'
    return source[:found.end("rows")] + row + source[found.end("rows"):]


def _toml_string(text: str) -> str:
    """A TOML basic string of `text`."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_REFERENCE = '''"""{docstring_title}

The reference solution of `scale` (instructors only: never released to students).
"""

import torch
from torch import Tensor


def scale(x: Tensor, factor: float) -> Tensor:
    """Every element of x times `factor`, as a new tensor of x's shape and dtype.

    Args:
        x: a tensor of any shape.
        factor: the number to multiply by.

    Returns:
        A tensor like x; x itself is left unchanged.
    """
    return x * factor
'''

# The scaffold's mistake, proved: the reference with the factor left out, which fails both checks, each naming
# it (tests/mistake_catalogue.py reads the format; the replaced line is the reference's own, kept in step).
_MISTAKE_PROOF = """# mistake: factor ignored
# fails: scale_on_fixed_input, scale_on_fresh_inputs

@@ replace
    return x * factor
@@ with
    return x
@@ end
"""

# The stub is the reference with its body taken out (same signature, same docstring).
_STUB = (_REFERENCE.replace("The reference solution of `scale` (instructors only: never released to students).",
                            "Write `scale` below: replace `raise NotImplementedError` with your code, then run\n"
                            "`pytest exercises/{lesson}/{slug}.py` to see which checks pass.")
         .replace("    return x * factor\n", '    raise NotImplementedError("scale")\n'))

_INIT = '''"""The room of `{slug}`: its manifest (exercise.toml), checks, named mistakes and helpers. Empty on
purpose: a worker imports a room's drivers through this package, and must load nothing else of the grader."""
'''

_MANIFEST = '''# {lesson}/{slug}: title, lesson section, checks, seeds and tolerances (their schema: graders/engine/manifests.py),
# served by course_config.py (where the exercise's place in the lesson and its points are, which its checks'
# points must add up to).
# A check's id names its test, test_<id>, in checks.py; hidden = true keeps it from students.
# Print them all: python -m graders config --exercise {slug}

title = {title}
section = {section}

[[checks]]
id = "scale_on_fixed_input"
points = {public_points:g}
description = "scale(x, 3.0) for x = [1.0, -2.0, 0.5]"

[[checks]]
id = "scale_on_fresh_inputs"
points = 1
hidden = true
description = "scale on seeded random float64 inputs of other sizes, by a negative factor"

[seeds]
twins = {twins}

[seeds.fresh_inputs]
value = {fresh}
description = "seed of the hidden check's random inputs"

[tolerances.float32]
value = 1e-6
description = "absolute and relative tolerance for float32 results"

[tolerances.float64]
value = 1e-12
description = "absolute and relative tolerance for float64 results"
'''

_CHECKS = '''"""Checks of `{slug}`.

Oracle: the reference run on the same inputs in this process. The public check uses a fixed input (in its
twin run, when the reference is live, fresh values of the same kind); the hidden one seeded random float64
inputs, so that an answer written in for the fixed input earns nothing there.
"""

from __future__ import annotations

from types import ModuleType

import torch

from graders.kit import Returned, Student, Suspect, checks_for, exercise, expect_tensor, twin, twin_random
from graders.{lesson}.{slug}.mistakes import FACTOR_IGNORED, SECTION

EXERCISE = exercise("{lesson}", "{slug}")
check = checks_for("{lesson}", EXERCISE.slug)


def fixed_input() -> torch.Tensor:
    """The public check's x; in its twin run, three fresh values of the same range."""
    if not twin():
        return torch.tensor([1.0, -2.0, 0.5])
    draw = twin_random()
    return torch.tensor([round(draw.uniform(-3.0, 3.0), 2) for _ in range(3)])


def expect_scaled(returned: Returned, reference: ModuleType, x: torch.Tensor, factor: float) -> None:
    __tracebackhide__ = True
    tolerance = EXERCISE.tolerance("float64" if x.dtype == torch.float64 else "float32")
    expect_tensor(returned, reference.scale(x, factor), rtol=tolerance, atol=tolerance, section=SECTION,
                  suspects=[Suspect(FACTOR_IGNORED, x)], hint="Multiply x by factor and return the product.")


@check
def test_scale_on_fixed_input(student: Student, reference: ModuleType) -> None:
    x = fixed_input()
    expect_scaled(student.call("scale", x, 3.0), reference, x, 3.0)


@check
def test_scale_on_fresh_inputs(student: Student, reference: ModuleType) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_inputs"))
    for size in (1, 6):
        x = torch.randn(size, generator=generator, dtype=torch.float64)
        expect_scaled(student.call("scale", x, -0.5), reference, x, -0.5)
'''

_MISTAKES = '''"""The named mistakes of `{slug}`: each a slip the lesson warns about, with what it means and a hint.

Collected by the engine in the order written here, not listed by hand.
"""

from __future__ import annotations

from graders.kit import Mistake

SECTION = {python_section}

FACTOR_IGNORED = Mistake(
    "factor ignored",
    "Your result equals x itself: the factor was never applied.",
    "Return x * factor.",
    SECTION,
    concept="broadcasting",  # a key of course_config.CONCEPTS: the lesson idea the mistake breaks
)
'''
