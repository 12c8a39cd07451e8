"""Red-team attacks on the sandbox that are currently defended, kept as regression tests.

Each submission below is what a dishonest or careless student could hand in for
`sin_exp_derivative`. Every test grades only the checks it needs (with -k) so that it
stays fast. Attacks that currently succeed are not here: they are in the red-team report.
"""

from __future__ import annotations

import pytest

from conftest import ROOT

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
TIMEOUT = ("--call-timeout", "3")

# Finds the worker's end of the socket to the grader, as a hostile submission would.
SOCKET_FD = '''
import os as _os, stat as _stat
def _socket_fd():
    for name in _os.listdir("/proc/self/fd"):
        try:
            if _stat.S_ISSOCK(_os.fstat(int(name)).st_mode):
                return int(name)
        except OSError:
            pass
'''


def with_f(body: str, prelude: str = "") -> str:
    """The reference with f's body replaced (the reference's other functions call f too)."""
    original = "    return torch.sin(x) * torch.exp(-x)\n"
    assert original in REFERENCE
    source = REFERENCE.replace(original, body, 1)
    # Keep autograd_derivative independent of the hostile f.
    return source.replace("    f(leaf).sum().backward()\n",
                          "    (torch.sin(leaf) * torch.exp(-leaf)).sum().backward()\n") + prelude


def test_a_forged_reply_with_garbage_on_the_socket_is_unreadable_and_costs_only_that_call(grade) -> None:
    body = "    _os.write(_socket_fd(), (5).to_bytes(8, 'big') + b'junk!')\n    return torch.sin(x) * torch.exp(-x)\n"
    graded = grade({SLUG: with_f(body, SOCKET_FD)}, *TIMEOUT, "-k", "f_on_lesson_grid or analytic_derivative_on")
    checks = graded.checks(SLUG)
    assert not checks["f_on_lesson_grid"]["passed"]
    assert "not plain data" in checks["f_on_lesson_grid"]["message"]
    assert checks["analytic_derivative_on_lesson_grid"]["passed"]  # a fresh worker answers the next check


def test_closing_the_socket_to_the_grader_is_a_worker_that_died(grade) -> None:
    body = "    _os.close(_socket_fd())\n    return torch.sin(x) * torch.exp(-x)\n"
    graded = grade({SLUG: with_f(body, SOCKET_FD)}, *TIMEOUT, "-k", "f_on_lesson_grid or analytic_derivative_on")
    checks = graded.checks(SLUG)
    assert not checks["f_on_lesson_grid"]["passed"]
    assert "did not come back" in checks["f_on_lesson_grid"]["message"]
    assert checks["analytic_derivative_on_lesson_grid"]["passed"]


def test_a_worker_that_stops_itself_with_sigstop_times_out(grade) -> None:
    body = "    import os, signal\n    os.kill(os.getpid(), signal.SIGSTOP)\n    return torch.sin(x) * torch.exp(-x)\n"
    graded = grade({SLUG: with_f(body)}, *TIMEOUT, "-k", "f_on_lesson_grid or analytic_derivative_on")
    checks = graded.checks(SLUG)
    assert "did not return within 3 s" in checks["f_on_lesson_grid"]["message"]
    assert checks["analytic_derivative_on_lesson_grid"]["passed"]


def test_patching_the_comparison_inside_the_worker_does_not_reach_the_grader(grade) -> None:
    prelude = ("import sys as _sys\n"
               "for _name in ('graders.engine.compare', 'graders.engine.expect'):\n"
               "    _m = _sys.modules[_name]\n"
               "    for _fn in ('values_problem', 'tensor_problem', 'number_problem'):\n"
               "        if hasattr(_m, _fn):\n"
               "            setattr(_m, _fn, lambda *a, **k: None)\n"
               "torch.allclose = lambda *a, **k: True\n")
    graded = grade({SLUG: with_f("    return torch.zeros_like(x)\n", prelude)}, *TIMEOUT, "-k", "f_on_lesson_grid")
    assert graded.failed(SLUG) == {"f_on_lesson_grid"}


