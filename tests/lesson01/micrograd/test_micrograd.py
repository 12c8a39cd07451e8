"""The micrograd checks build the lesson's neuron, print expressions readably, and name
each mistake however it is written (not only as in tests/lesson01/micrograd/mistakes/)."""

from __future__ import annotations

import types

import pytest

from conftest import ROOT
from graders.lesson01.micrograd import micrograd_steps as steps
from graders.engine.drawing import drawn
from graders.lesson01.micrograd.expression_graphs import path_counts
from graders.lesson01.micrograd import checks
from graders.engine.mistakes import Mistake

REFERENCE = (ROOT / "reference" / "lesson01" / "micrograd.py").read_text()


def test_the_lesson_neuron_gives_the_lessons_numbers() -> None:
    result = checks.torch_results([checks.LESSON_NEURON])[0]
    # The lesson prints out = 0.9526 and d out / d w = tensor([0.1355, 0.0452, 0.1807]).
    assert round(result["data"][-1], 4) == 0.9526
    assert [round(g, 4) for g in result["grad"][:3]] == [0.1355, 0.0452, 0.1807]


def test_an_expression_is_printed_as_python_with_its_leaves() -> None:
    assert (checks.graph_text(checks.expression("tanh(a * b + a)", a=0.5, b=-1.2))
            == "out = tanh((a * b) + a) with a = 0.5, b = -1.2")
    assert (checks.graph_text(checks.expression("c = a * b; out = c * c + c", a=0.5, b=-1.2))
            == "c = a * b; out = (c * c) + c with a = 0.5, b = -1.2")
    assert checks.graph_text(checks.expression("1.0 - a ** -1", a=2.0)) == "out = 1.0 - (a ** -1) with a = 2.0"


def test_the_deep_chain_is_as_deep_as_configured_and_keeps_its_gradient() -> None:
    depth = int(checks.EXERCISE.tolerance("chain_depth"))
    graph = drawn("lesson01", checks.EXERCISE.slug, "chain")
    assert len(graph) == 3 + depth
    grads = checks.torch_results([graph])[0]["grad"]
    assert all(abs(g) > 1e3 * checks.EXERCISE.tolerance("values") for g in grads[:3])


def test_random_graphs_reuse_inner_nodes_and_stay_small() -> None:
    graphs = drawn("lesson01", checks.EXERCISE.slug, "generated_expressions")
    assert len(graphs) == checks.EXERCISE.tolerance("random_graph_count")
    reused = 0
    for graph in graphs:
        paths = path_counts(graph)
        assert max(paths) <= checks.EXERCISE.tolerance("max_paths") and min(paths) >= 1  # every node reaches the output
        leaves = sum(spec[0] == "leaf" for spec in graph)
        reused += any(p > 1 for p in paths[leaves:-1])
    assert reused >= len(graphs) // 2


def _variant(*replacements: tuple[str, str]) -> str:
    text = REFERENCE
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    return text


_TOPOLOGICAL = '''        order: list[Value] = []
        seen: set[int] = set()

        def visit(node: Value) -> None:
            if id(node) not in seen:
                seen.add(id(node))
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()'''
_BREADTH_FIRST = '''        import collections
        self.grad = 1.0
        queue, seen = collections.deque([self]), {id(self)}
        while queue:
            node = queue.popleft()
            node._backward()
            for child in node._children:
                if id(child) not in seen:
                    seen.add(id(child))
                    queue.append(child)'''
_ONCE = '''        seen: set[int] = set()

        def visit(node: Value) -> None:
            if id(node) not in seen:
                seen.add(id(node))
                node._backward()
                for child in node._children:
                    visit(child)

        self.grad = 1.0
        visit(self)'''
_APPENDED_EACH_TIME = _TOPOLOGICAL.replace(
    "                    visit(child)\n                order.append(node)",
    "                    visit(child)\n            order.append(node)").replace(
    "for child in node._children:", "for child in dict.fromkeys(node._children):")
