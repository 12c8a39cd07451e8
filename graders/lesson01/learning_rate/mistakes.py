"""The named mistakes of `learning_rate`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import GLOBAL_SEED, Mistake, code_passes


WORKED = '"Worked example: fitting a line by gradient descent"'

TRY_IT = '"Try it yourself", exercise 1'

ZERO_GRAD = '"Worked example", where it explains w.grad.zero_()'

NO_GRAD = '"Worked example", where it explains torch.no_grad()'

PITFALLS = '"Common pitfalls": accumulating graphs in a log'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "learning_rate"

GRADIENTS_NOT_ZEROED = Mistake(
    "gradients never zeroed",
    "Your losses go up and down instead of falling: this is what gradients that are never zeroed do. "
    "backward() adds into w.grad and b.grad, so each update uses the sum of all gradients so far.",
    "Call w.grad.zero_() and b.grad.zero_() after each update.",
    ZERO_GRAD,
    concept="accumulation",
)

ONE_GRADIENT_ZEROED = Mistake(
    "only one gradient zeroed",
    "Your run matches one where only one of w.grad and b.grad is cleared after each update. The other "
    "keeps every gradient backward() has added into it, so that parameter's steps grow with the sum of all "
    "its past gradients and the loss wanders instead of settling.",
    "Zero both gradients after each update: w.grad.zero_() and b.grad.zero_().",
    ZERO_GRAD,
    concept="accumulation",
)

SUM_FOR_MEAN = Mistake(
    "sum instead of mean",
    "Your loss is the sum of the squared errors, n times the mean: its gradient is n times larger, so "
    "every step is n times too long and even lr = 0.01 overshoots and diverges.",
    "Take the mean squared error: ((pred - y) ** 2).mean().",
    WORKED,
    concept="training_loop",
)

MISSING_FACTOR_2 = Mistake(
    "missing factor 2 in the gradient",
    "Your run moves exactly half as far each step as it should: the derivative of (pred − y)² is "
    "2·(pred − y)·∂pred, and the 2 is missing, so reaching 0.06 takes about twice as many steps "
    "(48 instead of 23 at lr 0.1, 497 instead of 248 at lr 0.01).",
    "Use grad_w = 2 * ((pred - y) * X).mean() and grad_b = 2 * (pred - y).mean(), or let backward() do it.",
    WORKED,
    concept="chain_rule",
)

SIGN_ERROR = Mistake(
    "sign error: gradient ascent",
    "Your parameters move along the gradient, uphill, so the loss grows from the first step. "
    "Gradient descent steps against the gradient.",
    "Subtract: w -= lr * w.grad and b -= lr * b.grad.",
    WORKED,
    concept="training_loop",
)

LOSS_AFTER_UPDATE = Mistake(
    "losses recorded after the update",
    "Your losses are the reference's shifted by one step: you record the loss after each update, so "
    "losses[0] is already the loss at w = 0.792 instead of 15.43 at w = b = 0.",
    "Record loss.item() of the loss you call backward() on, before the update.",
    WORKED,
    concept="training_loop",
)

LOSSES_AS_TENSORS = Mistake(
    "losses kept as tensors",
    "Your list holds the loss tensors themselves, each with a grad_fn: every one keeps its whole "
    "computation graph (the predictions, the squared errors) alive, so memory grows with every step "
    "of a long run. A log of losses needs plain numbers.",
    "Append loss.item() instead of loss.",
    PITFALLS,
    concept="detach_and_no_grad",
)

UPDATE_WITHOUT_NO_GRAD = Mistake(
    "update outside torch.no_grad()",
    "PyTorch refuses `w -= lr * w.grad` while autograd is recording: \"a leaf Variable that requires grad "
    "is being used in an in-place operation\". Changing a leaf in place would break the graph that "
    "backward() walks; the update is bookkeeping, not part of the model.",
    "Put the two updates inside `with torch.no_grad():`.",
    NO_GRAD,
    error_pattern=r"a leaf Variable that requires grad is being used in an in-place operation",
    concept="detach_and_no_grad",
)

REBOUND_PARAMETERS = Mistake(
    "w = w - lr * w.grad rebinds the parameters",
    "`w = w - lr * w.grad` makes a new tensor and names it w: it is no longer the leaf you started with "
    "(PyTorch warns that the .grad of a non-leaf tensor is being accessed), so its .grad stays None; under "
    "torch.no_grad() the new w does not even require grad, and the next loss has no graph to go back through.",
    "Update in place under torch.no_grad(): `w -= lr * w.grad`, so w stays the same leaf.",
    NO_GRAD,
    concept="training_loop",
)  # no error pattern: the same errors come from other slips; `lost_its_leaves` tells them apart

HESSIAN_MISSING_FACTOR_2 = Mistake(
    "Hessian half the right one",
    "Your rate is exactly twice the right one: your Hessian is [[mean x², mean x], [mean x, 1]], half the true "
    "2·[[mean x², mean x], [mean x, 1]]. Either the 2 that the square in the loss brings down is missing (d²/dw² of "
    "(w·x + b − y)² is 2·x²), or the sums are divided by 2n where n belongs (A.numel() of an n × 2 design matrix A is "
    "2n). Its eigenvalues are half the true ones, so 2 / λ_max doubles, and descent at that rate diverges.",
    "Build H = 2·[[mean x², mean x], [mean x, 1]] (2·AᵀA / n, with n the number of points), then return 2 / λ_max.",
    TRY_IT,
    concept=CONCEPT,
)

HESSIAN_SUMS = Mistake(
    "sums instead of means in the Hessian",
    "Your rate is the right one divided by n, the number of points: your Hessian is built from sums over the "
    "points (sum x², sum x and n) instead of means (mean x², mean x and 1). That is the Hessian of the summed "
    "squared error, n times the Hessian of the mean squared error that train_line descends, so its largest "
    "eigenvalue is n times too large and 2 / λ_max is n times too small.",
    "Build H = 2·[[mean x², mean x], [mean x, 1]] with x.mean() and (x ** 2).mean(), then return 2 / λ_max.",
    TRY_IT,
    concept=CONCEPT,
)

HESSIAN_OVER_N_MINUS_1 = Mistake(
    "sums divided by n − 1 in the Hessian",
    "Your rate is the right one times (n − 1)/n, n the number of points: your Hessian's sums are divided by n − 1, "
    "as an unbiased variance's are, where the Hessian of the mean squared error holds means, sums divided by n. So "
    "every entry is n/(n − 1) times too large, and 2 / λ_max that much too small (99/100 of it for 100 points).",
    "Divide the sums by n = X.shape[0] (or take .mean()), as the loss's mean does: H = 2·[[mean x², mean x], "
    "[mean x, 1]].",
    TRY_IT,
    concept=CONCEPT,
)

SMALLEST_EIGENVALUE = Mistake(
    "the smallest eigenvalue taken for the largest",
    "Your rate is 2 / λ_min, with the smallest eigenvalue of the Hessian where the largest belongs: "
    "torch.linalg.eigvalsh returns the eigenvalues in ascending order, so [0] is the smallest and [-1] the "
    "largest. Descent is stable only while lr < 2 / λ_max, the bound set by the steepest direction, so a rate "
    "from λ_min is too large and diverges along that direction.",
    "Take the largest eigenvalue: torch.linalg.eigvalsh(H).max() (or [-1]), then return 2 / λ_max.",
    TRY_IT,
    concept=CONCEPT,
)

STEPS_FROM_ONE = Mistake(
    "counted steps from 1",
    "Your answer is one more than the right one: you return index + 1, the number of losses up to and including "
    "the first one below the target. Steps are counted from 0, as train_line's losses are: losses[0] is the loss "
    "before any update, so a list whose very first loss is below the target gives 0.",
    "Return the index that enumerate gives, step, not step + 1; keep None for a list with no loss below the "
    "target.",
    TRY_IT,
    concept=CONCEPT,
)

LR_IGNORED = Mistake(
    "lr argument ignored",
    "Your run is exactly the reference's at the lesson's rate, 0.1, whatever lr it was given: the update "
    "uses a number written in the loop (or a variable of the lesson's) instead of the lr argument. "
    "The exercise is about what changing lr does, so the loop must use the lr it is called with.",
    "Write the update as `w -= lr * w.grad` and `b -= lr * b.grad`, with the function's own lr.",
    WORKED,
    concept="seeds_and_arguments",
)

FLAT_TARGET = Mistake(
    "(100, 1) vs (100,) broadcast in the loss",
    "Your losses are what the loop gives when one side of prediction − target is a (100, 1) column and the other "
    "a (100,) vector: the difference broadcasts to (100, 100), every prediction against every target, with no "
    "error. The mean of that table is smallest for the line through the mean of y, so w goes to about 0 instead "
    "of 3. A (100,) side comes from y or X flattened or squeezed, or from a prediction X @ w with w of shape (1,): "
    "a matrix times a vector is a vector.",
    "Print the prediction's shape and y.shape once before the loop: both must be (100, 1), as make_line_data "
    "returns y. Write the prediction as the lesson does, X * w + b, and keep X and y as they come.",
    '"Common pitfalls", on shape mismatches that broadcast silently',
    concept="broadcasting",
)

LAST_LOSS_ONLY = Mistake(
    "only the last loss compared with the first",
    "Your answers are what comparing only the last loss with the first gives, on every list diverged was given. "
    "Where a middle loss grew past the first and the last came back below it, losses[-1] > losses[0] is False "
    "although the run did blow up on the way; and where the last loss is nan, the comparison is False too. The "
    "docstring asks whether some loss, any of them, is inf or nan or grew past the first.",
    "Compare every loss with the first: any(not math.isfinite(loss) or loss > losses[0] for loss in losses).",
    TRY_IT,
    concept=CONCEPT,
)

EMPTY_LOSSES = Mistake(
    "losses[0] read from an empty list",
    "diverged([]) raised IndexError: your code reads losses[0] before it knows that there is a first loss. "
    "An empty run has not blown up, and the docstring asks for False.",
    "Start with `if not losses: return False`, or read losses[0] only inside the any(... for loss in losses), "
    "which never runs for an empty list.",
    TRY_IT,
    concept=CONCEPT,
)  # recognised in diverged's check only: an IndexError elsewhere has other causes

RISE_ON_ANY_STEP = Mistake(
    "any rise counted as divergence",
    "Your answers are what comparing each loss with the one before it gives, on every list diverged was "
    "given: a loss a little above the previous one already makes it True. Descent that settles can still wobble "
    "up by a hair (the lesson's run at lr 0.1 does, near its minimum), which is why the docstring compares "
    "every loss with the first.",
    "Compare every loss with the first: any(not math.isfinite(loss) or loss > losses[0] for loss in losses).",
    TRY_IT,
    concept=CONCEPT,
)

NAN_NOT_DIVERGED = Mistake(
    "nan not counted as divergence",
    "Your answers are what comparing every loss with the first, and nothing else, gives: a loss that became nan "
    "is not flagged, because every comparison with nan is False, nan > losses[0] too. Yet nan is what a blown-up "
    "run computes once infinities meet (inf − inf, 0 · inf), and the docstring counts it as diverged.",
    "Test for inf and nan as well: any(not math.isfinite(loss) or loss > losses[0] for loss in losses).",
    TRY_IT,
    concept=CONCEPT,
)

NAN_PASSED_BY_MAX = Mistake(
    "max() passes over a nan",
    "Your answers are what testing max(losses) alone gives: it blew up if the largest loss is inf or nan, or past "
    "the first. But Python's max keeps the first item unless a later one compares greater, and every comparison with "
    "nan is False, so a nan that comes after a number is never picked: max([3, 2, nan]) is 3, and that run passes "
    "for a calm one.",
    "Look at every loss, not at one picked by comparison: any(not math.isfinite(loss) or loss > losses[0] for loss "
    "in losses).",
    TRY_IT,
    concept=CONCEPT,
)

GROWTH_NOT_COUNTED = Mistake(
    "only inf or nan counted as divergence",
    "Your answers are what testing the losses for inf and nan, and nothing else, gives, on every list diverged was "
    "given: a run whose losses grow fourfold each step (lr 1.1 for 30 steps) is still finite, so you call it "
    "settled. A loss that grows past the first is already a blow-up on its way to inf; the docstring counts it.",
    "Compare every loss with the first as well: any(not math.isfinite(loss) or loss > losses[0] for loss in losses).",
    TRY_IT,
    concept=CONCEPT,
)

ONE_STEP_TOO_MANY = Mistake(
    "one step too many (loop off by one)",
    "Your run returns steps + 1 losses for `steps` steps, the reference's and one more. Either the loop runs "
    "steps + 1 times (range(steps + 1)) and makes one update too many, or it records one loss more than it makes "
    "updates (the loss once more after the loop, or one before the loop and one after each update). The docstring "
    "wants exactly `steps` losses, losses[k] being the loss before update k.",
    "Loop with `for _ in range(steps):` and append loss.item() once in each step, before that step's update.",
    WORKED,
    concept="training_loop",
)

ONE_STEP_TOO_FEW = Mistake(
    "one step too few (loop off by one)",
    "Your run stops one step short: steps − 1 losses, and w and b after steps − 1 updates, as a loop over "
    "range(1, steps) or range(steps - 1) gives. Steps count from 0: losses[0] is the loss at w = b = 0, before "
    "the first update, and a run of `steps` steps has `steps` losses and makes `steps` updates.",
    "Loop with `for _ in range(steps):`, which runs exactly `steps` times.",
    WORKED,
    concept="training_loop",
)

STOPPED_AT_BLOW_UP = Mistake(
    "the run stops when the loss blows up",
    "Your run returns fewer losses than steps: it follows the right run up to the step where the loss passes any "
    "float's range (inf, then nan), and stops there. The docstring wants one loss per step whatever the loss does: "
    "a run that blew up still shows it, and telling that it did is diverged()'s work, on the whole list.",
    "Run all `steps` steps and record every loss, inf and nan included; leave judging the run to diverged().",
    TRY_IT,
    concept="training_loop",
)

NONZERO_START = Mistake(
    "random or non-zero starting parameters",
    "Your w and b do not start at zero, as the docstring asks (\"start from w = b = 0\"), but at ones or at random "
    "values (torch.ones, torch.randn, torch.rand): so your losses[0] is not the loss at w = b = 0, and the whole run "
    "follows another path; with a random start, every call ends somewhere else.",
    "Create the parameters as w = torch.zeros(1, requires_grad=True) and b = torch.zeros(1, requires_grad=True).",
    WORKED + ', which starts "from zero"',
    concept="training_loop",
)

W_AND_B_ONE_TENSOR = Mistake(
    "w and b are one tensor",
    "Your w and b end exactly equal, because they are one tensor with two names: a chained assignment, w = b = "
    "torch.zeros(...), makes one tensor and binds both names to it. The prediction is then X * t + t for that one "
    "tensor t, backward() fills its single .grad with the two gradients added, and each update moves \"both\" by "
    "that sum.",
    "Make two tensors, one on each line: w = torch.zeros(1, requires_grad=True), then b = torch.zeros(1, "
    "requires_grad=True).",
    WORKED,
    concept="requires_grad",
)

NOISE_DRAWN_FIRST = Mistake(
    "noise drawn before X",
    "Your make_line_data draws the recipe's numbers in another order: the noise with torch.randn before X with "
    "torch.rand. After torch.manual_seed, each random call takes the next numbers of one stream, so X gets the "
    "numbers the recipe gives the noise, and the noise X's: the seed is right and the points look as random, but "
    "they are not the lesson's, and neither is any loss trained on them.",
    "After torch.manual_seed(seed), draw X = torch.rand(n, 1) * 4 - 2 first, and only then the noise inside y.",
    WORKED,
    concept="seeds_and_arguments",
)

DRAWN_POINT_BY_POINT = Mistake(
    "data drawn point by point",
    "Your make_line_data draws one point at a time, each x and then its noise, where the recipe draws all of X with one "
    "torch.rand(n, 1) and then all the noise with one torch.randn(n, 1). After torch.manual_seed every call takes the "
    "next numbers of one stream, so in a loop x_1 gets the number the recipe gives the first noise: the first point is "
    "right, and from the second on the points are not the grader's.",
    "Draw each tensor whole, in the recipe's order: X = torch.rand(n, 1) * 4 - 2, then the noise torch.randn(n, 1) "
    "inside y; no loop over the points.",
    WORKED,
    concept="seeds_and_arguments",
)

DRAWN_IN_FLOAT64 = Mistake(
    "data drawn in float64",
    "Your make_line_data draws X and the noise in float64 and makes them float32 afterwards: a float64 draw takes "
    "other bits of the seeded stream than a float32 one, so every value differs from the lesson's, even though the "
    "dtype returned is right.",
    "Draw with torch's default dtype, float32: torch.rand(n, 1) and torch.randn(n, 1), with no dtype argument and "
    "no cast.",
    WORKED,
    concept="dtypes",
)

# Two calls with one seed that give two sets of points: the seed decides nothing. Where the code does pass its seed
# to torch.manual_seed, the seed came after a draw; where it does not, it is never set (checks: _fail_if_unrepeatable).
SEED_SET_LATE = Mistake(
    "seed set after something random was drawn",
    "Your make_line_data calls torch.manual_seed with its seed argument, yet two calls with the same seed give different "
    "points: something random is drawn before the seed is set, from wherever torch's random stream happened to be. "
    "The seed fixes only what is drawn after it.",
    "Move torch.manual_seed(seed) to the first line of make_line_data, before X with torch.rand and the noise with torch.randn are drawn.",
    WORKED,
    concept="seeds_and_arguments",
)

SEED_NEVER_SET = Mistake(
    "seed never set",
    "Two calls of your make_line_data with the same seed give different points: nothing seeds torch's random stream with "
    "the seed argument, so every call draws from wherever the stream happened to be.",
    "Start make_line_data with torch.manual_seed(seed), using the argument, before X with torch.rand and the noise with torch.randn are drawn.",
    WORKED,
    concept="seeds_and_arguments",
    contradicted_by=(code_passes("make_line_data", GLOBAL_SEED, 1,
                                 "make_line_data calls torch.manual_seed with its seed argument"),),
)

SEED_IGNORED = Mistake(
    "the seed argument ignored",
    "Your X and y are exactly the recipe's with seed 42, whatever seed the function was given: it calls "
    "torch.manual_seed(42), the worked example's seed, instead of torch.manual_seed(seed). make_line_data() comes "
    "out right only because 42 is also the default; with another seed the points must be other ones.",
    "Seed with the function's own argument: torch.manual_seed(seed).",
    WORKED,
    concept="seeds_and_arguments",
)

ASSUMES_FALLING_LOSSES = Mistake(
    "a search that assumes the losses only fall",
    "Your steps_to_reach is right on every list whose losses only fall, and wrong on one that rises again: it finds "
    "its step as if the losses were sorted (a binary search, bisect, or a stop where a loss rises). A run's losses "
    "need not fall at every step (too high a rate makes them rise, noise makes them wobble), and the first step below "
    "the target is found only by reading the losses in order.",
    "Go through the losses from the start and return the first step whose loss is < target: "
    "`next((step for step, loss in enumerate(losses) if loss < target), None)`.",
    TRY_IT,
    concept=CONCEPT,
)

EQUAL_COUNTS_AS_BELOW = Mistake(
    "a loss equal to the target counted as below it",
    "Your answers are what `loss <= target` gives on every list steps_to_reach was given: where a loss is exactly "
    "the target, you returned that step. The docstring asks for the first loss strictly below the target, and a "
    "loss equal to it has not got under it yet.",
    "Compare strictly: return the first step with loss < target.",
    TRY_IT,
    concept=CONCEPT,
)
