"""The named mistakes of `finite_differences`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake, list_of_one_object, pitfall_shown


WHY = 'companion text, "Why Do We Need Automatic Differentiation?" (option 2, finite differences)'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "gradient_checking"

FORWARD_DIFFERENCES = Mistake(
    "forward instead of central differences",
    "Your estimate is the one-sided slope (f(x + h·e_i) − f(x)) / h. Its error shrinks only like h "
    "(about 1e-5 here), while the central difference (f(x + h·e_i) − f(x − h·e_i)) / (2h) is off by "
    "about h², far below what a float64 gradient check must resolve.",
    "Evaluate f on both sides of x for every coordinate: two calls per coordinate, 2n in all.",
    WHY,
    concept=CONCEPT,
)

DIVIDED_BY_H = Mistake(
    "divided by h instead of 2h",
    "Your estimate is exactly twice the gradient. The two points x + h·e_i and x − h·e_i are 2h "
    "apart, so their difference in f must be divided by 2h, not by h.",
    "Divide by (2 * h), with the parentheses.",
    WHY,
    concept=CONCEPT,
)

MODIFIED_X = Mistake(
    "left x modified",
    "The x you were given was different after your function returned: it was nudged in place "
    "(x[i] += h ...) and not put back exactly. Later coordinates are then measured at a shifted "
    "point, and the caller's tensor is silently changed.",
    "Never write into x: build new tensors, e.g. step = torch.zeros_like(x); step[i] = h; "
    "f(x + step) and f(x - step).",
    WHY,
    concept=CONCEPT,
)

FLOAT32_CHECK = Mistake(
    "gradient check not in float64",
    "Your gradient_check called f on float32 tensors. With h = 1e-5, float32 rounding (about 1e-7 of "
    "f) divided by 2h swamps the slope, so even a correct gradient looks wrong.",
    "Convert first: x64 = x.detach().to(torch.float64), and use x64 both for autograd and for "
    "numerical_gradient.",
    WHY,
    concept=CONCEPT,
)

ALL_AT_ONCE = Mistake(
    "every coordinate nudged at once",
    "Every entry of your estimate is the same number: the slope of f along (1, 1, ..., 1), which is "
    "the sum of all the partial derivatives. Moving the whole of x by h moves every coordinate "
    "together; the i-th partial derivative needs x moved along coordinate i alone.",
    "For each i, make a step that is zero except step[i] = h, then use f(x + step) and f(x - step).",
    WHY,
    concept=CONCEPT,
)

DETACH_SHARES_MEMORY = Mistake(
    "nudged x in place (no copy made)",
    "Your estimate is about half the slope: (f(x + h·e_i) − f(x)) / (2h). The point you nudged up was no copy of "
    "x but x's own numbers (a plain `x_plus = x`, x.detach() and a view all share them), so adding h to it at i "
    "moved x itself; the point nudged down then started from that moved x, and subtracting h only brought it back "
    "to x. So you measured f(x + h·e_i) − f(x), not f(x + h·e_i) − f(x − h·e_i).",
    "Make real copies with x.detach().clone(), or build the two points as x + step and x - step (new tensors).",
    '"The Detach / no_grad / .data Triangle" in the companion text (x.detach() shares the same data)',
    concept="views",
)

NUDGES_KEPT = Mistake(
    "nudges never undone",
    "Your first entry is right and the later ones drift: the two nudged points are made once, before the loop, and "
    "each pass adds its own nudge without taking the one before away. So coordinate i is measured with every "
    "coordinate before it still moved by +h in one point and −h in the other: a slope along a growing diagonal, "
    "not along e_i alone.",
    "Build both points afresh in every pass (x + step and x − step, with step zero except step[i] = h), or put "
    "x_plus[i] and x_minus[i] back to x[i] at the end of the pass.",
    WHY,
    concept=CONCEPT,
    # Steps made by multiplying a list are one tensor: they pile up the same way, for another reason.
    contradicted_by=(pitfall_shown(list_of_one_object, "numerical_gradient",
                                   "the steps are one tensor repeated by list multiplication"),),
)

FLOOR_ONLY_AT_ZERO = Mistake(
    "the floor only where the sum is exactly 0",
    "Your relative_error puts 1e-8 in the denominator only where |a| + |b| is exactly 0, not wherever it is below "
    "1e-8. For tiny non-zero values (1e-9 against −1e-9) the ratio |a − b| / (|a| + |b|) is then close to 1, a "
    "failed check, where the floor makes it a harmless 0.2: the floor is there to say that differences that small "
    "do not count.",
    "Floor the whole denominator: (a.abs() + b.abs()).clamp(min=1e-8), or torch.maximum with 1e-8.",
    WHY,
    concept=CONCEPT,
)

MEAN_OF_GAPS = Mistake(
    "mean of the gaps instead of the largest",
    "Your relative_error is the average of the elementwise relative gaps, not the largest one. An average "
    "hides one badly wrong entry among many good ones, which is exactly what a gradient check must catch.",
    "End with .max().item() instead of .mean().item().",
    WHY,
    concept=CONCEPT,
)

X_MADE_A_LEAF = Mistake(
    "gradient_check made the caller's x require grad",
    "After your gradient_check returned, the caller's x required grad and held a .grad. When x is already "
    "float64, x.to(torch.float64) (or x.double()) is not a copy: it returns x itself, so requires_grad_(True) "
    "switched on tracking for the caller's own tensor, and backward() wrote the gradient into its .grad.",
    "Make the leaf from a copy: leaf = x.detach().to(torch.float64).clone().requires_grad_(True).",
    '"The Four Autograd Patterns" in the companion text (requires_grad=True turns on tracking)',
    concept="requires_grad",
)

LEAF_NOT_DETACHED = Mistake(
    "float64 copy of x not detached",
    "Given an x that requires grad, as a model's parameter does, your gradient_check sent autograd's gradient into "
    "the caller's x.grad. x.to(torch.float64) (or x.double(), and a .clone() of it) is not detached: it stays in "
    "x's graph, so it is no leaf, backward() carries the gradient on into x, and your copy's own .grad stays None.",
    "Cut the copy from x's graph before converting it: x64 = x.detach().to(torch.float64), then "
    "leaf = x64.clone().requires_grad_(True).",
    '"The Four Autograd Patterns" in the companion text (requires_grad=True turns on tracking)',
    concept="requires_grad",
)

ERROR_AS_TENSOR = Mistake(
    "relative error kept as a tensor",
    "Your relative error has the right value, but it is a 0-d tensor, not a Python float: .max() gives a "
    "tensor, and it stays one until you convert it. The docstring promises a float, a plain number to "
    "compare with a limit or print.",
    "End with .max().item(): .item() turns a one-element tensor into a Python float.",
    WHY,
    concept="detach_and_no_grad",
)

ABS_OF_SUM = Mistake(
    "|a + b| where |a| + |b| belongs",
    "Your relative_error divides each gap by |a + b|, the size of the sum, instead of |a| + |b|, the sum of the "
    "sizes. The two agree where a and b have the same sign; where they have opposite signs |a + b| is smaller, even "
    "0, so the ratio grows past 1 and a gradient with a wrong sign reports a huge error or, at a floor of 1e-8, an "
    "enormous one.",
    "Take each size apart before adding them: (a - b).abs() / (a.abs() + b.abs()).clamp(min=1e-8).",
    WHY,
    concept=CONCEPT,
)

ONE_SIDED_SCALE = Mistake(
    "one side's size as the scale",
    "Your relative_error divides each gap by the size of one tensor alone (|b|, as an error relative to the expected "
    "value is, or |a|), instead of |a| + |b|. The docstring's scale is symmetric: swapping a and b must not change "
    "the error, and with one side alone it does; where the two are close, it is about twice the right one.",
    "Scale by both sizes: (a - b).abs() / (a.abs() + b.abs()).clamp(min=1e-8), then the largest.",
    WHY,
    concept=CONCEPT,
)

WHOLE_TENSOR_RATIO = Mistake(
    "one ratio for the whole tensors instead of the largest gap",
    "Your relative_error divides one size of the whole gap by one size of the whole tensors, ||a − b|| / "
    "(||a|| + ||b||) or max|a − b| / max(|a| + |b|), instead of taking a ratio per element. Large entries then "
    "set the scale for all, so a small derivative that is badly wrong hides behind a large one that is right; "
    "the largest elementwise gap is the one a gradient check reports.",
    "Divide elementwise, then take the largest: ((a - b).abs() / (a.abs() + b.abs()).clamp(min=1e-8)).max().item().",
    WHY,
    concept=CONCEPT,
)

TIMES_H_SQUARED = Mistake(
    "divided by 2, then multiplied by h",
    "Every entry of your estimate is the gradient times h² (1e-10 of it with the default h = 1e-5). Python reads "
    "`/ 2 * h` left to right, as (… / 2) * h: the difference f(x + h·e_i) − f(x − h·e_i), about 2h times the "
    "slope, was halved and then multiplied by h instead of divided by it, which leaves h · h times the slope.",
    "Put the parentheses in: (f(x + step) - f(x - step)) / (2 * h).",
    WHY,
    concept=CONCEPT,
)

FLOAT32_RESULT = Mistake(
    "float32 gradient for a float64 x",
    "Your estimate holds the right slopes rounded to float32, where x is float64. The tensor you return is "
    "float32, the dtype torch.zeros(n), torch.empty(n) and torch.tensor(list of floats) give when no dtype is "
    "named, so each float64 slope lost the digits a float64 gradient check relies on.",
    "Make the result in x's dtype: torch.zeros_like(x), or pass dtype=x.dtype where you create it.",
    WHY,
    concept="dtypes",
)

RATIOS_NOT_REDUCED = Mistake(
    "every ratio returned, not the largest",
    "Your relative_error returns every elementwise ratio |a − b| / max(1e-8, |a| + |b|), a list or a tensor of "
    "them, instead of the largest one as a Python float; gradient_check, which returns what relative_error "
    "gives, then returns them all too.",
    "Reduce the ratios to the largest and take the number out: (gap / scale).max().item().",
    WHY,
    concept=CONCEPT,
)