_NO_VISITED_SET = '''        order: list[Value] = []

        def visit(node: Value) -> None:
            for child in node._children:
                visit(child)
            order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()'''
_ITERATIVE_WITH_VALUES_VISITED = '''        order: list[Value] = []
        visited: set[Value] = set()
        stack = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif node not in visited:
                visited.add(node)
                stack.append((node, True))
                stack.extend((child, False) for child in set(node._children))
        self.grad = 1.0
        for node in reversed(order):
            node._backward()'''
_DIRECT_SUB = '''        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data - other.data, (self, other), "-")

        def _backward() -> None:
            self.grad = out.grad
            other.grad = -out.grad

        out._backward = _backward
        return out'''

# Value's identity taken from its data: a set of Values (operands visited in a set's order, which changes from run
# to run) merges nodes that hold equal numbers.
_HASHED_BY_DATA = """    def __eq__(self, other: object) -> bool:
        return isinstance(other, Value) and self.data == other.data

    def __hash__(self) -> int:
        return hash(self.data)

    def __neg__(self) -> Value:"""

_WALK_OVER_OPERAND_SETS = """        self.grad = 1.0
        pending = [self]
        while pending:
            node = pending.pop()
            node._backward()
            pending.extend(set(node._children))"""

OTHER_WRITINGS = {
    "topological order not reversed": (checks.ORDER_NOT_REVERSED, _variant(
        (_TOPOLOGICAL, _TOPOLOGICAL.replace("reversed(order)", "order")))),
    "breadth-first walk": (checks.NO_TOPOLOGICAL_ORDER, _variant((_TOPOLOGICAL, _BREADTH_FIRST))),
    "recursive walk with a visited set": (checks.NO_TOPOLOGICAL_ORDER, _variant((_TOPOLOGICAL, _ONCE))),
    "sort appending a node each time it is reached, operands deduplicated": (checks.VISITED_TWICE, _variant(
        (_TOPOLOGICAL, _APPENDED_EACH_TIME))),
    # Reversing a post-order sort without a visited set runs the steps exactly as a recursion that steps
    # first and then recurses (into the operands the other way round): the same grads, so the same name.
    "sort without a visited set": (checks.NO_TOPOLOGICAL_ORDER, _variant((_TOPOLOGICAL, _NO_VISITED_SET))),
    "a walk without a sort, over sets of operands": (checks.NO_TOPOLOGICAL_ORDER, _variant(
        (_TOPOLOGICAL, _WALK_OVER_OPERAND_SETS))),
    "visited marked by operation and value": (checks.MERGED_BY_VALUE, _variant((_TOPOLOGICAL, _TOPOLOGICAL.replace(
        "id(node)", "(node._op, node.data)")))),
    "a Value hashed by its data, in an iterative sort over sets": (checks.MERGED_BY_VALUE, _variant(
        (_TOPOLOGICAL, _ITERATIVE_WITH_VALUES_VISITED), ("    def __neg__(self) -> Value:", _HASHED_BY_DATA))),
    "tanh with 1 - x squared": (checks.TANH_DERIVATIVE, _variant(
        ("self.grad += (1 - t * t) * out.grad", "self.grad += (1 - self.data ** 2) * out.grad"))),
    "assigned in a subtraction of its own": (checks.ASSIGNED, _variant(
        ("        return self + (-other)", _DIRECT_SUB),
        ("self.grad += out.grad\n            other.grad += out.grad",
         "self.grad = out.grad\n            other.grad = out.grad"),
        ("self.grad += other.data * out.grad\n            other.grad += self.data * out.grad",
         "self.grad = other.data * out.grad\n            other.grad = self.data * out.grad"))),
}


@pytest.mark.parametrize("name", list(OTHER_WRITINGS))
def test_a_mistake_written_another_way_is_still_named(grade, name: str) -> None:
    mistake, source = OTHER_WRITINGS[name]
    graded = grade({"micrograd": source}, "-k", "micrograd")
    checks_run = graded.checks("micrograd")
    failed = graded.failed("micrograd")
    assert failed, graded.output
    for check_id in failed:
        assert checks_run[check_id]["mistake"] == mistake.name, checks_run[check_id]["message"]


