"""The course: its lessons in order with each exercise's points, the limits of the sandboxed
worker, and the policy of what students see. Everything else about an exercise (its title,
lesson section, checks, seeds and tolerances) is data in its manifest,
graders/<lesson>/<slug>/exercise.toml, read here with tomllib into the same objects as before.

Checks read every number they need from here (never literals of their own), so an
instructor re-weights an exercise or loosens a tolerance in one place: its manifest (a new
weight also in its line of the lesson below, which the checks' points must add up to). Each
value carries a one-line description, printed by `python -m graders config`.

The student bundle copies this file as it is, beside manifests without their hidden checks
(graders/frontends/nbgrader/bundle.py). Students' pytest runs import it, so it stays light: the
standard library only, and no parsing beyond the manifests.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent  # the project folder: exercises/, reference/, graders/
# The folder of each lesson's checks and manifests: graders/ beside this file, or, in the student
# bundle where this file sits inside that folder itself (renamed nbchecks/), this file's own.
_ENGINE = ROOT / "graders" if (ROOT / "graders").is_dir() else ROOT


@dataclass(frozen=True)
class Setting:
    """A value (a number, or a name) with the sentence that says what it is for."""

    value: float | int | str
    description: str


@dataclass(frozen=True)
class Check:
    """One graded check: a pytest test `test_<id>` in graders/<lesson>/<slug>.py."""

    id: str
    points: float
    description: str
    hidden: bool = False  # hidden checks use fresh inputs and never reach students
    # A check of *how* (no .data, uses autograd, one jvp per input): only the student's own process
    # can show it, so its verdict is evidence, backed by the submitted source; it scores 0 for a
    # module that reaches for the grader's internals (graders/engine/source_evidence.py).
    how: bool = False


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


@dataclass(frozen=True)
class Lesson:
    number: int
    title: str
    folder: str  # the sub-folder of exercises/, reference/ and graders/
    text: str  # the lesson's text, in shared course material
    exercises: tuple[Exercise, ...]

    @property
    def points(self) -> float:
        return sum(exercise.points for exercise in self.exercises)

    def exercise(self, slug: str) -> Exercise:
        for exercise in self.exercises:
            if exercise.slug == slug:
                return exercise
        raise KeyError(f"lesson {self.number} has no exercise {slug!r} in course_config.py "
                       f"(it has: {', '.join(e.slug for e in self.exercises)})")


@dataclass(frozen=True)
class Limits:
    """What student code may use inside the sandboxed worker, per call and as a whole."""

    call_seconds: Setting
    import_seconds: Setting
    exercise_seconds: Setting
    submission_seconds: Setting
    memory_mb: Setting
    output_kb: Setting
    message_mb: Setting
    shown_chars: Setting
    worker_user: Setting
    tasks: Setting
    cpus: Setting
    scratch_mb: Setting
    worker_uids: Setting


LIMITS = Limits(
    call_seconds=Setting(10.0, "wall-clock seconds one call of a student function may take, its answer's "
                               "decoding included"),
    import_seconds=Setting(10.0, "wall-clock seconds the import of a student module may take"),
    exercise_seconds=Setting(60.0, "wall-clock seconds the calls of one exercise may take in all; then its "
                                   "remaining checks score 0"),
    submission_seconds=Setting(300.0, "wall-clock seconds the calls of one submission may take in all (every "
                                      "exercise); then its remaining checks score 0"),
    memory_mb=Setting(2048, "memory (MiB) a worker may add on top of what torch itself maps"),
    output_kb=Setting(64, "printed output (KiB) kept from one call; the rest is counted and dropped"),
    message_mb=Setting(16, "largest answer (MiB) a worker may send back to the grader"),
    shown_chars=Setting(300, "longest value (characters) a feedback message shows; longer ones are cut and their "
                             "length said"),
    worker_user=Setting("nobody", "the account a root grader's workers run as (an unprivileged one)"),
    tasks=Setting(64, "threads and processes a worker may have at once (its cgroup's pids.max; without cgroups, "
                      "RLIMIT_NPROC of a user of its own)"),
    cpus=Setting(1.0, "cores a worker may use at most, however many threads it runs (its cgroup's CPU quota)"),
    scratch_mb=Setting(64, "size (MiB) of a worker's scratch folder, a tmpfs of its own (as root); its pages count "
                           "against its memory too"),
    worker_uids=Setting(200000, "first of 10000 user ids a root grader's workers run as, one each, where no cgroup "
                                "caps their tasks (so that RLIMIT_NPROC counts one worker's threads only)"),
)


# What students see of a failed hidden check, in every front end (pytest, the notebooks, the batch grader's HTML,
# Gradescope, GitHub Classroom): a hidden check's inputs and expected values are next term's test, so they are never
# shown by default; the function it called and the mistake the grader named are facts about the student's code.
HIDDEN_CHECKS_SHOW = Setting("mistake", "what students see of a failed hidden check: 'outcome' (its name, pass or "
                                        "fail, and the function it called), 'mistake' (and the named mistake, if one "
                                        "was recognised: its name, meaning, hint and lesson section) or 'full' (its "
                                        "whole message, with inputs and expected values)")

# Where the lesson's text can be read, for the links of the batch grader's HTML feedback: a named section
# links to <address>#<section-title-in-lower-case-with-dashes>. Empty: sections are named, not linked.
# A test switch, not a setting: the named mistakes listed in this environment variable (names, comma-separated)
# are diagnosed as if the catalogue did not know them (graders/engine/mistakes.py), so that a test can make a class
# whose failures are unnamed (graders/frontends/grade/outputs/unnamed_groups.py). It changes no score; stored results are
# keyed by it too (graders/frontends/grade/store.py), as they are by the course.
FORGET_MISTAKES_VARIABLE = "GRADERS_FORGET_MISTAKES"

LESSON_URL = Setting("", "address of the lesson's text, to which feedback links the sections it names")

TWINS = ("seed of the fresh inputs on which each public check runs a second time when the reference is live "
         "(the instructor grades): it pays only if both runs pass, so a table of the released values earns nothing")

# The ideas of the lesson that a named mistake can break, in the order the lesson teaches them: each key is
# what a mistake's `concept` names (graders/engine/mistakes.py), and its sentence says the idea as it would be
# taught again. Many checks and mistakes share one idea (a loss summed instead of averaged shows up in three
# exercises), so the class report can count students per concept rather than per check and mistake. Every
# mistake of the catalogue names one of these, and every one of these is named (tests/test_concepts.py).
CONCEPTS: dict[str, str] = {
    "dtypes": "Every tensor has one dtype, which conversions keep: data and weights are float32, labels and whole "
              "numbers int64, NumPy's floats float64, so cast on purpose (.float(), .long(), dtype=x.dtype) instead "
              "of mixing two in one operation.",
    "devices": "A tensor lives on one device: pick it when asked (CUDA, then MPS, then the CPU) as a torch.device, "
               "and move every tensor an operation uses with .to(device), leaving other values as they are.",
    "broadcasting": "Shapes decide what an operation computes: broadcasting lines dimensions up from the right and "
                    "stretches only sizes of 1, so (100, 1) against (100,) silently becomes (100, 100), and @ needs "
                    "its inner sizes to agree.",
    "views": "A view (view, reshape where it can, slicing, .T, detach) shares its source's memory, so a write shows "
             "in both; view needs a contiguous layout, reshape copies only when it must, and only .clone() gives a "
             "copy of your own.",
    "requires_grad": "Autograd follows tensors made with requires_grad=True through torch operations only, and "
                     "backward() on a scalar fills those leaves' .grad; to differentiate someone else's tensor, make "
                     "a leaf copy of your own with x.detach().clone().requires_grad_(True).",
    "chain_rule": "The chain rule by hand: write the composition exactly, then multiply each step's own local "
                  "derivative (σ' = σ(1 − σ), the product and power rules, −1 from e^(−x)) by the gradient that "
                  "flows into it.",
    "accumulation": "backward() adds into .grad instead of replacing it: clear the gradients once per update, and let "
                    "micro-batches add up only when each one's loss is scaled to its share of the whole batch.",
    "detach_and_no_grad": "To stop tracking, detach() cuts a tensor from the graph (which .numpy() needs), .item() "
                          "takes out a plain Python number (for logs and returned floats), torch.no_grad() records "
                          "nothing (updates, inference), and .data, hidden from autograd, is never the answer.",
    "training_loop": "Gradient descent repeats the same steps in the same order (forward, the mean squared error over "
                     "every element, backward, an in-place step against the gradient, zeroing) from the start and "
                     "for the number of steps asked; a loss that settles near the noise is a finished fit.",
    "learning_rate": "The learning rate sets how far each step goes: a small one crawls, and one above the stable "
                     "limit 2/λ_max overshoots further each step until the loss grows past its start or turns nan.",
    "seeds_and_arguments": "A function's result follows from its arguments alone: seed with the seed given, draw the "
                           "data and make the model in one fixed order, and use the rate, noise, grid or form passed "
                           "in, never the lesson's example values.",
    "gradient_checking": "A gradient check estimates each partial derivative by nudging one coordinate of a copy both "
                         "ways, (f(x + h·e_i) − f(x − h·e_i)) / (2h), in float64, and reports the largest "
                         "elementwise relative gap from autograd's answer.",
    "forward_vs_reverse": "Forward and reverse mode are both exact autodiff on a recorded graph: forward mode pushes "
                          "one input direction per pass (n passes for n inputs), reverse mode pulls one output back "
                          "per pass, so a scalar loss needs a single backward.",
    "micrograd": "Autograd from scratch: sort the graph topologically, seed the output's grad with 1, run each "
                 "node's backward step once in reverse order, and add (+=) every use's share into grad.",
}


class ManifestError(ValueError):
    """An exercise's manifest is missing, not TOML, or has a missing, unknown or mistyped key."""


