"""The nbgrader path end to end, with real nbgrader, real notebooks and real kernels.

One course is built for the whole module; several students' notebooks are autograded in
one `nbgrader autograde` run; their scores must equal what `pytest exercises/
--submission` gives for the same code. Generic over the exercises course_config.py lists;
GRADERS_NBGRADER_EXERCISES=slug,slug narrows them (e.g. while an exercise is being written).
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

import course_config
from conftest import STUBS, keeping_in, mistake_submissions
from graders.frontends.nbgrader import build
from graders.frontends.nbgrader.runtime import TEST_CELL

nbgrader_api = pytest.importorskip("nbgrader.api")
pytest.importorskip("nbclient")

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
_ONLY = [s for s in os.environ.get("GRADERS_NBGRADER_EXERCISES", "").split(",") if s]
EXERCISES = [LESSON.exercise(slug) for slug in _ONLY] if _ONLY else list(LESSON.exercises)
ASSIGNMENT = "lesson01"
NOTEBOOK = f"{LESSON.folder}.ipynb"
COURSE_ID = "course"
PATCHES = ("\n\n# Make every comparison succeed (it must not help).\n"
           "torch.allclose = lambda *args, **kwargs: True\n"
           "torch.equal = lambda *args, **kwargs: True\n"
           "torch.testing.assert_close = lambda *args, **kwargs: None\n")
SWALLOWING_LOOP = ("\n\nwhile True:  # an infinite loop that swallows the interrupt meant to stop it\n"
                   "    try:\n        pass\n    except KeyboardInterrupt:\n        pass\n")
KERNEL_TAMPERING = ("import time, torch\n"
                    "torch.allclose = lambda *args, **kwargs: True\n"
                    "class Everything:\n    def check(self, slug):\n        return 1000\n"
                    "autograder = Everything()\n"
                    "while True:\n    try:\n        time.sleep(1)\n    except KeyboardInterrupt:\n        pass\n")


def _stub(slug: str) -> str:
    return (STUBS / LESSON.folder / f"{slug}.py").read_text()


def _reference(slug: str) -> str:
    return (ROOT / "reference" / LESSON.folder / f"{slug}.py").read_text()


def _first_function_solved(slug: str) -> str:
    """The stub with its first function (or class) replaced by the reference's: a partial answer."""
    stub, reference = _stub(slug), _reference(slug)
    kinds = (ast.FunctionDef, ast.ClassDef)
    first = next(n for n in ast.parse(stub).body if isinstance(n, kinds))
    solved = next(n for n in ast.parse(reference).body if isinstance(n, kinds) and n.name == first.name)
    lines = stub.splitlines()
    lines[first.lineno - 1:first.end_lineno] = reference.splitlines()[solved.lineno - 1:solved.end_lineno]
    return "\n".join(lines) + "\n"


def _mistake(slug: str) -> tuple[str, str | None]:
    """A catalogued wrong solution of this exercise and its mistake's name (the reference if none)."""
    found = sorted((s for s in mistake_submissions() if s.slug == slug), key=lambda s: s.name != "sign_error")
    if found:  # the example first, where it exists
        return found[0].text(), found[0].mistake
    return _reference(slug), None


def _students() -> dict[str, dict[str, str]]:
    """Each student's answer per exercise, as the source of that exercise's module."""
    students: dict[str, dict[str, str]] = {"untouched": {}, "solved": {}, "partly": {}, "mistaken": {},
                                           "patcher": {}, "looper": {}}
    for index, exercise in enumerate(EXERCISES):
        slug = exercise.slug
        students["solved"][slug] = _reference(slug)
        students["partly"][slug] = _reference(slug) if index % 2 else _first_function_solved(slug)
        students["mistaken"][slug] = _mistake(slug)[0]
        students["patcher"][slug] = _mistake(slug)[0] + PATCHES
        students["looper"][slug] = _reference(slug) + (SWALLOWING_LOOP if index == 0 else "")
    return students


