"""A failure that names nothing is told a Python pitfall only where the code of the function it called shows one,
and the honest spellings of the same code are not mistaken for it."""

from __future__ import annotations

import types

from graders.engine.code_pitfalls import (bytes_reinterpreted, cached_first_answer, function_as_truth,
                                          iterator_used_twice, late_bound_loop_variable, list_of_one_object,
                                          loop_variable_reused, mutable_default, other_generator, parameter_rebound,
                                          result_thrown_away, return_in_loop, setting_left_changed,
                                          one_object_kept_each_pass, set_order_relied_on, state_kept_between_calls,
                                          told_by_a_pitfall, tuple_by_comma)
from graders.engine.feedback import Feedback
from graders.engine.mistakes import (BYTES_REINTERPRETED, DTYPE_DIFFERS, LATE_BOUND_LOOP_VARIABLE, OTHER_GENERATOR,
                                     SCALED_RESULT, SHAPE_DIFFERS)
from graders.engine.source_evidence import SourceEvidence

LOOPS = '''
import functools
import torch

def kept_in_a_comprehension(f, x, h):
    moves = [lambda s: x + s * h * torch.eye(len(x))[i] for i in range(len(x))]
    return torch.stack([f(m(1)) - f(m(-1)) for m in moves])

def appended_in_a_loop(parts):
    losses = []
    for X, y in parts:
        scale = len(X)
        losses.append(lambda w: ((X @ w - y) ** 2).sum() / scale)
    return losses

def defined_then_kept(n):
    found = {}
    for i in range(n):
        def at(t):
            return t[i]
        found[i] = at
    return found

def _helper(n):
    return [lambda t: t * k for k in range(n)]

def through_a_helper(n):
    return _helper(n)

def called_on_the_spot(f, x):
    return [f(lambda t: t * i) for i in range(3)] + [(lambda t: t + i)(x) for i in range(3)]

def called_in_its_iteration(x):
    out = []
    for i in range(3):
        g = lambda t: t * i
        out.append(g(x))
    return out

def bound_when_made(n):
    return [lambda t, i=i: t * i for i in range(n)] + [functools.partial(pow, i) for i in range(n)]

def reads_nothing_the_loop_binds(n, h):
    return [lambda t: t * h for _ in range(n)]
'''


def _evidence(source: str) -> SourceEvidence:
    return SourceEvidence.read(source)


def _line(source: str, number: int) -> str:
    """Line `number` (1-based, as the detectors give it) of `source`, stripped."""
    return source.splitlines()[number - 1].strip()


def test_functions_kept_past_their_iteration_that_read_the_loop_are_found_with_their_line() -> None:
    evidence = _evidence(LOOPS)
    for function, text in [("kept_in_a_comprehension", "moves = [lambda"), ("appended_in_a_loop", "losses.append"),
                           ("defined_then_kept", "def at(t)"), ("through_a_helper", "return [lambda t: t * k")]:
        line = late_bound_loop_variable(evidence, function)
        assert line and text in _line(LOOPS, line), (function, line)


def test_functions_called_in_their_iteration_or_bound_when_made_are_not() -> None:
    evidence = _evidence(LOOPS)
    for function in ("called_on_the_spot", "called_in_its_iteration", "bound_when_made", "reads_nothing_the_loop_binds"):
        assert late_bound_loop_variable(evidence, function) == 0, function


CACHES = '''
import functools
import os
from functools import lru_cache
import torch

@functools.lru_cache(maxsize=None)
def device():
    return "cuda" if torch.cuda.is_available() else "cpu"

@lru_cache
def setting(name):
    return os.environ.get(name)

@functools.cache
def table(n):
    return [k * k for k in range(n)]

def uses_device(x):
    return x.to(device())

def uses_table(n):
    return table(n)
'''


def test_a_cache_on_a_function_that_depends_on_more_than_its_arguments_is_found() -> None:
    evidence = _evidence(CACHES)
    assert cached_first_answer(evidence, "uses_device") == 7  # the decorator's line, reached through the call
    assert cached_first_answer(evidence, "setting") == 11
    assert cached_first_answer(evidence, "uses_table") == 0  # a pure function of its argument: caching is harmless


VIEWS = '''
import numpy as np
import torch

def as_bytes(a):
    return torch.from_numpy(a.view(np.int64))

def tensor_view(t):
    return t.view(dtype=torch.int32)

def reshaped(t):
    return t.view(-1, 1), t.view(t.shape[0]), t.view("int64".__len__())

def converted(a):
    return torch.from_numpy(a.astype(np.int64))
'''


