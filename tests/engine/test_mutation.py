"""The single edits of a reference (graders/engine/mutation.py): one edit each, in one fixed order, of the module's
functions and its classes' methods, each with its family and words that never hold a line of the reference."""

from __future__ import annotations

import ast

from graders.engine import mutation
from test_single_edits import DATA, _code_lines, _source


def test_every_family_has_a_name_words_and_a_hint_and_every_edit_says_its_family() -> None:
    for family, (name, general, hint) in mutation.FAMILIES.items():
        assert name and general and hint.endswith("."), family
    for slug in DATA["exercises"]:
        for mutant in mutation.mutants(_source(slug)):
            assert mutant.family in mutation.FAMILIES and mutant.edit and "\n" not in mutant.edit, mutant


def test_no_edit_in_words_holds_a_line_of_the_reference() -> None:
    for slug in DATA["exercises"]:
        lines = _code_lines(_source(slug))
        assert lines, slug
        for mutant in mutation.mutants(_source(slug)):
            assert not any(line in mutant.edit for line in lines), (slug, mutant.edit)
            assert "torch." not in mutant.edit, (slug, mutant.edit)


def test_a_mutant_is_one_edit_of_the_reference_and_runs() -> None:
    source = "def f(x, n=3):\n    y = x - 2 * x\n    for p in (x, y):\n        p.grad.zero_()\n    return y.sum()\n"
    found = mutation.mutants(source)
    families = {m.family for m in found}
    assert {"sign", "operator", "off_by_one", "reduction", "missing_call", "swapped"} <= families
    assert any(m.edit == "x's gradient never cleared, so that it grows step after step" for m in found)
    assert any(m.edit == "the sign of one term flipped: the term with 2 · x" for m in found)
    plain = ast.unparse(ast.parse(source))
    for mutant in found:
        assert mutant.source != plain
        compile(mutant.source, "<mutant>", "exec")
    assert [m.index for m in found] == [m.index for m in mutation.mutants(source)]  # the same order every time


def test_a_classes_methods_are_edited_and_the_words_say_which() -> None:
    source = ("class Value:\n    def __init__(self, data):\n        self.data = data\n        self.grad = 0.0\n\n"
              "    def __mul__(self, other):\n        return Value(self.data * other.data)\n\n"
              "def double(v):\n    return v * Value(2.0)\n")
    found = mutation.mutants(source)
    assert {m.function for m in found} >= {"Value.__mul__", "double"}
    in_method = [m for m in found if m.function == "Value.__mul__"]
    assert in_method and all(m.edit.endswith("(in Value.__mul__)") for m in in_method), in_method
    assert not any("(in " in m.edit for m in found if m.function == "double")
    for mutant in in_method:  # each edits the method and leaves the class whole
        namespace: dict = {}
        exec(compile(mutant.source, "<mutant>", "exec"), namespace)  # noqa: S102 - an edit of the text above
        assert isinstance(namespace["Value"], type)


def _edits(source: str, family: str) -> list[mutation.Mutant]:
    return [m for m in mutation.mutants(source) if m.family == family]


def test_short_calls_subscripts_and_comparisons_are_spoken_within_the_limit() -> None:
    said = {code: mutation.spoken(ast.parse(code, mode="eval").body) for code in (
        "value.to(device)", "x.shape[0]", "X.size(1)", "torch.cuda.is_available()", "self.data > 0", "i <= len(a)",
        "x.shape[-1]", "f(g(x))", "a[-i]", "torch.backends.mps.is_available(some_long_argument_name)")}
    assert said == {"value.to(device)": "value.to(device)", "x.shape[0]": "x.shape[0]", "X.size(1)": "X.size(1)",
                    "torch.cuda.is_available()": "cuda.is_available()", "self.data > 0": "self.data > 0",
                    "i <= len(a)": "i ≤ len(a)", "x.shape[-1]": "x.shape[−1]",
                    # a call within a call, an index that is not a number or a name, past 32 characters: not spoken
                    "f(g(x))": None, "a[-i]": None, "torch.backends.mps.is_available(some_long_argument_name)": None}


def test_a_value_always_taken_says_which_value_and_which_is_never_taken() -> None:
    source = ("def move(batch, device):\n"
              "    return {k: value.to(device) if isinstance(value, Tensor) else value for k, value in batch.items()}\n")
    (edit,) = _edits(source, "dropped_branch")
    assert edit.edit == ("one case left out: value always taken, never value.to(device), "
                         "not even when isinstance(value, Tensor)")
    long = "def f(x):\n    return some_function(x, 1, 2, 3, 4, 5, 6, 7) if x.numel() > 0 else another_function(x, 1, 2, 3, 4, 5)\n"
    # Neither value short to say: the general words, never a long piece of code.
    assert [m.edit for m in _edits(long, "dropped_branch")] == ["one case left out: one of two values always taken"]