def _nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    run = subprocess.run(["nbgrader", *args], cwd=course, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
    return run


# One process runs `pytest exercises/ --submission DIR --json OUT` for each student in turn:
# the same plugin and options as the command line, without paying torch's import six times.
_EXPECTATIONS = """
import sys, pytest
targets, runs = sys.argv[1].split(","), sys.argv[2:]
for folder, out in zip(runs[::2], runs[1::2]):
    pytest.main([*targets, "--submission", folder, "--json", out, "-p", "no:cacheprovider", "-q",
                 "--plots", folder + "/plots"])
"""


def _pytest_scores(folders: dict[str, Path]) -> subprocess.Popen:
    """Start grading each student's files with the plugin; results land in DIR/result.json."""
    targets = ",".join(str(STUBS / LESSON.folder / f"{e.slug}.py") for e in EXERCISES)
    runs = [str(x) for folder in folders.values() for x in (folder, folder / "result.json")]
    # Each student's run after the first is a usual run (the values kept by the one before, kept_values.py): a
    # student's score is the same either way, and the first run's drawing and reference are paid once.
    first = next(iter(folders.values()))
    return subprocess.Popen([sys.executable, "-c", _EXPECTATIONS, targets, *runs], cwd=first,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=keeping_in(first.parent / "kept"))


def _submit(course: Path, student: str, answers: dict[str, str]) -> None:
    release = course / "release" / ASSIGNMENT
    target = course / "submitted" / student / ASSIGNMENT
    shutil.copytree(release, target)
    notebook = nbformat.read(target / NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        slug = grade_id.removeprefix("answer-")
        if grade_id.startswith("answer-") and slug in answers and student != "untouched":
            cell.source = f"%%answer {slug}\n{answers[slug]}"
    if student in ("patcher", "looper"):
        # A cell of the student's own, just after setup: it must not run under autograde.
        notebook.cells.insert(2, nbformat.v4.new_code_cell(KERNEL_TAMPERING))
    nbformat.write(notebook, target / NOTEBOOK)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("course")
    build.main(folder, course_id=COURSE_ID, exercises=[e.slug for e in EXERCISES])
    _nbgrader(folder, "generate_assignment", ASSIGNMENT)
    return folder


@pytest.fixture(scope="module")
def graded(course: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Autograde every student once; return what pytest gives each student's code."""
    students = _students()
    expected_folder = tmp_path_factory.mktemp("expected")
    folders = {}
    for student, answers in students.items():
        _submit(course, student, answers)
        folders[student] = expected_folder / student
        (folders[student] / LESSON.folder).mkdir(parents=True)
        for slug in (e.slug for e in EXERCISES):
            (folders[student] / LESSON.folder / f"{slug}.py").write_text(answers.get(slug, _stub(slug)))
    _nbgrader(course, "autograde", ASSIGNMENT)
    # Not during autograde: both apply wall-clock limits per call, so they must not compete.
    expectations = _pytest_scores(folders)
    _nbgrader(course, "generate_feedback", ASSIGNMENT)
    _nbgrader(course, "export")
    expectations.wait(timeout=900)
    return {student: json.loads((folder / "result.json").read_text()) for student, folder in folders.items()}


def _release_texts(course: Path, *, code_only: bool = False, strings: bool = False) -> dict[str, str]:
    """Every released text file; notebooks as their cells' sources. With code_only, Python as
    code alone, unparsed and (unless `strings`) with string literals emptied: a feedback hint
    that quotes a formula is text students see anyway, code is what must not leak."""
    texts = {}
    for path in (course / "release").rglob("*"):
        if not path.is_file() or path.suffix not in (".py", ".ipynb", ".json", ".ini", ".txt", ".md", ".toml"):
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".ipynb":
            cells = nbformat.reads(text, as_version=4).cells
            if code_only:
                cells = [c for c in cells if c.cell_type == "code"]
                text = "\n".join(_code("".join(l for l in c.source.splitlines(True) if not l.startswith("%%")),
                                       strings) for c in cells)
            else:
                text = "\n".join(c.source for c in cells)
        elif path.suffix == ".py" and code_only:
            text = _code(text, strings)
        texts[str(path.relative_to(course))] = text
    return texts


def _lines(texts: dict[str, str]) -> dict[str, set[str]]:
    """Each file as its set of stripped lines: a statement leaks if it is one of them."""
    return {name: {line.strip() for line in text.splitlines()} for name, text in texts.items()}


class _EmptyStrings(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.Constant("") if isinstance(node.value, str) else node


def _code(text: str, strings: bool = False) -> str:
    tree = ast.parse(text)
    return ast.unparse(tree if strings else _EmptyStrings().visit(tree))


def _statements(source: str, functions: set[str] | None = None, expected_only: bool = False) -> set[str]:
    """Each statement of the functions' bodies (docstrings aside), unparsed; long ones only."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if functions is not None and node.name not in functions:
            continue
        if expected_only and not any(getattr(d, "id", None) == "expected" for d in node.decorator_list):
            continue
        for statement in node.body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue
            for line in ast.unparse(statement).splitlines():
                if len(line.strip()) >= 24 and not line.strip().startswith(("import ", "from ", "def ", "@")):
                    found.add(line.strip())
    return found


# ------------------------------------------------------------------ the source notebook


def test_the_source_notebook_follows_nbgrader_schema_v3(course: Path) -> None:
    notebook = nbformat.read(course / "source" / ASSIGNMENT / NOTEBOOK, as_version=4)
    meta = [c.metadata["nbgrader"] for c in notebook.cells]
    ids = [m["grade_id"] for m in meta]
    assert len(ids) == len(set(ids)), f"duplicated grade_id: {ids}"
    assert all(m["schema_version"] == 3 and re.fullmatch(r"[a-zA-Z0-9_-]+", m["grade_id"]) for m in meta)
    for exercise in EXERCISES:
        answer = next(m for m in meta if m["grade_id"] == f"answer-{exercise.slug}")
        test = next(m for m in meta if m["grade_id"] == f"test-{exercise.slug}")
        assert answer["solution"] and not answer["grade"] and not answer["locked"]
        assert test["grade"] and test["locked"] and not test["solution"]
        assert test["points"] == pytest.approx(exercise.points)
    assert sum(m.get("points", 0) for m in meta) == pytest.approx(sum(e.points for e in EXERCISES))
    sources = {m["grade_id"]: c.source for m, c in zip(meta, notebook.cells)}
    for exercise in EXERCISES:
        assert "### BEGIN SOLUTION" in sources[f"answer-{exercise.slug}"]
        assert sources[f"answer-{exercise.slug}"].startswith(f"%%answer {exercise.slug}\n")
        assert sources[f"test-{exercise.slug}"] == TEST_CELL.format(slug=exercise.slug)


# ------------------------------------------------------------------ what students receive


def test_the_release_has_no_reference_code(course: Path) -> None:
    """No released file holds half or more of any reference function's body (as code)."""
    released = _lines(_release_texts(course, code_only=True))
    leaks = []
    for exercise in EXERCISES:
        stub = _statements(_stub(exercise.slug))
        for function, body in _bodies(_reference(exercise.slug)).items():
            body -= stub
            for name, lines in released.items():
                if body and len(body & lines) * 2 >= len(body):
                    leaks.append(f"{name}: {exercise.slug}.{function}: {sorted(body & lines)}")
    assert not leaks, "reference code released:\n" + "\n".join(leaks)


def test_the_release_has_no_hidden_check_code(course: Path) -> None:
    released = _release_texts(course)
    # Strings kept: hidden checks share idioms with public ones (a seeded generator) and differ
    # in their data (the seed's name), which is what must not leak.
    code = _lines(_release_texts(course, code_only=True, strings=True))
    for exercise in EXERCISES:
        checks = (ROOT / "graders" / LESSON.folder / exercise.slug / "checks.py").read_text()
        hidden = {f"test_{c.id}" for c in exercise.checks if c.hidden}
        for name in hidden:
            pattern = re.compile(rf"\b{name}\b|\b{c_id(name)}\b")
            assert not [n for n, text in released.items() if pattern.search(text)], f"{name} released"
        # What only hidden checks and @expected bodies hold; lines shared with code that is
        # released on purpose (a public check's helper) do not count.
        bodies = _bodies(checks, strings=True)
        secret = set().union(*(bodies.get(name, set()) for name in hidden), _statements(checks, expected_only=True))
        leaks = [f"{name}: {line}" for line in secret - _public_lines() for name, lines in code.items() if line in lines]
        assert not leaks, f"hidden or @expected code of {exercise.slug} released:\n" + "\n".join(leaks)


def _public_lines() -> set[str]:
    """Lines of any exercise's checks outside hidden checks and @expected bodies, and of the rooms' other
    modules (drivers, mistakes, helpers: public by design and released whole, tests/sandbox/test_drivers.py): code
    that is released on purpose, so sharing it is no leak."""
    lines: set[str] = set()
    for exercise in EXERCISES:
        checks = (ROOT / "graders" / LESSON.folder / exercise.slug / "checks.py").read_text()
        hidden = {f"test_{c.id}" for c in exercise.checks if c.hidden} | _expected_names(checks)
        lines.update(*(b for n, b in _bodies(checks, strings=True).items() if n not in hidden))
    for module in (ROOT / "graders" / LESSON.folder).glob("*/*.py"):
        if module.name != "checks.py":
            lines.update(*_bodies(module.read_text(), strings=True).values())
    return lines


def _bodies(source: str, strings: bool = False) -> dict[str, set[str]]:
    """Each function's body, by name, as its set of long code lines (strings emptied unless kept)."""
    found = {}
    tree = ast.parse(source)
    for node in ast.walk(tree if strings else _EmptyStrings().visit(tree)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) else node.body
            lines = {line.strip() for s in body for line in ast.unparse(s).splitlines()}
            found[node.name] = {l for l in lines if len(l) >= 24 and not l.startswith(("def ", "@", "import ", "from "))}
    return found


def _expected_names(source: str) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)
            and any(getattr(d, "id", None) == "expected" for d in n.decorator_list)}


def c_id(test_name: str) -> str:
    return test_name.removeprefix("test_")


def test_the_release_replays_expected_values_as_data(course: Path) -> None:
    bundle = course / "release" / ASSIGNMENT / "nbchecks"
    values = json.loads((bundle / "expected.json").read_text())
    assert values and all(isinstance(v, str) and re.fullmatch(r"[0-9a-f]*", v) for v in values.values())
    assert not (course / "release" / ASSIGNMENT / "reference").exists()
    assert not list((course / "release").rglob("*.pyc"))


def test_a_student_runs_the_public_checks_in_the_released_notebook(course: Path, tmp_path: Path) -> None:
    """The student's set-up: no NBGRADER_EXECUTION, the bundle's public checks, replayed values."""
    from nbclient import NotebookClient

    folder = tmp_path / ASSIGNMENT
    shutil.copytree(course / "release" / ASSIGNMENT, folder)
    notebook = nbformat.read(folder / NOTEBOOK, as_version=4)
    first = EXERCISES[0].slug
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == f"answer-{first}":
            cell.source = f"%%answer {first}\n{_reference(first)}"
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(folder)}})
    client.km = client.create_kernel_manager()
    client.execute(env=env)
    outputs = {c.metadata["nbgrader"]["grade_id"]: c.outputs for c in notebook.cells if c.cell_type == "code"}
    text = "".join(o.get("text", "") for o in outputs[f"test-{first}"])
    result = [o for o in outputs[f"test-{first}"] if o.output_type == "execute_result"]
    public = sum(c.points for c in EXERCISES[0].checks if not c.hidden)
    assert "public checks" in text
    assert float(result[0]["data"]["text/plain"]) == pytest.approx(public)
    assert not any(o.get("name") == "stderr" for outs in outputs.values() for o in outs)
    hidden = [c.id for c in EXERCISES[0].checks if c.hidden]
    assert not any(h in text for h in hidden)


