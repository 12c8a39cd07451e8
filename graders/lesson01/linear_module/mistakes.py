"""The named mistakes of `linear_module`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import GLOBAL_SEED, Mistake, code_passes


SECTION = '"The same model, the PyTorch way"'

PITFALLS = '"Common pitfalls"'

ZERO_GRAD_MISSING = Mistake(
    "zero_grad missing",
    "Your gradients are never cleared between steps, so each backward() adds the new gradient onto "
    "all the old ones and step() moves the parameters by their running sum: the loss swings up and down "
    "instead of settling.",
    "Call optimiser.zero_grad() once at the start of every pass of the loop.",
    SECTION,
    concept="accumulation",
)

ZERO_GRAD_BEFORE_STEP = Mistake(
    "zero_grad between backward and step",
    "When optimiser.step() runs, the gradients have already been cleared: zero_grad() comes after "
    "backward() and before step() (which is also what happens when step() is written before backward() "
    "with zero_grad() at the top of the loop). Every step moves nothing, so the loss never leaves its "
    "starting value.",
    "Keep the lesson's order in each pass: zero_grad(), forward pass, loss, backward(), step().",
    SECTION,
    concept="training_loop",
)

STEP_BEFORE_BACKWARD = Mistake(
    "step before backward",
    "optimiser.step() runs at the top of the loop, before that pass's backward(): the first step has no "
    "gradient to use, each later one applies the gradient of the previous pass, and the last gradient "
    "is never applied. The parameters end one update behind.",
    "Move optimiser.step() to the end of the loop body, right after loss.backward().",
    SECTION,
    concept="training_loop",
)

DETACHED_LOSSES_AS_TENSORS = Mistake(
    "losses kept as detached tensors",
    "Your list holds loss tensors rather than Python numbers. They are detached, so no graph is kept alive, but "
    "the docstring asks for floats: a tensor prints, compares and saves differently from the number it holds, and "
    "every later use has to unwrap it.",
    "Append loss.item() to the list: it gives the loss as a plain Python float.",
    PITFALLS,
    concept="detach_and_no_grad",
)

LOSSES_AS_TENSORS = Mistake(
    "losses kept as tensors",
    "Your list holds loss tensors rather than numbers. Each one still carries its computation graph, so "
    "the log keeps every step's graph alive and memory grows with every step.",
    "Append loss.item() to the list: it gives the loss as a plain Python float.",
    PITFALLS,
    concept="detach_and_no_grad",
)

SEED_SET_LATE = Mistake(
    "seed set after something random was drawn",
    "Your function calls torch.manual_seed with its seed argument, yet two calls with the same seed give different "
    "runs: something random (the data X and y, or the layer's starting weight and bias) is drawn before the seed is "
    "set, from wherever torch's random stream happened to be. The seed fixes only what is drawn after it.",
    "Move torch.manual_seed(seed) to the first line of the function, before X, y and the layer are made.",
    SECTION,
    concept="seeds_and_arguments",
)

OWN_GENERATOR_ONLY = Mistake(
    "torch's own random stream never seeded",
    "Your code seeds a generator of its own with the seed argument (torch.Generator().manual_seed(seed)), but "
    "nn.Linear draws its starting weight and bias from torch's own random stream, which nothing here seeds: two "
    "calls with the same seed start the layer in different places, so their runs differ.",
    "Seed torch's own stream instead: torch.manual_seed(seed) first, then X, y and the layer, with no generator of "
    "your own.",
    SECTION,
    concept="seeds_and_arguments",
)

SEED_IGNORED = Mistake(
    "the seed argument ignored",
    "Your run does not follow the seed it is given: called with another seed, it gives the lesson's numbers "
    "(torch.manual_seed(42) written out instead of torch.manual_seed(seed)), or, with no seed set at all, other "
    "numbers on every call. The seed decides the data and the layer's starting weight and bias, so a run that "
    "ignores it cannot be compared with anyone else's and cannot be repeated.",
    "Start the function with torch.manual_seed(seed), using the argument, before X, y and the layer are made.",
    SECTION,
    concept="seeds_and_arguments",
    contradicted_by=(code_passes("fit_linear_module", GLOBAL_SEED, 2,
                                 "fit_linear_module calls torch.manual_seed with its seed argument"),),
)

STARTED_ELSEWHERE = Mistake(
    "the layer starts from another weight and bias",
    "Your training ends where the reference's does (the same weight, bias and last loss), so it learns from the same "
    "data; but it starts elsewhere: called with steps=0, your function returns another starting weight and bias than "
    "the ones nn.Linear(1, 1) draws in the recipe's order. On one set of data the loss has a single lowest point, "
    "which gradient descent reaches from any start: only the way there, and so every loss before the end, differs. "
    "The layer's weight and bias were set by hand (nn.init.zeros_, fill_, a copy) or drawn at another point of the "
    "random stream (torch.manual_seed called again before the layer is made).",
    "Keep the starting weight and bias nn.Linear(1, 1) draws when it is made right after X and y, with "
    "torch.manual_seed(seed) called once, at the top: set no starting values by hand and seed nothing again.",
    SECTION,
    concept="seeds_and_arguments",
)

DATA_ON_ITS_OWN_GENERATOR = Mistake(
    "the data drawn from a generator of its own",
    "Your training ends where the reference's does, so the data are the same, but the layer starts from another "
    "weight and bias. Your X and y are drawn from a torch.Generator of their own (generator=...), so they take "
    "nothing from torch's global stream: nn.Linear(1, 1) then draws its starting weight and bias from the very "
    "start of that stream, where the recipe's layer draws them after the 200 numbers of X and y.",
    "Draw X and y from torch's own stream, right after torch.manual_seed(seed) (torch.rand(100, 1) with no "
    "generator=), then make the layer: it draws its start from where the data left the stream.",
    SECTION,
    concept="seeds_and_arguments",
)

LOSS_AFTER_UPDATE = Mistake(
    "losses recorded after the update",
    "Your losses are the reference's shifted by one step: each one is the loss worked out again after that "
    "pass's optimiser.step(), with the updated layer, not the loss the pass called backward() on. So losses[0] "
    "is already the loss after the first update (7.6054 on the lesson's run instead of 13.4355), and the "
    "starting loss is never logged.",
    "Append loss.item() of the loss you called backward() on, in the same pass; do not compute the loss "
    "again after step().",
    SECTION,
    concept="training_loop",
)

LR_IGNORED = Mistake(
    "lr argument ignored",
    "Your run is exactly the reference's at the lesson's rate, 0.1, whatever lr it was given: the optimiser is "
    "built with lr=0.1 written out (or a variable of the lesson's) instead of the lr argument. The checks call "
    "the function with other rates too, and its run must follow the rate it is called with.",
    "Build the optimiser with the function's own rate: torch.optim.SGD(model.parameters(), lr=lr).",
    SECTION,
    concept="seeds_and_arguments",
)

NOISE_BROADCAST = Mistake(
    "(100, 1) vs (100,) broadcast in the data",
    "Your run is the one whose noise is drawn as torch.randn(100), of shape (100,), instead of torch.randn(100, 1). "
    "Added to 3 * X - 2, of shape (100, 1), it broadcasts with no error: y becomes a (100, 100) table, each row one "
    "point's clean value plus all 100 noise draws. The loss then compares each prediction with a whole row, so the "
    "layer fits the line without its noise (a weight of about 3.0 rather than the lesson's 2.965) and the loss "
    "settles higher. nn.MSELoss only warns: \"Using a target size (torch.Size([100, 100])) that is different to "
    "the input size\".",
    "Draw the noise with X's shape, 0.3 * torch.randn(100, 1), and print y.shape once: it must be (100, 1).",
    '"Common pitfalls", on shape mismatches that broadcast silently',
    concept="broadcasting",
)

MODEL_BEFORE_DATA = Mistake(
    "model made before the data (random order changed)",
    "Your run is the lesson's with nn.Linear made before X and y are drawn. After torch.manual_seed, every "
    "random call takes the next numbers of one stream: the lesson draws X, then the noise, then the layer's "
    "starting weight and bias. Made first, the layer takes X's numbers, so the data and the start both change "
    "(the loss at step 0 is 14.2617 instead of the lesson's 13.4355 on seed 42).",
    "Keep the lesson's order after torch.manual_seed(seed): X, then y, then nn.Linear, the loss and the optimiser.",
    SECTION,
    concept="seeds_and_arguments",
)

PARAMETER_LEFT_OUT = Mistake(
    "a parameter left out of the optimiser",
    "Your run is the lesson's with one of the layer's two parameters never updated: the optimiser was handed the "
    "weight alone or the bias alone (a parameter group that lists one of them, or a step that skips one), so the "
    "other keeps the value nn.Linear started it at while its partner learns alone, and the loss settles far above "
    "the lesson's.",
    "Hand the optimiser every parameter of the layer: torch.optim.SGD(model.parameters(), lr=lr).",
    SECTION,
    concept="training_loop",
)

LR_AND_SEED_IGNORED = Mistake(
    "lr and seed arguments ignored",
    "Your run is exactly the lesson's own, at rate 0.1 on seed 42, whatever lr and seed it was given: the script "
    "seeds with 42 and trains at 0.1, the lesson's values, instead of its seed and lr arguments. The checks call "
    "the function with other rates and seeds, and its run must follow the ones it is called with.",
    "Use the function's own arguments: torch.manual_seed(seed) first, and torch.optim.SGD(model.parameters(), "
    "lr=lr).",
    SECTION,
    concept="seeds_and_arguments",
)

ONE_STEP_TOO_MANY = Mistake(
    "one step too many (loop off by one)",
    "Your run logs steps + 1 losses for `steps` passes, the reference's and one more: either the loop runs "
    "steps + 1 times (range(steps + 1)) and makes one update too many, or it logs one loss more than it makes "
    "passes (the loss once more after the loop). The lesson's 101 passes are steps 0 to 100, range(101).",
    "Loop with `for _ in range(steps):` and append loss.item() once per pass, for the loss that pass called "
    "backward() on.",
    SECTION,
    concept="training_loop",
)

ONE_STEP_TOO_FEW = Mistake(
    "one step too few (loop off by one)",
    "Your run stops one pass short: steps − 1 losses, and the layer after steps − 1 updates, as a loop over "
    "range(1, steps) or range(steps - 1) gives. The lesson's 101 passes are steps 0 to 100: range(101) runs the "
    "body 101 times, starting at 0.",
    "Loop with `for _ in range(steps):`, which runs exactly `steps` passes.",
    SECTION,
    concept="training_loop",
)

STOPPED_EARLY = Mistake(
    "the loop stops before `steps` passes",
    "Your run follows the right one pass for pass, then stops: fewer losses than `steps`, the layer left after "
    "fewer updates. A break taken when the loss stops changing (or any test of its own) ends the loop early; the "
    "docstring asks for exactly `steps` passes, one loss logged in each, whatever the loss does.",
    "Loop with `for _ in range(steps):` and no break: every pass zeroes, predicts, takes the loss, calls backward() "
    "and steps, and logs its loss.",
    SECTION,
    concept="training_loop",
)

MINI_BATCHES = Mistake(
    "several steps a pass: mini-batches where one full batch belongs",
    "Your loop steps the optimiser more than once in each pass, once per slice of the data (a DataLoader, split or "
    "chunk of X): mini-batch gradient descent. The lesson's loop makes one step a pass, on the gradient of the loss "
    "over all 100 points, so after the same number of passes your layer has made several times as many, smaller "
    "steps, and the losses you log (averages over slices) are other numbers.",
    "Use the whole X and y in every pass: one prediction, one loss, one backward() and one optimizer.step(), with "
    "no inner loop over batches.",
    SECTION,
    concept="training_loop",
)

SUM_FOR_MEAN = Mistake(
    "sum instead of mean",
    "Your loss is the sum of the squared errors over the 100 points, 100 times their mean: the loss at step 0 is "
    "100 times the lesson's (1343.55 instead of 13.4355), and so is every gradient, so each step of optimiser.step() "
    "is as long as one at a rate 100 times larger. At lr = 0.1 every update overshoots further than the last, and the "
    "loss blows up to inf or nan. nn.MSELoss(reduction='sum') does this; so does writing the loss as a .sum().",
    "Use nn.MSELoss() with its default reduction, the mean, as the lesson does: loss_fn = nn.MSELoss().",
    SECTION,
    concept="training_loop",
)

TARGETS_BROADCAST = Mistake(
    "(100, 1) vs (100,) broadcast",
    "Your run is the one where the loss meets a (100, 1) column and a (100,) vector (y, or the layer's output, "
    "flattened, squeezed or viewed as a vector). The two broadcast to (100, 100) with no error, so the loss compares each "
    "prediction with all 100 targets: the best fit is then a flat line at the targets' mean, a weight near 0 "
    "instead of 2.965, and the loss stays high (about 12 instead of 0.0597). nn.MSELoss only warns: \"Using a "
    "target size (torch.Size([100])) that is different to the input size\".",
    "Keep y and the layer's output both of shape (100, 1), like X: flatten or squeeze neither, and print "
    "pred.shape and y.shape once before computing the loss.",
    '"Common pitfalls", on shape mismatches that broadcast silently',
    concept="broadcasting",
)