# Seeds whose description is the same in every exercise: a manifest gives only their value.
_SHARED_SEEDS = {"twins": TWINS}
_NUMBER = (int, float)
_KIND_NAMES = {str: "a string", bool: "true or false", int: "an integer", _NUMBER: "a number", list: "an array",
               dict: "a table"}


def manifest_path(folder: str, slug: str) -> Path:
    """Where the manifest of exercise `slug` of the lesson in `folder` is."""
    return _ENGINE / folder / slug / "exercise.toml"


def _exercise(folder: str, slug: str, points: float) -> Exercise:
    """The exercise `slug` as its manifest says, checked key by key: a typo stops the import and names
    the file and the key, rather than becoming a check worth other points or a hidden check released."""
    path = manifest_path(folder, slug)
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise ManifestError(f"{path}: cannot read the manifest of {folder}/{slug} ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{path}: not valid TOML ({error})") from None
    # withheld_points: only in the student bundle's copies, the points of the hidden checks taken out.
    _keys(path, "", data, {"title": str, "section": str, "checks": list},
          {"seeds": dict, "tolerances": dict, "withheld_points": _NUMBER})
    checks = []
    for number, entry in enumerate(data["checks"], 1):
        where = f"checks[{number}]."  # the number-th [[checks]], counted from 1
        _kind(path, where.rstrip("."), entry, dict)
        _keys(path, where, entry, {"id": str, "points": _NUMBER, "description": str}, {"hidden": bool, "how": bool})
        if any(check.id == entry["id"] for check in checks):
            raise ManifestError(f"{path}: key {where}id: {entry['id']!r} names an earlier check too")
        checks.append(Check(entry["id"], entry["points"], entry["description"], entry.get("hidden", False),
                            entry.get("how", False)))
    found = sum(check.points for check in checks) + data.get("withheld_points", 0)
    if not math.isclose(found, points, abs_tol=1e-9):
        raise ManifestError(f"{path}: the checks' points add up to {found:g}, but course_config.py gives "
                            f"{folder}/{slug} {points:g} points: change one or the other")
    return Exercise(slug=slug, title=data["title"], section=data["section"], checks=tuple(checks),
                    seeds=_settings(path, "seeds", data.get("seeds", {}), int),
                    tolerances=_settings(path, "tolerances", data.get("tolerances", {}), _NUMBER))


