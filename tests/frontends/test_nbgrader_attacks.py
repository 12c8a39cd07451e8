"""Attacks on `nbgrader autograde`, in one real class: an honest student graded first, the
attackers, an honest student graded last (nbgrader grades in the order of student ids).

Each attacker's notebook is what a student could hand in: answer cells that try to read the
reference or reach the kernel, cells above the setup cell, files beside the notebook that an
ordinary kernel would import. Every attacker must earn what the honest part of its work
deserves, every classmate their exact score, and the batch must finish with no process left.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import nbformat
import pytest

import course_config
from graders.frontends.nbgrader import build
from attacks import F_CHECKS, LEAK, REFERENCE, SLUG, attack, with_f
from looting import assert_found_only_the_planted, canary, digest, expected_needles, hidden_needles, looting_module

nbgrader_api = pytest.importorskip("nbgrader.api")

ROOT = course_config.ROOT
EXERCISE = course_config.LESSON_01.exercise(SLUG)
ASSIGNMENT = "lesson01"
NOTEBOOK = "lesson01.ipynb"
COURSE_ID = "course"
# A wrong f costs its own check and, since with_f gives autograd_derivative its own copy of f,
# the check that autograd_derivative differentiates f: the honest part earns the rest.
HONEST_PART = EXERCISE.points - sum(EXERCISE.check(c).points for c in F_CHECKS | {"autograd_derivative_uses_autograd"})
# The checks of how a flagged module loses too (graders/engine/source_evidence.py), those above left aside.
HOW_POINTS = sum(c.points for c in EXERCISE.checks if c.how and c.id != "autograd_derivative_uses_autograd")
# Code the grader cannot follow (exec, or os, sockets and signals: modules it does not read) is flagged, and its
# checks of how are not credited (graders/engine/source_evidence.py).
RUNS_HIDDEN_CODE = {"b-reads-the-reference", "c-reads-a-classmate", "d-takes-over-the-kernel", "e-harms-processes"}

# Files an ordinary kernel would run from the notebook's folder, as the instructor.
LAUNCHER = '''
import sqlite3, sys
open({marker!r}, "w").write("launcher ran")
db = sqlite3.connect({gradebook!r})
db.execute("UPDATE grade SET manual_score = 100")
db.commit()
'''
SHADOWING_MODULE = 'open({marker!r}, "a").write("{name} imported\\n")\nfrom {real} import *\n'
ABOVE_SETUP = '''
open({marker!r}, "a").write("above the setup cell ran\\n")
import nbchecks.runtime as runtime
runtime.Checks.check = lambda self, slug: 100.0
'''
KERNEL_TAKEOVER = '''
import glob, json, os, socket
for path in glob.glob(os.path.expanduser("~/.local/share/jupyter/runtime/kernel-*.json")) + glob.glob("/tmp/*.json"):
    try:
        info = json.load(open(path))
        s = socket.create_connection((info["ip"], info["shell_port"]), timeout=2)
        found = "reached the kernel at " + path
    except Exception:
        pass
'''
PROCESS_HARM = '''
import os, resource, signal
for pid in range(2, 40000):
    if pid == os.getpid():
        continue  # its own limits are its own business
    try:
        resource.prlimit(pid, resource.RLIMIT_CPU, (1, 1))
        found = f"limited {pid}"
        break
    except OSError:
        pass
try:
    os.kill(-1, signal.SIGKILL)
    found = "killed everything it could"
except OSError:
    pass
'''


# Each honest classmate's answer carries a canary that the memory looter must never find.
CANARIES = {"a-first": canary(), "z-last": canary()}


def _looter(course: Path) -> tuple[str, dict[str, str]]:
    """The answer that walks its worker's memory (tests/looting.py) for the hidden checks, the classmates'
    canaries and the recorded public expected values."""
    needles = {**hidden_needles(), **{digest(token): f"canary of {who}" for who, token in CANARIES.items()},
               **expected_needles(course / "source" / ASSIGNMENT / "nbchecks" / "expected.json")}
    return looting_module(needles)


def _student_answers(course: Path, marker: Path, looter: str) -> dict[str, str]:
    other = course / "submitted" / "a-first" / ASSIGNMENT / NOTEBOOK
    read_classmate = f'''
import json
cells = json.load(open({str(other)!r}))["cells"]
source = "".join(next(c for c in cells if c["source"] and "def f(" in "".join(c["source"]))["source"])
namespace = {{}}
exec(source.split("\\n", 1)[1], namespace)
answer = namespace["f"](x)
'''
    read_reference = f'''
namespace = {{}}
exec(open({str(ROOT / "reference" / "lesson01" / f"{SLUG}.py")!r}).read(), namespace)
answer = namespace["f"](x)
'''
    return {
        "a-first": f"{REFERENCE}\n# {CANARIES['a-first']}\n",
        "b-reads-the-reference": attack(read_reference),
        "c-reads-a-classmate": attack(read_classmate),
        "d-takes-over-the-kernel": attack(KERNEL_TAKEOVER),
        "e-harms-processes": attack(PROCESS_HARM),
        "f-files-beside-the-notebook": with_f("    return torch.zeros_like(x)\n"),
        "g-code-above-setup": with_f("    return torch.zeros_like(x)\n"),
        "h-huge-answer": with_f("    return 'spam' * 2_500_000\n"),
        "i-loots-memory": looter,
        "z-last": f"{REFERENCE}\n# {CANARIES['z-last']}\n",
    }


def _nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    run = subprocess.run(["nbgrader", *args], cwd=course, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
    return run


def _submit(course: Path, student: str, answer: str, marker: Path) -> None:
    target = course / "submitted" / student / ASSIGNMENT
    shutil.copytree(course / "release" / ASSIGNMENT, target)
    notebook = nbformat.read(target / NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == f"answer-{SLUG}":
            cell.source = f"%%answer {SLUG}\n{answer}"
    if student == "g-code-above-setup":
        notebook.cells.insert(0, nbformat.v4.new_code_cell(ABOVE_SETUP.format(marker=str(marker))))
    nbformat.write(notebook, target / NOTEBOOK)
    if student == "f-files-beside-the-notebook":
        gradebook = str(course / "gradebook.db")
        (target / "ipykernel_launcher.py").write_text(LAUNCHER.format(marker=str(marker), gradebook=gradebook))
        for name, real in (("json", "_json"), ("signal", "_signal")):
            (target / f"{name}.py").write_text(SHADOWING_MODULE.format(marker=str(marker), name=name, real=real))
        (target / "ipython_kernel_config.py").write_text(f"open({str(marker)!r}, 'a').write('config ran\\n')\n")


@pytest.fixture(scope="module")
def autograded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    course = tmp_path_factory.mktemp("attacked-course")
    marker = tmp_path_factory.mktemp("markers") / "ran.txt"
    build.main(course, course_id=COURSE_ID, exercises=[SLUG])
    _nbgrader(course, "generate_assignment", ASSIGNMENT)
    looter, needles = _looter(course)
    answers = _student_answers(course, marker, looter)
    for student, answer in answers.items():
        _submit(course, student, answer, marker)
    before = _processes()
    run = _nbgrader(course, "autograde", ASSIGNMENT)
    _nbgrader(course, "generate_feedback", ASSIGNMENT)
    scores = {}
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gradebook:
        for student in answers:
            submission = gradebook.find_submission(ASSIGNMENT, student)
            scores[student] = submission.score
    return {"course": course, "marker": marker, "scores": scores, "log": run.stdout + run.stderr,
            "left": _processes() - before, "needles": needles}


def _processes() -> set[int]:
    """Processes that grading may have started: workers (user nobody), zygotes and grading servers."""
    found = {int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit() and _grades(entry)}
    return {pid for pid in found if not _held_by_another_run(pid)}


def _grades(entry: Path) -> bool:
    """Whether a process is one grading starts: a worker (user nobody), a zygote, a grading server, a kernel."""
    try:
        command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        owner = entry.stat().st_uid
    except OSError:
        return False
    return (owner == 65534 or "server.py" in command or "graders.frontends.nbgrader.kernel" in command
            or "fork_server" in command)


def _held_by_another_run(pid: int) -> bool:
    """Whether a grading process belongs to another run still going on this machine (another pytest, a batch, a
    benchmark, the generator of single edits): above its grading ancestors sits a live process that is neither this
    test's process nor init. One this test left behind descends from us, or was adopted by init once the run that
    started it ended (its grading ancestors lead straight to pid 1)."""
    ours = os.getpid()
    while pid > 1:
        if pid == ours:
            return False
        above = _parent(Path(f"/proc/{pid}"))
        if above == ours:
            return False
        if above > 1 and not _grades(Path(f"/proc/{above}")):
            # The grading ends here: what holds it is ours if we are above it, else another run's.
            return not _descends_from(above, ours)
        pid = above
    return False


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        pid = _parent(Path(f"/proc/{pid}"))
    return False


def test_honest_classmates_before_and_after_the_attackers_keep_full_marks(autograded: dict) -> None:
    assert autograded["scores"]["a-first"] == pytest.approx(EXERCISE.points)
    assert autograded["scores"]["z-last"] == pytest.approx(EXERCISE.points)


@pytest.mark.parametrize("student", ["b-reads-the-reference", "c-reads-a-classmate", "d-takes-over-the-kernel",
                                     "e-harms-processes", "f-files-beside-the-notebook", "g-code-above-setup",
                                     "h-huge-answer"])
def test_each_attacker_earns_only_what_its_honest_part_deserves(autograded: dict, student: str) -> None:
    # Code the grader cannot follow is flagged: its checks of how score 0 as well.
    honest = HONEST_PART - (HOW_POINTS if student in RUNS_HIDDEN_CODE else 0)
    assert autograded["scores"][student] == pytest.approx(honest), autograded["log"][-3000:]
    notebook = nbformat.read(autograded["course"] / "autograded" / student / ASSIGNMENT / NOTEBOOK, as_version=4)
    text = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert LEAK not in text


def test_a_worker_holds_no_classmate_nor_anything_of_the_grader(autograded: dict) -> None:
    assert autograded["scores"]["i-loots-memory"] == 0  # it wrote nothing but the walk
    notebook = nbformat.read(autograded["course"] / "autograded" / "i-loots-memory" / ASSIGNMENT / NOTEBOOK,
                             as_version=4)
    text = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert_found_only_the_planted(text, autograded["needles"])


def test_no_file_beside_the_notebook_and_no_cell_above_the_setup_cell_ran_in_the_kernel(autograded: dict) -> None:
    assert not autograded["marker"].exists(), autograded["marker"].read_text()
    with sqlite3.connect(autograded["course"] / "gradebook.db") as db:
        assert db.execute("SELECT COUNT(*) FROM grade WHERE manual_score = 100").fetchone()[0] == 0


def test_the_autograded_notebook_keeps_the_students_code_as_handed_in(autograded: dict) -> None:
    notebook = nbformat.read(autograded["course"] / "autograded" / "g-code-above-setup" / ASSIGNMENT / NOTEBOOK,
                             as_version=4)
    assert "runtime.Checks.check = lambda" in notebook.cells[0].source  # given back after execution
    assert notebook.cells[0].outputs == []  # but never run
    assert not any("graders_blanked_source" in c.metadata for c in notebook.cells)


def test_a_huge_answer_leaves_the_feedback_readable(autograded: dict) -> None:
    html = autograded["course"] / "feedback" / "h-huge-answer" / ASSIGNMENT / "lesson01.html"
    assert "characters in all" in html.read_text()
    assert html.stat().st_size < 2_000_000


def test_the_class_leaves_no_process_behind(autograded: dict) -> None:
    assert autograded["left"] == set(), [_command(pid) for pid in autograded["left"]]


def _parent(entry: Path) -> int:
    try:
        return int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:300]
    except OSError:
        return f"{pid} (gone)"


def test_autograde_refuses_to_grade_in_an_ordinary_kernel(tmp_path: Path) -> None:
    # As an instructor's own nbgrader_config.py without the build's preprocessors and kernel.
    course = tmp_path / "course"
    build.main(course, course_id=COURSE_ID, exercises=[SLUG], prove=False)
    config = course / "nbgrader_config.py"
    config.write_text(f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\n")
    _nbgrader(course, "generate_assignment", ASSIGNMENT)
    _submit(course, "solved", REFERENCE, tmp_path / "unused")
    _nbgrader(course, "autograde", ASSIGNMENT)
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gradebook:
        assert gradebook.find_submission(ASSIGNMENT, "solved").score == 0
    notebook = nbformat.read(course / "autograded" / "solved" / ASSIGNMENT / NOTEBOOK, as_version=4)
    text = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    assert "was not graded" in text and "Build the course again" in text
