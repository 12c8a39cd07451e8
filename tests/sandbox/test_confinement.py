"""What a worker may not reach, each attack written as a student would hand it in.

Every attack goes in `f` of sin_exp_derivative: it tries to get the answer (or to hurt the
grader) and, failing that, returns zeros. The rest of the file is the reference, so the
attacker must earn exactly what that honest rest deserves: everything but f's own checks.
"""

from __future__ import annotations

import os
import resource
import socket
import threading
from pathlib import Path

import pytest

from attacks import F_BODY, LEAK, ONLY_F, REFERENCE, SLUG, assert_earns_only_the_honest_part, attack, with_f


# ---------------------------------------------------------------- reading the answers

@pytest.mark.parametrize("path", [
    "Path(graders.__file__).parent.parent / 'reference' / 'lesson01' / 'sin_exp_derivative.py'",
    "Path(course_config.__file__)",
    "Path(graders.__file__).parent / 'lesson01' / 'sin_exp_derivative' / 'checks.py'",
    "Path(graders.__file__).parent / 'lesson01' / 'sin_exp_derivative' / 'exercise.toml'",
    "Path.home() / '.bashrc'",
    "Path('/etc/passwd')",
])
def test_the_reference_the_checks_the_manifest_and_the_home_folder_cannot_be_read(grade, path: str) -> None:
    code = f"""
import graders, course_config
from pathlib import Path
try:
    text = ({path}).read_text()
    namespace = {{}}
    exec(text, namespace)
    answer = namespace['f'](x) if 'f' in namespace else None
    found = '' if answer is not None else text[:80]
except Exception:
    pass
"""
    assert_earns_only_the_honest_part(grade({SLUG: attack(code)}, *ONLY_F))


def test_another_students_file_beside_the_submission_cannot_be_read(grade, tmp_path: Path) -> None:
    # The grade fixture puts each submission in tmp_path/submission<N>/lesson01/: the first is a classmate's.
    classmate = grade({SLUG: REFERENCE}, "-k", "f_on_lesson_grid")
    assert classmate.failed(SLUG) == set()
    code = """
from pathlib import Path
here = Path(__file__).resolve().parent.parent
for other in here.parent.glob('submission*/lesson01/sin_exp_derivative.py'):
    try:
        text = other.read_text()
        namespace = {}
        exec(text, namespace)
        answer = namespace['f'](x)
    except Exception:
        pass
for other in here.parent.iterdir() if here.parent.exists() else []:
    try:
        found = found or [p.name for p in other.iterdir()]
    except Exception:
        pass
"""
    assert_earns_only_the_honest_part(grade({SLUG: attack(code)}, *ONLY_F))


def test_a_worker_started_after_the_reference_was_loaded_has_none_of_it_in_memory(grade) -> None:
    # analytic_derivative's first call (the lesson's grid) kills its worker, so the hidden check
    # that comes later gets a worker started after the grader loaded the reference and computed
    # expected values: it looks for them in modules, frames and the garbage collector's objects.
    analytic = "    return torch.exp(-x) * (torch.cos(x) - torch.sin(x))\n"
    assert analytic in REFERENCE
    search = """    import gc, os, sys
    if x.numel() == 50:
        os._exit(0)
    loot = []
    for name, module in list(sys.modules.items()):
        if 'reference' in name and not name.startswith('torch') and hasattr(module, 'analytic_derivative'):
            return module.analytic_derivative(x)
    frame = sys._getframe()
    while frame is not None:
        loot += [v for v in list(frame.f_locals.values()) if hasattr(v, 'analytic_derivative')
                 and getattr(v, '__file__', '') != __file__]
        frame = frame.f_back
    loot += [o for o in gc.get_objects() if type(o).__name__ == 'module' and hasattr(o, 'analytic_derivative')
             and getattr(o, '__file__', '') != __file__]
    recording = sys.modules.get('graders.engine.recording')  # the grader's store of expected values, if it were here
    if loot or (recording is not None and recording.RECORDING.values):
        raise RuntimeError('LEAKED: ' + str(loot)[:200])
    return torch.zeros_like(x)
"""
    graded = grade({SLUG: REFERENCE.replace(analytic, search)},
                   "-k", "analytic_derivative_on_lesson_grid or analytic_derivative_and_autograd_on_fresh_points")
    checks = graded.checks(SLUG)
    assert "did not come back" in checks["analytic_derivative_on_lesson_grid"]["message"]
    fresh = checks["analytic_derivative_and_autograd_on_fresh_points"]["message"]
    assert not checks["analytic_derivative_and_autograd_on_fresh_points"]["passed"] and LEAK not in fresh, fresh
    assert "differs from the expected values" in fresh


