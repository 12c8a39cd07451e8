"""What the worker reports is the student's word: attacks on the checks of how, as a student would write them.

A submission that switches the trace off (`torch._C.DisableTorchFunction()`), or rebinds the grader's
drivers through sys.modules, used to earn a check of how it had not passed. Now the grader reads the
submitted source itself: such a module is flagged, its checks of how score 0 with a one-line reason,
the values it computes honestly keep their points, and the instructor's outputs carry the evidence.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

import course_config
from conftest import ROOT, STUBS, batch_environment
from graders.engine.check_results import DISTRUSTED

LESSON = course_config.LESSON_01


def _reference(slug: str) -> str:
    return (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()


def _replace(source: str, old: str, new: str) -> str:
    assert old in source, old
    return source.replace(old, new, 1)


# The gradient by autograd, hidden from the trace: the values are right, the how is not.
HIDDEN_AUTOGRAD = _replace(_reference("neuron_chain_rule"), '''    s = torch.sigmoid((w.detach() * inp).sum())
    return s * (1 - s) * inp
''', '''    with torch._C.DisableTorchFunction():
        leaf = w.detach().clone().requires_grad_(True)
        torch.sigmoid((leaf * inp).sum()).backward()
        return leaf.grad
''')
# .data, hidden from the trace, in an otherwise right sgd_step.
HIDDEN_DATA = _replace(_reference("stopping_gradients"), '''    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad.zero_()
''', '''    with torch._C.DisableTorchFunction():
        for p in params:
            p.data -= lr * p.grad.data
            p.grad.data.zero_()
''')
# A Value that only raises, and the drivers rebound to answer from the checks' torch oracle, as the
# red team's attack did when the checks module lived in the worker: that oracle is no longer there.
REBOUND_DRIVERS = (STUBS / "lesson01" / "micrograd.py").read_text() + '''

import sys as _sys

_checks = _sys.modules.get("graders.lesson01.micrograd.checks")
_drivers = _sys.modules.get("graders.lesson01.micrograd.drivers")
if _checks is not None and _drivers is not None:
    def _oracle(module, graphs, backward, int_numbers=False):
        return [{"data": r["data"], "grad": r["grad"]} for r in _checks.torch_results(graphs)]
    _drivers.run_graphs = _oracle
    _drivers.read_fresh_value = lambda module: {"data": 0.5, "grad": 0.0, "repr": "Value(data=0.5, grad=0.0)",
                                                "int_data_type": "float"}
'''


BY_HAND = """    s = torch.sigmoid((w.detach() * inp).sum())
    return s * (1 - s) * inp
"""
# Issue 42's attacks, each past a list of known spellings: autograd in a thread (the trace is per thread) reached
# through a module-level alias (a reader of `def` names alone never read its body); torch's C switch reached through
# vars() with a computed name; autograd run from a string through an alias of exec.
IN_A_THREAD = _replace(_reference("neuron_chain_rule"), BY_HAND, """    out = []
    worker = threading.Thread(target=_h, args=(w, inp, out))
    worker.start()
    worker.join()
    return out[0]
""").replace("import torch\n", "import threading\n\nimport torch\n", 1) + """

def _helper(w, inp, out):
    leaf = w.detach().clone().requires_grad_(True)
    torch.sigmoid((leaf * inp).sum()).backward()
    out.append(leaf.grad)


_h = _helper
"""
THROUGH_VARS = _replace(_reference("neuron_chain_rule"), BY_HAND, """    with vars(torch)["_" + "C"].DisableTorchFunction():
        leaf = w.detach().clone().requires_grad_(True)
        torch.sigmoid((leaf * inp).sum()).backward()
        return leaf.grad
""")
FROM_A_STRING = _replace(_reference("neuron_chain_rule"), BY_HAND, """    scope = {"torch": torch, "w": w, "inp": inp}
    run("leaf = w.detach().clone().requires_grad_(True); torch.sigmoid((leaf * inp).sum()).backward(); "
        "g = leaf.grad", scope)
    return scope["g"]
""") + "\n\nrun = exec\n"
# "Must use autograd" met by a variable named backward, while a complex step does the work (it follows f too).
COMPLEX_STEP = _replace(_reference("sin_exp_derivative"), """    leaf = x.detach().clone().requires_grad_(True)
    f(leaf).sum().backward()
    return leaf.grad.detach()
""", """    step = 1e-20
    backward = f(x.detach().to(torch.complex128) + 1j * step).imag / step
    return backward.to(x.dtype)