def test_an_index_of_a_dimension_is_said_as_a_dimension_not_a_whole_number_off_by_one() -> None:
    source = "def f(X, y):\n    rows = X.shape[0]\n    cols = y.size(1)\n    return X.sum(dim=0) / rows + cols\n"
    axis = [m.edit for m in _edits(source, "axis")]
    assert axis == ["the size along dimension 1 (X.shape[1]) taken where dimension 0's belongs",
                    "the size along the last dimension (X.shape[−1]) taken where dimension 0's belongs",
                    "the size along dimension 2 (y.size(2)) taken where dimension 1's belongs",
                    "the size along dimension 0 (y.size(0)) taken where dimension 1's belongs",
                    "the sum taken along dimension 1 instead of 0"]
    # No number indexing a dimension is also "a whole number off by one": one edit, one family. (The count the sum
    # is divided by may be off by one: that edit is of the division, not of the index.)
    assert [m.edit for m in _edits(source, "off_by_one")] == [
        "a division by a count off by one: divided by rows − 1 where rows belongs",
        "a division by a count off by one: divided by rows + 1 where rows belongs"]
    last = "def f(X):\n    return X.shape[-1]\n"
    assert [m.edit for m in mutation.mutants(last)] == [
        "the size along dimension 0 (X.shape[0]) taken where the last dimension's belongs",
        "the size along the second-to-last dimension (X.shape[−2]) taken where the last dimension's belongs"]


def test_a_case_left_out_knows_its_condition_and_a_function_that_tests_it_is_seen() -> None:
    reference = ("def move(batch, device):\n"
                 "    return {k: value.to(device) if isinstance(value, Tensor) else value for k, value in batch.items()}\n"
                 "\n\ndef pick():\n    if torch.cuda.is_available():\n        return 'cuda'\n    return 'cpu'\n")
    case_of = {m.function: m.case for m in _edits(reference, "dropped_branch")}
    assert set(case_of) == {"move", "pick"} and all(case_of.values())
    # The same test, whatever the student calls its own variables, and torch.Tensor for Tensor.
    loop = ("def move(batch, device):\n    out = {}\n    for name, v in batch.items():\n"
            "        if isinstance(v, torch.Tensor):\n            out[name] = v.to('cpu')\n"
            "        else:\n            out[name] = v\n    return out\n")
    assert case_of["move"] in mutation.tested_cases(loop, "move")
    # A parameter is the stub's: another parameter tested is another case.
    assert case_of["move"] not in mutation.tested_cases(loop.replace("isinstance(v,", "isinstance(device,"), "move")
    assert case_of["pick"] not in mutation.tested_cases("def pick():\n    return 'cpu'\n", "pick")
    assert mutation.tested_cases("def pick(:\n", "pick") is None
    assert mutation.tested_cases("def other():\n    pass\n", "pick") is None
    # Its mutant has the case no more: as a student's code, it is not contradicted.
    for mutant in _edits(reference, "dropped_branch"):
        assert mutant.case not in mutation.tested_cases(mutant.source, mutant.function), mutant


def test_a_value_always_taken_says_what_it_can_of_the_other_value_and_of_the_case() -> None:
    source = "def f(a, i):\n    return a[-i] if i <= len(a) else 1\n"
    assert [m.edit for m in _edits(source, "dropped_branch")] == ["one case left out: 1 always taken, even when i ≤ len(a)"]
    source = "def f(a, i):\n    return a if i == 1 else a[-i]\n"
    assert [m.edit for m in _edits(source, "dropped_branch")] == ["one case left out: a never taken, not even when i = 1"]


def test_an_update_and_a_comparison_say_which() -> None:
    source = "def f(w, b, lr, i, n):\n    w -= lr\n    b -= lr\n    return w if i <= n else b\n"
    assert [m.edit for m in mutation.mutants(source) if m.family == "sign"] == [
        "the sign of one update flipped: w goes the other way", "the sign of one update flipped: b goes the other way"]
    assert [m.edit for m in _edits(source, "off_by_one")] == [
        "the boundary case of one comparison counted on the wrong side: i < n where i ≤ n belongs"]



class _Param:
    """A parameter that an in-place update changes, as a tensor's `-=` does."""

    def __init__(self) -> None:
        self.value, self.grad = 1.0, 2.0

    def __isub__(self, step: float) -> "_Param":
        self.value -= step
        return self

    def __iadd__(self, step: float) -> "_Param":
        self.value += step
        return self