CORRECT_WRITINGS = {
    "iterative sort, a set of Values visited, operands as a set": _variant(
        (_TOPOLOGICAL, _ITERATIVE_WITH_VALUES_VISITED)),
}


@pytest.mark.parametrize("name", list(CORRECT_WRITINGS))
def test_a_right_backward_written_another_way_earns_full_marks(grade, name: str) -> None:
    graded = grade({"micrograd": CORRECT_WRITINGS[name]}, "-k", "micrograd")
    assert not graded.failed("micrograd"), graded.output


def test_data_stored_as_an_int_costs_only_the_first_check(grade) -> None:
    source = _variant(("        self.data = float(data)\n", "        self.data = data\n"))
    graded = grade({"micrograd": source}, "-k", "micrograd")
    assert graded.failed("micrograd") == {"value_holds_data_and_grad"}, graded.output
    message = graded.checks("micrograd")["value_holds_data_and_grad"]["message"]
    assert "Value(3).data should be the float 3.0" in message and "got:      a int" not in message, message


def test_inner_grads_reset_after_the_pass_are_caught_though_the_leaves_are_right(grade) -> None:
    # torch keeps no .grad on inner tensors; a Value's backward() promises every node's.
    source = _variant(("            node._backward()\n",
                       "            node._backward()\n            if node._children:\n                node.grad = 0.0\n"))
    graded = grade({"micrograd": source}, "-k", "micrograd")
    failed = graded.failed("micrograd")
    assert failed and "value_holds_data_and_grad" not in failed and "forward_values" not in failed, graded.output
    message = graded.checks("micrograd")[sorted(failed)[0]]["message"]
    assert "the leaf grads are right, but the grad of" in message, message


# ---------------------------------------------------------------- which backward step is wrong (micrograd_steps)

def _module(source: str) -> types.ModuleType:
    """A variant of the reference as a module of this process (our own variants only: no sandbox needed)."""
    module = types.ModuleType("submission")
    module.__file__ = "<submission>"
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def _failing(source: str, graphs: list) -> tuple[list[int], list[dict], list[dict]]:
    """The graphs whose leaf grads `source` gets wrong (smallest first, as the checks order them), with the
    driver's results and torch's."""
    results = checks.run_graphs(_module(source), graphs, True)
    truths = checks.torch_results(graphs)
    failing = [i for i in sorted(range(len(graphs)), key=lambda i: (len(graphs[i]), i))
               if not checks._leaves_match(results[i]["grad"], truths[i]["grad"], graphs[i])]
    return failing, results, truths


def _diagnosed(source: str, graphs: list) -> Mistake | None:
    """The mistake the checks name for `source` on `graphs`, as expect_graphs diagnoses it."""
    failing, results, truths = _failing(source, graphs)
    assert failing, "the variant passes these graphs"
    return checks._diagnose(failing, graphs, results, truths, checks.wrong_results(graphs))


def test_the_first_wrong_step_is_the_one_nearest_the_output() -> None:
    graph = checks.expression("tanh(a * b + c)", a=0.5, b=-1.2, c=0.3)  # a, b, c, a*b, a*b + c, tanh
    truth = checks.torch_results([graph])[0]
    grads = list(truth["grad"])
    grads[3] = 1.0  # as if + handed a * b the local derivative alone; a and b then follow from that grad
    grads[0], grads[1] = -1.2, 0.5
    found = steps.wrong_steps(graph, grads, truth["slots"], checks._close)
    assert [(s.node, s.operand) for s in found] == [(4, 3)]  # only the step of +: the * below it is consistent
    assert found[0].got == 1.0 and checks._close(found[0].due, truth["grad"][4])