# ------------------------------------------------------------------ autograding


def _gradebook(course: Path) -> dict[str, dict[str, float]]:
    scores: dict[str, dict[str, float]] = {}
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gradebook:
        for student in _students():
            submission = gradebook.find_submission(ASSIGNMENT, student)
            cells = {g.name: g.auto_score for g in submission.notebooks[0].grades}
            scores[student] = {"total": submission.score, **cells}
    return scores


def test_autograde_gives_each_exercise_the_points_pytest_gives(course: Path, graded: dict[str, dict]) -> None:
    scores = _gradebook(course)
    for student, result in graded.items():
        by_slug = {e["slug"]: e["score"] for e in result["exercises"]}
        for exercise in EXERCISES:
            got = scores[student][f"test-{exercise.slug}"]
            assert got == pytest.approx(by_slug.get(exercise.slug, 0.0)), (
                f"{student}, {exercise.slug}: gradebook {got}, pytest {by_slug.get(exercise.slug)}")
        assert scores[student]["total"] == pytest.approx(result["score"])


def test_the_extremes_score_zero_and_full_marks(course: Path, graded: dict[str, dict]) -> None:
    scores = _gradebook(course)
    assert scores["untouched"]["total"] == 0
    assert scores["solved"]["total"] == pytest.approx(sum(e.points for e in EXERCISES))
    assert 0 < scores["partly"]["total"] < scores["solved"]["total"]


