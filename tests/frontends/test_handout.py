"""The handout repository for the `pytest exercises/` way, as students get it: built with
`python -m graders release`, scanned for anything that must not reach students, installed in a
fresh virtual environment that has never seen this project, and run there: `pytest exercises/`
gives the public feedback this repository gives, and GitHub Classroom's command gives the
reporter its per-exercise runner results. The stubs handed out, by the release and by the
nbgrader build's answer cells, are the committed ones, never an instructor's solved working copy."""

from __future__ import annotations

import ast
import base64
import hashlib
import itertools
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
import yaml

import course_config
from conftest import STUBS
from mistake_catalogue import submission
from graders.frontends import release
from graders.frontends.nbgrader.answer_cell import answer_source
from graders.frontends.platforms import runner_id

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
MISTAKE = submission("sin_exp_derivative", "sign_error")


@pytest.fixture(scope="module")
def handout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("handout") / "lesson01-exercises"
    run = subprocess.run([sys.executable, "-m", "graders", "release", str(folder), "--classroom"], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return folder


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, handout: Path) -> Path:
    """A fresh virtual environment with only what the handout's pyproject.toml installs, pinned as its README says."""
    env = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=300)
    # --no-compile: pip would byte-compile all of torch (about 10 CPU-s, half the install) for imports that
    # compile what they need anyway; what is installed, and from which requirements, is the student's.
    install = subprocess.run([str(env / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile",
                              str(handout), "-c", str(handout / "constraints.txt")], capture_output=True, text=True, timeout=1200)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-3000:]
    return env


def _texts(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(errors="replace") for p in folder.rglob("*")
            if p.is_file() and p.suffix in (".py", ".json", ".toml", ".md", ".yml", ".ini", ".txt")}


