"""Which backward step of a student's micrograd Value is wrong, told from every node's grad.

The micrograd checks get back the grad of every node of an expression, not only the leaves'.
A node's grad and the local derivatives of the operation that made it (torch's, the "slots"
of `torch_results` in graders/lesson01/micrograd/checks.py) predict what each of its operands must
receive: grad(operand) = sum, over the operand's uses, of local derivative x grad(node using
it), and the output's own grad is its seed, 1. Taking the student's own grads as the
nodes' grads, each such equation tests one backward step on its own, whatever the others
did. Walking from the output towards the leaves, the first node whose operands did not
receive their due is where the student's backward step went wrong: every equation above it
holds, so its own grad is still right. An operand used by several nodes is compared as the
sum of its shares, the only thing its grad records.

Where every wrong step of a check's failing expressions belongs to one operation, the
message names that operation and its rule; where the steps fit one known slip exactly
(`SLIPS`: out.grad not multiplied in, the operands' rules swapped, ...), it also says how
the step slipped.

A Value class may build `a - b` as `a + (-b)`, `a / b` as `a * b ** -1` and `-a` as
`a * -1`, so that a slip in `*` shows in `-`, `/` and unary minus too. The expressions stay
as written: a slip is tried on each way of building them (`built`), and the intermediate
nodes the student's class made, whose grads we never see, are folded into the written
node's shares (`_fold`). The right local derivatives are answers, so they stay in the
checks module: `slipped_tables` takes them as a function, and the checks module records
its output like every expected value (a student's copy of the checks replays it).

Over 400 lines because it is one idea: the shares of a graph's gradients step by step, and how each
operation's backward step can slip; split, each half would need the other's tables.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from graders.kit import Mistake
from graders.lesson01.micrograd.expression_graphs import BINARY, Graph, operands, path_counts, values

Close = Callable[[Any, float], bool]  # the checks' own comparison: close(student's number, expected number)
# One node's shares, per node: [operand, factor, constant], the share of one use being factor x the node's grad
# + constant. A right step has factor = the local derivative, constant 0; "out.grad not multiplied in" has
# factor 0 and constant = the local derivative: one form for every slip, so that a table is plain data.
Shares = list
LocalSlots = Callable[[Graph], list]  # a graph -> per node, [operand, local derivative] (torch_results' slots)


@dataclass(frozen=True)
class Operation:
    """One operation of the Value class, as the messages speak of it."""

    written: str  # as the expressions write it
    method: str  # where its backward step lives
    rule: str  # its local derivatives, in words
    step: str  # the right backward step, as the hint gives it


OPERATIONS: dict[str, Operation] = {
    # With a number on the left (2 + v, 2 * v) Python calls __radd__ and __rmul__: a wrong step may live there.
    "add": Operation("a + b", "__add__ (and __radd__, for a number on the left)",
                     "d(a + b)/da = d(a + b)/db = 1: each operand gets out.grad as it is",
                     "self.grad += out.grad; other.grad += out.grad (and let __radd__ return self + other, so that "
                     "2 + v builds the same node)"),
    "mul": Operation("a * b", "__mul__ (and __rmul__, for a number on the left)",
                     "d(a·b)/da = b and d(a·b)/db = a: each operand gets the other one's value times out.grad",
                     "self.grad += other.data * out.grad; other.grad += self.data * out.grad (and let __rmul__ "
                     "return self * other)"),
    "pow": Operation("a ** n", "__pow__", "d(aⁿ)/da = n·aⁿ⁻¹, times out.grad",
                     "self.grad += exponent * self.data ** (exponent - 1) * out.grad"),
    "tanh": Operation("tanh(a)", "tanh", "tanh'(a) = 1 − tanh(a)² = 1 − t², with t the node's output, times "
                      "out.grad", "self.grad += (1 - t ** 2) * out.grad, with t = out.data"),
    "exp": Operation("exp(a)", "exp", "exp'(a) = exp(a), the node's own output, times out.grad",
                     "self.grad += out.data * out.grad"),
    "relu": Operation("relu(a)", "relu", "relu'(a) = 1 where the input a > 0, else 0, times out.grad",
                      "self.grad += (self.data > 0) * out.grad"),
    "neg": Operation("-a", "__neg__", "d(−a)/da = −1: a gets −out.grad",
                     "self.grad += -out.grad (or build -a as self * -1)"),
    "sub": Operation("a - b", "__sub__ and __rsub__", "d(a − b)/da = 1 and d(a − b)/db = −1: a gets out.grad, "
                     "b gets −out.grad", "self.grad += out.grad; other.grad += -out.grad (or build a - b as "
                     "a + (-b), and 1 - v as (-v) + 1)"),
    "div": Operation("a / b", "__truediv__ and __rtruediv__", "the quotient's: d(a/b)/da = 1/b and d(a/b)/db = "
                     "−a/b², each times out.grad", "self.grad += out.grad / other.data; other.grad += -self.data / "
                     "other.data ** 2 * out.grad (or build a / b as a * b ** -1)"),
}

# How one operation's backward step may slip, in words, and the operations it is tried on (where slips of two
# operations fit a student's grads alike, `diagnose` says which it names).
SLIPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "no out.grad": ("Your step does not multiply by out.grad: each operand gets the local derivative alone, so the "
                    "chain rule stops at this node (which goes unnoticed only where out.grad happens to be 1, as at "
                    "the output)", tuple(OPERATIONS)),
    "swapped": ("Your step swaps the operands' rules: each operand gets its own value times out.grad "
                "(self.grad += self.data * out.grad), where a's share is b · out.grad and b's is a · out.grad",
                ("mul",)),
    "out.data": ("Your step takes the local derivative as relu's output: the input gets out.data × out.grad, "
                 "where relu' is 1 or 0", ("relu",)),
    "local left out": ("Your step leaves the local derivative out: each operand gets out.grad unchanged, as "
                       "through a +", tuple(k for k in OPERATIONS if k != "add")),
    # Tried only with a failing graph of one step (`_single_step_fails`): in a larger graph a step that never
    # runs can look like grads reset or passed on in the wrong order.
    "never run": ("Your step never runs: the operands of this operation receive nothing, not even a wrong amount, "
                  "as when the new Value is returned without `out._backward = _backward` (or the step is attached "
                  "to another Value), so the chain rule stops at this node", tuple(OPERATIONS)),
}
# Where the local derivative is -1, leaving it out is losing the minus sign: said so.
_SIGN_LOST = ("Your step loses the minus sign: the operand that is subtracted or negated gets out.grad unchanged "
              "instead of −out.grad")
UNKNOWN_SLIP = "Your step hands its operands amounts that fit neither its rule nor a slip the grader knows"
HYPOTHESES: list[tuple[str, str]] = [(kind, slip) for slip, (_, kinds) in SLIPS.items() for kind in kinds]

# A written node whose step shows a slip of another operation, because the Value class builds it from that one.
_BUILT_FROM = {("sub", "add"): "a - b is built as a + (-b)", ("sub", "neg"): "a - b is built as a + (-b)",
               ("sub", "mul"): "a - b is built as a + (-b), with -b = b * -1", ("neg", "mul"): "-a is built as a * -1",
               ("div", "mul"): "a / b is built as a * b ** -1", ("div", "pow"): "a / b is built as a * b ** -1"}


def mistakes(section: str) -> dict[str, Mistake]:
    """The catalogue entry of each operation's wrong backward step (a diagnosis adds how and where, `_named`)."""
    return {kind: Mistake(f"backward step of {op.written} wrong",
                          f"Your backward step of {op.written} hands its operands amounts that do not fit its rule: "
                          f"{op.rule}.", f"In the backward step of {op.method}: {op.step}.", section)
            for kind, op in OPERATIONS.items()}