""")


@pytest.mark.parametrize("source, line", [(IN_A_THREAD, "import threading"), (THROUGH_VARS, "vars(torch)"),
                                          (FROM_A_STRING, "run = exec")], ids=["thread", "vars", "exec alias"])
def test_autograd_past_a_list_of_spellings_is_not_credited_and_left_for_review(grade, source: str, line: str) -> None:
    slug = "neuron_chain_rule"
    graded = grade({slug: source})
    how = graded.checks(slug)["grad_by_hand_without_autograd"]
    assert graded.failed(slug) == {"grad_by_hand_without_autograd"}  # the values, right, keep their points
    assert graded.exercise(slug)["score"] == pytest.approx(LESSON.exercise(slug).points - how["points"])
    assert "is left for your instructor's review" in how["message"] and line in how["message"].splitlines()[0]
    assert any(line in flagged for flagged in graded.exercise(slug)["integrity"])


# The same complex step beside a backward() that never runs: the code names autograd, the run shows none.
DEAD_BACKWARD = COMPLEX_STEP.replace("    return backward.to(x.dtype)\n",
                                     "    if x.numel() < 0:\n        f(x).sum().backward()\n"
                                     "    return backward.to(x.dtype)\n")


@pytest.mark.parametrize("source", [COMPLEX_STEP, DEAD_BACKWARD], ids=["variable", "code that never runs"])
def test_a_variable_named_backward_is_no_autograd(grade, source: str) -> None:
    slug = "sin_exp_derivative"
    graded = grade({slug: source}, "-k", "autograd_derivative")
    checks = graded.checks(slug)
    assert not checks["autograd_derivative_uses_autograd"]["passed"], checks["autograd_derivative_uses_autograd"]
    assert checks["autograd_derivative_on_lesson_grid"]["passed"]  # the values are right: only the how fails
    assert graded.exercise(slug)["integrity"] == []  # nothing hidden: plainly no autograd


def test_autograd_hidden_from_the_trace_costs_the_check_of_how_and_is_flagged(grade) -> None:
    slug = "neuron_chain_rule"
    graded = grade({slug: HIDDEN_AUTOGRAD})
    exercise = graded.exercise(slug)
    how = graded.checks(slug)["grad_by_hand_without_autograd"]
    assert exercise["score"] == pytest.approx(LESSON.exercise(slug).points - how["points"])  # 4.5 of 5
    assert graded.failed(slug) == {"grad_by_hand_without_autograd"}
    assert how["message"].startswith(DISTRUSTED.split("{reach}")[0].format(file=f"lesson01/{slug}.py"))
    assert "torch._C.DisableTorchFunction()" in how["message"].splitlines()[0]
    assert exercise["integrity"] and "line" in exercise["integrity"][0]
    assert graded.result["integrity"] == [f"{slug}: {line}" for line in exercise["integrity"]]


def test_data_hidden_from_the_trace_costs_the_check_of_how(grade) -> None:
    slug = "stopping_gradients"
    graded = grade({slug: HIDDEN_DATA})
    assert graded.exercise(slug)["score"] == pytest.approx(LESSON.exercise(slug).points - 0.5 - 1)  # 5.5 of 7
    # no_data_attribute (0.5) and predict_records_no_graph (1), the module's two checks of how
    assert graded.failed(slug) == {"no_data_attribute", "predict_records_no_graph"}


def test_the_same_data_in_plain_sight_is_named_from_the_source_too(grade) -> None:
    slug = "stopping_gradients"
    plain = HIDDEN_DATA.replace("with torch._C.DisableTorchFunction():", "with torch.no_grad():")
    graded = grade({slug: plain}, "-k", "no_data_attribute")
    message = graded.checks(slug)["no_data_attribute"]["message"]
    assert "sgd_step uses .data" in message and "line" in message
    assert graded.exercise(slug)["integrity"] == []


def test_drivers_rebound_to_the_checks_oracle_find_no_oracle_and_earn_nothing(grade) -> None:
    slug = "micrograd"
    graded = grade({slug: REBOUND_DRIVERS})
    assert graded.exercise(slug)["score"] == 0
    assert any("sys" in line for line in graded.exercise(slug)["integrity"])


def test_an_honest_answer_is_not_flagged(grade) -> None:
    slug = "neuron_chain_rule"
    graded = grade({slug: _reference(slug)})
    assert graded.exercise(slug)["score"] == LESSON.exercise(slug).points
    assert graded.exercise(slug)["integrity"] == [] and graded.result["integrity"] == []


def test_the_instructors_outputs_carry_the_flag_with_its_evidence(tmp_path: Path) -> None:
    root = tmp_path / "class"
    for student, source in (("honest", _reference("neuron_chain_rule")), ("hider", HIDDEN_AUTOGRAD)):
        (root / student / "lesson01").mkdir(parents=True)
        (root / student / "lesson01" / "neuron_chain_rule.py").write_text(source)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "2"],
                         capture_output=True, text=True, timeout=1800, cwd=ROOT, env=batch_environment())
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    records = {p.stem: json.loads(p.read_text()) for p in (out / "students").glob("*.json")}
    assert records["honest"]["integrity"] == []
    assert records["hider"]["integrity"] and "DisableTorchFunction" in records["hider"]["integrity"][0]
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert rows["honest"]["integrity"] == ""
    assert "neuron_chain_rule: neuron_chain_rule.py line" in rows["hider"]["integrity"]
    assert float(rows["hider"]["neuron_chain_rule"]) == float(rows["honest"]["neuron_chain_rule"]) - 0.5