# ---------------------------------------------------------------- writing

def test_a_submission_cannot_rewrite_files_outside_its_scratch_folder(grade, tmp_path: Path) -> None:
    victim = tmp_path / "victim.py"
    victim.write_text("original\n")
    code = f"""
try:
    open({str(victim)!r}, 'w').write('poisoned')
    found = 'wrote the victim'
except OSError:
    pass
"""
    assert_earns_only_the_honest_part(grade({SLUG: attack(code)}, *ONLY_F))
    assert victim.read_text() == "original\n"


def test_a_submission_may_write_in_its_own_working_folder(grade) -> None:
    body = "    open('notes.txt', 'w').write('mine')\n" + F_BODY
    graded = grade({SLUG: with_f(body)}, "-k", "f_on_lesson_grid")
    assert graded.failed(SLUG) == set()


# ---------------------------------------------------------------- the network

@pytest.fixture
def listening_port() -> tuple[int, list[bytes]]:
    """A TCP server on localhost, standing in for the notebook kernel's ports."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    received: list[bytes] = []

    def serve() -> None:
        server.settimeout(30)
        try:
            connection, _ = server.accept()
            received.append(connection.recv(100))
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    server.close()


def test_a_submission_can_open_no_socket_of_any_kind(grade, listening_port) -> None:
    port, received = listening_port
    code = f"""
import socket
for family, kind in ((socket.AF_INET, socket.SOCK_STREAM), (socket.AF_INET, socket.SOCK_DGRAM),
                     (socket.AF_INET6, socket.SOCK_STREAM), (socket.AF_UNIX, socket.SOCK_STREAM),
                     (socket.AF_NETLINK, socket.SOCK_RAW)):
    try:
        s = socket.socket(family, kind)
        found = f'opened {{family}}'
        if family == socket.AF_INET and kind == socket.SOCK_STREAM:
            s.connect(('127.0.0.1', {port}))
            s.sendall(b'execute_request')
    except OSError:
        pass
try:
    socket.socketpair()
    found = 'made a socket pair'
except OSError:
    pass
"""
    assert_earns_only_the_honest_part(grade({SLUG: attack(code)}, *ONLY_F))
    assert received == []


# ---------------------------------------------------------------- other processes

def test_a_submission_cannot_limit_signal_or_trace_the_grader_or_the_zygote(grade) -> None:
    grader = os.getpid()  # pytester runs the grading in this process
    before = {kind: resource.getrlimit(kind) for kind in (resource.RLIMIT_AS, resource.RLIMIT_CPU)}
    code = f"""
import ctypes, os, resource, signal
for pid in ({grader}, os.getppid()):
    for kind in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NOFILE):
        try:
            resource.prlimit(pid, kind, (1, 1))
            found = f'lowered a limit of {{pid}}'
        except OSError:
            pass
    for number in (signal.SIGINT, signal.SIGKILL, signal.SIGSTOP):
        try:
            os.kill(pid, number)
            found = f'signalled {{pid}}'
        except OSError:
            pass
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
        found = f'traced {{pid}}'
    try:
        os.setpriority(os.PRIO_PROCESS, pid, 19)
        found = f'reniced {{pid}}'
    except OSError:
        pass