# ---------------------------------------------------------------- the graph as the student's class builds it

def built(graph: Graph, composed: bool, reflected_composed: bool, negated_by_mul: bool) -> tuple[Graph, list[int]]:
    """The graph as a Value class builds it: `-` and `/` from `+`, `*` and `** -1` (composed, as the reference
    and Karpathy's micrograd do; with a number on the left, `1 - v` and `2 / v`, Python calls __rsub__ and
    __rtruediv__, which a student may write the other way), unary minus as `* -1`; and where each written node
    went."""
    form: list[tuple] = []
    where: list[int] = []

    def add(*spec: Any) -> int:
        form.append(spec)
        return len(form) - 1

    def negate(at: int) -> int:
        return add("mul", at, -1.0) if negated_by_mul else add("neg", at)

    for spec in graph:
        kind = spec[0]
        if kind == "leaf":
            where.append(add(*spec))
            continue
        moved = [where[o] if type(o) is int else o for o in (spec[1:3] if kind in BINARY else spec[1:2])]
        x, y = (moved + [None])[:2]  # a unary node's second item is pow's exponent, a number, not an operand
        if kind == "neg":
            at = negate(x)
        elif kind == "sub" and (reflected_composed if type(x) is float else composed):
            # a - 2.0 is a + (-2.0): Python negates the number itself
            at = add("add", x, -y) if type(y) is float else add("add", negate(y), x) if type(x) is float \
                else add("add", x, negate(y))
        elif kind == "div" and (reflected_composed if type(x) is float else composed):
            # a / 4.0 is a * 0.25, 2.0 / a is a ** -1 * 2.0
            at = add("mul", x, y ** -1) if type(y) is float else add("mul", add("pow", y, -1), x) \
                if type(x) is float else add("mul", x, add("pow", y, -1))
        elif kind in BINARY:
            at = add(kind, x, y)
        else:
            at = add(kind, x, *spec[2:])
        where.append(at)
    return form, where