def test_a_view_with_a_dtype_is_found_and_a_view_with_a_shape_is_not() -> None:
    evidence = _evidence(VIEWS)
    assert bytes_reinterpreted(evidence, "as_bytes") == 6 and bytes_reinterpreted(evidence, "tensor_view") == 9
    assert bytes_reinterpreted(evidence, "reshaped") == 0 and bytes_reinterpreted(evidence, "converted") == 0


GENERATORS = '''
import random
import numpy as np
import torch
from numpy.random import default_rng

def numpy_data(seed=0):
    rng = default_rng(seed)
    return torch.from_numpy(rng.random((5, 1)))

def python_data(n):
    torch.manual_seed(0)
    return torch.tensor([random.gauss(0, 1) for _ in range(n)])

def torch_data(seed=0):
    torch.manual_seed(seed)
    return torch.rand(5, 1)

def shuffled(items):
    return np.random.permutation(items)
'''


def test_draws_from_another_generator_are_found_only_where_the_function_is_seeded() -> None:
    evidence = _evidence(GENERATORS)
    assert other_generator(evidence, "numpy_data") == 8 and other_generator(evidence, "python_data") == 13
    assert other_generator(evidence, "torch_data") == 0
    assert other_generator(evidence, "shuffled") == 0  # no seed handed in or set: not the lesson's numbers anyway


def _failure(call: str, mistake: str | None = None) -> Feedback:
    return Feedback(f"{call}: wrong values.", call=f"{call}(x) with x = ...", mistake=mistake,
                    section='"The lesson", its exercise')


def test_a_failure_that_names_nothing_is_told_the_pitfall_with_its_line_and_keeps_its_section() -> None:
    student = types.SimpleNamespace(evidence=_evidence(LOOPS))
    told = told_by_a_pitfall(_failure("appended_in_a_loop"), student)
    assert told is not None and told.mistake == LATE_BOUND_LOOP_VARIABLE.name
    assert told.concept == LATE_BOUND_LOOP_VARIABLE.concept and told.hint == LATE_BOUND_LOOP_VARIABLE.hint
    assert "line 13: `losses.append(lambda w:" in told.meaning and told.meaning_without_values == told.meaning
    assert told.section == '"The lesson", its exercise'  # the lesson teaches no pitfall: the check's section stays
    assert told_by_a_pitfall(_failure("called_on_the_spot"), student) is None


def test_a_named_mistake_stays_and_only_the_facts_a_pitfall_explains_give_way() -> None:
    student = types.SimpleNamespace(evidence=_evidence(VIEWS))
    assert told_by_a_pitfall(_failure("as_bytes", SCALED_RESULT.name), student) is None
    for fact in (SHAPE_DIFFERS.name, DTYPE_DIFFERS.name, None):
        told = told_by_a_pitfall(_failure("as_bytes", fact), student)
        assert told is not None and told.mistake == BYTES_REINTERPRETED.name and told.section == BYTES_REINTERPRETED.section
    loops = types.SimpleNamespace(evidence=_evidence(LOOPS))
    assert told_by_a_pitfall(_failure("appended_in_a_loop", SHAPE_DIFFERS.name), loops) is None
    assert told_by_a_pitfall(_failure("appended_in_a_loop"), None) is None  # no student: nothing to read
    assert told_by_a_pitfall(Feedback("a run went wrong.", call="a run of 3 steps"), loops) is None


def test_another_generator_is_told_where_the_code_draws_from_it() -> None:
    student = types.SimpleNamespace(evidence=_evidence(GENERATORS))
    told = told_by_a_pitfall(_failure("numpy_data"), student)
    assert told is not None and told.mistake == OTHER_GENERATOR.name and "line 8: `rng = default_rng(seed)`" in told.meaning


PYTHON_RULES = '''
import torch

def returns_in_the_loop(xs):
    total = 0.0
    for x in xs:
        total += x
        return total

def first_item(xs):
    for x in xs:
        return x

def returns_after_the_loop(xs):
    total = 0.0
    for x in xs:
        if x < 0:
            continue
        total += x
    return total

def kept_default(x, seen=[]):
    seen.append(x)
    return len(seen)

def tensor_default(x, acc=torch.zeros(2)):
    acc += x
    return acc

def fresh_default(x, seen=None):
    seen = [] if seen is None else seen
    seen.append(x)
    return len(seen)

def read_only_default(x, scale=[1.0, 2.0]):
    return [x * s for s in scale]

def params_twice(model, lr, steps):
    params = model.parameters()
    optimiser = torch.optim.SGD(params, lr=lr)
    for _ in range(steps):
        optimiser.step()
    return [p.detach() for p in params]

def pairs_in_a_loop(a, b, steps):
    pairs = zip(a, b)
    total = 0
    for _ in range(steps):
        for x, y in pairs:
            total += x * y
    return total

def fresh_each_step(model, steps):
    for _ in range(steps):
        params = model.parameters()
        for p in params:
            p.grad = None

def listed_once(model):
    params = list(model.parameters())
    return sum(p.numel() for p in params), len(params)

def inner_reuses_i(rows):
    out = [0] * len(rows)
    for i in range(len(rows)):
        for i in range(len(rows[i])):
            pass
        out[i] = sum(rows[i])
    return out

def inner_own_j(rows):
    out = [0] * len(rows)
    for i in range(len(rows)):
        for j in range(len(rows[i])):
            pass
        out[i] = sum(rows[i])
    return out
'''


