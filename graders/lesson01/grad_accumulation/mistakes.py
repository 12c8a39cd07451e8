"""The named mistakes of `grad_accumulation`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake


WORKED = '"Worked example", the loop that prints x.grad = 6.0, 12.0, 18.0'

COMPANION = 'the companion\'s "zero_grad() -- Reset Between Steps" (gradient accumulation across micro-batches)'

LESSON_GRADS = ": the lesson's loop gives 6, 12, 18."  # a twin run's hint leaves it out: its x0 is not 3

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "accumulation"

CLEARED_BETWEEN_CALLS = Mistake(
    "gradient cleared between backward calls",
    "Every value you recorded is the plain derivative 2·x0: x.grad was zeroed, or x was made afresh, before "
    "each backward pass. This function is meant to show what happens when nobody clears it.",
    "Create x once, before the loop, and leave x.grad alone inside it" + LESSON_GRADS,
    WORKED,
    concept=CONCEPT,
)

GRAD_NOT_ACCUMULATED = Mistake(
    "torch.autograd.grad instead of backward()",
    "Every value you recorded is the plain derivative 2·x0: your code takes each pass's gradient with "
    "torch.autograd.grad, which returns it as a new tensor and adds nothing into x.grad. Only backward() adds "
    "into .grad, and this function is meant to show that adding when nobody clears it.",
    "Call y.backward() in each pass and record x.grad.item() after it" + LESSON_GRADS,
    WORKED,
    concept=CONCEPT,
)

KEPT_GRAD_TENSOR = Mistake(
    "the same .grad tensor kept, not its values",
    "Every entry of your list shows the value x.grad has at the end: you kept x.grad itself, not the number it "
    "held at that moment. backward() adds into that one tensor in place, so all your entries are the same "
    "tensor, and after the last pass they all show the final sum.",
    "Append x.grad.item(): a Python number, copied when you take it, that later backward passes cannot change.",
    WORKED,
    concept=CONCEPT,
)

NOT_SCALED = Mistake(
    "micro-batch losses not scaled",
    "Your gradient is about k times too large for k micro-batches: each micro-batch loss was its own mean, and "
    "backward() added the k gradients together. A sum of k means is not the mean over the whole batch.",
    "Divide each micro-batch's sum of squared errors by N, the number of rows in the whole batch.",
    COMPANION,
    concept=CONCEPT,
)

REMAINDER_DROPPED = Mistake(
    "the last N % k rows left out",
    "Your gradient is that of the first k·(N // k) rows only: groups of N // k rows cut by hand leave the last N % k "
    "rows in no micro-batch whenever k does not divide N (100 rows in 3 groups of 33 leave one out). The docstring's "
    "torch.tensor_split gives the first N % k groups one row more, so that every row is in one group.",
    "Split with torch.tensor_split(X, micro_batches) (and the same for y), which covers every row, and divide each "
    "group's sum of squared errors by N.",
    COMPANION,
    concept=CONCEPT,
)

MEAN_OF_MEANS = Mistake(
    "micro-batch means divided by k",
    "Your gradient is that of the average of the micro-batch means (each mean divided by the number of "
    "micro-batches). That equals the full-batch mean only when every micro-batch has the same size; with "
    "unequal groups the rows of the smaller ones weigh a little more than they should.",
    "Weight each micro-batch by its share of the rows: its sum of squared errors divided by N, not its mean "
    "divided by k.",
    COMPANION,
    concept=CONCEPT,
)

DIVIDED_TWICE = Mistake(
    "micro-batch means divided by N again",
    "Your gradient is about 1/n of the right one, n being the number of rows in a micro-batch (1/N with a "
    "single micro-batch): each micro-batch loss was its mean, which already divides by the rows of that group, "
    "and then you divided it by N as well. The rows were counted out twice, so every row weighs 1/(n·N) "
    "instead of 1/N and the gradient shrinks by the size of the group.",
    "Divide by the number of rows once: take each micro-batch's sum of squared errors (.sum(), not .mean()) "
    "and divide that by N, the number of rows in the whole batch.",
    COMPANION,
    concept=CONCEPT,
)

SUMMED_NOT_AVERAGED = Mistake(
    "squared errors summed, never divided by N",
    "Your gradient is N times the right one, N being the number of rows in the whole batch: each micro-batch loss "
    "is its sum of squared errors, and nothing divides by N. Their total is the batch's sum of squared errors, "
    "while the docstring's loss is its mean.",
    "Divide each micro-batch's sum of squared errors by N = X.shape[0], the rows of the whole batch (not of the "
    "micro-batch), before you call backward() on it.",
    COMPANION,
    concept=CONCEPT,
)

PREDICTION_AS_COLUMN = Mistake(
    "(n, 1) prediction against (n,) targets",
    "Your gradient is what a prediction of shape (n, 1) gives against targets of shape (n,): the difference "
    "broadcasts to an (n, n) table, every prediction against every target of the micro-batch, with no error, "
    "so the loss adds up n² differences where n belong. A column comes from X @ w.unsqueeze(1) or w.view(-1, 1), "
    "or from a prediction made 2-D on purpose.",
    "Keep both sides of prediction − target the same shape: X_part @ leaf with leaf of shape (d,) is already (n,), "
    "like y_part. Print both shapes once before the loss.",
    '"Common pitfalls", on shape mismatches that broadcast silently',
    concept="broadcasting",
)

ZEROED_BETWEEN_MICRO_BATCHES = Mistake(
    "gradient zeroed between micro-batches",
    "Your gradient is that of the last micro-batch alone: .grad was cleared (zero_() or set to None), or the "
    "leaf was made afresh, before each backward pass, so every pass threw away the ones before it.",
    "Make the leaf copy of w once, before the loop, and let backward() add into leaf.grad; clear gradients "
    "between optimiser steps, never between the micro-batches of one step.",
    COMPANION,
    concept=CONCEPT,
    # Only the last micro-batch's gradient comes out of other code too (functions that all read the loop's last
    # group, built in a loop and called after it): a name that says .grad was cleared needs code that clears it.
    contradicted_by=(lambda student: "" if student.evidence.clears_or_remakes_gradients()
                     else "the code clears no .grad and makes no leaf inside a loop",),
)

MODIFIED_W = Mistake(
    "modified the caller's w",
    "After your function ran, the w the caller passed in had changed: it now requires grad, holds a .grad, or "
    "has other values. Whoever calls this function (a training loop) does not expect its weights to change.",
    "Work on a leaf copy: leaf = w.detach().clone().requires_grad_(True), and return leaf.grad.detach().",
    COMPANION,
    concept="requires_grad",
)

COPY_NOT_DETACHED = Mistake(
    "caller's w reached (no detached leaf)",
    "Given a w that requires grad, as a model's weights do, the leaf your backward() fills is not one of your own: "
    "w itself, or a copy still in w's graph (w.clone(), any arithmetic on w), so each backward() carries the "
    "gradient into the caller's w.grad (added to what it held), and a copy's own .grad stays None.",
    "Differentiate a leaf of your own, cut from w's graph: leaf = w.detach().clone().requires_grad_(True).",
    COMPANION,
    concept="requires_grad",
)