def test_kernel_tampering_changes_nothing(course: Path, graded: dict[str, dict]) -> None:
    """Patched torch.allclose and a fake `autograder` in the kernel: the score is the code's own
    (what pytest gives the same code, checked above), and the patches buy nothing."""
    scores = _gradebook(course)
    assert scores["patcher"]["total"] == pytest.approx(graded["patcher"]["score"])
    assert scores["patcher"]["total"] <= scores["mistaken"]["total"] < scores["solved"]["total"]


def test_a_loop_that_swallows_keyboard_interrupt_costs_one_exercise(course: Path, graded: dict[str, dict]) -> None:
    scores = _gradebook(course)
    first = EXERCISES[0]
    assert scores["looper"][f"test-{first.slug}"] == 0
    assert scores["looper"]["total"] == pytest.approx(sum(e.points for e in EXERCISES[1:]))


def test_the_exported_csv_has_the_same_totals(course: Path, graded: dict[str, dict]) -> None:
    with open(course / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    for student, result in graded.items():
        assert float(rows[student]["score"]) == pytest.approx(result["score"])
        assert float(rows[student]["max_score"]) == pytest.approx(sum(e.points for e in EXERCISES))


def test_feedback_names_the_mistake_and_hidden_checks_but_shows_no_check_code(course: Path,
                                                                              graded: dict[str, dict]) -> None:
    html = (course / "feedback" / "mistaken" / ASSIGNMENT / f"{LESSON.folder}.html").read_text()
    named = {c["mistake"] for e in graded["mistaken"]["exercises"] for c in e["checks"] if c.get("mistake")}
    assert named, "no catalogued mistake was recognised by pytest"
    for mistake in named:
        assert mistake in html or mistake.replace("'", "&#39;") in html, f"feedback does not name {mistake!r}"
    for exercise in EXERCISES:
        checks = (ROOT / "graders" / LESSON.folder / exercise.slug / "checks.py").read_text()
        for check in (c for c in exercise.checks if c.hidden):
            assert f"{check.id} [hidden]" in html
            assert f"def test_{check.id}" not in html
        for statement in _statements(checks, {f"test_{c.id}" for c in exercise.checks if c.hidden}):
            assert statement not in html


def test_no_test_cell_writes_to_stderr(course: Path, graded: dict[str, dict]) -> None:
    for student in graded:
        notebook = nbformat.read(course / "autograded" / student / ASSIGNMENT / NOTEBOOK, as_version=4)
        for cell in notebook.cells:
            if cell.metadata.get("nbgrader", {}).get("grade"):
                assert not [o for o in cell.outputs if o.get("name") == "stderr" or o.output_type == "error"], (
                    f"{student}: {cell.metadata['nbgrader']['grade_id']} wrote to stderr or raised")


def test_plots_a_check_draws_are_shown_in_the_test_cell_unless_the_check_is_hidden(
        course: Path, graded: dict[str, dict]) -> None:
    # A hidden check's plot shows its inputs; with the default setting ("outcome") it is not even drawn.
    shown_plots = hidden_failures = 0
    for student, result in graded.items():
        notebook = nbformat.read(course / "autograded" / student / ASSIGNMENT / NOTEBOOK, as_version=4)
        cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in notebook.cells}
        for exercise in result["exercises"]:
            plots = [(c.get("hidden"), f) for c in exercise["checks"] for f in c.get("files", []) if f.endswith(".png")]
            public = [f for hidden, f in plots if not hidden]
            images = [o for o in cells[f"test-{exercise['slug']}"].outputs if "image/png" in o.get("data", {})]
            assert len(images) == len(public), f"{student}, {exercise['slug']}: {len(public)} plots, {len(images)} shown"
            assert len(plots) == len(public), f"{student}, {exercise['slug']}: a hidden check's plot was drawn"
            shown_plots += len(public)
            if exercise["slug"] == "learning_rate":  # the exercise whose failing runs draw
                hidden_failures += sum(1 for c in exercise["checks"] if c.get("hidden") and not c["passed"])
    assert shown_plots and hidden_failures, "the class should fail public and hidden checks that draw"


