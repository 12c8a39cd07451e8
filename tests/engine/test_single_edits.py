"""Single-edit explanations (graders/engine/single_edits.py, mutation.py, shipped_mutants.py): every explanation the
data file ships is proved the way a catalogued mistake is, by submitting its mutant of the reference as a
student's code and reading it named; what two families explain, or none on every input, is named by none; the
words never hold a line of the reference; a data file of another reference names nothing."""

from __future__ import annotations

import ast
import importlib
import json

import pytest
import torch

import course_config
from graders.engine import mutation, shipped_mutants, single_edits
from graders.engine.collect import collect_mistakes

LESSON = course_config.LESSON_01.folder
REWRITE = "python -m graders.engine.shipped_mutants"
DATA = json.loads(single_edits.data_path(LESSON).read_text(encoding="utf-8"))
NAMES = {name for name, _, _ in mutation.FAMILIES.values()}


def _source(slug: str) -> str:
    return single_edits.reference_path(LESSON, slug).read_text(encoding="utf-8")


def _shipped() -> list[tuple[str, dict]]:
    """One named edit per exercise and family: the generator graded every one it ships as a student's code and
    keeps only the checks that named it (`named`, against the room's digest, checked below); the suite grades one
    of each family again, end to end, at the cost of 61 gradings rather than some 240."""
    first: dict[tuple[str, str], dict] = {}
    for slug, entry in sorted(DATA["exercises"].items()):
        for kept in entry["kept"]:
            if kept["named"]:
                first.setdefault((slug, kept["family"]), kept)
    return [(slug, kept) for (slug, _), kept in first.items()]


SHIPPED = _shipped()


def _code_lines(source: str) -> set[str]:
    """The reference's lines of code (no docstring), as a message must never show them."""
    tree = ast.parse(source)
    docstrings = {node.body[0].lineno for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.Module))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    lines = source.splitlines()
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node.lineno in docstrings:
            inside.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return {line.strip() for number, line in enumerate(lines, 1)
            if number not in inside and len(line.strip()) > 12 and not line.strip().startswith(("#", "def ", "import",
                                                                                                 "from "))}


def test_a_data_file_of_another_reference_names_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    slug = next(iter(DATA["exercises"]))
    single_edits.forget()
    assert single_edits.mutant_modules(LESSON, slug)
    monkeypatch.setattr(single_edits, "source_digest", lambda text: "another reference")
    single_edits.forget()
    try:
        assert single_edits.mutant_modules(LESSON, slug) == {}
    finally:
        monkeypatch.undo()
        single_edits.forget()


@pytest.mark.parametrize("slug, kept", SHIPPED, ids=[f"{slug}/{kept['index']}-{kept['family']}" for slug, kept in SHIPPED])
def test_each_shipped_explanation_names_its_mutant_submitted_as_a_student(grade, keeping, slug: str,
                                                                           kept: dict) -> None:
    # In a student's usual run (the reference's values kept by the run before, as test_mistakes.py grades).
    mutant = next(m for m in mutation.mutants(_source(slug)) if m.index == kept["index"])
    graded = grade({slug: mutant.source})
    checks = graded.checks(slug)
    name, general, _ = mutation.FAMILIES[kept["family"]]
    lines = _code_lines(_source(slug))
    catalogued = {m.name for m in collect_mistakes(importlib.import_module(f"graders.{LESSON}.{slug}.mistakes"))}
    for check_id in kept["named"]:
        check = checks[check_id]
        assert not check["passed"], (kept, check_id, f"passed: run `{REWRITE}`")
        if check["mistake"] in catalogued:
            continue  # a catalogued mistake comes first, by design (one added since the data file was written)
        assert check["mistake"] == name, (kept, check_id, check["message"], f"not named: run `{REWRITE}`")
        message = graded.explained(slug, check_id)
        said = single_edits.MEANING.format(edit=kept["edit"]), single_edits.MEANING.format(edit=general)
        # Or among the few edits of its family that give the same answers, each named ("one of these edits: ...").
        among = "one of these edits: " in message and kept["edit"] in message
        assert among or any(sentence in message for sentence in said), (kept, message)
        assert not any(line in message for line in lines), (kept, message)
    for check_id, check in checks.items():  # never another family's name: that would mislead
        assert check["mistake"] not in NAMES - {name}, (kept, check_id, check["message"])