def _settings(path: Path, name: str, table: dict[str, Any], kind: type | tuple[type, ...]) -> dict[str, Setting]:
    """The [seeds] or [tolerances] of a manifest: each a table of value and description, except a shared seed."""
    settings = {}
    for key, entry in table.items():
        where = f"{name}.{key}"
        if name == "seeds" and key in _SHARED_SEEDS:
            settings[key] = Setting(_kind(path, where, entry, kind), _SHARED_SEEDS[key])
        else:
            _kind(path, where, entry, dict)
            _keys(path, where + ".", entry, {"value": kind, "description": str}, {})
            settings[key] = Setting(entry["value"], entry["description"])
    return settings


def _keys(path: Path, where: str, table: dict[str, Any], required: dict[str, Any], optional: dict[str, Any]) -> None:
    """`table` has every required key, no key but those and the optional ones, each of its kind."""
    known = {**required, **optional}
    for key in table:
        if key not in known:
            raise ManifestError(f"{path}: unknown key {where}{key} (known here: {', '.join(known)})")
    for key in required:
        if key not in table:
            raise ManifestError(f"{path}: missing key {where}{key}")
    for key, value in table.items():
        _kind(path, where + key, value, known[key])


def _kind(path: Path, key: str, value: Any, kind: type | tuple[type, ...]) -> Any:
    """`value`, if it is of `kind` (true and false are not numbers, though Python's bool is an int)."""
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ManifestError(f"{path}: key {key} should be {_KIND_NAMES[kind]}, not {type(value).__name__} {value!r}")
    return value


LESSON_01 = Lesson(
    number=1,
    title="Tensors and autograd",
    folder="lesson01",
    text="tensors-and-autograd.txt",
    # In the order the lesson teaches them, with their points (adding up to the lesson's 100). An
    # exercise still being written joins when its stub, reference, checks and manifest land.
    exercises=tuple(_exercise("lesson01", slug, points) for slug, points in (
        ("dtypes_and_devices", 5),
        ("shape_bugs", 8),
        ("views", 6),
        ("neuron_chain_rule", 5),
        ("finite_differences", 7),
        ("forward_vs_reverse", 6),
        ("learning_rate", 12),
        ("grad_accumulation", 6),
        ("linear_module", 6),
        ("stopping_gradients", 7),
        ("micrograd", 10),
        ("quadratic_fit", 7),
        ("sin_exp_derivative", 10),
        ("quick_check", 5),
    )),
)

LESSONS: tuple[Lesson, ...] = (LESSON_01,)


def find_exercise(folder: str, slug: str) -> tuple[Lesson, Exercise] | None:
    """The lesson and exercise that a file `<folder>/<slug>.py` belongs to, if any."""
    for lesson in LESSONS:
        if lesson.folder == folder:
            for exercise in lesson.exercises:
                if exercise.slug == slug:
                    return lesson, exercise
    return None