def test_pythons_rules_broken_are_found_with_their_line_and_honest_code_is_not() -> None:
    evidence = _evidence(PYTHON_RULES)

    def at(line: int) -> str:
        return _line(PYTHON_RULES, line)

    assert at(return_in_loop(evidence, "returns_in_the_loop")) == "return total"
    assert return_in_loop(evidence, "first_item") == 0 and return_in_loop(evidence, "returns_after_the_loop") == 0
    assert at(mutable_default(evidence, "kept_default")).startswith("def kept_default")
    assert at(mutable_default(evidence, "tensor_default")).startswith("def tensor_default")
    assert mutable_default(evidence, "fresh_default") == 0 and mutable_default(evidence, "read_only_default") == 0
    assert at(iterator_used_twice(evidence, "params_twice")) == "return [p.detach() for p in params]"
    assert at(iterator_used_twice(evidence, "pairs_in_a_loop")) == "for x, y in pairs:"
    assert iterator_used_twice(evidence, "fresh_each_step") == 0 and iterator_used_twice(evidence, "listed_once") == 0
    assert at(loop_variable_reused(evidence, "inner_reuses_i")) == "for i in range(len(rows[i])):"
    assert loop_variable_reused(evidence, "inner_own_j") == 0


MORE_RULES = '''
import torch
from torch import nn

def moved_and_dropped(batch, device):
    for value in batch.values():
        value.to(device)
    return batch

def module_moved(device):
    model = nn.Linear(1, 1)
    model.to(device)
    return model

def cuda_unasked():
    if torch.cuda.is_available:
        return "cuda"
    return "cpu"

def cuda_asked():
    return "cuda" if torch.cuda.is_available() else "cpu"

def three_of_one():
    a, b, c = [torch.zeros(1, requires_grad=True)] * 3
    return a, b, c

def three_zeros(n):
    return [0.0] * n

def _step(param, lr):
    param = param - lr * param.grad

def _scaled(value, by):
    value = value * by
    return value

def steps_through_a_helper(p, lr):
    _step(p, lr)
    return _scaled(p, 2.0)

def switched_off(model, x):
    torch.set_grad_enabled(False)
    return model(x)

def switched_and_back(model, x):
    torch.set_grad_enabled(False)
    out = model(x)
    torch.set_grad_enabled(True)
    return out

def one_tuple():
    answer = "d",
    bracketed = ("d",)
    return answer, bracketed

def bracketed_only():
    return ("d",)

def tells_all_or_none(losses, target):
    for step, loss in enumerate(losses):
        if loss <= target:
            return step
        else:
            return None
'''


def test_more_of_pythons_rules_are_found_and_their_right_forms_are_not() -> None:
    evidence = _evidence(MORE_RULES)

    def at(line: int) -> str:
        return _line(MORE_RULES, line)

    assert at(result_thrown_away(evidence, "moved_and_dropped")) == "value.to(device)"
    assert result_thrown_away(evidence, "module_moved") == 0  # a module's .to moves it in place
    assert at(function_as_truth(evidence, "cuda_unasked")) == "if torch.cuda.is_available:"
    assert function_as_truth(evidence, "cuda_asked") == 0
    assert at(list_of_one_object(evidence, "three_of_one")).startswith("a, b, c = [torch.zeros(1")
    assert list_of_one_object(evidence, "three_zeros") == 0  # numbers: the same number n times is what is meant
    assert at(parameter_rebound(evidence, "steps_through_a_helper")) == "param = param - lr * param.grad"
    assert parameter_rebound(evidence, "_scaled") == 0
    assert at(setting_left_changed(evidence, "switched_off")) == "torch.set_grad_enabled(False)"
    switched_back = MORE_RULES[MORE_RULES.index("def switched_and_back"):MORE_RULES.index("def one_tuple")]
    assert setting_left_changed(_evidence("import torch\n\n" + switched_back), "switched_and_back") == 0
    assert at(tuple_by_comma(evidence, "one_tuple")) == 'answer = "d",'
    assert tuple_by_comma(evidence, "bracketed_only") == 0
    assert at(return_in_loop(evidence, "tells_all_or_none")) == "if loss <= target:"