def test_an_answer_two_families_explain_is_named_by_neither(grade) -> None:
    # s · (s − 1) · inp is both "1 and s swapped" and, as −s·(1 − s)·inp, the sign of the whole product flipped by
    # more than one edit: the grader finds it in two families (or the catalogue names it), never one of the two.
    source = _source("neuron_chain_rule").replace("return s * (1 - s) * inp", "return s * (s - 1) * inp")
    checks = grade({"neuron_chain_rule": source}, "--no-expected-cache").checks("neuron_chain_rule")
    failed = [c for c in checks.values() if not c["passed"]]
    assert failed and all(c["mistake"] not in NAMES for c in failed), [c["message"] for c in failed]


def test_an_answer_a_mutant_gives_on_one_input_only_is_not_named(grade) -> None:
    # Right on float64, the sign of one term flipped on float32: the hidden check of fresh inputs gives a float64
    # case first and a float32 one next, so no single edit explains every input it met.
    source = _source("neuron_chain_rule").replace(
        "return s * (1 - s) * inp", "return s * (1 + s) * inp if w.dtype == torch.float32 else s * (1 - s) * inp")
    graded = grade({"neuron_chain_rule": source}, "--no-expected-cache")
    checks = graded.checks("neuron_chain_rule")
    fresh = checks["neuron_grad_by_hand_on_fresh_inputs"]
    assert not fresh["passed"] and fresh["mistake"] not in NAMES, fresh["message"]


def test_a_passing_run_tries_no_mutant(grade, monkeypatch: pytest.MonkeyPatch) -> None:
    tried = []
    original = single_edits.families
    monkeypatch.setattr(single_edits, "families", lambda *args: tried.append(args) or original(*args))
    graded = grade({slug: _source(slug) for slug in DATA["exercises"]}, "--no-expected-cache")
    assert all(c["passed"] for slug in DATA["exercises"] for c in graded.checks(slug).values())
    assert tried == []


def test_calls_noted_in_an_earlier_run_in_the_same_process_are_not_the_next_students(grade) -> None:
    # A batch grades one submission after another in one process, under the same check ids: the first student's
    # answers must not stand beside the second's, or no edit explains the second's (they are not all its own).
    named = [kept for slug, kept in SHIPPED if slug == "finite_differences"
             and "relative_error_on_fixed_cases" in kept["named"]]
    assert len({kept["family"] for kept in named}) >= 2, named
    first, second = named[0], next(kept for kept in named if kept["family"] != named[0]["family"])
    for kept in (first, second, first):
        mutant = next(m for m in mutation.mutants(_source("finite_differences")) if m.index == kept["index"])
        check = grade({"finite_differences": mutant.source}, "--no-expected-cache").checks(
            "finite_differences")["relative_error_on_fixed_cases"]
        assert check["mistake"] == mutation.FAMILIES[kept["family"]][0], (kept, check["message"])


def test_asking_the_inputs_after_a_wrong_answer_changes_no_verdict(grade, monkeypatch: pytest.MonkeyPatch) -> None:
    # Wrong on the check's first input, endless on its second: the explanation asks the second of the worker, which
    # runs out of its time there. That costs no point of this check or a later one, marks nothing as timed out, and
    # names nothing (no answer to explain); the same run with no asking at all gives the very same verdicts.
    source = _source("finite_differences").replace(
        "    gap = (a - b).abs()\n",
        "    if a.numel() == 2:\n        while True:\n            pass\n    gap = (a + b).abs()\n")
    assert source != _source("finite_differences")
    asked = grade({"finite_differences": source}, "--no-expected-cache").checks("finite_differences")
    monkeypatch.setattr(single_edits, "PROBE_SECONDS", 0.0)
    not_asked = grade({"finite_differences": source}, "--no-expected-cache").checks("finite_differences")
    assert {c: (r["passed"], r["points"]) for c, r in asked.items()} == \
        {c: (r["passed"], r["points"]) for c, r in not_asked.items()}
    failed = asked["relative_error_on_fixed_cases"]
    assert not failed["passed"] and failed["mistake"] not in NAMES and "time" not in failed["message"], failed
    assert not any("ran out of time" in r["message"] for r in asked.values())