def test_a_slip_in_mul_shows_through_the_minus_built_from_it() -> None:
    # -b built as b * -1: a slip of * is found in `a - b`, and named as *'s, not as -'s.
    source = _variant(("self.grad += other.data * out.grad\n            other.grad += self.data * out.grad",
                       "self.grad += self.data * out.grad\n            other.grad += other.data * out.grad"))
    mistake = _diagnosed(source, checks.ARITHMETIC)
    assert mistake.name == checks.STEP_MISTAKES["mul"].name
    assert "swaps the operands' rules" in mistake.explanation and "d(a·b)/da = b" in mistake.explanation
    assert "-a is built as a * -1" in mistake.explanation  # the expression shown is -a


def test_a_wrong_add_is_no_longer_called_relus_derivative_at_zero() -> None:
    source = _variant(("self.grad += out.grad\n            other.grad += out.grad",
                       "self.grad += 1.0\n            other.grad += 1.0"))
    mistake = _diagnosed(source, checks.RELUS)
    assert mistake is not checks.RELU_AT_ZERO and mistake.name == checks.STEP_MISTAKES["add"].name
    assert "does not multiply by out.grad" in mistake.explanation


STEP_WRITINGS = {
    # kind named, the change, and a phrase of how the step slipped (None: a slip the grader does not know)
    "mul copying add's step": ("mul", ("self.grad += other.data * out.grad\n            other.grad += self.data "
                                        "* out.grad", "self.grad += out.grad\n            other.grad += out.grad"),
                               "leaves the local derivative out"),
    "add updating self only": ("add", ("self.grad += out.grad\n            other.grad += out.grad",
                                        "self.grad += out.grad"), None),
    "tanh with 1 + t squared": ("tanh", ("(1 - t * t) * out.grad", "(1 + t * t) * out.grad"), None),
    "relu passing out.grad on": ("relu", ("(self.data > 0) * out.grad", "out.grad"),
                                 "leaves the local derivative out"),
    "tanh without out.grad": ("tanh", ("(1 - t * t) * out.grad", "(1 - t * t)"), "does not multiply by out.grad"),
}


@pytest.mark.parametrize("name", list(STEP_WRITINGS))
def test_a_slipped_step_is_named_by_its_operation_in_every_public_check(name: str) -> None:
    kind, change, how = STEP_WRITINGS[name]
    source = _variant(change)
    named = 0
    for graphs in (checks.ARITHMETIC, checks.POWERS_AND_QUOTIENTS, checks.TANH_AND_EXP, checks.RELUS,
                   [checks.LESSON_NEURON], checks.REUSED_LEAVES, checks.SHARED_SUBEXPRESSIONS):
        if not _failing(source, graphs)[0]:
            continue
        mistake = _diagnosed(source, graphs)
        assert mistake is not None and mistake.name == checks.STEP_MISTAKES[kind].name, (graphs[0], mistake)
        assert steps.OPERATIONS[kind].rule in mistake.explanation
        assert (how or steps.UNKNOWN_SLIP) in mistake.explanation
        named += 1
    assert named


_PASS = "        for node in reversed(order):\n            node._backward()\n"
NOT_A_STEP = {  # wrong grads that no single operation's step gives: no step may be named for them
    "every grad but the output's reset after the pass": (_PASS, _PASS + "        for node in order[:-1]:\n"
                                                                        "            node.grad = 0.0\n"),
    "the leaves' grads reset after the pass": (_PASS, _PASS + "        for node in order:\n"
                                                              "            if not node._children:\n"
                                                              "                node.grad = 0.0\n"),
    "the output seeded with 2": ("self.grad = 1.0", "self.grad = 2.0"),
    "two backward passes in one call": (_PASS, _PASS + _PASS),
}


@pytest.mark.parametrize("name", list(NOT_A_STEP))
def test_what_is_no_slip_of_one_step_is_not_called_one(name: str) -> None:
    source = _variant(NOT_A_STEP[name])
    step_names = {m.name for m in checks.STEP_MISTAKES.values()}
    for graphs in (checks.ARITHMETIC, checks.TANH_AND_EXP, [checks.LESSON_NEURON], checks.SHARED_SUBEXPRESSIONS):
        mistake = _diagnosed(source, graphs)
        assert mistake is None or mistake.name not in step_names, (graphs[0], mistake)