MODULE_STATE = '''
import torch
from torch import nn

_log = []
_seen = {}
calls = 0
model = nn.Linear(1, 1)
optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
w = torch.zeros(1, requires_grad=True)
STEPS = [1, 2, 3]
loss_fn = nn.MSELoss()

def _record(value):
    _log.append(value)
    return _log

def logged_through_a_helper(x, n):
    for _ in range(n):
        out = _record(x * 2)
    return out

def memo(x):
    _seen[x] = x ** 2
    return _seen[x]

def counts():
    global calls
    calls += 1
    return calls

def trains_the_module_level_model(X, y, steps):
    for _ in range(steps):
        optimiser.zero_grad()
        loss_fn(model(X), y).backward()
        optimiser.step()
    return model.weight.item()

def optimiser_over_module_level_weights(X, y):
    opt = torch.optim.SGD([w], lr=0.1)
    opt.zero_grad()
    ((X * w - y) ** 2).mean().backward()
    opt.step()
    return w.item()

def log_cleared_first(x):
    _log.clear()
    _log.append(x)
    return list(_log)

def counter_reset():
    global calls
    calls = 0
    calls += 1
    return calls

def own_list(x):
    _log = []
    _log.append(x)
    return _log

def weights_zeroed_first(X, y):
    with torch.no_grad():
        w.zero_()
    opt = torch.optim.SGD([w], lr=0.1)
    opt.step()
    return w.item()

def reads_constants(x):
    return sum(x * s for s in STEPS) + loss_fn(x, x).item()

_made = None
_pullbacks = {}

def made_on_the_first_call(x):
    global _made
    if _made is None:
        _made = [torch.zeros(1, requires_grad=True) for _ in range(2)]
    a, b = _made
    for p in (a, b):
        p -= 0.1 * x
    return a.item()

def item_written_by_unpacking(f, x):
    if f not in _pullbacks:
        _, _pullbacks[f] = torch.func.vjp(f, x)
    return _pullbacks[f](x)

def made_afresh_each_call(x):
    global _made
    _made = [torch.zeros(1)]
    a, = _made
    a += x
    return a
'''


def test_state_kept_at_module_level_is_found_and_state_made_afresh_or_only_read_is_not() -> None:
    evidence = _evidence(MODULE_STATE)

    def at(line: int) -> str:
        return _line(MODULE_STATE, line)

    assert at(state_kept_between_calls(evidence, "logged_through_a_helper")) == "_log.append(value)"
    assert at(state_kept_between_calls(evidence, "memo")) == "_seen[x] = x ** 2"
    assert at(state_kept_between_calls(evidence, "counts")) == "calls += 1"
    assert at(state_kept_between_calls(evidence, "trains_the_module_level_model")) == "optimiser.step()"
    assert at(state_kept_between_calls(evidence, "optimiser_over_module_level_weights")) == \
        "opt = torch.optim.SGD([w], lr=0.1)"
    # Made on the first call only (`if _made is None:`), then changed through the names it is unpacked into.
    assert at(state_kept_between_calls(evidence, "made_on_the_first_call")) == "p -= 0.1 * x"
    assert at(state_kept_between_calls(evidence, "item_written_by_unpacking")) == \
        "_, _pullbacks[f] = torch.func.vjp(f, x)"
    for honest in ("log_cleared_first", "counter_reset", "own_list", "weights_zeroed_first", "reads_constants",
                   "made_afresh_each_call"):
        assert state_kept_between_calls(evidence, honest) == 0, honest


def test_state_kept_at_module_level_is_told_to_a_failure_that_names_nothing() -> None:
    from graders.engine.mistakes import STATE_KEPT_BETWEEN_CALLS

    student = types.SimpleNamespace(evidence=_evidence(MODULE_STATE))
    told = told_by_a_pitfall(_failure("logged_through_a_helper"), student)
    assert told is not None and told.mistake == STATE_KEPT_BETWEEN_CALLS.name and "_log.append(value)" in told.meaning
    assert told_by_a_pitfall(_failure("log_cleared_first"), student) is None
    # An answer left from an earlier call is often the right one times a factor: the pitfall says why, in its place.
    told = told_by_a_pitfall(_failure("memo", SCALED_RESULT.name), student)
    assert told is not None and told.mistake == STATE_KEPT_BETWEEN_CALLS.name