try:
    os.setpriority(os.PRIO_USER, 0, 19)
    found = 'reniced every process of its user'
except OSError:
    pass
"""
    assert_earns_only_the_honest_part(grade({SLUG: attack(code)}, *ONLY_F))
    assert {kind: resource.getrlimit(kind) for kind in before} == before


def test_a_submission_cannot_leave_its_process_group_nor_outlive_its_parent(grade) -> None:
    code = """
import ctypes, os, resource
libc = ctypes.CDLL(None, use_errno=True)
for option, argument, what in ((1, 0, 'cleared PR_SET_PDEATHSIG'), (4, 1, 'became dumpable'),
                               (0x59616d61, -1, 'allowed any tracer'), (36, 1, 'became a subreaper')):
    if libc.prctl(option, argument, 0, 0, 0) == 0:
        found = what
for call, what in ((os.setsid, 'setsid'), (lambda: os.setpgid(0, 0), 'setpgid')):
    try:
        call()
        found = what
    except OSError:
        pass
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
try:
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    found = found or (hard != resource.RLIM_INFINITY and 'raised its memory limit')
except (OSError, ValueError):
    pass
"""
    assert_earns_only_the_honest_part(grade({SLUG: attack(code)}, *ONLY_F))


def test_more_threads_asked_by_a_right_answer_cost_nothing(grade) -> None:
    prelude = "import torch\ntorch.set_num_threads(2)\n"
    big = "    big = torch.randn(300, 300)\n    (big @ big).sum()\n" + F_BODY
    graded = grade({SLUG: prelude + REFERENCE.replace(F_BODY, big)}, "--call-timeout", "5")
    assert graded.failed(SLUG) == set()


# ---------------------------------------------------------------- privilege


def test_no_worker_process_is_left_when_grading_ends(grade) -> None:
    body = "    import time\n    time.sleep(60)\n" + F_BODY
    grade({SLUG: with_f(body)}, "--call-timeout", "1", "-k", "f_on_lesson_grid")
    assert _workers_alive() == []


def _workers_alive() -> list[int]:
    """Processes whose parent is this process's zygote: its workers."""
    from graders.sandbox.zygote import ZYGOTE

    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if ZYGOTE.pid and int(fields[1]) == ZYGOTE.pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


# ---------------------------------------------------------------- fallbacks and their reports


def test_without_landlock_nor_a_namespace_view_the_run_says_it_is_not_confined(grade) -> None:
    graded = grade({SLUG: REFERENCE}, "-k", "f_on_lesson_grid", "--sandbox-without", "namespace,landlock")
    assert graded.failed(SLUG) == set()
    assert graded.result["confined"] is False
    assert "NOT CONFINED" in graded.output and "NOT CONFINED" in graded.result["confinement"]


def test_a_run_that_requires_confinement_runs_no_student_code_without_it(grade, tmp_path: Path) -> None:
    proof = tmp_path / "ran"
    body = f"    open({str(proof)!r}, 'w').write('ran')\n" + F_BODY
    graded = grade({SLUG: with_f(body)}, "-k", "f_on_lesson_grid", "--sandbox-without", "namespace,landlock",
                   "--require-confinement")
    message = graded.checks(SLUG)["f_on_lesson_grid"]["message"]
    assert "sandbox could not be set up" in message and "not your fault" in message
    assert not proof.exists()


def test_without_the_namespace_view_a_worker_still_cannot_open_the_graders_memory(grade) -> None:
    # /proc/<grader>/mem would let a worker of the grader's own user, root above all, rewrite verdicts.
    code = f"""
try:
    open('/proc/{os.getpid()}/mem', 'r+b')
    found = 'opened the grader memory'
except OSError:
    pass
"""
    graded = grade({SLUG: attack(code)}, *ONLY_F, "--sandbox-without", "namespace,landlock")
    assert_earns_only_the_honest_part(graded)