def test_numbers_taken_as_floats_only_cost_the_arithmetic_check(grade) -> None:
    # The Value docstring promises `a + 1` and `2 * a` with Python ints: a class that wraps floats only fails there.
    wrap = "        other = other if isinstance(other, Value) else Value(other)\n"
    floats_only = "        other = other if isinstance(other, Value) else Value(other) if type(other) is float else other\n"
    source = _variant((wrap, floats_only), ("        return self * -1\n", "        return self * -1.0\n"))
    graded = grade({"micrograd": source}, "-k", "micrograd")
    assert graded.failed("micrograd") == {"arithmetic_with_numbers"}, graded.output
    message = graded.checks("micrograd")["arithmetic_with_numbers"]["message"]
    assert "out = a + 1 with a = 0.7" in message and "'int' object has no attribute 'data'" in message, message


@pytest.mark.parametrize("name", ["correct_explicit_stack", "correct_operand_derivative_pairs"])
def test_a_catalogued_correct_writing_earns_full_marks(grade, name: str) -> None:
    from mistake_catalogue import submission

    graded = grade({"micrograd": submission("micrograd", name)}, "-k", "micrograd")
    assert graded.failed("micrograd") == set(), graded.output


def test_one_operation_graphs_have_no_order_to_get_wrong() -> None:
    # The probe that tells a wrong order from a step that never runs relies on this: every wrong order, and
    # every repeated one, gives the right grads on a graph of one operation.
    truths = checks.torch_results(checks.ONE_STEP_GRAPHS)
    for graph, truth, wrong in zip(checks.ONE_STEP_GRAPHS, truths, checks.wrong_results(checks.ONE_STEP_GRAPHS)):
        for name in (checks.NO_TOPOLOGICAL_ORDER.name, checks.VISITED_TWICE.name):
            for grads in wrong[name]:
                assert all(abs(g - t) < 1e-12 for g, t in zip(grads, truth["grad"])), (graph, name)


# ---------------------------------------------------------------- how the class builds -, / and unary minus

def _own_sub(reflected: str) -> str:
    """The reference with a `-` of its own whose step loses the minus sign, and __rsub__ as given."""
    own = ("        other = other if isinstance(other, Value) else Value(other)\n"
           "        out = Value(self.data - other.data, (self, other), \"-\")\n\n"
           "        def _backward() -> None:\n            self.grad += out.grad\n            other.grad += out.grad\n\n"
           "        out._backward = _backward\n        return out\n")
    return REFERENCE.replace("        return self + (-other)\n", own).replace(
        "        return (-self) + other\n", f"        return {reflected}\n")


def test_the_class_build_is_read_from_the_source_where_it_can_be_followed() -> None:
    from graders.lesson01.micrograd import class_build

    reference = class_build.read(REFERENCE)
    assert (reference.sub, reference.rsub, reference.div, reference.rdiv, reference.negated_by_mul) == \
        (True, True, True, True, True) and reference.unlinked == ()
    # A `-` of its own; 1 - v handed to it (Value(other) - self) is built as it is; / stays composed.
    own = class_build.read(_own_sub("Value(other) - self"))
    assert (own.sub, own.rsub, own.div) == (False, False, True)
    # A leaf from -a; and what cannot be followed (two classes named Value, no class, no source) assumes nothing.
    leaf = class_build.read(REFERENCE.replace("        return self * -1\n", "        return Value(-self.data)\n"))
    assert leaf.unlinked == ("neg",) and leaf.negated_by_mul is False
    for unknown in (REFERENCE + "\n\nclass Value:\n    pass\n", "x = 1\n", "", None, "def (:\n"):
        assert class_build.read(unknown) == class_build.UNKNOWN
    # A node made by a helper handed (self, other): a `/` of its own, whatever the helper's name.
    helper = class_build.read(REFERENCE.replace(
        "        return self * other ** -1\n",
        "        other = other if isinstance(other, Value) else Value(other)\n"
        "        return Value._node(self.data / other.data, (self, other), (1 / other.data, 0.0))\n"))
    assert helper.div is False and helper.sub is True