SETS = '''
class Node:
    def __init__(self, children=(), locals_=()):
        self._prev = set(children)
        self._kept = tuple(children)
        self._local = tuple(locals_)
        self.grad = 0.0

    def backward(self):
        for child, local in zip(self._prev, self._local):
            child.grad += local * self.grad

    def backward_in_order(self):
        for child, local in zip(self._kept, self._local):
            child.grad += local * self.grad

    def seen_once(self, nodes):
        seen = set()
        return [n for n in nodes if not (n in seen or seen.add(n))]
'''


def test_a_sets_items_zipped_with_a_sequence_are_found_and_a_tuple_or_a_set_only_asked_is_not() -> None:
    evidence = _evidence(SETS)
    assert _line(SETS, set_order_relied_on(evidence, "backward")) == \
        "for child, local in zip(self._prev, self._local):"
    assert set_order_relied_on(evidence, "backward_in_order") == 0 and set_order_relied_on(evidence, "seen_once") == 0


def test_a_call_written_as_statements_is_read_through_the_method_it_calls() -> None:
    from graders.engine.mistakes import SET_ORDER_RELIED_ON

    student = types.SimpleNamespace(evidence=_evidence(SETS))
    failed = Feedback("the grads are wrong.", call="out = a * b with a = 2.0, b = 3.0; out.backward()")
    told = told_by_a_pitfall(failed, student)
    assert told is not None and told.mistake == SET_ORDER_RELIED_ON.name and "zip(self._prev" in told.meaning
    assert told_by_a_pitfall(Feedback("wrong.", call="out = a * b; out.undefined()"), student) is None


KEPT_EACH_PASS = '''
import torch

def _units(like):
    e = torch.zeros_like(like)
    for i in range(like.shape[0]):
        e.zero_()
        e[i] = 1.0
        yield e

def listed_units(x):
    return torch.stack(list(_units(x)))

def _fresh_units(like):
    for i in range(like.shape[0]):
        e = torch.zeros_like(like)
        e[i] = 1.0
        yield e

def listed_fresh_units(x):
    return torch.stack(list(_fresh_units(x)))

def rows_of_one_buffer(n):
    row, rows = [0] * n, []
    for i in range(n):
        row[i] = 1
        rows.append(row)
    return rows

def running_totals(values):
    total, totals = 0.0, []
    for value in values:
        total += value
        totals.append(total)
    return totals
'''


def test_one_object_kept_at_every_pass_and_changed_between_is_found_and_fresh_objects_or_numbers_are_not() -> None:
    evidence = _evidence(KEPT_EACH_PASS)
    assert _line(KEPT_EACH_PASS, one_object_kept_each_pass(evidence, "listed_units")) == "yield e"
    assert _line(KEPT_EACH_PASS, one_object_kept_each_pass(evidence, "rows_of_one_buffer")) == "rows.append(row)"
    for honest in ("listed_fresh_units", "running_totals"):
        assert one_object_kept_each_pass(evidence, honest) == 0, honest


def test_pythons_truth_of_a_tensor_of_many_values_is_named_from_its_error() -> None:
    from graders.engine.mistakes import ANY_EXERCISE, TRUTH_OF_MANY_VALUES

    message = "Boolean value of Tensor with more than one value is ambiguous"
    assert next(m for m in ANY_EXERCISE if m.matches_error("RuntimeError", message)) is TRUTH_OF_MANY_VALUES


def test_a_setting_left_changed_anywhere_in_the_module_is_told_to_a_failure_of_another_function() -> None:
    evidence = _evidence(MORE_RULES)
    line = setting_left_changed(evidence, "cuda_asked")  # it changes nothing itself: switched_off, called before, did
    assert _line(MORE_RULES, line) == "torch.set_grad_enabled(False)"
    assert setting_left_changed(_evidence(LOOPS), "appended_in_a_loop") == 0


def test_a_grad_read_while_none_is_named_only_where_the_code_reads_an_attribute_of_a_grad() -> None:
    from graders.engine.mistakes import GRAD_STILL_NONE, contradiction

    message = "'NoneType' object has no attribute 'item'"
    assert GRAD_STILL_NONE.matches_error("AttributeError", message)
    reads = types.SimpleNamespace(evidence=_evidence("def f(x):\n    return x.grad.item()\n"))
    other = types.SimpleNamespace(evidence=_evidence("def f(x):\n    return g(x).item()\n"))
    assert not contradiction(GRAD_STILL_NONE, reads) and contradiction(GRAD_STILL_NONE, other)