def _fold(shares: Shares, where: list[int]) -> Shares:
    """A built form's shares as the written graph's: the nodes the class made in between (-b in a + (-b)) are
    each used once, inside one written node, so what reaches a written operand stays affine in that node's
    grad."""
    written = {at: node for node, at in enumerate(where)}
    folded: Shares = []
    for at in where:
        mine: list[list[float]] = []

        def hand(node: int, factor: float, constant: float) -> None:  # this node's grad = factor·g + constant
            for operand, f, c in shares[node]:
                share = (f * factor, f * constant + c)
                if operand in written:
                    mine.append([written[operand], *share])
                else:
                    hand(operand, *share)

        hand(at, 1.0, 0.0)
        folded.append(mine)
    return folded


def _slipped(slip: str, local: float, own: float, out: float) -> tuple[float, float]:
    """(factor, constant) of a share when the step slips as `slip` says."""
    return {"no out.grad": (0.0, local), "swapped": (own, 0.0), "out.data": (out, 0.0),
            "local left out": (1.0, 0.0), "never run": (0.0, 0.0)}[slip]


# The ways a class may build -, / and unary minus: (a - b and a / b composed, 1 - v and 2 / v composed, -a as
# a * -1). One class builds every expression one way, so a slip must fit every graph of a check in the same one.
BUILDS: list[tuple[bool, bool, bool]] = [(c, r, n) for c in (False, True) for r in (False, True) for n in (False, True)]


def slipped_tables(graph: Graph, local_slots: LocalSlots) -> dict[str, dict[str, list]]:
    """For each slip of one operation ("mul: no out.grad", ...) that can show in this graph, the shares of the
    written graph when that step slips and every other is right, per way of building it: {"tables": the
    distinct tables, "builds": for each of `BUILDS`, the index of its table (-1: that way cannot build it)}."""
    forms: list[tuple[Graph, list[int]]] = []
    form_of: list[int] = []  # per build
    for build in BUILDS:
        form = built(graph, *build)
        if form not in forms:
            forms.append(form)
        form_of.append(forms.index(form))
    # A slip of an operation no form uses changes nothing: its key is left out (the right shares apply).
    used = {spec[0] for form, _ in forms for spec in form}
    tables: dict[str, dict[str, list]] = {f"{kind}: {slip}": {"tables": [], "builds": [-1] * len(BUILDS)}
                                          for kind, slip in HYPOTHESES if kind in used}
    for at, (form, where) in enumerate(forms):
        try:
            data, slots = values(form), local_slots(form)
        except (ArithmeticError, ValueError):  # this way of building the graph divides by 0 (0 ** -1)
            continue
        for kind, slip in HYPOTHESES:
            if kind not in used:
                continue
            shares = [[[o, *(_slipped(slip, local, data[o], data[i]) if spec[0] == kind else (local, 0.0))]
                       for o, local in slots[i]] for i, spec in enumerate(form)]
            table, entry = _fold(shares, where), tables[f"{kind}: {slip}"]
            if table not in entry["tables"]:
                entry["tables"].append(table)
            index = entry["tables"].index(table)
            entry["builds"] = [index if form_of[b] == at else i for b, i in enumerate(entry["builds"])]
    return tables