def test_a_build_is_allowed_only_where_the_source_builds_each_operation_of_the_graph_so() -> None:
    from graders.lesson01.micrograd import class_build

    own = class_build.read(_own_sub("Value(other) - self"))  # - of its own, / composed
    sub = checks.expression("a - b", a=0.5, b=-1.0)
    div = checks.expression("a / b", a=0.5, b=-1.0)
    assert own.allows((False, False, True), sub) and not own.allows((True, False, True), sub)
    assert own.allows((True, False, True), div) and not own.allows((False, False, True), div)
    assert not own.allows((False, False, False), sub)  # -a is a * -1 in this class
    assert class_build.UNKNOWN.allows((True, True, False), sub)


def test_a_minus_of_its_own_is_never_told_as_built_from_unary_minus(grade) -> None:
    # b - (a * b) gives the grads a slip of -a would give in a class that builds a - b as a + (-b); this class has
    # a step of its own for -, so every check that names the cause names the step of a - b.
    graded = grade({"micrograd": _own_sub("Value(other) - self")}, "--no-expected-cache")
    failed = [c for c in graded.checks("micrograd").values() if not c["passed"]]
    named = {c["mistake"] for c in failed if c["mistake"]}
    assert named == {"backward step of a - b wrong"}, [c["message"] for c in failed]
    assert not any("built as a + (-b)" in graded.explained("micrograd", c["id"]) for c in failed)


def test_a_division_with_a_step_of_its_own_is_never_told_as_a_slip_of_the_power_rule(grade) -> None:
    # d(a/b)/db written as -a/b (not -a/b**2) in a `/` of its own: `**` is right, so "power rule slipped" would
    # send the student to the one method that is not wrong.
    own = ("        other = other if isinstance(other, Value) else Value(other)\n"
           "        out = Value(self.data / other.data, (self, other), \"/\")\n\n"
           "        def _backward() -> None:\n            self.grad += out.grad / other.data\n"
           "            other.grad += -self.data / other.data * out.grad\n\n"
           "        out._backward = _backward\n        return out\n")
    source = REFERENCE.replace("        return self * other ** -1\n", own, 1)
    assert source != REFERENCE
    graded = grade({"micrograd": source}, "--no-expected-cache")
    failed = [c for c in graded.checks("micrograd").values() if not c["passed"]]
    assert failed and all(c["mistake"] != checks.POWER_RULE.name for c in failed), [c["message"] for c in failed]
    assert "backward step of a / b wrong" in {c["mistake"] for c in failed}


def test_operations_built_from_each_other_in_a_circle_are_found_and_a_plain_class_has_none() -> None:
    from graders.lesson01.micrograd import class_build

    assert class_build.circle(REFERENCE) == ()
    # -a as 0 - a calls __rsub__, which the reference builds as (-self) + other: back to __neg__.
    assert class_build.circle(REFERENCE.replace("        return self * -1\n", "        return 0 - self\n")) == (
        "__neg__", "__rsub__")
    # With a step of its own, __neg__ ends the circle.
    own = ("        out = Value(-self.data, (self,), \"neg\")\n\n        def _backward() -> None:\n"
           "            self.grad += -out.grad\n\n        out._backward = _backward\n        return out\n")
    assert class_build.circle(REFERENCE.replace("        return self * -1\n", own)) == ()
    assert class_build.circle("def (:\n") == () and class_build.circle(None) == ()


