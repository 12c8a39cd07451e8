"""The named mistakes of `forward_vs_reverse`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

from graders.kit import Mistake, code_calls_outside_block, code_ends_its_loop_at_once


MODES = 'companion text, "Forward Mode vs. Reverse Mode"'

TAKEAWAYS = '"Key Takeaways" of the companion text (one forward + one backward pass gives every gradient)'

# The idea of the lesson that most of these mistakes break (a key of course_config.CONCEPTS);
# the others name their own.
CONCEPT = "forward_vs_reverse"

ONES_TANGENT = Mistake(
    "forward mode with one all-ones tangent",
    "Your gradient holds the sum of all the partial derivatives: what jvp gives with a tangent of ones, "
    "the direction (1, 1, ..., 1), however many times it is called. Forward mode learns about one input "
    "direction per pass, so each pass needs its own tangent, the basis vector of its coordinate.",
    "Loop over the coordinates: jvp(f, (x,), (e_i,)) with e_i = torch.eye(n)[i] gives df/dx_i.",
    MODES,
    concept=CONCEPT,
)

BACKWARD_PER_COORDINATE = Mistake(
    "reverse mode with one pass per coordinate",
    "Your gradient is right, but you ran f (and a backward pass) once per input. Reverse mode's point "
    "is that one backward pass from the single output gives the derivative for every input at once.",
    "Call f once on a leaf copy of x, call .backward() once, and return the whole leaf.grad "
    "(or use torch.func.vjp once).",
    TAKEAWAYS,
    concept=CONCEPT,
)

REVERSE_FOR_FORWARD = Mistake(
    "reverse mode used where forward mode was asked",
    "Your gradient_forward_mode gives the right gradient, but by reverse mode: its code calls backward(), "
    "torch.autograd.grad or a torch.func reverse transform (vjp, grad, jacrev) and makes no forward-mode pass at "
    "all. Forward mode pushes a tangent direction from the input through f, alongside its value; the exercise "
    "is to see that this costs one pass per input, which reverse mode hides.",
    "For each i, push the unit direction e_i through f: _, d = torch.func.jvp(f, (x,), (e_i,)), then "
    "gradient[i] = d (or give f a dual tensor of torch.autograd.forward_ad).",
    MODES,
    concept=CONCEPT,
)

SWAPPED_MODES = Mistake(
    "forward and reverse swapped",
    "Your passes_needed counts outputs for forward mode and inputs for reverse mode. Forward mode "
    "carries one input direction per pass; reverse mode carries one output back per pass.",
    "forward → n_inputs, reverse → n_outputs: that is why a scalar loss of many parameters uses reverse mode.",
    MODES,
    concept=CONCEPT,
)

JVP_OUTPUTS_SWAPPED = Mistake(
    "jvp's outputs unpacked in the wrong order",
    "Every entry of your gradient is f(x) itself. torch.func.jvp returns a pair (f(x), directional "
    "derivative), in that order: you kept the first, the function's value, where the second is the "
    "derivative along the tangent.",
    "_, derivative = torch.func.jvp(f, (x,), (e_i,)); gradient[i] = derivative.",
    MODES,
    concept=CONCEPT,
)

MODIFIED_X = Mistake(
    "modified the caller's x",
    "The x you were given was different after your function returned: it was made to require grad "
    "(x.requires_grad_()), was given a .grad, or had its values changed. The caller's tensor is theirs: "
    "the next computation with it would build a graph or read a stale gradient.",
    "Work on a copy: leaf = x.detach().clone().requires_grad_(True), then f(leaf).backward() and return leaf.grad.",
    '"Autograd: gradients for free" (requires_grad and .grad belong to the tensor you set them on)',
    concept="requires_grad",
)

SKIPPED_COORDINATE = Mistake(
    "a coordinate skipped (loop off by one)",
    "Your gradient is right everywhere except at one or more entries that are exactly 0: no jvp pass was made "
    "for those coordinates, so they kept the zero the gradient started with. A loop such as range(1, n) misses "
    "coordinate 0; forward mode needs one pass for every one of the n inputs.",
    "Loop over all n coordinates: for i in range(x.numel()) (or over the rows of torch.eye(n)).",
    MODES,
    concept=CONCEPT,
    contradicted_by=(code_ends_its_loop_at_once("gradient_forward_mode", "the loop of gradient_forward_mode returns or "
                                                                          "breaks in its first pass"),),
)

TANGENTS_READ_AFTER_THE_LEVEL = Mistake(
    "tangents read after the dual level closed",
    "Your gradient is 0 everywhere. Your code makes its dual tensors inside `with fwAD.dual_level():` but unpacks "
    "the outputs' tangents after that block has ended (after it, or in a helper called after it): leaving the level "
    "drops every "
    "tangent made in it, so unpack_dual then finds none, and the code's stand-in for a missing tangent (0) is "
    "what comes back.",
    "Call fwAD.unpack_dual(out).tangent inside the `with fwAD.dual_level():` block, in the same pass that made "
    "the dual input, and keep the derivative (a plain tensor) rather than the dual output.",
    MODES,
    concept=CONCEPT,
    contradicted_by=(code_calls_outside_block("unpack_dual", "dual_level",
                                              "the code reads no tangent outside a dual_level block"),),
)

UNKNOWN_MODE_AS_REVERSE = Mistake(
    "unknown mode taken as reverse",
    'For a mode that is neither "forward" nor "reverse", your passes_needed returned n_outputs as if it were '
    '"reverse": an else branch (or a last `return n_outputs`) catches every mode that is not "forward". So a '
    'typo such as "revrese" gets a confident answer instead of an error.',
    'Test both names, mode == "forward" and mode == "reverse", and end with '
    'raise ValueError(f"unknown mode {mode!r}").',
    MODES,
    concept=CONCEPT,
)

MODE_READ_LOOSELY = Mistake(
    "mode read loosely",
    'Your passes_needed answered for a mode that only looks like "forward" or "reverse" once its case or spaces '
    'are changed: it compares mode.lower() or mode.strip(). The docstring asks for the two names exactly, and '
    'anything else is a caller\'s typo that deserves an error, as torch\'s own string options give one.',
    'Compare the mode as given: mode == "forward", mode == "reverse", else raise ValueError.',
    MODES,
    concept=CONCEPT,
)

DIRECTIONS_PILED_UP = Mistake(
    "tangent not reset between passes",
    "Entry i of your gradient is the sum of the first i + 1 partial derivatives, a running sum of the right "
    "gradient. This is what one tangent made before the loop gives: setting v[i] = 1 in each pass without "
    "clearing the ones before makes pass i push e_0 + ... + e_i through f instead of e_i.",
    "Make a fresh tangent in each pass (e_i = torch.zeros_like(x); e_i[i] = 1), or take the rows of "
    "torch.eye(n, dtype=x.dtype).",
    MODES,
    concept=CONCEPT,
)

FLOAT32_BUFFER = Mistake(
    "float32 gradient for a float64 x",
    "Your gradient holds the right values rounded to float32, where x is float64. The tensor you return is "
    "float32, the dtype torch.zeros(n) and torch.empty(n) give when no dtype is named, so the derivatives lose "
    "the digits that float64 kept.",
    "Make the result in x's dtype: torch.zeros_like(x), or torch.zeros(n, dtype=x.dtype).",
    MODES,
    concept="dtypes",
)

TANGENT_DTYPE = Mistake(
    "tangent not in x's dtype",
    "Your forward mode pushes float32 tangents through f at a float64 x: torch.eye(n) and torch.zeros(n) make "
    "float32 tensors when no dtype is named. jvp carries the tangent beside x through every operation of f, and "
    "torch does not reconcile the two dtypes everywhere: for a float64 x of one number, an operation of f met a "
    "float64 x and a float32 tangent and raised.",
    "Make the directions in x's dtype: torch.eye(n, dtype=x.dtype), or torch.zeros_like(x) with a 1 at i.",
    MODES,
    concept="dtypes",
)

REVERSE_ALWAYS_ONE = Mistake(
    "one reverse pass for many outputs",
    "Your passes_needed answered 1 for reverse mode with more than one output, as if reverse mode always took a "
    "single pass. One backward pass gives the gradient of one output, as for the lesson's scalar loss; a "
    "function with m outputs needs m of them, one per row of its Jacobian.",
    'For mode == "reverse" return n_outputs.',
    MODES,
    concept=CONCEPT,
)

GRADIENT_TRACKS_X = Mistake(
    "gradient still tracked through x",
    "Your gradient has the right values but requires grad. x required grad, so autograd recorded what jvp, vjp "
    "or a clone of x computed from it, and your result hangs on a graph that leads back to x. A gradient is an "
    "answer, not a step of the model: nothing should flow back through it.",
    "Start from x.detach(): pass it to jvp and vjp, or make the leaf copy as x.detach().clone().requires_grad_().",
    MODES,
    concept="detach_and_no_grad",
)

VJP_TUPLE_RETURNED = Mistake(
    "vjp's tuple returned instead of the gradient in it",
    "You returned a tuple that holds the right gradient, not the gradient itself. torch.func.vjp(f, x) gives "
    "f(x) and a pullback function, and the pullback returns a tuple with one gradient per input of f: for the "
    "single input x, a tuple of one.",
    "Unpack the one element: (g,) = pullback(torch.ones_like(output)), then return g.",
    MODES,
    concept=CONCEPT,
)