class _EmptyStrings(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.Constant("") if isinstance(node.value, str) else node


def _code_lines(source: str) -> set[str]:
    """A module's code as its set of lines, string literals emptied (a hint may quote a formula)."""
    return {line.strip() for line in ast.unparse(_EmptyStrings().visit(ast.parse(source))).splitlines()}


def _bodies(source: str) -> dict[str, set[str]]:
    """Each function's body, docstring aside, as its set of long code lines."""
    found = {}
    for node in ast.walk(_EmptyStrings().visit(ast.parse(source))):
        if isinstance(node, ast.FunctionDef):
            body = node.body[1:] if isinstance(node.body[0], ast.Expr) else node.body
            lines = {line.strip() for statement in body for line in ast.unparse(statement).splitlines()}
            found[node.name] = {line for line in lines if len(line) >= 24}
    return found


def test_the_handout_has_no_reference_code_and_no_hidden_check(handout: Path) -> None:
    texts = _texts(handout)
    code = {name: _code_lines(text) for name, text in texts.items() if name.endswith(".py")}
    stubs = set().union(*(_code_lines((STUBS / "lesson01" / f"{e.slug}.py").read_text())
                          for e in LESSON.exercises))
    for exercise in LESSON.exercises:
        reference = (ROOT / "reference" / "lesson01" / f"{exercise.slug}.py").read_text()
        for function, body in _bodies(reference).items():
            body -= stubs
            for name, lines in code.items():
                assert not body or len(body & lines) * 2 < len(body), f"{name} holds {exercise.slug}.{function}"
        for check in (c for c in exercise.checks if c.hidden):
            leaks = [name for name, text in texts.items() if re.search(rf"\b{check.id}\b", text)]
            assert not leaks, f"hidden check {check.id} named in {leaks}"
    assert not (handout / "reference").exists() and not list(handout.rglob("*.pyc"))
    released = "".join(texts.values())
    assert "FORM_B_ORDER = {" not in released and '1: "cdab"' not in released  # the quiz's form B key


def _grade_in_repository(folder: Path, out: Path) -> dict:
    subprocess.run([sys.executable, "-m", "pytest", "exercises", "--submission", str(folder), "-m", "not hidden",
                    "--json", str(out), "-q", "-p", "no:cacheprovider", "--plots", str(out.parent / "plots")],
                   cwd=ROOT, capture_output=True, timeout=900)
    return json.loads(out.read_text())


def test_pytest_exercises_in_a_fresh_venv_gives_the_repositorys_public_feedback(handout: Path, venv: Path,
                                                                               tmp_path: Path) -> None:
    work = tmp_path / "clone"
    shutil.copytree(handout, work)
    (work / "exercises" / "lesson01" / "sin_exp_derivative.py").write_text(MISTAKE)
    shutil.copyfile(ROOT / "reference" / "lesson01" / "views.py", work / "exercises" / "lesson01" / "views.py")
    python = str(venv / "bin" / "python")
    assert subprocess.run([python, "-c", "import graders"], cwd=work, capture_output=True).returncode != 0  # never seen it
    run = subprocess.run([python, "-m", "pytest", "exercises/", "--json", str(tmp_path / "handout.json")], cwd=work,
                         capture_output=True, text=True, timeout=900, env={**os.environ, "PYTHONPATH": ""})
    assert "Lesson 1:" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
    got = json.loads((tmp_path / "handout.json").read_text())
    want = _grade_in_repository(work / "exercises", tmp_path / "repository.json")
    for exercise in ("sin_exp_derivative", "views"):
        mine = {c["id"]: c for e in got["exercises"] if e["slug"] == exercise for c in e["checks"]}
        theirs = {c["id"]: c for e in want["exercises"] if e["slug"] == exercise for c in e["checks"]}
        assert mine.keys() == theirs.keys()
        for check_id, check in mine.items():
            assert (check["passed"], check["score"], check["mistake"]) == (
                theirs[check_id]["passed"], theirs[check_id]["score"], theirs[check_id]["mistake"]), check_id
            assert check["message"] == theirs[check_id]["message"], check_id
    assert "sign error" in run.stdout


def test_the_classroom_workflow_runs_a_command_that_reports_every_exercise(handout: Path, venv: Path,
                                                                          tmp_path: Path) -> None:
    workflow = yaml.safe_load((handout / ".github" / "workflows" / "classroom.yml").read_text())
    steps = workflow["jobs"]["grade"]["steps"]
    command = next(s for s in steps if s.get("id") == "grade")["run"]
    reporter = next(s for s in steps if "autograding-grading-reporter" in s.get("uses", ""))
    runners = reporter["with"]["runners"].split(",")
    assert runners == [runner_id(e.slug) for e in LESSON.exercises]
    assert set(reporter["env"]) == {f"{r.upper()}_RESULTS" for r in runners}

    work = tmp_path / "clone"
    shutil.copytree(handout, work)
    shutil.copyfile(ROOT / "reference" / "lesson01" / "views.py", work / "exercises" / "lesson01" / "views.py")
    output = tmp_path / "github-output"
    python = command.replace("python", str(venv / "bin" / "python"), 1).split()
    subprocess.run(python, cwd=work, capture_output=True, timeout=900,
                   env={**os.environ, "GITHUB_OUTPUT": str(output), "PYTHONPATH": ""})
    found = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert set(found) == set(runners)
    for slug, runner in zip((e.slug for e in LESSON.exercises), runners):
        payload = json.loads(base64.b64decode(found[runner]))
        public = [c for c in LESSON.exercise(slug).checks if not c.hidden]
        assert payload["version"] == 1 and payload["max_score"] == pytest.approx(sum(c.points for c in public))
        assert [t["name"] for t in payload["tests"]] == [c.id for c in public]
        assert all(set(t) >= {"name", "score", "max_score", "status", "message"} for t in payload["tests"])
        solved = slug == "views"
        assert payload["status"] == ("pass" if solved else "fail")
        assert sum(t["score"] for t in payload["tests"]) == pytest.approx(payload["max_score"] if solved else 0)


def _installed_plugin(env: dict[str, str], folder: Path) -> str:
    """The name of this package's pytest plugin entry point, as pytest in `folder` would load it."""
    probe = ("from importlib.metadata import entry_points\n"
             "found = [e for e in entry_points(group='pytest11') if e.value == 'graders.frontends.pytest_plugin']\n"
             "print(' '.join(e.name for e in found)); [e.load() for e in found]")
    run = subprocess.run([sys.executable, "-c", probe], cwd=folder, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0 and run.stdout.strip(), (
        "this test needs the course package installed (pip install -e .) with its pytest plugin importable: "
        + run.stdout + run.stderr[-2000:])
    return run.stdout.strip()


def test_the_handouts_checks_run_and_grade_where_this_package_is_installed(handout: Path, tmp_path: Path) -> None:
    """A student, or a TA, with the course package installed in the same environment (pip install -e .):
    pytest loads its plugin by entry point, and the handout's bundled copy registers the same options.
    The README's command must still run the handout's own checks, against its recorded values."""
    work = tmp_path / "clone"
    shutil.copytree(handout, work)
    shutil.copyfile(ROOT / "reference" / "lesson01" / "views.py", work / "exercises" / "lesson01" / "views.py")
    # The installed package importable from the handout's folder too, whatever path its editable finder names.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    assert _installed_plugin(env, work) == release.INSTALLED_PLUGIN
    command = re.search(r"&& (python -m pytest exercises/)\n", (work / "README.md").read_text())
    assert command, "the README no longer says how to run the checks"
    out = tmp_path / "result.json"
    run = subprocess.run([sys.executable, *command[1].split()[1:], "--json", str(out)], cwd=work, env=env,
                         capture_output=True, text=True, timeout=900)
    assert "already added" not in run.stderr, run.stderr[-3000:]
    assert "Lesson 1:" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(out.read_text())
    scores = {e["slug"]: e["score"] for e in result["exercises"]}
    assert scores.keys() == {e.slug for e in LESSON.exercises}
    public = sum(c.points for c in LESSON.exercise("views").checks if not c.hidden)
    assert scores.pop("views") == pytest.approx(public) and not any(scores.values()), scores
    assert not any(c["hidden"] for e in result["exercises"] for c in e["checks"])  # the handout's checks, not ours
    # Where the pyproject.toml's addopts are bypassed, the conftest says what to do instead of pytest's clash.
    bypassed = subprocess.run([sys.executable, "-m", "pytest", "exercises/", "-o", "addopts="], cwd=work, env=env,
                              capture_output=True, text=True, timeout=900)
    assert bypassed.returncode != 0 and "already added" not in bypassed.stderr, bypassed.stderr[-3000:]
    assert f"-p no:{release.INSTALLED_PLUGIN}" in bypassed.stderr, bypassed.stderr[-3000:]


# --- Nothing released decides a graded answer or names a hidden input -----------------------------

QUIZ = "quick_check"
_HEX = re.compile(r"[0-9a-f]{16,}")


def _quiz_form(stub: str, name: str) -> dict[int, dict[str, str]]:
    """Each question's options in one form of the quiz stub's docstring, whitespace collapsed."""
    text = ast.get_docstring(ast.parse(stub))
    start = text.index(f"Form {name} (")
    end = text.find("\nForm ", start + 1)
    questions = re.split(r"\n\s*(\d+)\.\s", text[start:end if end != -1 else None])[1:]
    options = {}
    for number, body in zip(questions[::2], questions[1::2]):
        body = re.sub(r"\n\s*\(.*\)\s*$", "", body.strip(), flags=re.DOTALL)  # form A's note of the section
        pieces = re.split(r"(?:^|\s)([a-d])\)\s", body)[1:]
        options[int(number)] = {letter: " ".join(option.split()) for letter, option in zip(pieces[::2], pieces[1::2])}
    return options


def _form_a_from_digests(handout: Path) -> dict[int, str]:
    """Form A's letters as a student recovers them from released digests: every salt-like string of a released
    module with every table from question numbers to digest-like strings, each option of each question tried."""
    options = _quiz_form((handout / "exercises" / "lesson01" / f"{QUIZ}.py").read_text(), "A")
    found: dict[int, str] = {}
    for path in handout.rglob("*.py"):
        tree = ast.parse(path.read_text())
        salts = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and _HEX.fullmatch(n.value)}
        tables = [{k.value: v.value for k, v in zip(n.keys, n.values)} for n in ast.walk(tree)
                  if isinstance(n, ast.Dict) and n.keys and all(
                      isinstance(k, ast.Constant) and k.value in options and isinstance(v, ast.Constant)
                      and isinstance(v.value, str) and _HEX.fullmatch(v.value) for k, v in zip(n.keys, n.values))]
        for salt, table in itertools.product(salts, tables):
            for question, digest in table.items():
                for letter in options[question]:
                    if hashlib.sha256(f"{salt}:{question}:{letter}".encode()).hexdigest().startswith(digest):
                        found[question] = letter
    return found


def _form_b_from_texts(handout: Path, form_a: dict[int, str]) -> dict[int, str]:
    """Form B's letters for the options chosen in form A: the stub prints both forms' option texts."""
    stub = (handout / "exercises" / "lesson01" / f"{QUIZ}.py").read_text()
    a, b = _quiz_form(stub, "A"), _quiz_form(stub, "B")
    return {q: next(l for l, text in b[q].items() if text == a[q][letter]) for q, letter in form_a.items()}


def _quiz_answers(forms: dict[str, dict[int, str]]) -> str:
    return f"def answers(form: str = 'A') -> dict[int, str]:\n    return {forms!r}[form]\n"


def test_the_quiz_cannot_be_answered_from_the_handout(handout: Path, tmp_path: Path) -> None:
    """The attack of issue 42: form A from the released digests (at most four letters to try a question), form B
    by matching the stub's option texts, then graded as the instructor grades (hidden checks, live reference)."""
    form_a = _form_a_from_digests(handout)
    form_b = _form_b_from_texts(handout, form_a)
    guess = {q: "a" for q in range(1, 11)}  # where the handout tells nothing, a guess
    submission = tmp_path / "attack" / "lesson01"
    submission.mkdir(parents=True)
    (submission / f"{QUIZ}.py").write_text(_quiz_answers({"A": {**guess, **form_a}, "B": {**guess, **form_b}}))
    run = subprocess.run([sys.executable, "-m", "pytest", f"exercises/lesson01/{QUIZ}.py", "--submission",
                          str(submission.parent), "--json", str(tmp_path / "graded.json"), "-q", "-p", "no:cacheprovider",
                          "--plots", str(tmp_path / "plots")], cwd=ROOT, capture_output=True, text=True, timeout=900)
    graded = json.loads((tmp_path / "graded.json").read_text())
    quiz = next(e for e in graded["exercises"] if e["slug"] == QUIZ)
    assert quiz["max_score"] == LESSON.exercise(QUIZ).points, run.stdout[-2000:]
    assert not form_a, f"the handout gives form A's answers {form_a}; with form B from the texts they earned " \
                       f"{quiz['score']:g} of {quiz['max_score']:g} points"
    assert quiz["score"] == 0, {c["id"]: c["passed"] for c in quiz["checks"]}


def _handout_quiz_result(handout: Path, folder: Path, forms: dict[str, dict[int, str]]) -> dict[str, tuple]:
    """The handout's own check of the quiz, run as the student runs it, on these answers: each check's verdict."""
    work = folder / "clone"
    shutil.copytree(handout, work)
    (work / "exercises" / "lesson01" / f"{QUIZ}.py").write_text(_quiz_answers(forms))
    run = subprocess.run([sys.executable, "-m", "pytest", f"exercises/lesson01/{QUIZ}.py", "--json",
                          str(folder / "result.json")], cwd=work, capture_output=True, text=True, timeout=900,
                         env={**os.environ, "PYTHONPATH": ""})
    assert (folder / "result.json").is_file(), run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads((folder / "result.json").read_text())
    return {c["id"]: (c["passed"], c["score"], c["points"]) for e in result["exercises"] for c in e["checks"]}


def test_the_handouts_quiz_check_cannot_tell_right_answers_from_wrong_ones(handout: Path, tmp_path: Path) -> None:
    """Run locally, a check that knew the answers would be an oracle: four tries a question at most."""
    key = {form: _reference_answers(ROOT, form) for form in ("A", "B")}
    stub = (handout / "exercises" / "lesson01" / f"{QUIZ}.py").read_text()
    options = _quiz_form(stub, "A")
    wrong_a = {q: next(l for l in options[q] if l != letter) for q, letter in key["A"].items()}
    wrong = {"A": wrong_a, "B": _form_b_from_texts(handout, wrong_a)}
    (tmp_path / "right").mkdir()
    (tmp_path / "wrong").mkdir()
    right_seen = _handout_quiz_result(handout, tmp_path / "right", key)
    wrong_seen = _handout_quiz_result(handout, tmp_path / "wrong", wrong)
    assert right_seen == wrong_seen, f"the handout tells the key {right_seen} from wrong answers {wrong_seen}"
    assert right_seen and all(passed and points == 0 for passed, _, points in right_seen.values()), right_seen


def _released_texts(handout: Path) -> dict[str, str]:
    return {str(p.relative_to(handout)): p.read_text(errors="replace") for p in handout.rglob("*") if p.is_file()}


def _read_by_public_checks(exercise: course_config.Exercise) -> tuple[set[str], set[str]]:
    """From the instructor's checks module: the strings in the code its public checks reach (a setting is read by
    its name, EXERCISE.seed("lesson_data")), and the top-level constants only its hidden checks reach."""
    tree = ast.parse((ROOT / "graders" / LESSON.folder / exercise.slug / "checks.py").read_text())
    defined: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined[node.name] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            defined[node.targets[0].id] = node

    def reached(roots: list[str]) -> set[str]:
        seen, queue = set(), list(roots)
        while queue:
            name = queue.pop()
            if name in seen or name not in defined:
                continue
            seen.add(name)
            queue += [n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(defined[name])
                      if isinstance(n, (ast.Name, ast.Attribute))]
        return seen

    public = reached([f"test_{c.id}" for c in exercise.checks if not c.hidden] + ["worker_warm_up", "pytestmark"])
    hidden = reached([f"test_{c.id}" for c in exercise.checks if c.hidden])
    strings = {n.value for name in public for n in ast.walk(defined[name])
               if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    constants = {name for name in hidden - public if isinstance(defined[name], ast.Assign)}
    return strings, constants


def test_no_seed_constant_or_case_only_hidden_checks_use_is_released(handout: Path) -> None:
    """Derived from the manifests and the checks, not listed here: a seed or tolerance no public check reads (and the
    twins seed, read only where the reference is live), and a constant only hidden checks reach. Neither its name in
    its exercise's released manifest or checks, nor its description, nor its value (five digits or more, where no
    released setting has the same) may be released."""
    texts = _released_texts(handout)
    released_settings = {entry if isinstance(entry, (int, float)) else entry["value"]
                         for name, text in texts.items() if name.endswith("exercise.toml")
                         for table in ("seeds", "tolerances") for entry in tomllib.loads(text).get(table, {}).values()}
    leaks = []
    for exercise in LESSON.exercises:
        room = f"{release.PACKAGE}/{LESSON.folder}/{exercise.slug}"
        manifest = tomllib.loads(texts[f"{room}/exercise.toml"])
        checks = texts[f"{room}/checks.py"]
        strings, constants = _read_by_public_checks(exercise)
        for table, settings in (("seeds", exercise.seeds), ("tolerances", exercise.tolerances)):
            for name, setting in settings.items():
                if name in strings and name != "twins":
                    continue
                where = [f"its name in {room}/exercise.toml"] if name in manifest.get(table, {}) else []
                # The twins seed is the same idea in every exercise: course_config.py (released) names and describes
                # it, and a check may read it in its twin run (linear_module); only its value would tell the inputs.
                if name != "twins":
                    where += [f"its name in {room}/checks.py"] if re.search(rf"[\"']{name}[\"']", checks) else []
                    where += [f"its description in {f}" for f, text in texts.items() if setting.description in text]
                value = setting.value
                if isinstance(value, int) and value >= 10_000 and value not in released_settings:
                    where += [f"its value in {f}" for f, text in texts.items()
                              if re.search(rf"(?<![\w.]){value}(?![\w.])", text)]
                leaks += [f"{exercise.slug} {table}.{name} = {value}: {w}" for w in where]
        for name in constants:
            if re.search(rf"^{name}\s*[:=]", checks, re.MULTILINE):
                leaks.append(f"{exercise.slug}: constant {name}, which only hidden checks use, in {room}/checks.py")
    assert not leaks, "\n".join(leaks)
    assert not any(name.endswith(f"{LESSON.folder}/cases.py") for name in texts), "the recipes of the hidden cases"


def test_every_reference_earns_every_public_point_from_the_handouts_checks(handout: Path, tmp_path: Path) -> None:
    """What the handout leaves out, its public checks do not need: each reference, graded by them, passes them all."""
    work = tmp_path / "clone"
    shutil.copytree(handout, work)
    for exercise in LESSON.exercises:
        shutil.copyfile(ROOT / "reference" / "lesson01" / f"{exercise.slug}.py",
                        work / "exercises" / "lesson01" / f"{exercise.slug}.py")
    run = subprocess.run([sys.executable, "-m", "pytest", "exercises/", "--json", str(tmp_path / "result.json")],
                         cwd=work, capture_output=True, text=True, timeout=900, env={**os.environ, "PYTHONPATH": ""})
    assert (tmp_path / "result.json").is_file(), run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads((tmp_path / "result.json").read_text())
    failed = {f"{e['slug']}.{c['id']}": c["message"][:300] for e in result["exercises"] for c in e["checks"]
              if not c["passed"]}
    assert not failed, failed
    assert {e["slug"] for e in result["exercises"]} == {e.slug for e in LESSON.exercises}


# --- The handout holds stubs, always --------------------------------------------------------

STUB_TODO = "        # TODO: write this method.\n        raise NotImplementedError"
INSTRUCTOR = ["git", "-c", "user.name=Instructor", "-c", "user.email=instructor@example.invalid",
              "-c", "commit.gpgsign=false"]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An instructor's git checkout of the course: this project's files as they are now (its stubs as
    committed), in one commit (a clone of the last commit would test the package as it was, not as it is)."""
    folder = tmp_path_factory.mktemp("checkout") / "course"
    shutil.copytree(ROOT, folder, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", ".*cache"))
    shutil.rmtree(folder / "exercises")  # the stubs as committed, not what this checkout's owner tried
    shutil.copytree(STUBS, folder / "exercises")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the course"]):
        subprocess.run([*INSTRUCTOR, *command], cwd=folder, check=True, capture_output=True, timeout=120)
    return folder


def _in_course(course: Path) -> dict[str, str]:
    """The environment of a command run in `course`, so that Python imports that folder's
    `graders` and `course_config`, not the editable install of this project."""
    env = {**os.environ, "PYTHONPATH": str(course)}
    where = "import course_config, graders; print(course_config.ROOT); print(graders.__file__)"
    seen = subprocess.run([sys.executable, "-c", where], cwd=course, env=env, capture_output=True, text=True,
                          check=True, timeout=120)
    root, package = seen.stdout.split()
    assert Path(root) == course and Path(package).is_relative_to(course), seen.stdout
    return env


def _release(course: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders", "release", str(out)], cwd=course, env=_in_course(course),
                          capture_output=True, text=True, check=False, timeout=900)


def _committed(course: Path, slug: str) -> bytes:
    return subprocess.run(["git", "show", f"HEAD:exercises/lesson01/{slug}.py"], cwd=course, capture_output=True,
                          check=True, timeout=60).stdout


def _solve(course: Path) -> dict[str, str]:
    """Try three exercises as an instructor would: a whole solution, one method of a class, and
    a quiz whose answers sit in a module-level constant. Returns the solved files' texts."""
    stubs = course / "exercises" / "lesson01"
    shutil.copyfile(course / "reference" / "lesson01" / "views.py", stubs / "views.py")
    micrograd = (stubs / "micrograd.py").read_text()
    assert STUB_TODO in micrograd
    (stubs / "micrograd.py").write_text(micrograd.replace(
        STUB_TODO, "        self.data, self.grad = float(data), 0.0\n        self._prev, self._op = set(_children), _op", 1))
    key = {form: _reference_answers(course, form) for form in ("A", "B")}
    quiz = (stubs / "quick_check.py").read_text()
    quiz = quiz.replace("\n\ndef answers(", f"\n\nANSWERS = {key!r}\n\n\ndef answers(", 1)
    (stubs / "quick_check.py").write_text(quiz.replace("    raise NotImplementedError", "    return ANSWERS[form]", 1))
    return {slug: (stubs / f"{slug}.py").read_text() for slug in ("views", "micrograd", "quick_check")}


def _reference_answers(course: Path, form: str) -> dict[int, str]:
    return runpy.run_path(str(course / "reference" / "lesson01" / "quick_check.py"))["answers"](form)


def test_an_untouched_checkout_releases_exactly_the_committed_stubs(checkout: Path, tmp_path: Path) -> None:
    run = _release(checkout, tmp_path / "out")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    for exercise in LESSON.exercises:
        released = tmp_path / "out" / "exercises" / "lesson01" / f"{exercise.slug}.py"
        assert released.read_bytes() == _committed(checkout, exercise.slug), exercise.slug
    assert "exercises/lesson01/" not in run.stdout + run.stderr  # nothing to say about any stub


def test_a_checkout_with_solved_exercises_releases_the_committed_stubs_and_says_so(checkout: Path,
                                                                                  tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(checkout, course)
    solved = _solve(course)
    run = _release(course, tmp_path / "out")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    for exercise in LESSON.exercises:
        released = tmp_path / "out" / "exercises" / "lesson01" / f"{exercise.slug}.py"
        assert released.read_bytes() == _committed(course, exercise.slug), exercise.slug
    notes = {slug: [line for line in run.stdout.splitlines() if f"exercises/lesson01/{slug}.py" in line]
             for slug in solved}
    assert notes["views"] and "implements as_grid, flatten, shares_memory" in notes["views"][0], run.stdout
    assert notes["micrograd"] and "implements Value.__init__;" in notes["micrograd"][0], run.stdout
    assert notes["quick_check"] and "implements answers" in notes["quick_check"][0], run.stdout
    assert all(len(lines) == 1 and "committed stub" in lines[0] for lines in notes.values()), notes
    assert "ANSWERS = {" not in "".join(_texts(tmp_path / "out").values())
    for slug, text in solved.items():  # the instructor's work is theirs: left as it was
        assert (course / "exercises" / "lesson01" / f"{slug}.py").read_text() == text


def test_a_copy_without_git_whose_stub_is_solved_is_refused_before_anything_is_written(checkout: Path,
                                                                                      tmp_path: Path) -> None:
    course = tmp_path / "unpacked"
    shutil.copytree(checkout, course, ignore=shutil.ignore_patterns(".git"))
    _solve(course)
    run = _release(course, tmp_path / "out")
    assert run.returncode != 0 and not (tmp_path / "out").exists(), run.stdout[-2000:]
    assert "recording" not in run.stdout  # said at once, not after the slow recording
    lines = run.stderr.splitlines()
    for slug, implemented in (("views", "as_grid, flatten, shares_memory"), ("micrograd", "Value.__init__"),
                              ("quick_check", "answers")):
        line = next((l for l in lines if f"exercises/lesson01/{slug}.py implements {implemented}:" in l), "")
        assert f"git checkout -- exercises/lesson01/{slug}.py" in line, run.stderr
    assert "Traceback" not in run.stderr


def test_the_nbgrader_answer_cells_come_from_the_committed_stubs(checkout: Path, tmp_path: Path) -> None:
    """The answer cell is the stub with the reference's bodies in solution regions, which nbgrader
    removes; whatever else a solved working copy holds (a constant of answers) would stay."""
    course = tmp_path / "course"
    shutil.copytree(checkout, course)
    _solve(course)
    run = subprocess.run([sys.executable, "-m", "graders", "nbgrader", "build", str(tmp_path / "nbgrader"),
                          "--exercise", "quick_check", "--exercise", "micrograd", "--no-prove"],
                         cwd=course, env=_in_course(course), capture_output=True, text=True, check=False, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    notebook = nbformat.read(tmp_path / "nbgrader" / "source" / "lesson01" / "lesson01.ipynb", as_version=4)
    cells = {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in notebook.cells}
    for slug in ("quick_check", "micrograd"):
        reference = (course / "reference" / "lesson01" / f"{slug}.py").read_text()
        want = answer_source(slug, _committed(course, slug).decode(), reference).rstrip("\n")
        assert cells[f"answer-{slug}"] == want, slug
        assert any(f"exercises/lesson01/{slug}.py" in line and "committed stub" in line
                   for line in run.stdout.splitlines()), run.stdout
    assert "ANSWERS = {" not in "".join(cells.values())