def _walk_in_orders(slots: list[list], left_first: dict[int, bool], visited_set: bool) -> list[float]:
    """A walk from the output that runs a node's step as it reaches it (every time, or the first time only), taking
    each node's operands, deduplicated, in the order `left_first` gives that node: written apart from the checks'
    replay, to hold it to every order a set may give, not only at the nodes it says matter."""
    grad = [0.0] * len(slots)
    grad[-1] = 1.0
    pending, seen = [len(slots) - 1], set()
    while pending:
        node = pending.pop()
        if visited_set and node in seen:
            continue
        seen.add(node)
        for operand, local in slots[node]:
            grad[operand] += local * grad[node]
        operands = list(dict.fromkeys(o for o, _ in slots[node]))
        pending.extend(operands if not left_first.get(node, True) else operands[::-1])
    return grad


def test_a_walk_over_sets_is_replayed_in_every_order_a_set_may_give() -> None:
    import random

    chooser = random.Random(7)
    for graph in checks.SHARED_SUBEXPRESSIONS + checks.REUSED_LEAVES:
        truth = checks.torch_results([graph])[0]
        replayed = checks.wrong_results([graph])[0][checks.NO_TOPOLOGICAL_ORDER.name]
        for _ in range(20):
            orders = {node: chooser.random() < 0.5 for node in range(len(graph))}
            grads = _walk_in_orders(truth["slots"], orders, visited_set=False)
            assert any(checks._all_match(grads, w) for w in replayed), (checks.graph_text(graph), orders)


def test_equal_values_merged_are_replayed_for_whichever_node_the_walk_keeps() -> None:
    from graders.lesson01.micrograd import merged_walk

    graph = checks.expression("(a + b) * (a - b)", a=1.5, b=0.5)  # a + b = 2 = the output
    truth = checks.torch_results([graph])[0]
    found = merged_walk.merged_walk_grads(graph, [float(x) for x in truth["data"]], truth["slots"], composed=False)
    # The walk starts at the output, so a key by value keeps the output and skips a + b: only a - b hands a and b
    # their shares. A key by operation and value merges nothing here: the right grads, 3 and -1.
    assert sorted([round(g, 9) for g in grads[:2]] for grads in found) == [[2.0, -2.0], [3.0, -1.0]]
    distinct = checks.expression("c = a * b; out = c * c + c", a=0.6, b=-1.3)
    truth = checks.torch_results([distinct])[0]
    assert merged_walk.merged_walk_grads(distinct, truth["data"], truth["slots"], composed=True) == []


def test_a_node_met_only_through_its_equal_is_never_the_one_kept() -> None:
    from graders.lesson01.micrograd import merged_walk

    # x * w + b with b = 0: the sum equals the product, and the walk always meets the sum first.
    graph = [("leaf", 0.7), ("leaf", 0.9), ("leaf", 0.0), ("mul", 0, 1), ("add", 3, 2), ("tanh", 4)]
    truth = checks.torch_results([graph])[0]
    found = merged_walk.merged_walk_grads(graph, truth["data"], truth["slots"], composed=False)
    # Keeping the sum cuts x and w off (their grads stay 0) while b gets its share; keeping the product would
    # leave b with nothing too. The other grads are the right ones, from the key by operation and value.
    assert [grads[:3] for grads in found if grads[0] == 0.0] == [[0.0, 0.0, truth["grad"][2]]]
    assert all(grads[2] != 0.0 for grads in found)


def test_operands_kept_in_a_set_and_zipped_with_their_local_derivatives_are_named_so(grade) -> None:
    # The set's order changes from run to run, so which expressions go wrong does too; a * a goes wrong on every run
    # (the set holds a once), and no failure may name a step's slip, which the grads can look like.
    from mistake_catalogue import read

    edit = read(ROOT / "tests" / "lesson01" / "micrograd" / "operands_kept_in_a_set.edit")
    source = edit.text((ROOT / "reference" / "lesson01" / "micrograd.py").read_text())
    graded = grade({"micrograd": source}, "-k", "micrograd")
    checks_run = graded.checks("micrograd")
    assert not checks_run["reused_leaves"]["passed"], graded.output
    named = {check["mistake"] for check in checks_run.values() if not check["passed"] and check["mistake"]}
    assert named == {"a set's items paired by position"}, graded.output
