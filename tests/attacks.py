"""Attacks written as a student would hand them in: each goes in `f` of sin_exp_derivative, tries to get
the answer (or to hurt the grader) and, failing that, returns zeros; the rest of the file is the
reference. Shared by the sandbox's tests (test_confinement.py and the tests of each wall: test_landlock.py,
test_syscall_filter.py, test_privileges.py) and nbgrader's (test_nbgrader_attacks.py)."""

from __future__ import annotations

from conftest import ROOT

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
F_BODY = "    return torch.sin(x) * torch.exp(-x)\n"
F_CHECKS = {"f_on_lesson_grid"}  # the checks a wrong f costs, when nothing else uses it
ONLY_F = ("-k", "f_on_lesson_grid or analytic_derivative_on_lesson_grid")
LEAK = "LEAKED"  # an attack that got through says so in its error message


def with_f(body: str, prelude: str = "") -> str:
    """The reference with f's body replaced; autograd_derivative keeps its own copy of f."""
    assert F_BODY in REFERENCE
    source = REFERENCE.replace(F_BODY, body, 1)
    return prelude + source.replace("    f(leaf).sum().backward()\n",
                                    "    (torch.sin(leaf) * torch.exp(-leaf)).sum().backward()\n")


def attack(code: str) -> str:
    """f runs `code`, which sets `answer` (a tensor) or `found` (a string to report), then
    answers with `answer`, else zeros; whatever `found` holds is raised for the test to read."""
    body = "    answer, found = None, ''\n" + "".join(f"    {line}\n" for line in code.strip("\n").splitlines())
    body += ("    if found:\n        raise RuntimeError('" + LEAK + ": ' + str(found)[:300])\n"
             "    return answer if answer is not None else torch.zeros_like(x)\n")
    return with_f(body)


def assert_earns_only_the_honest_part(graded) -> None:
    """The attack got nothing: it costs f's own checks, and its message carries nothing it leaked."""
    assert graded.failed(SLUG) == F_CHECKS, graded.output
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert LEAK not in message, message