@pytest.mark.parametrize("value", ["float('nan')", "float('inf')", "-float('inf')", "True", "-1.0",
                                   "torch.tensor(0.0)", "__import__('numpy').float64(0.0)"])
def test_odd_numbers_do_not_pass_max_abs_difference_is_small(grade, value: str) -> None:
    source = REFERENCE + f"\n\ndef max_abs_difference(n=50, start=0.0, end=5.0):\n    return {value}\n"
    graded = grade({SLUG: source}, *TIMEOUT, "-k", "max_abs_difference_is_small")
    assert graded.failed(SLUG) == {"max_abs_difference_is_small"}


def test_raw_clone_and_subprocess_are_refused_inside_the_worker(grade) -> None:
    # If any way of starting a process worked, the child leaves at once and f returns zeros.
    body = '''    import ctypes, errno, os, signal, subprocess
    libc = ctypes.CDLL(None, use_errno=True)
    started = False
    for number, flags in ((57, 0), (58, 0), (56, signal.SIGCHLD), (435, 0)):  # fork, vfork, clone, clone3
        pid = libc.syscall(number, flags, 0, 0, 0, 0)
        if pid == 0:
            os._exit(0)
        started = started or pid > 0
    try:
        subprocess.run(["true"], check=False)
        started = True
    except OSError:
        pass
    return torch.zeros_like(x) if started else torch.sin(x) * torch.exp(-x)
'''
    graded = grade({SLUG: with_f(body)}, *TIMEOUT, "-k", "f_on_lesson_grid")
    assert graded.checks(SLUG)["f_on_lesson_grid"]["passed"]


def test_exceptions_whose_str_and_exit_code_repr_raise_are_still_reported(grade) -> None:
    prelude = '''
class _Evil(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")

class _Code:
    def __repr__(self):
        raise RuntimeError("no repr either")

def analytic_derivative(x):
    raise _Evil()

def max_abs_difference(n=50, start=0.0, end=5.0):
    raise SystemExit(_Code())
'''
    graded = grade({SLUG: REFERENCE + prelude}, *TIMEOUT,
                   "-k", "f_on_lesson_grid or analytic_derivative_on or max_abs_difference_is_small")
    checks = graded.checks(SLUG)
    assert checks["f_on_lesson_grid"]["passed"]
    assert "raised _Evil" in checks["analytic_derivative_on_lesson_grid"]["message"]
    assert not checks["max_abs_difference_is_small"]["passed"]


def test_exhausting_file_descriptors_and_closing_stdout_in_the_worker_still_grades_a_right_answer(grade) -> None:
    body = '''    import os, sys
    try:
        while True:
            os.open("/dev/null", os.O_RDONLY)
    except OSError:
        pass
    sys.stdout.close()
    os.close(1)
    os.close(2)
    return torch.sin(x) * torch.exp(-x)
'''
    graded = grade({SLUG: with_f(body)}, *TIMEOUT, "-k", "f_on_lesson_grid")
    assert graded.checks(SLUG)["f_on_lesson_grid"]["passed"]


def test_a_forged_answer_built_to_be_slow_to_decode_is_refused_before_it_costs_time(grade) -> None:
    # Written straight onto the socket, as the worker's first reply: quick to send, seconds to parse
    # (json.loads cannot be stopped midway), so the grader counts its brackets first.
    body = """    import json, struct, time
    tree = b'{"dict": [["status", "returned"], ["id", 1], ["value", [' + b'[0, [1]], ' * 1_500_000 + b'0]]]}'
    message = struct.pack('!I', len(tree)) + tree
    _os.write(_socket_fd(), struct.pack('!Q', len(message)) + message)
    time.sleep(30)
"""
    graded = grade({SLUG: with_f(body, SOCKET_FD)}, "--call-timeout", "2", "-k", "f_on_lesson_grid")
    check = graded.checks(SLUG)["f_on_lesson_grid"]
    assert not check["passed"]
    assert "nests 3,000,006 lists or dicts, over the limit" in check["message"], check["message"]
    assert graded.exercise(SLUG)["seconds"] <= 2
