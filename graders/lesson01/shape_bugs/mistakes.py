"""The named mistakes of `shape_bugs`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake


RULES = '"Shapes and Broadcasting" in the companion text (the three rules, read right to left)'

PITFALL = '"Common pitfalls", the bullet on shape mismatches that broadcast silently'

WORKED = '"Worked example: fitting a line by gradient descent", the line that computes the loss'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "broadcasting"

LEFT_TO_RIGHT = Mistake(
    "shapes read left to right",
    "Your answers are those of lining the two shapes up on their first dimension. Broadcasting "
    "lines them up on their last one, so (3, 4) goes with (4,) and not with (3,).",
    "Compare a[-1] with b[-1], then a[-2] with b[-2], and so on; pad the shorter shape with 1s on the left.",
    RULES,
    concept=CONCEPT,
)

SIZES_REVERSED = Mistake(
    "sizes in reverse order",
    "Your answers hold the right sizes in reverse order, the last dimension first: broadcasting is worked out from "
    "the right, and sizes collected that way come out last first. (3, 4) and (4,) give (4, 3) where the result is "
    "(3, 4).",
    "Reverse the sizes you collected before returning them (tuple(reversed(sizes))), or put each new size in front.",
    RULES,
    concept=CONCEPT,
)

MISSING_AS_INCOMPATIBLE = Mistake(
    "missing dimension treated as incompatible",
    "Your function refuses shapes of different lengths. A dimension missing on the left counts as a "
    "size 1 (rule 3), so (3, 4) and (4,) broadcast to (3, 4).",
    "Before comparing, pad the shorter shape on the left with 1s until both have the same length.",
    RULES,
    concept=CONCEPT,
)

SIZE_ZERO = Mistake(
    "size-0 dimension broadcast wrongly",
    "Your answers are right except where a dimension has size 0. Only a 1 is stretched: 0 against 1 "
    "gives 0 (the 1 is stretched to nothing), and 0 against 3 does not broadcast at all.",
    "Treat 0 as the size it is: keep the size that is not 1 (0 against 1 gives 0), and refuse two sizes that differ "
    "when neither is 1. A max() of the two sizes, or `size or 1` (which turns a 0 into a 1), gets exactly this "
    "case wrong.",
    RULES,
    concept=CONCEPT,
)

ONLY_SECOND_STRETCHED = Mistake(
    "only the second shape stretched",
    "Your function stretches a size 1 only when it is in the second shape, b. Rule 2 works both ways: "
    "a 1 in a is stretched too, so (1,) and (3,) give (3,), and the lesson's (100, 1) and (100,) give "
    "(100, 100) instead of an error.",
    "Add the missing case: when x == 1 (the size from a), the result takes y, the size from b.",
    RULES,
    concept=CONCEPT,
)

ANY_STRETCH_SILENT = Mistake(
    "any stretch counted as silent",
    "Your function says True for a target that is only stretched to pred's shape. But such a target, like (4,) "
    "against (3, 4), gives pred - target the shape of pred, (3, 4): nothing goes wrong there. The pitfall is only "
    "a result of a new shape, one that is not pred's, like (100, 1) against (100,) giving (100, 100).",
    "Keep returning False when broadcast_shape raises, and otherwise compare its result with pred_shape "
    "(`return result != tuple(pred_shape)`), not with target_shape, and not the two shapes with each other.",
    PITFALL,
    concept=CONCEPT,
)

RESULT_RANK_COMPARED = Mistake(
    "the result's number of dimensions compared with pred's",
    "Your function says True exactly when the broadcast result has more dimensions than pred_shape. But a shape "
    "can change without gaining a dimension: the lesson's own (100, 1) − (100,) gives (100, 100), two dimensions "
    "as pred has, and 10,000 values where 100 belong. The number of dimensions does not tell; the sizes do.",
    "Keep returning False when broadcast_shape raises, and otherwise compare the whole result with pred_shape: "
    "`return result != tuple(pred_shape)`.",
    PITFALL,
    concept=CONCEPT,
)

RANKS_COMPARED = Mistake(
    "number of dimensions compared",
    "Your function says True exactly when the two shapes broadcast with a different number of dimensions. But a "
    "target of another rank may leave pred's shape alone, like (4,) against (3, 4), and one of the same rank may "
    "be stretched into a new shape, like (3, 1) against (1, 3) giving (3, 3): the rank does not tell.",
    "Keep returning False when broadcast_shape raises, and otherwise compare its result with pred_shape: "
    "`return result != tuple(pred_shape)`.",
    PITFALL,
    concept=CONCEPT,
)

ELEMENTS_COMPARED = Mistake(
    "number of elements compared",
    "Your function says True exactly when broadcasting changes the number of elements. But a target of higher rank "
    "may add dimensions of size 1 and no elements, like (1, 3) against (3,) giving (1, 3): pred - target then has a "
    "shape pred does not, with the same 3 elements. What changes silently is the shape, which the count does not "
    "tell.",
    "Keep returning False when broadcast_shape raises, and otherwise compare the shapes themselves: "
    "`return result != tuple(pred_shape)`.",
    PITFALL,
    concept=CONCEPT,
)

ANY_DIFFERENCE_SILENT = Mistake(
    "any difference in shape counted as silent",
    "Your function says True whenever the two shapes differ, without broadcasting them. Shapes that do not "
    "broadcast, like (3, 4) and (3,), make pred - target raise an error, which is loud, not silent; and a "
    "target only stretched to pred's shape, like (4,) against (3, 4), gives a result of pred's shape.",
    "Call broadcast_shape(pred_shape, target_shape): return False when it raises ValueError, and otherwise "
    "`return result != tuple(pred_shape)`.",
    PITFALL,
    concept=CONCEPT,
)

CLASH_COUNTED_SILENT = Mistake(
    "shapes that do not broadcast counted as silent",
    "Your function says True for shapes that do not broadcast at all, such as (3, 4) and (3,), and is right on "
    "every other pair: the ValueError of broadcast_shape is caught and taken for the pitfall. But there "
    "pred - target raises an error at once, which is loud: the pitfall is a mismatch that runs without one, "
    "like (100, 1) against (100,) giving (100, 100).",
    "Return False when broadcast_shape raises ValueError; True only when it gives a shape other than pred_shape.",
    PITFALL,
    concept=CONCEPT,
)

UNCAUGHT_VALUE_ERROR = Mistake(
    "broadcast_shape's ValueError not caught",
    "Your silently_broadcasts raised ValueError on exactly the shapes that do not broadcast, such as (3, 4) and "
    "(3,): it calls broadcast_shape, which raises for them, and nothing catches that error. The docstring asks "
    "for False there: pred - target would fail at once, which is loud, not silent.",
    "Catch it: `try: result = broadcast_shape(pred_shape, target_shape)`, then `except ValueError: return False`.",
    PITFALL,
    # The message of the broadcast_shape the checks put in place of the student's (_torch_broadcast_shape).
    error_pattern=r"^ValueError: shapes \(.*\) and \(.*\) do not broadcast",
    concept=CONCEPT,
)

LOSS_RESHAPES = Mistake(
    "loss reshapes silently",
    "Your mse_loss returned the loss of the flattened tensors instead of raising. Reshaping hides the "
    "bug in the caller's code instead of reporting it, and it is wrong whenever the caller mixed up "
    "two dimensions.",
    "Compare pred.shape with target.shape first and raise ValueError(...) naming both when they differ.",
    PITFALL,
    concept=CONCEPT,
)

LOSS_BROADCASTS = Mistake(
    "loss broadcasts silently",
    "Your mse_loss returned a number for shapes that differ, and shuffling the targets did not change "
    "it: pred - target broadcast to a table of every prediction against every target, and the loss "
    "averages all those pairs (10,000 meaningless ones for the lesson's (100, 1) and (100,)).",
    "Compare pred.shape with target.shape first and raise ValueError(...) naming both when they differ.",
    PITFALL,
    concept=CONCEPT,
)

SUM_FOR_MEAN = Mistake(
    "sum instead of mean",
    "Your loss is exactly N times torch's, N being the number of elements, and so is its gradient: the "
    "squared errors were added up instead of averaged. A summed loss also makes every gradient step N times "
    "longer, which is enough to make the worked example's lr = 0.1 diverge.",
    "Average the squared errors: ((pred - target) ** 2).mean(), not .sum().",
    WORKED,
    concept="training_loop",
)

MEAN_OVER_SOME_DIMENSIONS = Mistake(
    "mean over some dimensions only",
    "Your loss is the mean of the squared errors over some of pred's dimensions, not all: .mean(dim=...) averages "
    "only the dimensions it names and keeps the others, so a (100, 1) pred averaged over dim 0 leaves a loss of "
    "shape (1,). A loss is one number, the mean over every element, of shape (); backward() on anything else "
    "needs a gradient argument.",
    "Call .mean() with no dim: ((pred - target) ** 2).mean() averages every element and returns a 0-d tensor.",
    WORKED,
    concept="training_loop",
)

DIVIDED_BY_BATCH = Mistake(
    "divided by the batch size, not the number of elements",
    "Your loss is the sum of the squared errors divided by len(pred), the size of the first dimension only. "
    "The mean divides by every element, pred.numel(); the two agree for the lesson's (100, 1) and (100,), but "
    "a (10, 2) pred gives a loss, and a gradient, 2 times too large.",
    "Average over all elements: ((pred - target) ** 2).mean(), or divide the sum by pred.numel().",
    WORKED,
    concept="training_loop",
)
