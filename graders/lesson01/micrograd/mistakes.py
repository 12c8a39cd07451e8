"""The named mistakes of `micrograd`, collected by the engine in the order written (engine/collect.py)."""

from __future__ import annotations

import dataclasses

from graders.kit import Mistake
from graders.lesson01.micrograd import micrograd_steps as steps


SCRATCH = 'the companion\'s "Building Autograd From Scratch (Karpathy\'s Micrograd)"'

CHAIN_RULE = '"Autograd: gradients for free" (each node knows its local derivative; backward() multiplies them)'

# The ideas of the lesson these mistakes break (keys of course_config.CONCEPTS): how the backward pass walks the
# graph (order, seeding, adding up the shares), or one operation's local derivative, which is the chain rule.
CONCEPT = "micrograd"
LOCAL_DERIVATIVE = "chain_rule"

ASSIGNED = Mistake(
    "gradients assigned instead of accumulated",
    "A node used more than once keeps only the share of one of its uses: its operands' backward steps set "
    "`grad = ...` where they should add to it. Where every node is used once this gives the right answer, "
    "which is why the simpler expressions pass.",
    "In every backward step write `self.grad += ...` and `other.grad += ...`: each use of a node adds its own "
    "share of the gradient.",
    SCRATCH,
    concept=CONCEPT,
)

GRADS_IN_ONE_TUPLE = Mistake(
    "both grads written in one tuple assignment",
    "A backward step of yours updates both operands' grads in one tuple assignment (`self.grad, other.grad = "
    "self.grad + ..., other.grad + ...`). Python works out every value on the right first, from the grads as they "
    "were, and then assigns them one after the other: where both operands are the same Value (a * a, a + a), the "
    "second assignment overwrites the first, and that use's share is lost.",
    "Write two augmented assignments, `self.grad += ...` then `other.grad += ...`: the second then adds onto what "
    "the first left, also when self and other are one Value.",
    SCRATCH,
    concept=CONCEPT,
)

NO_TOPOLOGICAL_ORDER = Mistake(
    "no topological order",
    "Your backward pass hands a node's gradient on to its operands before every use of that node has added its "
    "share (or hands it on more than once, or in creation order), so everything below a reused node gets the "
    "wrong amount. A node may pass its gradient on only after all the nodes that use it have. (A recursion "
    "that runs each node's step as it reaches it, and a sort without a visited set, do both: they reach a node "
    "once per path and hand its gradient on each time, before it is complete.)",
    "Sort the graph first: a depth-first walk with a visited set that appends a node after its operands; then "
    "set the output's grad to 1 and call each node's backward step in the reverse of that list.",
    SCRATCH,
    concept=CONCEPT,
)

ORDER_NOT_REVERSED = Mistake(
    "steps run in the sorted order, not its reverse",
    "Your backward pass sorts the graph, leaves first, and then runs the backward steps in that same order. A "
    "node's step hands on the grad it holds at that moment, and when it runs, none of the nodes that use it has "
    "run yet, so it hands on 0: only the output's own step, last, gives anything, and every node below its "
    "operands keeps a grad of 0.",
    "Run the steps from the output down: `for node in reversed(topo): node._backward()`.",
    SCRATCH,
    concept=CONCEPT,
)

VISITED_TWICE = Mistake(
    "a node visited more than once in backward",
    "Your backward pass runs the backward step of a node reused in the graph (like c in `c * c + c`, or any node "
    "two paths lead to) once for every path or every use that reaches it, not once: the list your sort builds "
    "holds such a node several times (it is appended each time the walk gets to it, without a visited set), so "
    "its share of the gradient is handed on again and again and everything below it is over-counted. Leaves "
    "have no backward step, which is why expressions that reuse only leaves, like `a * b + a`, still pass.",
    "Keep a set of visited nodes in the topological sort and append a node only the first time you reach it "
    "(`if v not in visited: visited.add(v); ...; topo.append(v)`, the append inside the `if`); then call each "
    "node's _backward() exactly once, in the reverse of that order.",
    SCRATCH,
    concept=CONCEPT,
)

MERGED_BY_VALUE = Mistake(
    "equal values taken for one node in backward",
    "Your topological sort marks the nodes it has visited by their value (the number in data, or the operation "
    "with it), not by the node itself. Two different nodes that happen to hold the same number then count as one: "
    "the walk skips the second, so it is never in the order, its backward step never runs, and whatever lies "
    "below it receives nothing through it. Which of the two is skipped depends on the order the walk visits "
    "operands in (a set of operands gives a different order from run to run), so the wrong grads can move "
    "between expressions when you run the checks again. (A Value class whose __eq__ and __hash__ compare data "
    "does the same inside a set.)",
    "Put the Value objects themselves in the visited set (`visited.add(v)` and `if v not in visited`, with "
    "Value's default identity hash), or their id(): never v.data or a tuple made from it.",
    SCRATCH,
    concept=CONCEPT,
)