# ---------------------------------------------------------------- comparing a student's grads with the shares

def _predicted(grads: Sequence[Any], shares: Shares) -> list[float | None]:
    """Each node's grad as the shares of the nodes using it (at the student's grads) predict; None where such a
    grad is not a number."""
    total: list[float | None] = [0.0] * len(grads)
    total[-1] = 1.0  # d out / d out: the seed
    for node, triples in enumerate(shares):
        for operand, factor, constant in triples:
            if total[operand] is not None:
                total[operand] = None if type(grads[node]) is not float else \
                    total[operand] + factor * grads[node] + constant
    return total


def explains(grads: Sequence[Any], table: Shares, close: Close) -> bool:
    """Whether the student's grads fit this table at every node."""
    return all(p is not None and close(g, p) for g, p in zip(grads, _predicted(grads, table)))


def _fits(grads: Sequence[Any], tables: dict[str, dict[str, list]], key: str, slots: list, close: Close) -> list[bool]:
    """For each of `BUILDS`, whether the student's grads of one graph fit the slip `key` in a class built so."""
    if key not in tables:  # no way of building this graph reaches that operation: the right shares apply
        return [explains(grads, _right(slots), close)] * len(BUILDS)
    fit = [explains(grads, table, close) for table in tables[key]["tables"]]
    return [at >= 0 and fit[at] for at in tables[key]["builds"]]


def _right(slots: list) -> Shares:
    return [[[o, local, 0.0] for o, local in pairs] for pairs in slots]


def _uses(graph: Graph) -> list[list[tuple[int, int]]]:
    """Per node, the (node using it, operand position 1 or 2) of each use: a * a uses a twice."""
    uses: list[list[tuple[int, int]]] = [[] for _ in graph]
    for node, spec in enumerate(graph):
        if spec[0] != "leaf":
            for position in (1, 2) if spec[0] in BINARY else (1,):
                if type(spec[position]) is int:
                    uses[spec[position]].append((node, position))
    return uses


def _kinds(spec: tuple, position: int) -> set[str]:
    """The operations whose backward step may hand operand `position` of this node its share, however the class
    builds the node (see `built`)."""
    kind = spec[0]
    if kind == "neg":
        return {"neg", "mul"}
    if kind == "sub":
        return {"sub", "add"} if position == 1 else {"sub", "add", "neg", "mul"}
    if kind == "div":
        return {"div", "mul"} if position == 1 else {"div", "mul", "pow"}
    return {kind}


@dataclass(frozen=True)
class WrongStep:
    """A backward step that handed an operand a wrong amount, given the student's own grad of its node."""

    node: int  # the node whose step it is (for an operand used by several nodes, the one nearest the output)
    operand: int
    got: Any  # the operand's grad
    due: float | None  # what it should be, from the grads of the nodes using it (None: one is not a number)
    uses: int  # how many uses the operand has: with more than one, got and due are sums over them
    node_grad: float  # the node's grad (right for the first wrong step: every step above it is right)


def wrong_steps(graph: Graph, grads: Sequence[Any], slots: list, close: Close) -> list[WrongStep] | None:
    """The steps that handed their operands wrong amounts, nearest the output first; None when the output's own
    grad is not 1 (no step is to blame for the seed)."""
    if not close(grads[-1], 1.0):
        return None
    predicted, uses = _predicted(grads, _right(slots)), _uses(graph)
    found = [WrongStep(max(u for u, _ in uses[o]), o, grads[o], predicted[o], len(uses[o]),
                       grads[max(u for u, _ in uses[o])])
             for o in range(len(graph) - 1)
             if uses[o] and not (predicted[o] is not None and close(grads[o], predicted[o]))]
    return sorted(found, key=lambda step: (-step.node, step.operand))