def test_the_few_edits_of_one_family_that_give_the_answers_are_each_named() -> None:
    edits = [mutation.Mutant(i, "f", "sign", words, "") for i, words in enumerate(("A", "B", "A", "C", "D"))]
    assert single_edits.said(edits[:1], "general") == "A"
    assert single_edits.said(edits[:3], "general") == "one of these edits: A; or B"  # the same words once
    assert single_edits.said(edits[:4], "general") == "one of these edits: A; or B; or C"
    assert single_edits.said(edits, "general") == "general"  # past three, a list is no longer read


def test_a_size_read_along_another_dimension_is_told_as_such_end_to_end(grade) -> None:
    # X.shape[1] for X.shape[0]: X.shape[-1] gives the same answers, so both edits are named, never "a whole number
    # off by one" (no count or bound is off).
    source = _source("grad_accumulation").replace("rows = X.shape[0]", "rows = X.shape[1]")
    assert source != _source("grad_accumulation")
    graded = grade({"grad_accumulation": source}, "--no-expected-cache")
    check = graded.checks("grad_accumulation")["accumulated_gradient_even_split"]
    assert check["mistake"] == mutation.FAMILIES["axis"][0] == "another dimension", check["message"]
    message = graded.explained("grad_accumulation", "accumulated_gradient_even_split")
    assert ("one of these edits: the size along dimension 1 (X.shape[1]) taken where dimension 0's belongs; or the "
            "size along the last dimension (X.shape[−1]) taken where dimension 0's belongs.") in message, message


def test_a_value_always_taken_is_told_which_end_to_end(grade) -> None:
    source = _source("dtypes_and_devices").replace("value.to(device) if isinstance(value, Tensor) else value", "value")
    assert source != _source("dtypes_and_devices")
    graded = grade({"dtypes_and_devices": source}, "--no-expected-cache")
    check = graded.checks("dtypes_and_devices")["move_batch_moves_every_tensor"]
    assert check["mistake"] == "one case left out", check["message"]
    assert "value always taken, never value.to(device), not even when isinstance(value, Tensor)" in check["message"]


def test_a_case_left_out_is_not_told_to_code_that_tests_that_very_case(grade) -> None:
    # Tensors moved to pick_device(), not to `device`: on this machine the same answers as `value` always taken, but
    # the code treats tensors apart (isinstance) and leaves out no case: "one case left out" would mislead.
    source = _source("dtypes_and_devices").replace(
        "    return {key: value.to(device) if isinstance(value, Tensor) else value for key, value in batch.items()}\n",
        "    moved = {}\n    for name, item in batch.items():\n        if isinstance(item, torch.Tensor):\n"
        "            moved[name] = item.to(pick_device())\n        else:\n            moved[name] = item\n"
        "    return moved\n")
    assert source != _source("dtypes_and_devices")
    checks = grade({"dtypes_and_devices": source}, "--no-expected-cache").checks("dtypes_and_devices")
    failed = [c for c in checks.values() if not c["passed"]]
    assert failed and all(c["mistake"] not in NAMES for c in failed), [c["message"] for c in failed]
    # The same answers from code that tests no case are still told (the rule reads the code, not the answers).
    plain = source.replace("        if isinstance(item, torch.Tensor):\n            moved[name] = item.to(pick_device())\n"
                           "        else:\n            moved[name] = item\n", "        moved[name] = item\n")
    assert plain != source
    check = grade({"dtypes_and_devices": plain}, "--no-expected-cache").checks("dtypes_and_devices")[
        "move_batch_moves_every_tensor"]
    assert check["mistake"] == "one case left out", check["message"]


