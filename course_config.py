"""The course: its lessons in order with each exercise's points, the limits of the sandboxed
worker, and the policy of what students see. Everything else about an exercise (its title,
lesson section, checks, seeds and tolerances) is data in its manifest,
graders/<lesson>/<slug>/exercise.toml, which graders/engine/manifests.py reads and checks (its schema).

Checks read every number they need from here (never literals of their own), so an
instructor re-weights an exercise or loosens a tolerance in one place: its manifest (a new
weight also in its line of the lesson below, which the checks' points must add up to). Each
value carries a one-line description, printed by `python -m graders config`.

The student bundle copies this file, its import of the manifests' reader pointed at the bundle's
copy (nbchecks.engine.manifests), beside manifests without their hidden checks
(graders/frontends/nbgrader/bundle.py). Students' pytest runs import it, so it stays light: data,
and the manifests read with msgspec.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# The manifests' reader and the objects it gives, named here too (course_config.Exercise, course_config.Check,
# course_config.Setting) for the code that reads the course.
from graders.engine.manifests import Check, Exercise, Setting, read_exercises  # noqa: F401

ROOT = Path(__file__).resolve().parent  # the project folder: exercises/, reference/, graders/


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
# Seeds whose description is the same in every exercise: a manifest gives only their value.
SHARED_SEEDS = {"twins": TWINS}

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
    "python_semantics": "Python's own rules hold around tensors too: names are looked up when code runs, defaults "
                        "and caches outlive a call, an iterator runs out after one pass, and a return ends the "
                        "loop it stands in.",
    "micrograd": "Autograd from scratch: sort the graph topologically, seed the output's grad with 1, run each "
                 "node's backward step once in reverse order, and add (+=) every use's share into grad.",
}


LESSON_01 = Lesson(
    number=1,
    title="Tensors and autograd",
    folder="lesson01",
    text="tensors-and-autograd.txt",
    # In the order the lesson teaches them, with their points (adding up to the lesson's 100). An
    # exercise still being written joins when its stub, reference, checks and manifest land.
    exercises=read_exercises("lesson01", shared_seeds=SHARED_SEEDS, points=(
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