def _one_operation(graphs: list[Graph], grads: list[Sequence[Any]], steps: list[list[WrongStep]]) -> str | None:
    """The one operation every wrong step may belong to, if there is one and the evidence is clean.

    Clean evidence: a wrong share at a node with a single path to the output. Such a node's grad is complete
    before any walk from the output runs its step, so no order of the steps explains the wrong share (the
    wrong orders are named before this is tried). A share of 0 counts only where the same step handed another
    operand a right share that is not 0: a step that ran and slipped, not a grad reset or never reached."""
    candidates: set[str] | None = None  # operations that may have handed every wrong share, however built
    written: set[str] | None = None  # operations, as written, of a node using each operand that got one
    clean = False
    for graph, grad, found in zip(graphs, grads, steps):
        uses, paths = _uses(graph), path_counts(graph)
        wrong = {step.operand for step in found}
        for step in found:
            users = [u for u, _ in uses[step.operand]]
            kinds = set().union(*(_kinds(graph[u], p) for u, p in uses[step.operand]))
            candidates = kinds if candidates is None else candidates & kinds
            at = {graph[u][0] for u in users}
            written = at if written is None else written & at
            ran = step.got != 0.0 or any(o not in wrong and grad[o] != 0.0 for o in operands(graph[step.node]))
            clean = clean or (ran and all(paths[u] == 1 for u in users))
    if not clean or not candidates:
        return None
    if written is not None and len(written) == 1:  # one operation, as written, is at every wrong share: that one
        return next(iter(written))
    return next(iter(candidates)) if len(candidates) == 1 else None


@dataclass(frozen=True)
class Evidence:
    """What the diagnosis of one check needs: every graph of the check, the student's node grads and torch's
    local derivatives, the graphs whose leaf grads are wrong (the first is the one the message shows), and how
    the checks compare, name their mistakes and print a node."""

    graphs: list[Graph]
    grads: list[Sequence[Any]]
    slots: list[list]
    failing: list[int]
    close: Close
    catalogue: dict[str, Mistake]  # kind -> its entry, from `mistakes`
    name: Callable[[Graph, int], str]
    # Whether the student's class builds a graph the way one of `BUILDS` says, as its source shows (class_build.py):
    # a way the source rules out is not tried, whatever grads it would fit.
    allows: Callable[[tuple[bool, bool, bool], Graph], bool] = lambda build, graph: True

    def wrong_steps(self) -> list[list[WrongStep]] | None:
        """The wrong steps of each failing graph; None if some failing graph's seed is wrong (no step is)."""
        found = [wrong_steps(self.graphs[i], self.grads[i], self.slots[i], self.close) for i in self.failing]
        return None if any(not steps for steps in found) else found  # type: ignore[return-value]


def known_slip(evidence: Evidence, tables: Callable[[], list[dict]]) -> Mistake | None:
    """One operation's step slipped in a known way (`SLIPS`), fitting every node of every graph of the check.

    `tables` gives each graph's `slipped_tables` (recorded values: asked for only when needed)."""
    steps, e = evidence.wrong_steps(), evidence
    if steps is None:
        return None
    tried = tables()
    single_step = _single_step_fails(e)
    # A known slip must fit every graph, the ones that pass too, built one way: a slip of `*` that would have
    # spoilt `a * b` where the student got it right is not theirs, though it explains `a - b` (as a + b * -1).
    fitting: dict[tuple[str, str], tuple[bool, ...]] = {}  # slip -> its build nearest the stub's suggestion
    for kind, slip in HYPOTHESES:
        if slip == "never run" and not single_step:
            continue
        fits = [_fits(e.grads[i], tried[i], f"{kind}: {slip}", e.slots[i], e.close) for i in range(len(e.graphs))]
        builds = [b for b in range(len(BUILDS))
                  if all(fit[b] and e.allows(BUILDS[b], graph) for fit, graph in zip(fits, e.graphs))]
        if builds:
            fitting[(kind, slip)] = max(BUILDS[b] for b in builds)  # a - b composed counts first, -a last
    if not fitting:
        return None
    # Slips of two operations may fit alike: `+` that slipped, or a `-` of its own where a - b is usually
    # a + (-b). Prefer the class built as the stub suggests (and the reference does: -, / and unary minus
    # from +, * and **), then the operation the wrong steps are written with; mention the others.
    written = {e.graphs[i][u][0] for i, found in zip(e.failing, steps) for step in found
               for u, _ in _uses(e.graphs[i])[step.operand]}
    kind, slip = max(fitting, key=lambda h: (fitting[h], h[0] in written))  # max keeps the first of equals
    others = [k for k in dict.fromkeys(k for k, _ in fitting) if k != kind]
    return _named(evidence, kind, slip, steps[0], others)


