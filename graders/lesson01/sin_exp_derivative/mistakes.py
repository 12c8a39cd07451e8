"""The named mistakes of `sin_exp_derivative`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake, code_binds_default, code_holds_from_import


TRY_IT = '"Try it yourself", exercise 3'

AUTOGRAD = '"Autograd: gradients for free"'

ZERO_GRAD = '"Worked example", where it explains w.grad.zero_()'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "requires_grad"

PRODUCT_RULE_MISSED = Mistake(
    "product rule missed",
    "Your derivative equals cos(x)·e^(−x): the derivative of sin(x) times e^(−x) unchanged. "
    "f is a product of two functions of x, so both factors must be differentiated.",
    "Use the product rule: (u·v)' = u'·v + u·v', with u = sin x and v = e^(−x).",
    TRY_IT,
    concept="chain_rule",
)

SIGN_ERROR = Mistake(
    "sign error",
    "Your derivative equals e^(−x)·(cos x + sin x), where e^(−x)·(cos x − sin x) belongs: the sin x term has the "
    "wrong sign. It gets its minus from the derivative of e^(−x), which is −e^(−x) (in a closed form such as "
    "√2·e^(−x)·cos(x + π/4), from the sign of the phase).",
    "Check the chain rule on e^(−x), whose inner function −x has derivative −1, and where you wrote the result in "
    "another form, that it still equals e^(−x)·(cos x − sin x).",
    TRY_IT,
    concept="chain_rule",
)

F_EXPONENT_SIGN = Mistake(
    "e^(+x) in f instead of e^(−x)",
    "Your f equals sin(x)·e^(+x): the minus sign of the exponent is missing (torch.exp(x) where the lesson has "
    "torch.exp(-x)), so f grows with x instead of dying away, and whatever differentiates f gives "
    "e^x·(cos x + sin x).",
    "Negate the exponent: torch.exp(-x).",
    TRY_IT,
    concept="chain_rule",
)

DERIVATIVE_EXPONENT_SIGN = Mistake(
    "e^(+x) in the derivative instead of e^(−x)",
    "Your derivative has e^(+x) where f has e^(−x): it equals e^x·(cos x + sin x), the derivative of "
    "sin(x)·e^(+x), or e^x·(cos x − sin x), the right bracket times the wrong exponential. The function is "
    "sin(x)·e^(−x), and its derivative keeps the e^(−x).",
    "Write the exponential as torch.exp(-x): the result is e^(−x)·(cos x − sin x).",
    TRY_IT,
    concept="chain_rule",
)

ONE_TERM_WRONG = Mistake(
    "one term of the product rule wrong",
    "The product rule gives two terms, u'·v = cos x · e^(−x) and u·v' = −sin x · e^(−x) (u = sin x, v = e^(−x)). "
    "Your derivative has one of them right and the other wrong.",  # the check says which, and how (checks.py)
    "Work the terms one at a time: u' = cos x, v' = −e^(−x) by the chain rule (the inner −x has derivative −1), so "
    "u'·v = cos x · e^(−x) and u·v' = −sin x · e^(−x); the derivative is their sum, e^(−x)·(cos x − sin x).",
    TRY_IT,
    concept="chain_rule",
)

ACCUMULATED_TWICE = Mistake(
    "gradient accumulated over two backward calls",
    "Your gradient is exactly twice the right one. backward() adds into .grad rather than "
    "overwriting it, so two backward passes without zeroing in between leave 2× the derivative.",
    "Call backward() once per fresh leaf, or zero the gradient (x.grad.zero_()) before calling it again.",
    ZERO_GRAD,
    concept="accumulation",
)

NON_SCALAR_BACKWARD = Mistake(
    "backward on a non-scalar output",
    "PyTorch says \"grad can be implicitly created only for scalar outputs\": backward() with no "
    "argument needs a single number to differentiate, and f(x) holds one value per point.",
    "Reduce to a scalar first: f(x).sum().backward(). Each output depends only on its own input, "
    "so the gradient of the sum is the derivative at every point.",
    TRY_IT,
    error_pattern=r"grad can be implicitly created only for scalar outputs",
    concept=CONCEPT,
)

STILL_REQUIRES_GRAD = Mistake(
    "returned a tensor that still requires grad",
    "The derivative you return is still attached to an autograd graph (requires_grad=True), so "
    "whoever uses it keeps that graph alive and may backpropagate through it by accident.",
    "Return the gradient detached: leaf.grad.detach(), or compute it without create_graph=True.",
    '"The Detach / no_grad / .data Triangle" in the companion text',
    concept="detach_and_no_grad",
)

MODIFIED_INPUT = Mistake(
    "modified the caller's tensor",
    "After your function ran, the x the caller passed in had changed: it now requires grad or "
    "holds a .grad. A function should not change its caller's tensors as a side effect.",
    "Work on a copy: leaf = x.detach().clone().requires_grad_(True).",
    TRY_IT,
    concept=CONCEPT,
)

F_BOUND_AS_DEFAULT = Mistake(
    "f bound as a default argument",
    "Your autograd_derivative differentiates the function it gets as a default argument (such as fn=f), and a "
    "default is evaluated once, when the def runs: the check replaces f in your module afterwards, but the "
    "default still holds the original f, so the result stays the derivative of sin(x)·e^(−x).",
    "Call the module's f inside the function's body (f(leaf).sum().backward()) rather than through a parameter "
    "whose default is f; keep the stub's signature, autograd_derivative(x).",
    AUTOGRAD,
    concept=CONCEPT,
)

F_HELD_FROM_IMPORT = Mistake(
    "f held from when the module loaded",
    "Your autograd_derivative differentiates f through a value your module made when it was loaded (a "
    "functools.partial given f, an alias such as g = f, a helper's default argument fn=f). That value holds the function f was "
    "at that moment: the check replaces f in your module afterwards, but the value still holds the original, so "
    "the result stays the derivative of sin(x)·e^(−x).",
    "Name the module's f inside autograd_derivative's body, where it is looked up at each call: "
    "f(leaf).sum().backward().",
    AUTOGRAD,
    concept=CONCEPT,
)

F_NOT_DIFFERENTIATED = Mistake(
    "f not differentiated",
    "With f replaced by another function, autograd_derivative still returned the derivative of "
    "sin(x)·e^(−x): it works that derivative out itself (the hand-worked formula, or autograd on its own "
    "copy of sin(x)·e^(−x)) instead of differentiating f.",
    "Call f on the leaf: leaf = x.detach().clone().requires_grad_(True); f(leaf).sum().backward(); "
    "return leaf.grad.",
    AUTOGRAD,
    concept=CONCEPT,
    contradicted_by=(code_binds_default("autograd_derivative", "f",
                                        "autograd_derivative takes f as the default of its parameter {parameter}"),
                     code_holds_from_import("autograd_derivative", "f",
                                            "autograd_derivative uses f through a value made at line {line}")),
)

MEAN_NOT_SUM = Mistake(
    "mean instead of sum before backward",
    "Your derivative is the right one divided by the number of values in x (1/50 of it on the lesson's 50 "
    "points): f(leaf).mean() is the sum of the outputs divided by that number, so backward() gives each point "
    "its derivative divided by it too. With .sum(), each output counts once and the gradient is the "
    "derivative itself.",
    "Reduce f's output with .sum() before backward(): f(leaf).sum().backward().",
    TRY_IT + ' ("sum the output, then call backward()")',
    concept=CONCEPT,
)

GRID_ARGUMENTS_IGNORED = Mistake(
    "n, start and end arguments ignored",
    "Your max_abs_difference measures the gap on the lesson's grid, torch.linspace(0, 5, 50), whatever n, start "
    "and end it is given: the grid is written out in the function instead of built from its arguments, so "
    "asking for another grid still gives the lesson's answer.",
    "Build the grid from the arguments: x = torch.linspace(start, end, n).",
    TRY_IT,
    concept="seeds_and_arguments",
)

DEFAULT_GRID_CHANGED = Mistake(
    "defaults of the grid changed",
    "Called with no arguments, your max_abs_difference measured the gap on another grid than the lesson's, "
    "torch.linspace(0, 5, 50): a default of n, start or end in its signature is not the stub's. A caller who relies "
    "on the defaults then compares the two derivatives over other points than the ones asked for.",
    "Keep the stub's signature as it is: def max_abs_difference(n: int = 50, start: float = 0.0, end: float = 5.0).",
    TRY_IT,
    concept="seeds_and_arguments",
)

PRODUCT_OF_DERIVATIVES = Mistake(
    "product of the derivatives, no product rule",
    "Your derivative equals cos(x)·(−e^(−x)): the derivative of sin(x) times the derivative of e^(−x). "
    "The derivative of a product is not the product of the derivatives: each factor is differentiated in "
    "turn while the other stays as it is, and the two terms are added.",
    "Use the product rule: (u·v)' = u'·v + u·v', with u = sin x and v = e^(−x), which gives "
    "cos(x)·e^(−x) − sin(x)·e^(−x).",
    TRY_IT,
    concept="chain_rule",
)

F_THROUGH_NUMPY = Mistake(
    "f computed with NumPy",
    "Given a tensor that requires grad, as autograd_derivative's leaf is, your f raises \"Can't call numpy() on "
    "Tensor that requires grad\": it hands the tensor to NumPy (np.sin, np.exp, np.array or .numpy()), and a "
    "NumPy array cannot hold the autograd graph, so PyTorch refuses rather than lose the gradient. A plain "
    "tensor goes through NumPy without complaint, which is why f can look right on its own.",
    "Use torch's own functions, which autograd can follow: return torch.sin(x) * torch.exp(-x).",
    '"Common pitfalls", calling .numpy() on a tracked tensor',
    concept=CONCEPT,
)

GAP_AS_TENSOR = Mistake(
    "largest difference kept as a tensor",
    "Your largest difference has the right value, but it is a 0-d tensor, not a Python float: torch.max (like "
    ".max()) gives a tensor, and it stays one until you convert it. The docstring promises a float, a plain "
    "number to compare with a limit or print.",
    "End with .item(): (autograd_derivative(x) - analytic_derivative(x)).abs().max().item().",
    TRY_IT,
    concept="detach_and_no_grad",
)

COPY_NOT_DETACHED = Mistake(
    "copy of x not detached",
    "Given an x that requires grad, your copy of x is not a leaf: x.clone() (or any arithmetic on x) stays in x's "
    "graph, so backward() carries the derivative on into x.grad, and your copy's own .grad stays None.",
    "Cut the copy from the graph first: leaf = x.detach().clone().requires_grad_(True).",
    TRY_IT,
    concept=CONCEPT,
)

GAPS_NOT_REDUCED = Mistake(
    "every difference returned, not the largest",
    "Your max_abs_difference returns a tensor with one difference per point of the grid: the absolute "
    "differences are there, but they are never reduced to the largest one, and the docstring promises a single "
    "Python float.",
    "Reduce to the largest difference, then take the number out: .abs().max().item().",
    TRY_IT,
    concept="detach_and_no_grad",
)

GAP_NOT_ABSOLUTE = Mistake(
    "largest signed difference, no absolute value",
    "Your max_abs_difference returns the largest of the signed differences autograd − analytic (or the reverse): "
    "where one derivative falls below the other, the gap is negative and max() passes over it. The docstring asks "
    "for the largest |autograd_derivative(x) − analytic_derivative(x)|.",
    "Take the absolute value before the maximum: (a - b).abs().max().item().",
    TRY_IT,
    concept="gradient_checking",
)

MEAN_NOT_MAX = Mistake(
    "mean difference instead of the largest",
    "Your max_abs_difference returns the mean of the absolute differences over the grid, not their maximum: "
    "a large gap at one point is then averaged away by the points where the two derivatives agree.",
    "Use .max() where you used .mean(): (a - b).abs().max().item().",
    TRY_IT,
    concept="gradient_checking",
)