NOT_SEEDED = Mistake(
    "output grad not seeded with 1",
    "Every grad stayed 0: backward() never set the output's own grad to 1 (d out / d out), so each backward step "
    "multiplied its local derivative by 0.",
    "Set self.grad = 1.0 at the start of backward(), before the backward steps run.",
    CHAIN_RULE,
    concept=CONCEPT,
)

TANH_DERIVATIVE = Mistake(
    "tanh's local derivative wrong",
    "Your gradients through tanh are what a local derivative of 1 − t (or 1 − x², with x the input) gives. "
    "The derivative of tanh(x) is 1 − tanh(x)² = 1 − t², with t the output.",
    "In tanh's backward step use (1 - t ** 2) * out.grad, where t = out.data.",
    SCRATCH,
    concept=LOCAL_DERIVATIVE,
)

RELU_AT_ZERO = Mistake(
    "relu's derivative wrong at 0",
    "Where relu's input is exactly 0 your relu passes the gradient through. The convention, torch's too, is "
    "relu'(0) = 0: the gradient flows only where the input is strictly positive.",
    "Use (self.data > 0), not (self.data >= 0), in relu's backward step.",
    SCRATCH,
    concept=LOCAL_DERIVATIVE,
)

POWER_RULE = Mistake(
    "power rule slipped in __pow__",
    "Your gradients through `**` (and through `/`, if it is built as a power of −1) are what a local "
    "derivative of x^(n−1) or n·x^n gives. The power rule is d(xⁿ)/dx = n·x^(n−1): the exponent comes down "
    "as a factor and the power drops by one.",
    "In __pow__'s backward step use exponent * self.data ** (exponent - 1) * out.grad.",
    SCRATCH,
    concept=LOCAL_DERIVATIVE,
)

EXP_DERIVATIVE = Mistake(
    "exp's local derivative taken as x",
    "Your gradients through exp are what a local derivative of x, the input, gives. The derivative of eˣ is "
    "eˣ itself: the node's own output.",
    "In exp's backward step use out.data * out.grad.",
    SCRATCH,
    concept=LOCAL_DERIVATIVE,
)

REFLECTED_SWAPPED = Mistake(
    "reflected operation with its operands swapped",
    "With a number on the left (`1 - v`, `2 / v`) Python calls v.__rsub__(1) or v.__rtruediv__(2): there `self` is "
    "v, the right operand, and `other` the number on the left. Your reflected method computed self − other "
    "(or self / other), the operation the other way round.",
    "In __rsub__ return other − self, e.g. (-self) + other; in __rtruediv__ return other / self, e.g. "
    "self ** -1 * other.",
    SCRATCH,
    concept=CONCEPT,
)

UNLINKED_RESULT = Mistake(
    "an operation that returns a new leaf",
    "One of your operations returns a new Value made from a number alone, with no operands recorded and no backward "
    "step: the graph ends there, so nothing it was computed from receives a gradient, and neither does anything "
    "below an operation built from it.",
    "Return a node, not a leaf: Value(data, (self,), ...) with a backward step that hands its operand its share "
    "(for -a: self.grad += -out.grad), or build it from operations that have one (return self * -1).",
    SCRATCH,
    concept=CONCEPT,
)

BUILT_IN_A_CIRCLE = Mistake(
    "operations built from each other in a circle",
    "Some of your operations are built from each other in a circle, none with a backward step of its own: each "
    "calls the next, and the last calls the first again, until Python's recursion limit stops it.",
    "Give one of them a node of its own (Value(data, (self,), ...) with a backward step), or build it from an "
    "operation that does not lead back: -a as self * -1, and 1 - v as (-v) + 1.",
    SCRATCH,
    concept=CONCEPT,
)

# One operation's backward step wrong ("backward step of a * b wrong", ...): told by which step the grads
# of every node show wrong, and how it slipped where that is known (micrograd_steps.py). Such a step hands on
# the wrong local derivative, or drops out.grad: a slip of the chain rule, whichever operation it is.
STEP_MISTAKES = {kind: dataclasses.replace(mistake, concept=LOCAL_DERIVATIVE)
                 for kind, mistake in steps.mistakes(SCRATCH).items()}
