"""The named mistakes of `quadratic_fit`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

import torch

from graders.kit import GLOBAL_SEED, Mistake, code_passes, own_answer, pitfall_shown, state_kept_between_calls


TRY_IT = '"Try it yourself", exercise 2'

WORKED_EXAMPLE = '"Worked example: fitting a line by gradient descent"'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "training_loop"

GRADIENTS_NOT_ZEROED = Mistake(
    "gradients never zeroed",
    "Your (a, b, c) are what gradient descent gives when .grad is never cleared: backward() adds each new "
    "gradient to the ones before, so every update uses the sum of all gradients so far and the parameters "
    "keep swinging around the best fit instead of settling on it.",
    "After each update, still inside torch.no_grad(), call a.grad.zero_(), b.grad.zero_() and c.grad.zero_() "
    "(or optimiser.zero_grad() once per step).",
    WORKED_EXAMPLE + ", where it explains w.grad.zero_()",
    concept="accumulation",
)

SHAPE_BROADCAST = Mistake(
    "(100, 1) vs (100,) broadcast",
    "A tensor of shape (n, 1) combined with one of shape (n,) broadcasts to (n, n), with no error. In the loss, "
    "pred − y then compares all n² pairs of points, so the best fit is the constant mean of y (a = b = 0); "
    "in the data, noise drawn with shape (n,) turns y into an (n, n) table.",
    "Keep X, y and the prediction all of shape (n, 1): do not flatten or squeeze one of them, and print "
    "pred.shape and y.shape before computing the loss.",
    '"Common pitfalls", on shape mismatches that broadcast silently',
    concept="broadcasting",
)

SIGN_ERROR = Mistake(
    "sign error: gradient ascent",
    "Your (a, b, c) are what gradient ascent gives: each update adds lr × gradient, which is the way uphill, "
    "so the error grows from the very first step and the coefficients run off towards huge numbers or nan. "
    "Descent moves against the gradient.",
    "Subtract the step: a -= lr * a.grad, and the same for b and c.",
    WORKED_EXAMPLE + ", where it updates w and b",
    concept=CONCEPT,
)

GRADIENT_SCALED = Mistake(
    "every gradient half or twice the right one",
    "Your (a, b, c) follow gradient descent with every step half (or twice) the right size: the path of the right "
    "fit at half (or double) the rate. A gradient worked out by hand that lost the 2 of d(r²)/dr = 2r gives half; "
    "one that counts it twice gives double. The rate is yours to choose, but the gradient must be the loss's own.",
    "Let autograd compute the gradients, as the docstring asks: loss.backward(), then a -= lr * a.grad (and b, c); "
    "by hand, d mean(r²)/da = mean(2·r·x²).",
    WORKED_EXAMPLE + ", where it updates w and b",
    concept=CONCEPT,
)

SUM_FOR_MEAN = Mistake(
    "sum instead of mean",
    "Your loss adds the squared errors up instead of averaging them, so its gradient, and every step, is n times "
    "the right one, n being the number of points: the steps of a learning rate n times larger. Once n·lr passes "
    "the data's stable limit, each update overshoots the minimum further than the last and the coefficients blow up.",
    "Average the squared errors: loss = ((pred - y) ** 2).mean(), not .sum().",
    WORKED_EXAMPLE + ", where it computes the mean squared error",
    concept=CONCEPT,
)

RATE_TOO_HIGH = Mistake(
    "learning rate above the stable limit",
    "Your steps are longer than gradient descent can take on these data: each one jumps past the minimum to a "
    "point farther away than where it started, so the error grows every step and the coefficients blow up. "
    "On the lesson's data any rate above about 0.255 does this; a loss summed instead of averaged does too, "
    "since it makes every step n times longer.",
    "Use the lr the caller passes (do not overwrite it with a rate of your own), and average the squared "
    "errors with .mean().",
    '"Try it yourself", exercise 1, where the learning rate 1.1 is tried',
    concept="learning_rate",
)

NO_REQUIRES_GRAD = Mistake(
    "parameters without requires_grad",
    "PyTorch says \"element 0 of tensors does not require grad and does not have a grad_fn\": a, b and c were "
    "made without requires_grad=True, so autograd recorded nothing and backward() has nothing to differentiate.",
    "Create each parameter as a tracked leaf: a = torch.zeros(1, requires_grad=True).",
    '"Autograd: gradients for free"',
    error_pattern=r"element 0 of tensors does not require grad and does not have a grad_fn",
    concept="requires_grad",
)

CLOSED_FORM = Mistake(
    "closed-form least squares instead of gradient descent",
    "Your coefficients are the exact least-squares solution, whatever lr and steps say: a closed-form "
    "fit (lstsq, the normal equations) skips the gradient descent the exercise is about. With few "
    "steps or a small rate, gradient descent has not reached that minimum yet, and the check wants "
    "the coefficients after exactly `steps` updates.",
    "Start a, b and c at zero with requires_grad=True and take `steps` updates of −lr × gradient.",
    TRY_IT,
    concept=CONCEPT,
    # Descent that goes on from call to call reaches the least-squares fit too, without any closed form.
    contradicted_by=(pitfall_shown(state_kept_between_calls, "fit_quadratic",
                                   "fit_quadratic keeps its parameters between calls"),),
)

SOME_GRADIENTS_NOT_ZEROED = Mistake(
    "some gradients never zeroed",
    "Your (a, b, c) are what gradient descent gives when the .grad of some parameters is cleared after each update "
    "and the .grad of the others never is: backward() adds each new gradient to the one before, so the parameter "
    "whose gradient is never cleared moves by the sum of all its gradients so far and swings around the best fit, "
    "pulling the others with it.",
    "Clear every parameter's gradient after each update, still inside torch.no_grad(): the one named above too.",
    WORKED_EXAMPLE + ", where it explains w.grad.zero_()",
    concept="accumulation",
)


GRADIENTS_CLEARED_BEFORE_UPDATE = Mistake(
    "gradients cleared before the update",
    "Your loop clears the gradients after backward() and before the update reads them: each update then subtracts "
    "lr times a gradient of zero, so a, b and c never leave where they start, whatever lr and steps are.",
    "Keep the order backward(), the update under torch.no_grad(), and only then a.grad.zero_() (or clear the "
    "gradients at the top of the loop, before the forward pass), for a, b and c alike.",
    WORKED_EXAMPLE + ", where w.grad.zero_() comes after the update",
    concept="accumulation",
)

# The zero start the docstring asks for, seen in the student's own answer: fit_quadratic with steps=0 makes no
# update, so it returns where a, b and c start. A few points are enough, and the call costs no step.
_NO_STEP_X = torch.linspace(-2.0, 2.0, 5).reshape(-1, 1)
STARTS_AT_ZERO = own_answer(
    "fit_quadratic", _NO_STEP_X, _NO_STEP_X**2, lr=0.1, steps=0, equals=(0.0, 0.0, 0.0),
    why="fit_quadratic(X, y, steps=0), which makes no update, returns (0, 0, 0): a, b and c start at zero")

NONZERO_START = Mistake(
    "random or non-zero starting parameters",
    "Your a, b and c do not start at zero, as the exercise asks, but at ones or at random values (torch.ones, "
    "torch.randn, torch.rand). Gradient descent from another start follows another path: after many steps it "
    "still reaches the least-squares fit, but after a given number of steps it is somewhere else, and a random "
    "start makes every run end somewhere else.",
    "Create each parameter as a = torch.zeros(1, requires_grad=True), and the same for b and c.",
    WORKED_EXAMPLE + ', which starts "from zero"',
    concept=CONCEPT,
    # Parameters kept from an earlier call start where it stopped: the hint would ask for the zeros the code has.
    contradicted_by=(STARTS_AT_ZERO, pitfall_shown(state_kept_between_calls, "fit_quadratic",
                                                    "fit_quadratic keeps its parameters between calls")),
)

ONE_STEP_SHORT = Mistake(
    "one step too few (loop off by one)",
    "Your (a, b, c) are exactly where gradient descent is after steps − 1 updates, one fewer than asked: a loop "
    "such as range(1, steps) or range(steps - 1) runs steps − 1 times. The last update is missing, so the "
    "coefficients stop one step short on their way to the best fit: far off on short runs, where every step "
    "moves them a lot, and hardly at all once they have settled.",
    "Loop with `for _ in range(steps):`, which runs exactly `steps` times, one update each.",
    WORKED_EXAMPLE + ", whose loop `for step in range(101)` makes 101 updates",
    concept=CONCEPT,
)

NOISE_IGNORED = Mistake(
    "noise argument ignored",
    "Your y is exactly the recipe's with the lesson's noise, 0.3, whatever noise it was given: the noise term "
    "uses the number 0.3 written in the function instead of the noise argument. Called with another noise, the "
    "points should scatter around the parabola by that much, more or less than the lesson's.",
    "Write the last line of the recipe with the function's own argument: y = 0.5 * X**2 - X + 1 + noise * "
    "torch.randn(n, 1).",
    TRY_IT,
    concept="seeds_and_arguments",
)

NOISE_AS_VARIANCE = Mistake(
    "noise scaled by its variance",
    "Your y is the recipe's parabola plus the recipe's own noise draws, each times noise**2 instead of noise. The "
    "noise argument is the standard deviation of the scatter: torch.randn draws with standard deviation 1, so "
    "multiplying by noise gives a spread of noise, and multiplying by noise**2 (the variance) gives a spread of "
    "noise**2, smaller than asked for whenever noise is below 1 (0.09 instead of 0.3 in the lesson).",
    "Multiply the standard normal draws by noise itself: y = 0.5 * X**2 - X + 1 + noise * torch.randn(n, 1).",
    TRY_IT,
    concept="seeds_and_arguments",
)

NOISE_DRAWN_FIRST = Mistake(
    "noise drawn before X",
    "Your make_quadratic_data draws the recipe's numbers in another order: the noise with torch.randn before X with "
    "torch.rand. After torch.manual_seed, each random call takes the next numbers of one stream, so X gets the "
    "numbers the recipe gives the noise, and the noise X's: the seed is right, the points look as random, but "
    "they are not the grader's.",
    "After torch.manual_seed(seed), draw X = torch.rand(n, 1) * 4 - 2 first, and only then the noise inside y.",
    TRY_IT,
    concept="seeds_and_arguments",
)

DRAWN_POINT_BY_POINT = Mistake(
    "data drawn point by point",
    "Your make_quadratic_data draws one point at a time, each x and then its noise, where the recipe draws all of X with one "
    "torch.rand(n, 1) and then all the noise with one torch.randn(n, 1). After torch.manual_seed every call takes the "
    "next numbers of one stream, so in a loop x_1 gets the number the recipe gives the first noise: the first point is "
    "right, and from the second on the points are not the grader's.",
    "Draw each tensor whole, in the recipe's order: X = torch.rand(n, 1) * 4 - 2, then the noise torch.randn(n, 1) "
    "inside y; no loop over the points.",
    TRY_IT,
    concept="seeds_and_arguments",
)

DRAWN_IN_FLOAT64 = Mistake(
    "data drawn in float64",
    "Your make_quadratic_data draws X and the noise in float64 and makes them float32 afterwards: a float64 draw "
    "takes other bits of the seeded stream than a float32 one, so every value differs from the recipe's, even "
    "though the dtype returned is right.",
    "Draw with torch's default dtype, float32: torch.rand(n, 1) and torch.randn(n, 1), with no dtype argument and "
    "no cast.",
    TRY_IT,
    concept="dtypes",
)

# Two calls with one seed that give two sets of points: the seed decides nothing. Where the code does pass its seed
# to torch.manual_seed, the seed came after a draw; where it does not, it is never set (checks: _fail_if_unrepeatable).
SEED_SET_LATE = Mistake(
    "seed set after something random was drawn",
    "Your make_quadratic_data calls torch.manual_seed with its seed argument, yet two calls with the same seed give different "
    "points: something random is drawn before the seed is set, from wherever torch's random stream happened to be. "
    "The seed fixes only what is drawn after it.",
    "Move torch.manual_seed(seed) to the first line of make_quadratic_data, before X with torch.rand and the noise with torch.randn are drawn.",
    TRY_IT,
    concept="seeds_and_arguments",
)

SEED_NEVER_SET = Mistake(
    "seed never set",
    "Two calls of your make_quadratic_data with the same seed give different points: nothing seeds torch's random stream with "
    "the seed argument, so every call draws from wherever the stream happened to be.",
    "Start make_quadratic_data with torch.manual_seed(seed), using the argument, before X with torch.rand and the noise with torch.randn are drawn.",
    TRY_IT,
    concept="seeds_and_arguments",
    contradicted_by=(code_passes("make_quadratic_data", GLOBAL_SEED, 1,
                                 "make_quadratic_data calls torch.manual_seed with its seed argument"),),
)

OTHER_RANDOM_STREAM = Mistake(
    "data drawn from another random generator",
    "Your X and y follow the recipe's law (x uniform on [−2, 2], y the parabola plus noise of the right size) but "
    "are not the numbers torch.manual_seed(seed), torch.rand and torch.randn give: they come from another random "
    "generator (NumPy's, Python's random module, or a torch.Generator of your own seeded apart), which torch's seed "
    "does not reproduce. The checks compare your data with the recipe's, number by number.",
    "Draw with torch's own stream after torch.manual_seed(seed): X = torch.rand(n, 1) * 4 - 2, then the noise with "
    "torch.randn(n, 1), in that order and in float32.",
    TRY_IT,
    concept="seeds_and_arguments",
)

SEED_IGNORED = Mistake(
    "the seed argument ignored",
    "Your X and y are exactly the recipe's with seed 42, whatever seed the function was given: it calls "
    "torch.manual_seed(42), the worked example's seed, instead of torch.manual_seed(seed). The seed decides "
    "every number torch.rand and torch.randn draw, so with another seed, the default 0 included, the points "
    "must be other ones.",
    "Seed with the function's own argument: torch.manual_seed(seed).",
    TRY_IT,
    concept="seeds_and_arguments",
)

ONE_STEP_TOO_MANY = Mistake(
    "one step too many (loop off by one)",
    "Your (a, b, c) are exactly where gradient descent is after steps + 1 updates, one more than asked: a loop "
    "such as range(steps + 1) or range(0, steps + 1) runs steps + 1 times. The extra update moves the coefficients "
    "one step further than the caller asked for: far on short runs, where every step moves them a lot, and hardly "
    "at all once they have settled.",
    "Loop with `for _ in range(steps):`, which runs exactly `steps` times, one update each.",
    WORKED_EXAMPLE + ", whose loop `for step in range(101)` makes 101 updates",
    concept=CONCEPT,
)

REBOUND_PARAMETERS = Mistake(
    "a = a - lr * a.grad rebinds the parameters",
    "Your loop failed after a backward() that worked: `a = a - lr * a.grad` makes a new tensor and gives it the "
    "name a, so a is no longer the leaf made with requires_grad=True. backward() fills the .grad of leaves only, "
    "so the new a's .grad stays None (what the error is about); made under torch.no_grad(), the new a does not "
    "even require grad and the next loss has no graph. In a loop over (a, b, c), `p = p - lr * p.grad` only "
    "rebinds the loop variable and leaves a, b and c as they were.",
    "Change each parameter in place inside `with torch.no_grad():`: a -= lr * a.grad (or p -= lr * p.grad in a "
    "loop over (a, b, c)), so it stays the same leaf, then zero its gradient.",
    WORKED_EXAMPLE + ", where it explains torch.no_grad()",
    concept="training_loop",
    # Code that changes its parameters in place lost its leaves another way (a, b, c unpacked from one tensor are
    # views, not leaves): the name and its hint would ask for what it does.
    contradicted_by=(lambda student: "fit_quadratic changes its parameters in place"
                     if student.evidence.updates_in_place("fit_quadratic") else "",),
)  # no error pattern: the same errors come from other slips; the check sees a backward() that worked first

UPDATE_WITHOUT_NO_GRAD = Mistake(
    "update outside torch.no_grad()",
    "PyTorch refuses `a -= lr * a.grad` while autograd is recording: \"a leaf Variable that requires grad is "
    "being used in an in-place operation\". Changing a, b or c in place would become part of the graph that "
    "backward() walks; the update is bookkeeping, not part of the model.",
    "Put the updates and the zeroing of the gradients inside `with torch.no_grad():`.",
    WORKED_EXAMPLE + ", where it explains torch.no_grad()",
    error_pattern=r"a leaf Variable that requires grad is being used in an in-place operation",
    concept="detach_and_no_grad",
)