# Operations no Value class builds from others: a graph of one of them has a single backward step.
PRIMITIVE = ("add", "mul", "pow", "tanh", "exp", "relu")


def _single_step_fails(evidence: Evidence) -> bool:
    """Whether a failing graph has one backward step only, of an operation no class builds from others: there no
    order of the steps and no reset of inner grads can be to blame, only the step itself."""
    for i in evidence.failing:
        inner = [spec[0] for spec in evidence.graphs[i] if spec[0] != "leaf"]
        if len(inner) == 1 and inner[0] in PRIMITIVE:
            return True
    return False


def wrong_operation(evidence: Evidence) -> Mistake | None:
    """One operation's step wrong in a way no slip describes: every wrong step of the failing graphs is one
    operation's (see `_one_operation`)."""
    steps = evidence.wrong_steps()
    if steps is None:
        return None
    failing = evidence.failing
    kind = _one_operation([evidence.graphs[i] for i in failing], [evidence.grads[i] for i in failing], steps)
    if kind is None or any(_composed(evidence, kind, evidence.graphs[i]) for i in failing):
        # An operation the class builds from others has no step of its own to blame: the slip is in one of those.
        return None
    return _named(evidence, kind, None, steps[0])


def _composed(evidence: Evidence, kind: str, graph: Graph) -> bool:
    """Whether the student's class, as its source shows, builds every `kind` node of `graph` from other operations
    (a / b as a * b ** -1, -a as a * -1): no way of building it with a node of its own is allowed."""
    if kind not in ("sub", "div", "neg"):
        return False

    def own(build: tuple[bool, bool, bool]) -> bool:
        return all((not build[2]) if spec[0] == "neg" else not (build[1] if type(spec[1]) is float else build[0])
                   for spec in graph if spec[0] == kind)

    allowed = [build for build in BUILDS if evidence.allows(build, graph)]
    # No way allowed at all (a class that composes `-` but not `/`, in a graph of both) tells nothing either way.
    return bool(allowed) and not any(own(build) for build in allowed)


def _number(x: Any) -> str:
    return "not a number" if type(x) is not float else f"{x:.6g}"


def _named(evidence: Evidence, kind: str, slip: str | None, found: list[WrongStep],
           others: Sequence[str] = ()) -> Mistake:
    """The catalogue entry, with how the step slipped and where it first shows in the expression shown."""
    op, graph, name = OPERATIONS[kind], evidence.graphs[evidence.failing[0]], evidence.name
    how = UNKNOWN_SLIP if slip is None else _SIGN_LOST if (kind, slip) in (("neg", "local left out"), (
        "sub", "local left out")) else SLIPS[slip][0]
    # Show a step of the operation named, if the expression has one; else the first, and how it is built.
    step = next((s for s in found if graph[s.node][0] == kind), found[0])
    built_as = _BUILT_FROM.get((graph[step.node][0], kind))
    node, operand = name(graph, step.node), name(graph, step.operand)
    # Only the first wrong step's node is sure to hold the right grad: every step above it is right.
    first, g = step is found[0], _number(step.node_grad)
    if step.uses == 1:
        where = (f"{node} has grad {g}" + (", right so far, but" if first else " and, at that grad,") +
                 f" hands {operand} {_number(step.got)} where {_number(step.due)} is due")
    else:
        where = ((f"the grads are right down to {node} (grad {g}), but " if first else "") +
                 f"{operand}, used {step.uses} times ({node} among them), ends with {_number(step.got)} where its "
                 f"shares add up to {_number(step.due)}")
    explanation = (f"{how}. The rule: {op.rule}. In the expression shown, walking back from the "
                   f"output, {where}" + (f" (your {built_as})" if built_as else "") + ".")
    if others:  # the same grads from another operation's slip, through a way of building one from the other
        explanation += (f" (A slip in the step of {' or '.join(OPERATIONS[k].written for k in others)} gives the "
                        "same grads, depending on how your class builds -, / and unary minus: look there too.)")
    return dataclasses.replace(evidence.catalogue[kind], explanation=explanation)