def test_an_update_whose_sign_flipped_is_told_whose_end_to_end(grade) -> None:
    # b's update alone goes uphill: on one step from zero, a flipped sign before b in the model gives the same answers,
    # so the two edits are named, the update by its parameter (w's is right: "one update" would not say which).
    source = _source("learning_rate").replace("b -= lr * b.grad", "b += lr * b.grad")
    assert source != _source("learning_rate")
    graded = grade({"learning_rate": source}, "--no-expected-cache")
    check = graded.checks("learning_rate")["first_update_matches_lesson"]
    assert check["mistake"] == "one sign flipped", check["message"]
    assert "the sign of one update flipped: b goes the other way" in check["message"], check["message"]


def _ruled_out_by_earlier_answers(grade, monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    """gradient_check's failure is named by the student's own edit, a ceiling where the floor belongs; without the
    earlier answers a coincidence (one sign flipped) fits its inputs too, and two families name nothing."""
    assert source != _source("finite_differences")
    check_id = "gradient_check_is_small_for_smooth_functions"
    graded = grade({"finite_differences": source})
    check = graded.checks("finite_differences")[check_id]
    assert not check["passed"] and check["mistake"] == mutation.FAMILIES["order_statistic"][0], check["message"]
    explained = graded.explained("finite_differences", check_id)  # relative_error's check may have said it first
    assert "a ceiling (max=1e-08) where a floor (min=1e-08) belongs" in explained, explained
    monkeypatch.setattr(single_edits, "agreeing_with_earlier", lambda lesson, slug, found, *rest: found)
    check = grade({"finite_differences": source}).checks("finite_differences")[check_id]
    assert check["mistake"] not in NAMES, check["message"]


def test_an_edit_the_earlier_checks_answers_rule_out_is_not_named(grade, monkeypatch: pytest.MonkeyPatch) -> None:
    # A ceiling where the floor belongs: every ratio is its gap over 1e-8. On gradient_check's inputs (gaps near
    # 1e-11, gradients far from 0) that is what the sign of |num| flipped in the scale gives too, but
    # relative_error's own check, which ran first, met answers that edit does not give: so only the ceiling is named.
    _ruled_out_by_earlier_answers(grade, monkeypatch, _source("finite_differences").replace(
        "(a.abs() + b.abs()).clamp(min=1e-8)", "(a.abs() + b.abs()).clamp(max=1e-8)"))


def test_answers_asked_where_another_raised_still_rule_an_edit_out_later(grade, monkeypatch: pytest.MonkeyPatch) -> None:
    # The ceiling again, in plain Python, which divides by zero where both values are 0: relative_error's check asks
    # its other inputs, one raises, so nothing is named there, but the answers it did get still rule the sign edit
    # out for gradient_check's check, which names the ceiling.
    _ruled_out_by_earlier_answers(grade, monkeypatch, _source("finite_differences").replace(
        "    gap = (a - b).abs()\n    scale = (a.abs() + b.abs()).clamp(min=1e-8)\n    return (gap / scale).max().item()",
        "    pairs = zip(a.flatten().tolist(), b.flatten().tolist())\n"
        "    return max(abs(u - v) / min(1e-8, abs(u) + abs(v)) for u, v in pairs)"))


def test_an_operation_swapped_for_another_is_not_said_to_code_that_calls_neither(
        grade, monkeypatch: pytest.MonkeyPatch) -> None:
    # zip() over the shapes from the right stops at the shorter one: the answers are those of min(len) taken where
    # max(len) belongs, but the code takes neither, so "another order statistic" would name a cause it has not.
    source = _source("shape_bugs")
    start = source.index("    rank = max(len(a), len(b))")
    end = source.index("    return tuple(reversed(result))\n")
    zipped = source[:start] + (
        "    result = []\n    for x, y in zip(reversed(a), reversed(b)):\n"
        "        if x != y and x != 1 and y != 1:\n            raise ValueError(f\"shapes {a} and {b} do not broadcast\")\n"
        "        result.append(y if x == 1 else x)\n") + source[end:]
    assert "max(" not in zipped.split("def broadcast_shape", 1)[1].split("\ndef ", 1)[0]
    checks = grade({"shape_bugs": zipped}).checks("shape_bugs")
    failed = [c for c in checks.values() if not c["passed"]]
    assert failed and all(c["mistake"] != mutation.FAMILIES["order_statistic"][0] for c in failed), [
        c["message"] for c in failed]
    assert set(single_edits.NEEDS_IN_CODE) <= set(mutation.FAMILIES)
    # The control: without the rule, the answers alone name it.
    monkeypatch.setattr(single_edits, "NEEDS_IN_CODE", {})
    check = grade({"shape_bugs": zipped}).checks("shape_bugs")["broadcast_shape_lesson_cases"]
    assert check["mistake"] == mutation.FAMILIES["order_statistic"][0], check["message"]


def test_a_drivers_answer_is_reproduced_up_to_rounding() -> None:
    # sgd_step changes its parameters in place: its driver answers a dict of them. `p.add_(p.grad, alpha=lr)` and
    # `p += lr * p.grad` differ in the last bit; the edit that gives one still reproduces the other.
    want = {"params": [torch.tensor([0.1 * 3.0])], "returned": None}
    got = {"params": [torch.tensor([0.1 * 3.0]).nextafter(torch.tensor([1.0]))], "returned": None}
    assert not single_edits.same(got, want) and single_edits.reproduces(got, want)
    assert not single_edits.reproduces({**got, "returned": "list"}, want)
    assert not single_edits.reproduces({"params": got["params"]}, want)


def test_an_ascent_written_another_way_is_named_as_the_update_that_goes_the_other_way(grade) -> None:
    source = _source("stopping_gradients").replace("p -= lr * p.grad", "p.add_(p.grad, alpha=lr)")
    assert source != _source("stopping_gradients")
    check = grade({"stopping_gradients": source}, "--no-expected-cache").checks(
        "stopping_gradients")["sgd_step_updates_in_place"]
    assert check["mistake"] == mutation.FAMILIES["sign"][0], check["message"]
    assert "p goes the other way" in check["message"], check["message"]


def test_a_hidden_check_tells_a_single_edits_words_which_speak_of_the_code_only(grade) -> None:
    # fit_quadratic's loop over (a, b, c) with c left out of the update: a hidden check's inputs stay hidden, but the
    # edit is a fact about the code, so its words and hint are shown beside its name.
    source = _source("quadratic_fit").replace("for parameter in (a, b, c):", "for parameter in (a, b):")
    assert source != _source("quadratic_fit")
    checks = grade({"quadratic_fit": source}, "--no-expected-cache").checks("quadratic_fit")
    hidden = checks["fit_quadratic_on_other_coefficients"]
    assert hidden["hidden"] and hidden["mistake"] == mutation.FAMILIES["left_out_for_one"][0], hidden
    # Told above by the public check, so the hidden one points there; its meaning travels as the result's field.
    assert "c never updated: the update left out for c alone" in hidden["meaning"], hidden
    assert hidden["mistake_shown"] and hidden["hint"] == mutation.FAMILIES["left_out_for_one"][2], hidden
    assert "expected" not in hidden["shown"] and "returned" not in hidden["shown"], hidden["shown"]


def test_an_edit_that_answers_otherwise_when_asked_again_is_not_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # As an edit that leaves torch.empty_like's memory unwritten: its answer is whatever the memory held, so it may
    # fit a student's answer once, by chance. Asked again, it answers otherwise, and is not the student's.
    import itertools
    import time
    import types

    counter = itertools.count(1)
    drifting = types.ModuleType("drifting")
    drifting.f = lambda: next(counter)  # type: ignore[attr-defined]
    steady = types.ModuleType("steady")
    steady.f = lambda: 1  # type: ignore[attr-defined]
    edits = {0: (mutation.Mutant(0, "f", "sign", "drifting", ""), drifting),
             1: (mutation.Mutant(1, "f", "constant", "steady", ""), steady)}
    monkeypatch.setattr(single_edits, "mutant_modules", lambda lesson, slug: edits)
    found = single_edits.families(LESSON, "any", [("f", {}, 1)], time.process_time() + 5)
    assert found is not None and set(found) == {"constant"}, found


def test_numpy_answers_are_compared_as_arrays() -> None:
    # to_numpy answers a NumPy array, whose == gives an array: compared whole, an edit's array reproduces the
    # student's, and an edit asked again is seen to answer the same.
    import numpy as np

    assert single_edits.same(np.array([1.0, float("nan")]), np.array([1.0, float("nan")]))
    assert not single_edits.same(np.array([1, 2]), np.array([1.0, 2.0]))  # another dtype is another answer
    assert single_edits.reproduces(np.array([0.5, 2.0]), np.array([0.5, 2.0]))
    assert not single_edits.reproduces(np.array([0.5, 2.0]), [0.5, 2.0])


def test_a_call_reaches_the_functions_its_body_names_and_all_of_them_through_a_built_name(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    made_up = tmp_path / "made_up.py"
    made_up.write_text("def a(x):\n    return b(x)\n\n\ndef b(x, f=d):\n    return x\n\n\n"
                       "def c(x):\n    return globals()['b'](x)\n\n\ndef d(x):\n    return x\n\n\n"
                       "class E:\n    def m(self):\n        return d(1)\n")
    monkeypatch.setattr(single_edits, "reference_path", lambda lesson, slug: made_up)
    single_edits.reached.cache_clear()
    try:
        reaches = single_edits.reached(LESSON, "made_up")

        def never(owner: str, function: str) -> bool:
            return single_edits.never_reached(LESSON, "made_up", mutation.Mutant(0, owner, "sign", "", "", ""),
                                              function)

        # A default is computed when the module loads: b's `f=d` is no call of d.
        assert reaches == {"a": {"a", "b"}, "b": {"b"}, "c": {"a", "b", "c", "d", "E"}, "d": {"d"}, "E": {"E", "d"}}
        assert never("E.m", "a") and never("d", "a") and not never("b", "a") and not never("d", "c")
        assert not never("a", "driver somewhere:run")  # a driver's calls are not followed: every edit runs
    finally:
        single_edits.reached.cache_clear()


def test_an_edit_a_check_refutes_or_a_call_never_reaches_is_not_run_and_the_name_stays(
        grade, keeping, monkeypatch: pytest.MonkeyPatch) -> None:
    # fit_quadratic never calls make_quadratic_data: no edit of the data's recipe runs on a fit. An edit whose fit is
    # neither the student's nor the reference's is refuted there, and no later check runs it again.
    kept = next(k for slug, k in SHIPPED if slug == "quadratic_fit" and k["family"] == "left_out_for_one")
    mutant = next(m for m in mutation.mutants(_source("quadratic_fit")) if m.index == kept["index"])
    runs: list[tuple[str, bool]] = []  # (module, refuted by then)
    original = single_edits.run_mutant
    modules = single_edits.mutant_modules(LESSON, "quadratic_fit")
    index_of = {module.__name__: index for index, (_, module) in modules.items()}

    def counting(module, function, arguments, *rest, **options):
        runs.append((module.__name__, ("quadratic_fit", index_of.get(module.__name__)) in single_edits.NOTES.refuted))
        return original(module, function, arguments, *rest, **options)

    monkeypatch.setattr(single_edits, "run_mutant", counting)
    checks = grade({"quadratic_fit": mutant.source}).checks("quadratic_fit")
    name = mutation.FAMILIES[kept["family"]][0]
    assert len(kept["named"]) >= 2 and all(checks[check]["mistake"] == name for check in kept["named"])
    recipe = {module.__name__ for edit, module in modules.values() if edit.function == "make_quadratic_data"}
    assert recipe and not recipe & {module for module, _ in runs}
    assert single_edits.NOTES.refuted and not any(refuted for _, refuted in runs)