def test_a_grading_server_whose_zygote_died_is_replaced_and_the_exercise_still_graded(course: Path) -> None:
    # The instructor's grading server holds the reference while it grades: it may not fork a new
    # zygote. It ends with no result instead, and the kernel's side grades the exercise again in a fresh one.
    import threading

    from graders.frontends.nbgrader.bundle import PACKAGE
    from graders.frontends.nbgrader.grading_server import GradingServer

    slug = "sin_exp_derivative"  # its checks make many calls: the worker is there for a while
    source = (ROOT / "reference" / LESSON.folder / f"{slug}.py").read_text()
    server = GradingServer(course / "source" / ASSIGNMENT / PACKAGE, ROOT)
    graded: list = []
    try:
        grading = threading.Thread(target=lambda: graded.append(server.grade(LESSON.folder, slug, source, 300)))
        grading.start()
        first = None
        while first is None and grading.is_alive():
            first = server.process.pid if server.process is not None else None
            time.sleep(0.01)
        zygote = _zygote_below(first)
        os.kill(zygote, 9)
        grading.join(300)
        (result, detail), = graded
        assert result is not None and result.score == LESSON.exercise(slug).points, detail
        assert server.process is not None and server.process.pid != first
    finally:
        server.close()


def _zygote_below(root: int) -> int:
    """The parent of a confined worker among `root`'s children (waits for one, up to 120 s)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        parents, workers = {}, []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                    if "Seccomp:\t2" in (entry / "status").read_text():
                        workers.append(int(entry.name))
                except (OSError, IndexError, ValueError):
                    continue
        for worker in workers:
            if parents.get(parents.get(worker, 0)) == root:
                return parents[worker]
        time.sleep(0.02)
    raise AssertionError("no worker appeared below the grading server")
