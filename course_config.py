"""The one manifest of the course: lessons, exercises in lesson order, points, seeds,
tolerances and the limits of the sandboxed worker.

Checks read every number they need from here (never literals of their own), so an
instructor can re-weight an exercise or loosen a tolerance in one place. Each value
carries a one-line description, printed by `python -m graders config`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent  # the project folder: exercises/, reference/, graders/


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
        raise KeyError(f"{self.slug} has no check {check_id!r} in course_config.py (it has: {known})")

    def seed(self, name: str) -> int:
        return int(self._setting(self.seeds, name, "seed").value)

    def tolerance(self, name: str) -> float:
        return float(self._setting(self.tolerances, name, "tolerance").value)

    def _setting(self, table: dict[str, Setting], name: str, kind: str) -> Setting:
        if name not in table:
            raise KeyError(f"{self.slug} has no {kind} {name!r} in course_config.py (it has: {', '.join(table)})")
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
        raise KeyError(f"lesson {self.number} has no exercise {slug!r} in course_config.py")


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


# Exercises still being written: each gets its checks (and so its place in the lesson) when
# its stub, reference and checks land. Their planned points add up, with the exercises
# above, to the lesson's 100: dtypes_and_devices 5, shape_bugs 8, views 6,
# neuron_chain_rule 5, finite_differences 7, forward_vs_reverse 6, learning_rate 12,
# grad_accumulation 6, linear_module 6, stopping_gradients 7, micrograd 10,
# quadratic_fit 7, sin_exp_derivative 10, quick_check 5.

# What students see of a hidden check, in every front end (pytest, the notebooks, the batch grader's HTML,
# Gradescope, GitHub Classroom): a hidden check's inputs and expected values are next term's test, so by
# default only its name and outcome are shown.
HIDDEN_CHECKS_SHOW = Setting("outcome", "what students see of a failed hidden check: 'outcome' (its name and "
                                        "pass or fail), 'mistake' (and the named mistake, if one was recognised) "
                                        "or 'full' (its whole message, with inputs and expected values)")

# Where the lesson's text can be read, for the links of the batch grader's HTML feedback: a named section
# links to <address>#<section-title-in-lower-case-with-dashes>. Empty: sections are named, not linked.
LESSON_URL = Setting("", "address of the lesson's text, to which feedback links the sections it names")

TWINS = ("seed of the fresh inputs on which each public check runs a second time when the reference is live "
         "(the instructor grades): it pays only if both runs pass, so a table of the released values earns nothing")


# ---- dtypes_and_devices (begin)
DTYPES_AND_DEVICES = Exercise(
    slug="dtypes_and_devices",
    title="Dtypes and devices: float32 features, int64 labels, every tensor on one device",
    section='"Tensors" (dtype and device), "Common pitfalls" (mixing dtypes) and, in the companion, '
            '"Devices: CPU, CUDA, MPS"',
    checks=(
        Check("features_are_float32", 1, "to_features turns the lesson's float64 NumPy arrays into float32 tensors"),
        Check("labels_are_int64", 1, "to_labels gives int64 labels from integer and whole-number float arrays"),
        Check("pick_device_prefers_cuda_then_mps", 1, "pick_device gives cuda, else mps, else cpu, with each "
              "backend made available or not in turn"),
        Check("move_batch_moves_every_tensor", 1, "move_batch sends every tensor of the batch to cpu and to meta, "
              "keeping keys, dtypes, shapes and the values that are not tensors"),
        Check("conversions_on_fresh_arrays", 0.5, "to_features and to_labels on random arrays of other shapes and "
              "dtypes (float32, int32, int64)", hidden=True),
        Check("move_batch_on_fresh_batches", 0.5, "move_batch on a batch with other keys, dtypes (float64, bool) "
              "and values that are not tensors", hidden=True),
    ),
    seeds={
        "twins": Setting(20261301, TWINS),
        "fresh_arrays": Setting(20261203, "seed of the hidden check's random NumPy arrays"),
        "fresh_batches": Setting(20261204, "seed of the hidden check's random batch"),
    },
    tolerances={
        "values": Setting(0.0, "allowed gap between converted or moved values and the reference's: "
                               "casting and moving are exact"),
    },
)
# ---- dtypes_and_devices (end)

# ---- shape_bugs (begin)
SHAPE_BUGS = Exercise(
    slug="shape_bugs",
    title="Shape bugs: broadcasting rules and a loss that refuses to broadcast",
    section='"Common pitfalls" (shape mismatches) and "Shapes and Broadcasting" in the companion text',
    checks=(
        Check("broadcast_shape_lesson_cases", 1, "broadcast_shape on the course texts' pairs: (3, 4) with (4,), "
              "(100, 1) with (100,), (1, 1, 8, 8) with (8, 8), (32, 3, 224, 224) with (3, 1, 1)"),
        Check("broadcast_shape_generated_pairs", 1.5, "broadcast_shape agrees with torch.broadcast_shapes on "
              "generated pairs, compatible or not, with size-0 and size-1 dimensions and different ranks"),
        Check("broadcast_shape_error_names_shapes", 0.5, "shapes that do not broadcast raise ValueError "
              "naming both shapes"),
        Check("silently_broadcasts_lesson_cases", 1, "silently_broadcasts flags (100, 1) with (100,) and "
              "nothing that keeps pred's shape or fails loudly"),
        Check("mse_loss_matches_torch", 1, "mse_loss equals torch's mse_loss, gradient included, on the "
              "worked example's data"),
        Check("mse_loss_refuses_mismatched_shapes", 1, "mse_loss(pred (100, 1), y (100,)) raises ValueError "
              "naming both shapes"),
        Check("broadcast_shape_fresh_pairs", 1, "broadcast_shape on 400 other generated pairs, ranks up to 8 "
              "and sizes up to 7", hidden=True),
        Check("silently_broadcasts_fresh_pairs", 0.5, "silently_broadcasts on generated pairs", hidden=True),
        Check("mse_loss_fresh_inputs", 0.5, "mse_loss on float64 and 2-D inputs, and four other mismatches",
              hidden=True),
    ),
    seeds={
        "twins": Setting(20261302, TWINS),
        "lesson_data": Setting(42, "the worked example's torch.manual_seed, which draws its 100 points X, y"),
        "generated_pairs": Setting(1202, "hypothesis seed of the public check's shape pairs (graders/cases/)"),
        "fresh_pairs": Setting(20261202, "hypothesis seed of the hidden checks' shape pairs"),
        "fresh_tensors": Setting(7, "seed of the hidden checks' random pred and target tensors"),
        "shuffle": Setting(3, "seed of the permutation that shuffles the targets in the metamorphic test"),
    },
    tolerances={
        "float32": Setting(1e-5, "absolute and relative tolerance for float32 losses and gradients"),
        "float64": Setting(1e-10, "absolute and relative tolerance for float64 losses and gradients"),
    },
)
# ---- shape_bugs (end)

# ---- views (begin)
VIEWS = Exercise(
    slug="views",
    title="Views and copies: reshape without copying, and tell shared memory from equal values",
    section='"Reshape vs. View vs. Contiguous" in the companion text (and "Operations, broadcasting and '
            'reshaping")',
    checks=(
        Check("as_grid_is_a_view", 1.5, "as_grid(torch.arange(12), rows) for 3 and 2 rows: the right grid, "
              "sharing x's storage"),
        Check("flatten_contiguous_is_a_view", 1, "flatten of the lesson's contiguous 3×4 x: the right values, "
              "as a view of x"),
        Check("flatten_non_contiguous", 1, "flatten(x.T) and flatten(x[:, ::2]) give x's elements in row-major "
              "order, the second as a view (its elements sit at equal steps)"),
        Check("shares_memory_on_lesson_pairs", 1.5, "shares_memory on views, a transpose, a slice, a clone, a "
              "reshaped copy and an equal tensor of torch.arange(12)"),
        Check("views_on_fresh_tensors", 0.5, "as_grid and flatten on shuffled float64 and int32 inputs, slices "
              "that start past their storage's first element and a permuted 3-D tensor", hidden=True),
        Check("shares_memory_on_fresh_pairs", 0.5, "shares_memory on more pairs (interleaved slices, detach) of "
              "shuffled float64 and int32 tensors", hidden=True),
    ),
    seeds={"twins": Setting(20261303, TWINS),
           "fresh_tensors": Setting(20261205, "first seed of the hidden checks' shuffled inputs (each input "
                                              "adds 1 to it)")},
    tolerances={"values": Setting(0.0, "allowed gap between the student's and the reference's values: "
                                       "views and copies move no number, so they must be equal")},
)
# ---- views (end)

# ---- neuron_chain_rule (begin)
NEURON_CHAIN_RULE = Exercise(
    slug="neuron_chain_rule",
    title="A single neuron, differentiated by autograd and by the chain rule",
    section='"Autograd: gradients for free" (the single artificial neuron and its chain rule)',
    checks=(
        Check("neuron_on_lesson_case", 1, "neuron(w, inp) gives the lesson's 0.9526 for w = [1, −2, 0.5], "
              "inp = [3, 1, 4]"),
        Check("neuron_keeps_the_graph", 0.5, "neuron's output is 0.9526 and backward() through it fills w.grad "
              "with the lesson's [0.1355, 0.0452, 0.1807]"),
        Check("grad_by_hand_on_lesson_case", 1.5, "neuron_grad_by_hand gives the lesson's [0.1355, 0.0452, 0.1807]"),
        Check("grad_by_hand_without_autograd", 0.5, "neuron_grad_by_hand gives the right gradient and uses no "
              "backward() or autograd.grad", how=True),
        Check("neuron_on_fresh_inputs", 0.5, "neuron on random weights and inputs of other sizes, float64",
              hidden=True),
        Check("grad_by_hand_on_fresh_inputs", 1, "neuron_grad_by_hand on random weights and inputs of other sizes, "
              "float64, against torch.autograd", hidden=True),
    ),
    seeds={"twins": Setting(20261304, TWINS),
           "fresh_inputs": Setting(20261204, "seed of the hidden checks' random weights and inputs")},
    tolerances={
        "float32": Setting(1e-5, "absolute and relative tolerance for float32 outputs and gradients"),
        "float64": Setting(1e-10, "absolute and relative tolerance for float64 outputs and gradients"),
    },
)
# ---- neuron_chain_rule (end)

# ---- finite_differences (begin)
FINITE_DIFFERENCES = Exercise(
    slug="finite_differences",
    title="Gradients by finite differences, and the gradient check",
    section='the companion\'s "Why Do We Need Automatic Differentiation?" (option 2, finite differences)',
    checks=(
        Check("numerical_gradient_matches_autograd", 1.5, "central differences match torch.autograd in float64 on "
              "three fixed functions (sum of sines, quadratic form, log-sum-exp)"),
        Check("numerical_gradient_calls_f_twice_per_coordinate", 1, "numerical_gradient gives the right estimate "
              "with exactly 2n calls of f for n coordinates", how=True),
        Check("numerical_gradient_leaves_x_unchanged", 1, "the estimate is right, with x's shape and dtype, and "
              "the caller's x is untouched"),
        Check("relative_error_on_fixed_cases", 1, "relative_error on four fixed pairs, zeros and tiny values included"),
        Check("gradient_check_is_small_for_smooth_functions", 1, "gradient_check of the three fixed functions at a "
              "float32 point (and of one at a float64 point) is below 1e-7, and the caller's x is untouched"),
        Check("numerical_gradient_on_fresh_functions", 1, "fresh coefficients, sizes 3 and 8 in float64, size 6 in "
              "float32 with h = 1e-2", hidden=True),
        Check("gradient_check_catches_a_wrong_backward", 0.5, "gradient_check measures the gap of an autograd "
              "function whose backward drops a chain-rule factor", hidden=True),
    ),
    seeds={
        "twins": Setting(20261305, TWINS),
        "public_functions": Setting(20261204, "seed of the public point and the fixed functions' coefficients"),
        "fresh_functions": Setting(20261205, "seed of the hidden checks' points and coefficients (and, plus one, "
                                   "of the wrong-backward case)"),
    },
    tolerances={
        "default_step": Setting(1e-5, "numerical_gradient's default h, used to rebuild the forward-difference mistake"),
        "float64_gradient": Setting(1e-7, "absolute and relative tolerance of a float64 estimate against autograd "
                                    "(central differences reach ~1e-10; forward ones only ~1e-5)"),
        "float32_step": Setting(1e-2, "the h given to numerical_gradient for the hidden float32 case"),
        "float32_gradient": Setting(1e-3, "absolute and relative tolerance of the float32 estimate with h = 1e-2"),
        "relative_error": Setting(1e-6, "absolute and relative tolerance on relative_error's answers (loose enough "
                                  "for a floor of 1e-8 written as a float32 tensor)"),
        "gradient_check_limit": Setting(1e-7, "gradient_check of a correct gradient must be below this"),
        "wrong_backward_error": Setting(1e-4, "absolute and relative tolerance on gradient_check's answer for the "
                                        "wrong backward (its true value is 0.2 to 0.5)"),
    },
)
# ---- finite_differences (end)

# ---- forward_vs_reverse (begin)
FORWARD_VS_REVERSE = Exercise(
    slug="forward_vs_reverse",
    title="Forward mode and reverse mode: the same gradient at different costs",
    section='the companion\'s "Forward Mode vs. Reverse Mode" (and "Key Takeaways")',
    checks=(
        Check("forward_mode_matches_autograd", 1.25, "gradient_forward_mode matches torch.autograd on the lesson's "
              "sigmoid neuron and a fixed tanh layer"),
        Check("forward_mode_one_jvp_per_input", 0.75, "gradient_forward_mode gives the right gradient with n "
              "torch.func.jvp calls, each one call of f, for n inputs", how=True),
        Check("reverse_mode_matches_autograd", 1, "gradient_reverse_mode matches torch.autograd on the same two "
              "functions"),
        Check("reverse_mode_one_pass", 0.75, "gradient_reverse_mode gives the right gradient and calls f once",
              how=True),
        Check("passes_needed_on_fixed_cases", 0.75, "passes_needed for a scalar loss of a million inputs and a "
              "3-input, 50-output function; ValueError for another mode"),
        Check("both_modes_on_fresh_functions", 1, "both modes on fresh functions, sizes 2 to 7, float64 and float32, "
              "one x requiring grad (the result must not, and x stays as it was)",
              hidden=True),
        Check("passes_needed_on_generated_cases", 0.5, "passes_needed on seeded random sizes, and ValueError for "
              "other modes, also for \"Forward\" and \" forward\"", hidden=True),
    ),
    seeds={
        "twins": Setting(20261306, TWINS),
        "public_functions": Setting(20261206, "seed of the public tanh layer and its point"),
        "fresh_functions": Setting(20261207, "seed of the hidden functions and points (and, plus one, of the "
                                   "generated passes_needed sizes)"),
    },
    tolerances={
        "float32": Setting(1e-5, "absolute and relative tolerance of a float32 gradient against torch.autograd"),
        "float64": Setting(1e-10, "absolute and relative tolerance of a float64 gradient against torch.autograd"),
    },
)
# ---- forward_vs_reverse (end)

# ---- learning_rate (begin)
LEARNING_RATE = Exercise(
    slug="learning_rate",
    title="Gradient descent on a line, and what the learning rate does to it",
    section='"Worked example: fitting a line by gradient descent" and "Try it yourself", exercise 1',
    checks=(
        Check("make_line_data_matches_lesson", 0.5, "make_line_data() gives the lesson's 100 points"),
        Check("first_update_matches_lesson", 1, "one step at lr 0.1: loss 15.4288 before it, then w 0.792, b −0.362"),
        Check("lesson_run_at_lr_0_1", 1.5, "101 steps at lr 0.1 follow the lesson's loss curve to 0.0597, w 2.965, b −2.000"),
        Check("losses_are_python_floats", 1, "5 steps at lr 0.1 give the right run, as a list of Python floats and "
              "w, b as Python floats, with one backward() per step", how=True),
        Check("lr_0_01_is_slow", 1.5, "at lr 0.01 the loss curve matches and first drops below 0.06 near step 248"),
        Check("lr_1_1_diverges", 1, "at lr 1.1 the loss grows about fourfold each step, as the reference's does"),
        Check("steps_to_reach_finds_first_step", 0.75, "steps_to_reach gives the first step strictly below the target, "
              "or None"),
        Check("diverged_spots_blow_ups", 0.75, "diverged is True for inf or nan losses, or any loss past the first, "
              "and False otherwise (a loss equal to the first, an empty list)"),
        Check("max_stable_learning_rate_on_lesson_data", 1, "2 / λ_max of the MSE's Hessian on the lesson's X: 0.7201"),
        Check("make_line_data_other_seeds", 0.5, "make_line_data follows n and seed", hidden=True),
        Check("train_line_on_fresh_data", 1.5, "train_line on other lines, sizes, rates and float64 data", hidden=True),
        Check("max_stable_learning_rate_on_fresh_data", 1, "the largest stable rate for other X, float64 and "
              "off-centre", hidden=True),
    ),
    seeds={"twins": Setting(20261307, TWINS),
           "fresh_data": Setting(20261202, "seed of the hidden checks' data")},
    tolerances={
        "loss": Setting(1e-4, "relative tolerance of losses, w and b against the reference run on the same data"),
        "loss_atol": Setting(1e-6, "absolute tolerance added to the relative one, for losses near 0"),
        "mistake": Setting(1e-3, "relative tolerance when matching a run against a named mistake's run"),
        "steps_band": Setting(1, "how many steps the first loss below 0.06 at lr 0.01 may be off from the "
                                 "reference's (247 and 248 differ by 1e-6 in the loss)"),
        "rate": Setting(1e-5, "relative tolerance of the largest stable learning rate"),
        "data": Setting(1e-6, "absolute and relative tolerance of make_line_data's float32 values"),
    },
)
# ---- learning_rate (end)

# ---- grad_accumulation (begin)
GRAD_ACCUMULATION = Exercise(
    slug="grad_accumulation",
    title="Gradients accumulate: forgetting zero_grad(), and using it on purpose",
    section='"Worked example" (the x.grad = 6, 12, 18 loop) and the companion\'s "zero_grad — reset between steps"',
    checks=(
        Check("repeated_backward_on_lesson_case", 1, "repeated_backward_grads(3.0, 3) gives the lesson's 6, 12, 18, "
              "from one backward() per pass", how=True),
        Check("accumulated_gradient_even_split", 1, "the lesson's 100 points in 4 micro-batches of 25 give the "
              "full-batch autograd gradient"),
        Check("accumulated_gradient_uneven_split", 1, "the lesson's 100 points in 3 micro-batches (34, 33, 33) give "
              "the full-batch autograd gradient"),
        Check("backward_once_per_micro_batch", 0.5, "accumulated_gradient gives the right gradient with one "
              "backward() per micro-batch", how=True),
        Check("accumulated_gradient_is_clean", 0.5, "the result is the right gradient, detached, shaped like w, "
              "same dtype; the caller's w is untouched, also a w that requires grad"),
        Check("repeated_backward_at_fresh_points", 0.5, "repeated_backward_grads at other points and numbers of "
              "calls", hidden=True),
        Check("accumulated_gradient_on_fresh_data", 1.5, "random float32 and float64 data, other sizes, even and "
              "uneven splits, against full-batch torch.autograd", hidden=True),
    ),
    seeds={
        "twins": Setting(20261308, TWINS),
        "lesson_data": Setting(42, "the lesson's torch.manual_seed(42), which makes its 100 noisy points"),
        "fresh_data": Setting(20261203, "seed of the hidden checks' random points, weights and data"),
    },
    tolerances={
        "float32": Setting(1e-5, "absolute and relative tolerance for float32 gradients"),
        "float64": Setting(1e-10, "absolute and relative tolerance for float64 gradients"),
    },
)
# ---- grad_accumulation (end)

# ---- linear_module (begin)
LINEAR_MODULE = Exercise(
    slug="linear_module",
    title="The same model, the PyTorch way: nn.Linear, nn.MSELoss and optim.SGD",
    section='"The same model, the PyTorch way"',
    checks=(
        Check("returns_plain_numbers", 0.5, "returns a list of one Python float per step, then the weight and "
              "the bias as Python floats"),
        Check("lesson_numbers", 1, "reproduces the lesson's printout: loss 13.4355 at step 0, 0.0597 from step 50, "
              "weight 2.965, bias -2.0; fit_linear_module() with its defaults gives that run too"),
        Check("matches_reference", 1.5, "every loss, the weight and the bias equal the reference run on the "
              "lesson's seed, learning rate and steps"),
        Check("uses_module_loss_and_optimiser", 1, "each step runs the linear layer, the MSE loss and "
              "optimiser.step() once", how=True),
        Check("loop_order", 0.5, "each step clears the gradients, then calls backward(), then step()", how=True),
        Check("fresh_runs", 1.5, "other seeds, learning rates and numbers of steps, compared with the reference",
              hidden=True),
    ),
    seeds={
        "twins": Setting(20261309, TWINS),
        "fresh_first": Setting(7, "seed of the first hidden run (lr 0.05, 30 steps)"),
        "fresh_second": Setting(2026, "seed of the second hidden run (lr 0.3, 7 steps)"),
    },
    tolerances={
        "loss": Setting(1e-5, "tolerance between the student's and the reference's losses and parameters: "
                        "|got - want| <= tol * (1 + |want|)"),
        "printed_loss": Setting(5e-5, "how far a loss may be from the lesson's 4-decimal printout"),
        "printed_parameter": Setting(5e-4, "how far the weight and bias may be from the lesson's 3-decimal printout"),
    },
)
# ---- linear_module (end)

# ---- stopping_gradients (begin)
STOPPING_GRADIENTS = Exercise(
    slug="stopping_gradients",
    title="Stopping gradients: no_grad for inference and updates, detach for NumPy, never .data",
    section='"The Detach / no_grad / .data Triangle" in the companion text',
    checks=(
        Check("predict_values", 1, "predict(weight, bias, X) equals X @ weight.T + bias on the lesson's line"),
        Check("predict_records_no_graph", 1, "with parameters that require grad, predict computes under no_grad "
              "and returns a tensor with no grad_fn", how=True),
        Check("sgd_step_updates_in_place", 1.5, "sgd_step changes the given tensors to p - lr * p.grad, they stay "
              "leaves that require grad, and it returns None"),
        Check("sgd_step_zeroes_grads", 1, "after sgd_step every parameter's .grad holds zeros (or is None)"),
        Check("no_data_attribute", 0.5, "none of the three functions reads or writes .data", how=True),
        Check("to_numpy_values", 1, "to_numpy of a tensor that requires grad gives an ndarray of the same values "
              "and dtype"),
        Check("float64_other_shapes", 1, "all three functions on random float64 inputs of other shapes and "
              "another lr", hidden=True),
    ),
    seeds={"twins": Setting(20261310, TWINS),
           "random_inputs": Setting(31415, "seed of the hidden check's random weights, inputs and gradients")},
    tolerances={
        "float32": Setting(1e-6, "absolute and relative tolerance for float32 predictions and updated parameters"),
        "float64": Setting(1e-12, "absolute and relative tolerance for float64 predictions and updated parameters"),
    },
)
# ---- stopping_gradients (end)

# ---- micrograd (begin)
MICROGRAD = Exercise(
    slug="micrograd",
    title="Micrograd: a scalar Value class with its own backward()",
    section='the companion\'s "Building Autograd From Scratch (Karpathy\'s Micrograd)", with the chain rule of '
            '"Autograd: gradients for free"',
    checks=(
        Check("value_holds_data_and_grad", 0.5, "Value(0.5) has data 0.5, grad 0.0 and prints as "
              "Value(data=0.5, grad=0.0)"),
        Check("forward_values", 1, "every node of the public expressions holds the value torch computes, "
              "before any backward()"),
        Check("arithmetic_with_numbers", 1, "values and leaf grads of + - * and unary minus, between Values and "
              "with numbers on either side (2 * a, 1 - a, 1 + a), Python ints too (a + 1, 2 / a)"),
        Check("pow_and_div", 1, "values and leaf grads of ** with int and float exponents, and of / (a / b, 2 / a)"),
        Check("tanh_and_exp", 1, "values and leaf grads of tanh() and exp(), alone, after arithmetic and before it"),
        Check("relu", 0.5, "values and leaf grads of relu() on positive, negative and exactly-zero inputs "
              "(relu'(0) = 0, as in torch)"),
        Check("lesson_neuron", 1, "σ(w · inp) = 1 / (1 + exp(−z)) built from Values gives the lesson's 0.9526 "
              "and d out / d w = [0.1355, 0.0452, 0.1807]"),
        Check("reused_leaves", 1, "leaf grads when a leaf is used more than once (a * a, a * b + a, ...)"),
        Check("shared_subexpressions", 1, "leaf grads when an inner node is used more than once, so that the "
              "order of the backward pass matters"),
        Check("random_graphs", 1, "seeded random expressions of every operation, with nodes reused several times",
              hidden=True),
        Check("deep_chain", 1, "a chain 300 nodes deep, x = tanh(x * w + b) a hundred times, with w and b reused "
              "at every step", hidden=True),
    ),
    seeds={
        "twins": Setting(20261311, TWINS),
        "generated_expressions": Setting(20261205, "hypothesis seed of the hidden check's random expressions "
                                                  "(graders/cases/)"),
        "chain": Setting(20261206, "hypothesis seed of the hidden chain's starting values and operand order"),
    },
    tolerances={
        "values": Setting(1e-9, "absolute and relative tolerance between a student's Python floats and torch's "
                                "float64 values and gradients"),
        "random_graph_count": Setting(30, "how many random expressions the hidden check builds"),
        "random_graph_nodes": Setting(14, "most operations in one random expression (at least 4)"),
        "max_paths": Setting(100, "most paths from the output to one node in a random expression, so that a "
                                  "backward pass without a visited set still ends quickly"),
        "chain_depth": Setting(300, "nodes in the deep chain: deep enough to need a real graph walk, shallow "
                                    "enough for a recursive topological sort (Python's recursion limit is 1000)"),
    },
)
# ---- micrograd (end)

# ---- quadratic_fit (begin)
QUADRATIC_FIT = Exercise(
    slug="quadratic_fit",
    title="Fit a quadratic by gradient descent",
    section='"Try it yourself", exercise 2 (and "Worked example: fitting a line by gradient descent")',
    checks=(
        Check("make_quadratic_data_follows_recipe", 1, "make_quadratic_data() gives the recipe's X and y "
              "(seed 0, n 100, noise 0.3)"),
        Check("fit_is_close_to_true_coefficients", 1, "60 steps at lr 0.1 on the lesson's data land within 0.1 of "
              "(0.5, −1, 1)"),
        Check("fit_matches_reference", 1, "after 60 steps at lr 0.1, (a, b, c) equal the reference's on the same data"),
        Check("fit_reaches_least_squares", 1, "after 200 steps at lr 0.1, (a, b, c) equal the least-squares fit"),
        Check("fit_uses_autograd", 0.5, "after 3 steps, (a, b, c) equal the reference's and fit_quadratic calls "
              "backward (or autograd.grad)", how=True),
        Check("make_quadratic_data_with_other_arguments", 0.5, "make_quadratic_data with another n, seed and noise",
              hidden=True),
        Check("fit_on_other_coefficients", 1, "fit_quadratic on float64 data from y = −2x² + 0.3x + 4 matches the "
              "reference", hidden=True),
        Check("fit_follows_lr_and_steps", 1, "fit_quadratic with other rates and step counts matches the reference",
              hidden=True),
    ),
    seeds={
        "twins": Setting(20261312, TWINS),
        "lesson": Setting(0, "seed of the lesson's data: make_quadratic_data's default"),
        "other_data": Setting(20261204, "seed passed to make_quadratic_data by the hidden data check"),
        "other_coefficients": Setting(20261205, "seed of the hidden check's data from y = −2x² + 0.3x + 4"),
        "worked_example": Setting(42, "the worked example's torch.manual_seed(42): the seed of the data a "
                                  "recipe with 42 written in place of the seed argument makes"),
    },
    tolerances={
        "data": Setting(1e-6, "absolute and relative tolerance for X and y against the reference's"),
        "true_coefficients": Setting(0.1, "largest allowed gap between the learned and the true (0.5, −1, 1)"),
        "reference": Setting(1e-4, "largest allowed gap between the learned (a, b, c) and the reference's"),
        "least_squares": Setting(1e-5, "largest allowed gap to the least-squares fit after 200 steps (measured: 4e-7)"),
        "mistake_match": Setting(1e-3, "largest relative gap between an answer and a mistake's output for the "
                                 "mistake to be named; also how far a first step's scale and cosine may be from "
                                 "the one a mistake gives (−1 for a step uphill)"),
        "diverged": Setting(1e3, "a coefficient beyond this (or nan or inf) means gradient descent blew up"),
    },
)
# ---- quadratic_fit (end)

# ---- quick_check (begin)
QUICK_CHECK = Exercise(
    slug="quick_check",
    title="Quick Check: ten multiple-choice questions on tensors and autograd",
    section='the section named after each question in exercises/lesson01/quick_check.py (the lesson and '
            'its companion text)',
    checks=(
        Check("tensor_dtypes", 0.8, "form A, questions 1 and 2: the dtype of torch.arange(6), and float64 input "
              "meeting float32 weights"),
        Check("shapes_and_views", 0.8, "form A, questions 3 and 4: the shape of (100, 1) − (100,), and view on a "
              "transposed tensor"),
        Check("autograd", 0.8, "form A, questions 5 and 6: x.grad after three backward calls, and why reverse mode"),
        Check("stopping_tracking", 0.8, "form A, questions 7 and 8: no graph during evaluation, and .numpy() on a "
              "tensor that requires grad"),
        Check("training_loop", 0.8, "form A, questions 9 and 10: learning rate 1.1 on the line, and why the loss "
              "stays at 0.0597"),
        Check("form_b", 1, "form B: the same ten questions with their options in another order, so letters "
              "copied from form A fail", hidden=True),
    ),
    seeds={"twins": Setting(20261313, TWINS)},
)
# ---- quick_check (end)


# ---- sin_exp_derivative (begin)
SIN_EXP_DERIVATIVE = Exercise(
    slug="sin_exp_derivative",
    title="The derivative of sin(x)·e^(−x), by autograd and by hand",
    section='"Try it yourself", exercise 3 (and "Autograd: gradients for free")',
    checks=(
        Check("f_on_lesson_grid", 1, "f(x) equals sin(x)·e^(−x) on the lesson's 50 points in [0, 5], and on a "
              "float64 (2, 3) tensor, whose shape and dtype it keeps, and on the grid requiring grad"),
        Check("autograd_derivative_on_lesson_grid", 2, "autograd_derivative matches torch.autograd on the lesson's grid"),
        Check("autograd_derivative_uses_autograd", 1, "autograd_derivative is right on the lesson's grid and "
              "differentiates f by autograd: with f replaced by t ** 3 it returns 3x²", how=True),
        Check("autograd_derivative_is_clean", 1, "the result is right and detached; the caller's x is untouched, also "
              "an x that requires grad"),
        Check("analytic_derivative_on_lesson_grid", 1, "analytic_derivative equals e^(−x)(cos x − sin x) on the lesson's grid"),
        Check("analytic_derivative_without_autograd", 1, "analytic_derivative is right and computes the formula "
              "without autograd", how=True),
        Check("max_abs_difference_is_small", 0.5, "max_abs_difference() is the largest gap between the student's two "
              "derivatives on the lesson's grid, below 1e-6, and both derivatives are right"),
        Check("derivatives_on_fresh_points", 1, "both derivatives on random points, float64 and 2-D inputs", hidden=True),
        Check("derivatives_near_stationary_points", 1, "both derivatives near π/4 and 5π/4, where they are zero", hidden=True),
        Check("max_abs_difference_on_other_grids", 0.5, "max_abs_difference builds the grid from its arguments and "
              "uses the two derivative functions (replaced by sin(3x) and 0)", hidden=True),
    ),
    seeds={"twins": Setting(20261314, TWINS),
           "fresh_points": Setting(20261202, "seed of the hidden checks' random points")},
    tolerances={
        "float32": Setting(1e-5, "absolute and relative tolerance for float32 values and gradients"),
        "float64": Setting(1e-10, "absolute and relative tolerance for float64 values and gradients"),
        "max_difference": Setting(1e-6, "largest allowed float32 gap between the autograd and analytic derivatives"),
        "max_difference_match": Setting(1e-7, "absolute tolerance between max_abs_difference() and the gap measured "
                                        "from the student's own two functions (float32 rounding of a ~6e-8 gap); "
                                        "the relative one is float32's"),
    },
)
# ---- sin_exp_derivative (end)


LESSON_01 = Lesson(
    number=1,
    title="Tensors and autograd",
    folder="lesson01",
    text="tensors-and-autograd.txt",
    # In the order the lesson teaches them; an exercise with no checks yet is left out.
    exercises=tuple(exercise for exercise in (
        DTYPES_AND_DEVICES,
        SHAPE_BUGS,
        VIEWS,
        NEURON_CHAIN_RULE,
        FINITE_DIFFERENCES,
        FORWARD_VS_REVERSE,
        LEARNING_RATE,
        GRAD_ACCUMULATION,
        LINEAR_MODULE,
        STOPPING_GRADIENTS,
        MICROGRAD,
        QUADRATIC_FIT,
        SIN_EXP_DERIVATIVE,
        QUICK_CHECK,
    ) if exercise.checks),
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