def test_an_update_a_loop_makes_for_several_things_is_left_out_or_reversed_for_one_alone() -> None:
    # fit_quadratic's loop over (a, b, c): a student who writes one update per parameter slips on one, not on all.
    source = "def fit(a, b, lr):\n    for p in (a, b):\n        p -= lr * p.grad\n    return a.value, b.value\n"
    found = {m.edit: m for m in mutation.mutants(source)}
    left_out = found["b never updated: the update left out for b alone"]
    reversed_ = found["a alone moved the other way: its update adds where it should subtract, the others' do not"]
    assert (left_out.family, reversed_.family) == ("left_out_for_one", "sign")

    def run(mutant: mutation.Mutant) -> tuple[float, float]:
        namespace: dict = {}
        exec(compile(mutant.source, "<mutant>", "exec"), namespace)  # noqa: S102 - an edit of the text above
        return namespace["fit"](_Param(), _Param(), 0.5)

    assert run(left_out) == (0.0, 1.0)  # a stepped down, b never moved
    assert run(reversed_) == (2.0, 0.0)  # a stepped up, b down as it should


def test_a_loops_bound_a_square_and_an_activation_have_their_siblings() -> None:
    source = ("import torch\n\ndef f(x, n):\n    total = 0\n    for i in range(n):\n        total = total + i\n"
              "    return torch.sigmoid(x) + ((x - 1) ** 2).mean() + total\n")
    edits = {m.edit: m.family for m in mutation.mutants(source)}
    assert edits["a loop that runs one pass fewer: n − 1 passes where n belong"] == "off_by_one"
    assert edits["a loop that runs one pass more: n + 1 passes where n belong"] == "off_by_one"
    assert edits["a loop that starts at 1 where it starts at 0 (its first pass left out)"] == "off_by_one"
    assert edits["the absolute value of x − 1 taken where its square belongs"] == "function"
    assert edits["tanh in place of sigmoid"] == "function"
    # A bound that is a number is the constant's to edit (the whole number off by one), not the loop's twice over.
    assert not any("passes" in m.edit for m in mutation.mutants("def g():\n    for i in range(3):\n        pass\n"))


def test_brackets_a_divisor_and_a_returned_count_have_their_slips() -> None:
    source = ("def f(s, x, rows, n):\n    total = s * (1 - s) * x / rows\n    g = h(s + x)\n    return n\n\n"
              "def h(v):\n    return v\n")
    edits = {m.edit: m for m in mutation.mutants(source)}
    dropped = edits["the brackets around 1 − s left out"]
    assert dropped.family == "brackets" and "s * 1 - s * x / rows" in dropped.source
    assert edits["a division by a count off by one: divided by rows − 1 where rows belongs"].family == "off_by_one"
    assert edits["n + 1 returned where n belongs"].family == "off_by_one"
    # A call's own brackets are not grouping ones: h(s + x) keeps them.
    assert not any("s + x" in words for words in edits if "brackets" in words), sorted(edits)


def test_a_floor_a_position_and_two_results_have_their_siblings() -> None:
    source = ("def f(a, w, b):\n    scale = a.abs().clamp(min=1e-08)\n    top = (a / scale).max()\n"
              "    return w.item(), b.item()\n")
    edits = {m.edit: m.family for m in mutation.mutants(source)}
    assert edits["a ceiling (max=1e-08) where a floor (min=1e-08) belongs"] == "order_statistic"
    assert edits["the position of the largest taken where the largest belongs"] == "order_statistic"
    assert edits["w.item() and b.item() returned in each other's place"] == "swapped"


def test_a_term_an_argument_and_the_order_of_two_steps_have_their_slips() -> None:
    source = ("def predict(X, w, b, scale=2.0):\n    return X @ w + b * scale\n\n"
              "def step(p, lr):\n    p -= lr * p.grad\n    p.grad.zero_()\n\n"
              "def fit(a, b, c):\n    return a, b, c\n")
    edits = {m.edit: m for m in mutation.mutants(source)}
    assert edits["the term b · scale left out"].family == "term"
    ignored = edits["the argument scale ignored: its default 2.0 always used"]
    assert ignored.family == "ignored_argument" and "b * 2.0" in ignored.source
    order = edits["the clearing of p's gradient done before the update of p, where it comes after"]
    assert order.family == "swapped" and order.source.index("p.grad.zero_()") < order.source.index("p -= lr")
    assert edits["the results returned in reverse order"].source.endswith("return (c, b, a)")
